package generate

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// empty reports whether the file is absent or holds only white space.
func (p *Parsed) empty() bool { return len(bytes.TrimSpace(p.src)) == 0 }

// ParseHookFile parses current by f's rules. Empty current is an absent
// (or empty) file and gives a Parsed with a nil Doc.
//
// A plan asks about one file many times (is our entry present, apply,
// remove, verify, for each scratch plan): a large file's parse is kept
// (parseCache), and each call gets its own copy of the tree and the
// decoded document, as a fresh parse would give.
func (f HookFile) ParseHookFile(current []byte) (*Parsed, error) {
	if len(current) < cacheFrom {
		return f.parse(current)
	}
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%x", f.Path, f.Agent, f.Strict, sha256.Sum256(current))
	parseCache.Lock()
	hit, ok := parseCache.m[key]
	parseCache.Unlock()
	if !ok {
		hit.p, hit.err = f.parse(current)
		parseCache.Lock()
		if len(parseCache.m) >= 8 {
			clear(parseCache.m)
		}
		parseCache.m[key] = hit
		parseCache.Unlock()
	}
	if hit.err != nil {
		if fe, ok := hit.err.(*FileError); ok {
			c := *fe
			return nil, &c
		}
		return nil, hit.err
	}
	p := &Parsed{src: current[hit.p.offset:], offset: hit.p.offset, tree: hit.p.tree.Clone(), Doc: deepCopy(hit.p.Doc)}
	return p, nil
}

// cacheFrom is the size from which a hook file's parse is kept.
const cacheFrom = 64 << 10

var parseCache = struct {
	sync.Mutex
	m map[string]parsed
}{m: map[string]parsed{}}

type parsed struct {
	p   *Parsed
	err error
}

func (f HookFile) parse(current []byte) (*Parsed, error) {
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
	if off, deep := TooDeep(p.src, MaxDepth); deep {
		return nil, f.depthError(p.src, off)
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
// and a strict JSON reader does not. It reports every one of them at
// once, each with its line and column, so one run tells the whole fix.
func strictCheck(f HookFile, src []byte) error {
	// Syntax only: numbers such as 1e400 are valid JSON to the agent.
	var raw json.RawMessage
	err := json.Unmarshal(src, &raw)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &FileError{Path: f.Path, Problem: "cannot be read as strict JSON (" + err.Error() + ")",
			Consequence: f.Agent + " may ignore this whole file", Fix: "simplify the file, then run nowhook setup again"}
	}
	consequence := f.Agent + " currently ignores this whole file, so every hook and setting in it is off"
	comments, commas := nonStrict(src)
	if len(comments)+len(commas) == 0 {
		line, col := lineCol(src, int(se.Offset)-1)
		return &FileError{Path: f.Path, Line: line, Col: col,
			Problem:     "is not strict JSON (" + se.Error() + ")",
			Consequence: consequence,
			Fix:         "correct it (" + f.Path + " must be plain JSON), then run nowhook setup again"}
	}
	first := -1
	for _, off := range append(append([]int(nil), comments...), commas...) {
		if first < 0 || off < first {
			first = off
		}
	}
	line, col := lineCol(src, first)
	var what, fix []string
	if n := len(comments); n > 0 {
		what = append(what, counted(n, "a comment", "comments")+at(src, comments, first))
		fix = append(fix, map[bool]string{true: "the comment", false: "the comments"}[n == 1])
	}
	if n := len(commas); n > 0 {
		what = append(what, counted(n, "a trailing comma", "trailing commas")+at(src, commas, first))
		fix = append(fix, map[bool]string{true: "the trailing comma", false: "the trailing commas"}[n == 1])
	}
	return &FileError{Path: f.Path, Line: line, Col: col,
		Problem:     "has " + strings.Join(what, " and ") + ", so it is not strict JSON",
		Consequence: consequence,
		Fix:         "remove " + strings.Join(fix, " and ") + " (" + f.Path + " must be plain JSON), then run nowhook setup again"}
}

// counted names n things: one as one, more with their number.
func counted(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// at lists the positions of offs other than the one the message leads
// with, as " (at 5:12, 9:4)".
func at(src []byte, offs []int, lead int) string {
	var where []string
	for _, off := range offs {
		if off == lead {
			continue
		}
		line, col := lineCol(src, off)
		where = append(where, fmt.Sprintf("%d:%d", line, col))
	}
	if len(where) == 0 {
		return ""
	}
	if len(where) == len(offs) {
		return " (at " + strings.Join(where, ", ") + ")"
	}
	return " (also at " + strings.Join(where, ", ") + ")"
}

// TrailingCommas returns the offsets of src's trailing commas (a comma
// before a closing bracket, with only white space or comments between),
// for agents that take comments but not trailing commas.
func TrailingCommas(src []byte) []int {
	_, commas := nonStrict(src)
	return commas
}

// LineCol returns the 1-based line and column of offset off in src.
func LineCol(src []byte, off int) (line, col int) { return lineCol(src, off) }

// nonStrict returns the offsets of every comment and every trailing comma
// (a comma before a closing bracket, with only white space or comments
// between) in src, which hujson has already parsed.
func nonStrict(src []byte) (comments, commas []int) {
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			comments = append(comments, i)
			end := len(src)
			if src[i+1] == '/' {
				if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
					end = i + j
				}
			} else if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				end = i + 2 + j + 2
			}
			i = end - 1
		case c == ',':
			if j := skipExtra(src, i+1); j < len(src) && (src[j] == ']' || src[j] == '}') {
				commas = append(commas, i)
			}
		}
	}
	return comments, commas
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
// white space: a BOM and the white space are kept, in front of it (no
// byte of a file is lost, not even a blank line).
func (f HookFile) newFile(current []byte, h Hook) ([]byte, error) {
	doc := append(Ordered{}, f.NewFile...)
	doc = append(doc, Member{"hooks", Ordered{{f.Event, []Ordered{h.Entry}}}})
	compact, err := marshal(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(current)
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
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
