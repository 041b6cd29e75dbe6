package generate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// HookFile is the schema of one agent's JSON hook file: where our entry
// lives and how the agent reads the file. One editor serves every agent.
type HookFile struct {
	Path  string // as shown in messages, e.g. ".claude/settings.json"
	Agent string // e.g. "Claude Code"
	Event string // the key under "hooks", e.g. "SessionStart"
	// Grouped: the event holds matcher groups whose "hooks" hold handlers
	// (Claude Code, Codex); otherwise the event holds handlers (Cursor).
	Grouped bool
	// Strict: the agent ignores the whole file if it is not strict JSON.
	Strict bool
	// NewFile holds top-level members, in order, that a new file starts
	// with before "hooks" (Cursor's "version": 1).
	NewFile []Member
	// Check validates the parsed file the way the agent does; an error
	// means the agent drops the file, and nowhook writes nothing to it.
	Check func(doc any) *FileError
}

// Member is one object member of a value that nowhook writes.
type Member struct {
	Key   string
	Value any
}

// Hook is our entry in a hook file.
type Hook struct {
	// Entry is what we append to the event's array: a matcher group for
	// grouped files, a handler otherwise. Its JSON keeps the member order.
	Entry Ordered
	// Ours recognises our handler by its command string, in this or any
	// earlier form (agents strip unknown keys, so nothing else is stable).
	Ours func(command string) bool
}

// Ordered is a JSON object whose members keep their order.
type Ordered []Member

