package generate

import (
	"bytes"
	"fmt"

	"github.com/tailscale/hujson"
)

// Containers are the JSON members MergeHook creates when they are absent:
// "hooks" and "hooks.<Event>". Missing lists those absent from current, so
// that a later RemoveHook knows which containers were ours.
func (f HookFile) Missing(current []byte) []string {
	p, err := f.ParseHookFile(current)
	if err != nil {
		return nil
	}
	root, _ := p.Doc.(map[string]any)
	hooks, ok := root["hooks"].(map[string]any)
	if !ok {
		return []string{"hooks", "hooks." + f.Event}
	}
	if _, ok := hooks[f.Event]; !ok {
		return []string{"hooks." + f.Event}
	}
	return nil
}

// Removed says what RemoveHook did.
type Removed struct {
	// Handlers is how many of our handlers were removed (0: none was there).
	Handlers int
	// Empty: the file holds nothing but what a new file of ours starts with
	// (Cursor's "version": 1), so it can go if nowhook created it.
	Empty bool
}

// RemoveHook returns current without any handler that ours recognises: a
// group that holds only ours goes whole, otherwise only our handler. An
// event array or "hooks" object left empty goes too when drop says so for
// its path ("hooks.<Event>", "hooks"); the caller knows whether nowhook
// created it. It is the inverse of MergeHook: removing the group MergeHook
// appended, with the containers it created, gives back the input byte for
// byte. Every byte outside the removed text stays.
func (f HookFile) RemoveHook(current []byte, ours func(command string) bool, drop func(path string) bool) ([]byte, Removed, error) {
	var r Removed
	p, err := f.ParseHookFile(current)
	if err != nil {
		return nil, r, err
	}
	if p.empty() {
		r.Empty = true
		return current, r, nil
	}
	if _, ok := p.tree.Value.(*hujson.Object); !ok {
		return nil, r, f.typeError(p, &p.tree, "the top level", "an object")
	}
	h := Hook{Ours: ours}
	out := current
	for step := 0; ; step++ {
		if step > 1000 {
			return nil, r, fmt.Errorf("%s: internal error: the removal does not converge; nothing was written", f.Path)
		}
		q, err := f.ParseHookFile(out)
		if err != nil {
			return nil, r, fmt.Errorf("%s: internal error: the edited file does not parse (%v); nothing was written", f.Path, err)
		}
		e, err := f.removeStep(q, h, drop)
		if err != nil {
			return nil, r, err
		}
		if e == nil {
			r.Empty = f.skeleton(q)
			break
		}
		r.Handlers++
		out = e.apply()
	}
	return out, r, nil
}

// removeStep plans the splice that removes the last of our handlers, or
// returns nil when none is left.
func (f HookFile) removeStep(p *Parsed, h Hook, drop func(string) bool) (*editor, error) {
	e := newEditor(p)
	rootVal := &p.tree
	root := rootVal.Value.(*hujson.Object)
	hooks, err := f.member(p, root, "hooks", "hooks")
	if err != nil || hooks == nil {
		return nil, err
	}
	hooksObj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return nil, nil
	}
	event, err := f.member(p, hooksObj, f.Event, "hooks."+f.Event)
	if err != nil || event == nil {
		return nil, err
	}
	arr, ok := event.Value.(*hujson.Array)
	if !ok {
		return nil, nil
	}
	groups, err := f.scan(p, arr, h)
	if err != nil {
		return nil, err
	}
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if len(g.ours) == 0 {
			continue
		}
		if !g.allOurs() {
			e.removeItem(itemSpans(g.handlers), g.ours[len(g.ours)-1], g.value)
			return e, nil
		}
		// The whole group goes; with it the containers it leaves empty,
		// when they were ours.
		if len(arr.Elements) == 1 && drop("hooks."+f.Event) {
			if len(hooksObj.Members) == 1 && drop("hooks") {
				e.removeMember(rootVal, memberIndex(root, "hooks"))
				return e, nil
			}
			e.removeMember(hooks, memberIndex(hooksObj, f.Event))
			return e, nil
		}
		e.removeItem(itemSpans(arr), i, event)
		return e, nil
	}
	return nil, nil
}

// skeleton reports whether the parsed file holds nothing but the members
// a new file of ours starts with.
func (f HookFile) skeleton(p *Parsed) bool {
	if p.empty() {
		return true
	}
	root, ok := p.Doc.(map[string]any)
	if !ok || len(root) != len(f.NewFile) {
		return false
	}
	for _, m := range f.NewFile {
		v, ok := root[m.Key]
		if !ok || fmt.Sprint(normalize(v)) != fmt.Sprint(normalize(m.Value)) {
			return false
		}
	}
	return true
}

// span is where one item of a container sits: an element, or a member
// from its name to the end of its value.
type span struct{ start, end int }

func itemSpans(v any) []span {
	var out []span
	switch c := v.(type) {
	case *hujson.Array:
		for _, el := range c.Elements {
			out = append(out, span{el.StartOffset, el.EndOffset})
		}
	case *hujson.Object:
		for _, m := range c.Members {
			out = append(out, span{m.Name.StartOffset, m.Value.EndOffset})
		}
	}
	return out
}

func memberIndex(o *hujson.Object, key string) int {
	for i, m := range o.Members {
		if m.Name.Value.(hujson.Literal).String() == key {
			return i
		}
	}
	return -1
}

func (e *editor) removeMember(obj *hujson.Value, i int) {
	e.removeItem(itemSpans(obj.Value), i, obj)
}

// removeItem removes item i of a container with the separator that joins
// it to the others, as the inverse of appendItem: the last item goes with
// the comma and line break before it; the only item leaves "[]" or "{}".
func (e *editor) removeItem(items []span, i int, container *hujson.Value) {
	src := e.p.src
	it := items[i]
	switch {
	case len(items) == 1:
		open, closeAt := container.StartOffset, container.EndOffset-1
		rest := bytes.TrimSpace(append(append([]byte(nil), src[open+1:it.start]...), src[it.end:closeAt]...))
		if len(rest) == 0 || string(rest) == "," {
			e.add(open+1, closeAt, "")
			return
		}
		// Comments stay; only the item (and a comma after it) goes.
		end := it.end
		if n := skipExtra(src, end); n < closeAt && src[n] == ',' {
			end = n + 1
		}
		e.add(it.start, end, "")
	case i < len(items)-1:
		e.add(it.start, items[i+1].start, "")
	default:
		prevEnd := items[i-1].end
		if !bytes.ContainsAny(src[prevEnd:it.start], "\n") {
			e.add(prevEnd, it.end, "")
			return
		}
		lineStart := bytes.LastIndexByte(src[:it.start], '\n')
		if len(bytes.Trim(src[lineStart+1:it.start], " \t")) != 0 {
			e.add(prevEnd, it.end, "")
			return
		}
		if lineStart > 0 && src[lineStart-1] == '\r' {
			lineStart--
		}
		if n := skipExtra(src, it.end); n < len(src) && src[n] == ',' {
			// The item had a comma of its own (JSONC): keep the one before.
			e.add(lineStart, n+1, "")
			return
		}
		if comma := skipExtra(src, prevEnd); comma < it.start && src[comma] == ',' {
			e.add(comma, comma+1, "")
		}
		e.add(lineStart, it.end, "")
	}
}
