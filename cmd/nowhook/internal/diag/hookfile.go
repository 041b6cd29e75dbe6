package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/generate"
)

// Hook file layouts (the agent table's HookFormat.Layout).
const (
	// LayoutGrouped: {"hooks": {EVENT: [{"matcher", "hooks": [handler...]}]}}.
	LayoutGrouped = "grouped"
	// LayoutFlat: {"hooks": {EVENT: [handler...]}}.
	LayoutFlat = "flat"
	// LayoutNamed: {NAME: {EVENT: [handler...]}}.
	LayoutNamed = "named"
)

// Format is how an agent reads a hook file, as far as reading it goes.
type Format struct {
	Title  string // the agent, as messages name it
	Strict bool   // strict JSON: no comment, no trailing comma
	Layout string // LayoutGrouped, LayoutFlat or LayoutNamed
}

// HookFile is one of an agent's hook files, read and walked the way the
// agent reads it.
type HookFile struct {
	Abs  string // absolute path
	Show string // as shown: relative to the root, or absolute
	User bool   // outside the repository (a user-level file)
	Raw  []byte
	// ReadErr is set when the file exists but cannot be read.
	ReadErr error
	// ParseErr is set when the agent cannot load the file at all.
	ParseErr *generate.FileError
	// Dropped is set when the file parses but the agent's own validation
	// drops all of it (Codex: an unknown top-level key, for example).
	Dropped *generate.FileError
	// Refused is set when setup refuses to edit the file: the error
	// generate's MergeHook gives for it, word for word (a value of the
	// wrong type the agent rejects, a key that appears twice, or any error
	// of ParseErr, in the same words).
	Refused  *generate.FileError
	Doc      map[string]any // the top-level object; nil when empty or broken
	Handlers []Handler
	// Shape lists entries the agent rejects, found while walking.
	Shape []ShapeProblem
}

// ShapeProblem is an entry of the wrong type in a hook file.
type ShapeProblem struct {
	At   string // JSON path
	Line int
	What string
}

// Handler is one hook handler in a hook file.
type Handler struct {
	File  *HookFile
	Event string
	Name  string // the named group (LayoutNamed)
	// Group is the index in the event's array; Index is the handler's
	// index in the group's "hooks" (LayoutGrouped), else -1.
	Group, Index int
	// Wrapped is false for a handler placed directly in a grouped
	// layout's event array, without the {"matcher", "hooks"} wrapper.
	Wrapped  bool
	Matcher  *string // nil when the group has no matcher (or it is null)
	BadMatch bool    // the matcher is not a string
	Obj      map[string]any
	Command  string // the command string; an array is joined with spaces
	Line     int
	At       string // JSON path, e.g. hooks.SessionStart[0].hooks[0]
	// GroupJSON is the standard JSON of the handler's matcher group.
	GroupJSON []byte
}

// Where names the handler for messages: file:line (JSON path).
func (h Handler) Where() string {
	return fmt.Sprintf("%s:%d (%s)", h.File.Show, h.Line, h.At)
}

// ReadHookFile reads the file at abs (shown as show; user: outside the
// repository) by the rules of the agent's format. It returns nil when the
// file does not exist.
func ReadHookFile(abs, show string, user bool, p Format) *HookFile {
	info, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return &HookFile{Abs: abs, Show: show, User: user, ReadErr: err}
	}
	f := &HookFile{Abs: abs, Show: show, User: user}
	if info.IsDir() {
		f.ReadErr = fmt.Errorf("is a directory, where %s expects a file", p.Title)
		return f
	}
	if f.Raw, err = ReadBounded(abs); err != nil {
		f.ReadErr = err
		return f
	}
	schema := generate.HookFile{Path: show, Agent: p.Title, Strict: p.Strict}
	parsed, err := schema.ParseHookFile(f.Raw)
	if err != nil {
		fe, ok := err.(*generate.FileError)
		if !ok {
			fe = &generate.FileError{Path: show, Problem: err.Error()}
		}
		f.ParseErr = fe
		return f
	}
	if parsed.Doc == nil {
		return f // empty: the agent loads nothing from it, and that is fine
	}
	src := bytes.TrimPrefix(f.Raw, []byte("\xef\xbb\xbf"))
	tree, err := hujson.Parse(src)
	if err != nil { // cannot happen: ParseHookFile parsed it
		f.ParseErr = &generate.FileError{Path: show, Problem: "is not valid JSON (" + err.Error() + ")"}
		return f
	}
	root, ok := tree.Value.(*hujson.Object)
	if !ok {
		f.ParseErr = &generate.FileError{Path: show, Line: 1, Col: 1, Problem: "the top level is " + generate.KindName(&tree) + ", not an object",
			Consequence: p.Title + " loads no hooks from it"}
		return f
	}
	f.Doc, _ = parsed.Doc.(map[string]any)
	w := walker{f: f, src: src}
	switch p.Layout {
	case LayoutGrouped, LayoutFlat:
		for i := range root.Members {
			m := &root.Members[i]
			if memberName(m) != "hooks" {
				continue
			}
			events, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				w.problem("hooks", &m.Value, "is "+generate.KindName(&m.Value)+", not an object of events")
				continue
			}
			for j := range events.Members {
				e := &events.Members[j]
				w.event("", memberName(e), "hooks."+memberName(e), &e.Value, p.Layout == LayoutGrouped)
			}
		}
	case LayoutNamed:
		for i := range root.Members {
			m := &root.Members[i]
			name := memberName(m)
			events, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				continue // not a hook group (a "$schema" or a comment key)
			}
			for j := range events.Members {
				e := &events.Members[j]
				w.event(name, memberName(e), name+"."+memberName(e), &e.Value, false)
			}
		}
	}
	return f
}