// MarshalJSON writes the members in order, without HTML escaping.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// FileError is a problem with a file nowhook reads: where it is, what it
// means for the agent, and how to fix it.
type FileError struct {
	Path        string
	Line, Col   int    // 0 when unknown
	Problem     string // what is wrong
	Consequence string // what the agent does with it
	Fix         string // what the user should do
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Consequence != "" {
		b.WriteString("; ")
		b.WriteString(e.Consequence)
	}
	if e.Fix != "" {
		b.WriteString(". Fix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

var bom = []byte("\xef\xbb\xbf")

// Parsed is a hook file read the way its agent reads it.
type Parsed struct {
	src    []byte // the bytes after any BOM
	offset int    // length of the BOM
	tree   hujson.Value
	Doc    any // the decoded value; nil for an absent or empty file
}

// ParseHookFile parses current by f's rules. Empty current is an absent
// (or empty) file and gives a Parsed with a nil Doc.
func (f HookFile) ParseHookFile(current []byte) (*Parsed, error) {
	p := &Parsed{src: current}
	if bytes.HasPrefix(current, bom) {
		p.src, p.offset = current[len(bom):], len(bom)
	}
	if !utf8.Valid(p.src) {
		return nil, &FileError{Path: f.Path, Problem: "is not valid UTF-8", Consequence: f.Agent + " cannot read it", Fix: "save the file as UTF-8"}
	}
	if len(bytes.TrimSpace(p.src)) == 0 {
		return p, nil
	}
	tree, err := hujson.Parse(p.src)
	if err != nil {
		line, col := syntaxPosition(p.src, err)
		return nil, &FileError{Path: f.Path, Line: line, Col: col,
			Problem:     "is not valid JSON (" + trimHujsonPrefix(err) + ")",
			Consequence: f.Agent + " cannot load it, so none of its hooks run",
			Fix:         "correct the JSON, then run nowhook setup again"}
	}
	p.tree = tree
	if f.Strict {
		if err := strictCheck(f, p.src); err != nil {
			return nil, err
		}
	}
	std := tree.Clone()
	std.Standardize()
	d := json.NewDecoder(bytes.NewReader(std.Pack()))
	d.UseNumber()
	if err := d.Decode(&p.Doc); err != nil {
		return nil, &FileError{Path: f.Path, Problem: "is not valid JSON (" + err.Error() + ")", Consequence: f.Agent + " cannot load it"}
	}
	return p, nil
}

// strictCheck refuses comments and trailing commas, which hujson accepts
// and a strict JSON reader does not.
func strictCheck(f HookFile, src []byte) error {
	var v any
	err := json.Unmarshal(src, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	off := 0
	if errors.As(err, &se) {
		off = int(se.Offset) - 1
	}
	what := "a comment"
	if off >= 0 && off < len(src) && (src[off] == '}' || src[off] == ']') {
		// The strict reader stops at the bracket after a trailing comma.
		what = "a trailing comma"
		if i := bytes.LastIndexByte(src[:off], ','); i >= 0 {
			off = i
		}
	}
	line, col := lineCol(src, off)
	return &FileError{Path: f.Path, Line: line, Col: col,
		Problem:     "has " + what + ", so it is not strict JSON",
		Consequence: f.Agent + " currently ignores this whole file, so every hook and setting in it is off",
		Fix:         "remove " + strings.Replace(what, "a ", "the ", 1) + " (" + f.Path + " must be plain JSON), then run nowhook setup again"}
}

func syntaxPosition(src []byte, err error) (line, col int) {
	var line0, col0 int
	if _, e := fmt.Sscanf(err.Error(), "hujson: line %d, column %d", &line0, &col0); e == nil {
		return line0, col0
	}
	return 0, 0
}

func trimHujsonPrefix(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); strings.HasPrefix(s, "hujson: line ") && i >= 0 {
		if j := strings.Index(s[i+2:], ": "); j >= 0 {
			return s[i+2+j+2:]
		}
	}
	return s
}

func lineCol(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	before := src[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// MergeHook returns current with our hook entry present exactly once,
// appended at the end of the event's array, or an older form of it
// replaced in place. Every byte outside the change stays. A second call on
// its own output returns the same bytes.
func (f HookFile) MergeHook(current []byte, h Hook) ([]byte, error) {
	p, err := f.ParseHookFile(current)
	if err != nil {
		return nil, err
	}
	if p.Doc == nil {
		return f.newFile(current, h)
	}
	if f.Check != nil {
		if ferr := f.Check(p.Doc); ferr != nil {
			return nil, ferr
		}
	}
	e := newEditor(p)
	root, ok := p.tree.Value.(*hujson.Object)
	if !ok {
		return nil, f.typeError(p, &p.tree, "the top level", "an object")
	}
	hooks, err := f.member(p, root, "hooks", "hooks")
	if err != nil {
		return nil, err
	}
	entry, err := marshal(h.Entry)
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		value := Ordered{{f.Event, []json.RawMessage{entry}}}
		if err := e.insertMember(&p.tree, "hooks", value); err != nil {
			return nil, err
		}
		return f.finish(p, e, h)
	}
	hooksObj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil, f.typeError(p, hooks, "hooks", "an object of event names")
	}
	event, err := f.member(p, hooksObj, f.Event, "hooks."+f.Event)
	if err != nil {
		return nil, err
	}
	if event == nil {
		if err := e.insertMember(hooks, f.Event, []json.RawMessage{entry}); err != nil {
			return nil, err
		}
		return f.finish(p, e, h)
	}
	arr, ok := event.Value.(*hujson.Array)
	if !ok {
		return nil, f.typeError(p, event, "hooks."+f.Event, "an array of "+f.entryKind())
	}
	ours := f.oursIn(p, arr, h)
	if len(ours) == 0 {
		if err := e.appendElement(event, json.RawMessage(entry)); err != nil {
			return nil, err
		}
		return f.finish(p, e, h)
	}
	if len(ours) == 1 && ours[0].groupOnly && sameJSON(&arr.Elements[ours[0].elem], entry) {
		return current, nil
	}
	// Upgrade the first of ours in place; drop any later copies, which
	// would run the reminder twice.
	first := ours[0]
	if err := f.replaceOurs(p, e, arr, first, h, entry); err != nil {
		return nil, err
	}
	for i := len(ours) - 1; i >= 1; i-- {
		f.removeOurs(e, arr, ours[i])
	}
	return f.finish(p, e, h)
}

func (f HookFile) entryKind() string {
	if f.Grouped {
		return "matcher groups"
	}
	return "hook handlers"
}

// ourRef locates one of our handlers: element i of the event array and,
// for grouped files, handler j of that group's "hooks".
type ourRef struct {
	elem, handler int
	groupOnly     bool // the group holds our handler and nothing else
}

// oursIn finds our handlers in the event array.
func (f HookFile) oursIn(p *Parsed, arr *hujson.Array, h Hook) []ourRef {
	var refs []ourRef
	for i := range arr.Elements {
		var v any
		if decodeValue(&arr.Elements[i], &v) != nil {
			continue
		}
		obj, _ := v.(map[string]any)
		if obj == nil {
			continue
		}
		if !f.Grouped {
			if cmd, _ := obj["command"].(string); h.Ours(cmd) {
				refs = append(refs, ourRef{elem: i, handler: -1, groupOnly: true})
			}
			continue
		}
		handlers, _ := obj["hooks"].([]any)
		for j, hv := range handlers {
			ho, _ := hv.(map[string]any)
			if cmd, _ := ho["command"].(string); ho != nil && h.Ours(cmd) {
				refs = append(refs, ourRef{elem: i, handler: j, groupOnly: len(handlers) == 1})
			}
		}
	}
	return refs
}

// sameJSON reports whether v decodes to the same value as want.
func sameJSON(v *hujson.Value, want []byte) bool {
	var got, exp any
	if decodeValue(v, &got) != nil || json.Unmarshal(want, &exp) != nil {
		return false
	}
	return reflect.DeepEqual(got, exp)
}

func decodeValue(v *hujson.Value, out any) error {
	c := v.Clone()
	c.Standardize()
	return json.Unmarshal(c.Pack(), out)
}

func (f HookFile) replaceOurs(p *Parsed, e *editor, arr *hujson.Array, r ourRef, h Hook, entry []byte) error {
	if r.groupOnly {
		return e.replaceValue(&arr.Elements[r.elem], json.RawMessage(entry))
	}
	// Our handler shares a group with someone else's: replace the handler only.
	group := arr.Elements[r.elem].Value.(*hujson.Object)
	for _, m := range group.Members {
		if m.Name.Value.(hujson.Literal).String() == "hooks" {
			handlers := m.Value.Value.(*hujson.Array)
			var grp map[string]json.RawMessage
			if err := json.Unmarshal(entry, &grp); err != nil {
				return err
			}
			var hs []json.RawMessage
			if err := json.Unmarshal(grp["hooks"], &hs); err != nil || len(hs) != 1 {
				return fmt.Errorf("our %s entry must hold one handler", f.Path)
			}
			return e.replaceValue(&handlers.Elements[r.handler], hs[0])
		}
	}
	return nil
}

func (f HookFile) removeOurs(e *editor, arr *hujson.Array, r ourRef) {
	if r.groupOnly {
		e.removeElement(arr, r.elem)
		return
	}
	group := arr.Elements[r.elem].Value.(*hujson.Object)
	for _, m := range group.Members {
		if m.Name.Value.(hujson.Literal).String() == "hooks" {
			e.removeElement(m.Value.Value.(*hujson.Array), r.handler)
		}
	}
}

// member returns obj's member value named key, nil when absent. A key that
// appears twice is refused: readers disagree on which one counts.
func (f HookFile) member(p *Parsed, obj *hujson.Object, key, path string) (*hujson.Value, error) {
	var found *hujson.Value
	for i := range obj.Members {
		m := &obj.Members[i]
		if m.Name.Value.(hujson.Literal).String() != key {
			continue
		}
		if found != nil {
			line, col := lineCol(p.src, m.Name.StartOffset)
			return nil, &FileError{Path: f.Path, Line: line, Col: col,
				Problem:     path + " appears twice",
				Consequence: "readers disagree on which one " + f.Agent + " uses",
				Fix:         "merge the two into one, then run nowhook setup again"}
		}
		found = &m.Value
	}
	return found, nil
}

func (f HookFile) typeError(p *Parsed, v *hujson.Value, path, want string) error {
	line, col := lineCol(p.src, v.StartOffset)
	return &FileError{Path: f.Path, Line: line, Col: col,
		Problem:     fmt.Sprintf("%s is %s, but %s expects %s", path, KindName(v), f.Agent, want),
		Consequence: f.Agent + " rejects this value, so hooks under it do not run",
		Fix:         "correct " + path + " by hand (see the " + f.Agent + " hooks documentation), then run nowhook setup again"}
}

// KindName names the JSON kind of v for messages: "an object", "null", ...
func KindName(v *hujson.Value) string {
	switch v.Value.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a value"
}

// newFile writes a whole new file holding our hook. current is empty or
// whitespace; a BOM is kept.
func (f HookFile) newFile(current []byte, h Hook) ([]byte, error) {
	doc := append(Ordered{}, f.NewFile...)
	doc = append(doc, Member{"hooks", Ordered{{f.Event, []Ordered{h.Entry}}}})
	compact, err := marshal(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if bytes.HasPrefix(current, bom) {
		b.Write(bom)
	}
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// finish applies the edits, then re-parses the result by the agent's rules
// and checks that it equals the original plus exactly our change.
func (f HookFile) finish(p *Parsed, e *editor, h Hook) ([]byte, error) {
	out := e.apply()
	q, err := f.ParseHookFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s: internal error: the edited file does not parse (%v); nothing was written", f.Path, err)
	}
	want, err := f.expected(p.Doc, h)
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(normalize(want), normalize(q.Doc)) {
		return nil, fmt.Errorf("%s: internal error: the edit changed more than our hook entry; nothing was written", f.Path)
	}
	return out, nil
}

// expected computes, on decoded values, what MergeHook must produce.
func (f HookFile) expected(doc any, h Hook) (any, error) {
	entryJSON, err := marshal(h.Entry)
	if err != nil {
		return nil, err
	}
	var entry any
	if err := json.Unmarshal(entryJSON, &entry); err != nil {
		return nil, err
	}
	doc = deepCopy(doc)
	root := doc.(map[string]any)
	hooks, _ := root["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		root["hooks"] = hooks
	}
	arr, _ := hooks[f.Event].([]any)
	var out []any
	placed := false
	for _, el := range arr {
		kept, isOurs := f.withoutOurs(el, h, entry, !placed)
		if isOurs {
			if !placed {
				out = append(out, kept)
				placed = true
			} else if kept != nil {
				out = append(out, kept)
			}
			continue
		}
		out = append(out, el)
	}
	if !placed {
		out = append(out, entry)
	}
	hooks[f.Event] = out
	return doc, nil
}

// withoutOurs returns el with our handlers upgraded (first) or removed
// (later copies), and whether el held any of ours.
func (f HookFile) withoutOurs(el any, h Hook, entry any, first bool) (any, bool) {
	obj, _ := el.(map[string]any)
	if obj == nil {
		return el, false
	}
	if !f.Grouped {
		cmd, _ := obj["command"].(string)
		if !h.Ours(cmd) {
			return el, false
		}
		if first {
			return entry, true
		}
		return nil, true
	}
	handlers, _ := obj["hooks"].([]any)
	found := false
	var kept []any
	for _, hv := range handlers {
		ho, _ := hv.(map[string]any)
		cmd, _ := ho["command"].(string)
		if ho == nil || !h.Ours(cmd) {
			kept = append(kept, hv)
			continue
		}
		if found {
			continue // a second of ours in one group is dropped
		}
		found = true
		if len(handlers) == 1 {
			if first {
				return entry, true
			}
			return nil, true
		}
		if first {
			kept = append(kept, entry.(map[string]any)["hooks"].([]any)[0])
		}
	}
	if !found {
		return el, false
	}
	obj["hooks"] = kept
	return obj, true
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = deepCopy(x)
		}
		return s
	}
	return v
}

// normalize makes numbers comparable whatever decoder produced them.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
		return v
	case json.Number:
		return v.String()
	case float64:
		return json.Number(fmt.Sprint(v)).String()
	}
	return v
}