type walker struct {
	f   *HookFile
	src []byte
}

func (w walker) line(v *hujson.Value) int {
	return bytes.Count(w.src[:min(v.StartOffset, len(w.src))], []byte("\n")) + 1
}

func (w walker) problem(at string, v *hujson.Value, what string) {
	w.f.Shape = append(w.f.Shape, ShapeProblem{At: at, Line: w.line(v), What: what})
}

// event walks one event's array.
func (w walker) event(name, event, at string, v *hujson.Value, grouped bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		w.problem(at, v, "is "+generate.KindName(v)+", not an array")
		return
	}
	for gi := range arr.Elements {
		el := &arr.Elements[gi]
		elAt := fmt.Sprintf("%s[%d]", at, gi)
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			w.problem(elAt, el, "is "+generate.KindName(el)+", not an object")
			continue
		}
		if !grouped {
			w.handler(Handler{Event: event, Name: name, Group: gi, Index: -1, Wrapped: true, At: elAt}, el)
			continue
		}
		var hooks *hujson.Value
		var matcher *string
		badMatch := false
		for i := range obj.Members {
			m := &obj.Members[i]
			switch memberName(m) {
			case "hooks":
				hooks = &m.Value
			case "matcher":
				switch x := decode(&m.Value).(type) {
				case string:
					matcher = &x
				case nil:
				default:
					badMatch = true
				}
			}
		}
		if hooks == nil {
			// A handler without the group wrapper, or an empty group.
			w.handler(Handler{Event: event, Group: gi, Index: -1, Wrapped: false, At: elAt, GroupJSON: standard(el)}, el)
			continue
		}
		hs, ok := hooks.Value.(*hujson.Array)
		if !ok {
			w.problem(elAt+".hooks", hooks, "is "+generate.KindName(hooks)+", not an array of handlers")
			continue
		}
		for hi := range hs.Elements {
			h := &hs.Elements[hi]
			w.handler(Handler{Event: event, Group: gi, Index: hi, Wrapped: true, Matcher: matcher, BadMatch: badMatch,
				At: fmt.Sprintf("%s.hooks[%d]", elAt, hi), GroupJSON: standard(el)}, h)
		}
	}
}

func (w walker) handler(h Handler, v *hujson.Value) {
	h.File = w.f
	h.Line = w.line(v)
	obj, ok := decode(v).(map[string]any)
	if !ok {
		w.problem(h.At, v, "is "+generate.KindName(v)+", not a handler object")
		return
	}
	h.Obj = obj
	switch c := obj["command"].(type) {
	case string:
		h.Command = c
	case []any:
		var parts []string
		for _, p := range c {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		h.Command = strings.Join(parts, " ")
	}
	w.f.Handlers = append(w.f.Handlers, h)
}

func memberName(m *hujson.ObjectMember) string {
	if lit, ok := m.Name.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

func standard(v *hujson.Value) []byte {
	c := v.Clone()
	c.Standardize()
	return c.Pack()
}

// decode returns v as encoding/json decodes it, numbers as json.Number.
func decode(v *hujson.Value) any {
	d := json.NewDecoder(bytes.NewReader(standard(v)))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return nil
	}
	return x
}
