package generate

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/tailscale/hujson"
)

// MergeHook returns current with our hook entry present exactly once and
// where the agent runs it after compaction. Every byte outside the change
// stays; a second call on its own output returns the same bytes.
//
// Which of our entries is kept (the keeper): the first group that holds
// only our handlers, else the first group with our matcher that also holds
// other handlers (ours is upgraded in place there, so no one else's handler
// moves: Codex's trust keys are positions); with neither, a new group is
// appended at the end. Every other copy of our handler is removed: it would
// run the reminder twice, or never after compaction.
//
// The edit is made one splice at a time, re-parsing in between, and the
// result is checked against the same rules applied to the decoded file.
func (f HookFile) MergeHook(current []byte, h Hook) ([]byte, error) {
	p, err := f.ParseHookFile(current)
	if err != nil {
		return nil, err
	}
	if p.empty() {
		return f.newFile(current, h)
	}
	if _, ok := p.tree.Value.(*hujson.Object); !ok {
		return nil, f.typeError(p, &p.tree, "the top level", "an object")
	}
	if f.Check != nil {
		if ferr := f.Check(p.Doc); ferr != nil {
			return nil, ferr
		}
	}
	entry, err := marshal(h.Entry)
	if err != nil {
		return nil, err
	}
	out := current
	for step := 0; ; step++ {
		if step > 1000 {
			return nil, fmt.Errorf("%s: internal error: the edit does not converge; nothing was written", f.Path)
		}
		q, err := f.ParseHookFile(out)
		if err != nil {
			return nil, fmt.Errorf("%s: internal error: the edited file does not parse (%v); nothing was written", f.Path, err)
		}
		e, err := f.mergeStep(q, h, entry)
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		out = e.apply()
	}
	return out, f.verify(p, out, h)
}

// mergeStep plans the next single splice, or returns nil when the file is
// as MergeHook wants it.
func (f HookFile) mergeStep(p *Parsed, h Hook, entry []byte) (*editor, error) {
	e := newEditor(p)
	root := p.tree.Value.(*hujson.Object)
	hooks, err := f.member(p, root, "hooks", "hooks")
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		return e, e.insertMember(&p.tree, "hooks", Ordered{{f.Event, []json.RawMessage{entry}}})
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
		return e, e.insertMember(hooks, f.Event, []json.RawMessage{entry})
	}
	arr, ok := event.Value.(*hujson.Array)
	if !ok {
		return nil, f.typeError(p, event, "hooks."+f.Event, "an array of "+f.entryKind())
	}
	groups, err := f.scan(p, arr, h)
	if err != nil {
		return nil, err
	}
	keeper := f.keeper(groups, h)
	// Remove the copies outside the keeper, last first.
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if i == keeper || len(g.ours) == 0 {
			continue
		}
		if g.allOurs() {
			e.removeElement(arr, i)
		} else {
			e.removeElement(g.handlers, g.ours[len(g.ours)-1])
		}
		return e, nil
	}
	if keeper < 0 {
		return e, e.appendElement(event, json.RawMessage(entry))
	}
	g := groups[keeper]
	if g.allOurs() {
		if sameJSON(&arr.Elements[keeper], entry) {
			return nil, nil
		}
		return e, e.replaceValue(&arr.Elements[keeper], json.RawMessage(entry))
	}
	// Ours shares the keeper group with someone else's handlers.
	if len(g.ours) > 1 {
		e.removeElement(g.handlers, g.ours[len(g.ours)-1])
		return e, nil
	}
	handler, err := f.entryHandler(entry)
	if err != nil {
		return nil, err
	}
	if sameJSON(&g.handlers.Elements[g.ours[0]], handler) {
		return nil, nil
	}
	return e, e.replaceValue(&g.handlers.Elements[g.ours[0]], json.RawMessage(handler))
}

func (f HookFile) entryKind() string {
	if f.Grouped {
		return "matcher groups"
	}
	return "hook handlers"
}

// group is one element of the event array as MergeHook sees it.
type group struct {
	matcher  any           // the group's "matcher" (nil when absent)
	handlers *hujson.Array // the group's "hooks"; nil for flat files and odd groups
	value    *hujson.Value // the value holding handlers
	count    int           // handlers in the group (1 for flat files)
	ours     []int         // indices of our handlers in handlers (flat: [0])
}

func (g group) allOurs() bool { return len(g.ours) > 0 && len(g.ours) == g.count }

// scan reads every element of the event array. A group whose "hooks" key
// appears twice is refused: readers disagree on which one counts.
func (f HookFile) scan(p *Parsed, arr *hujson.Array, h Hook) ([]group, error) {
	groups := make([]group, len(arr.Elements))
	for i := range arr.Elements {
		el := &arr.Elements[i]
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			continue
		}
		if !f.Grouped {
			groups[i].count = 1
			var v map[string]any
			if decodeValue(el, &v) == nil {
				if cmd, _ := v["command"].(string); h.Ours(cmd) {
					groups[i].ours = []int{0}
				}
			}
			continue
		}
		path := fmt.Sprintf("hooks.%s[%d]", f.Event, i)
		hv, err := f.member(p, obj, "hooks", path+".hooks")
		if err != nil {
			return nil, err
		}
		if mv, err := f.member(p, obj, "matcher", path+".matcher"); err != nil {
			return nil, err
		} else if mv != nil {
			_ = decodeValue(mv, &groups[i].matcher)
		}
		if hv == nil {
			continue
		}
		handlers, ok := hv.Value.(*hujson.Array)
		if !ok {
			continue
		}
		groups[i].handlers = handlers
		groups[i].value = hv
		groups[i].count = len(handlers.Elements)
		for j := range handlers.Elements {
			var v map[string]any
			if decodeValue(&handlers.Elements[j], &v) != nil {
				continue
			}
			if cmd, _ := v["command"].(string); h.Ours(cmd) {
				groups[i].ours = append(groups[i].ours, j)
			}
		}
	}
	return groups, nil
}

// keeper picks the group that keeps our handler, or -1 (see MergeHook).
func (f HookFile) keeper(groups []group, h Hook) int {
	for i, g := range groups {
		if g.allOurs() {
			return i
		}
	}
	if !f.Grouped {
		return -1
	}
	var want any
	for _, m := range h.Entry {
		if m.Key == "matcher" {
			want = m.Value
		}
	}
	for i, g := range groups {
		if len(g.ours) > 0 && g.handlers != nil && reflect.DeepEqual(g.matcher, want) {
			return i
		}
	}
	return -1
}

// entryHandler is the single handler inside our group entry.
func (f HookFile) entryHandler(entry []byte) ([]byte, error) {
	var grp struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(entry, &grp); err != nil || len(grp.Hooks) != 1 {
		return nil, fmt.Errorf("internal error: our %s entry must hold one handler", f.Path)
	}
	return grp.Hooks[0], nil
}

// verify re-parses out by the agent's rules and checks it equals the
// original with exactly MergeHook's change, computed on decoded values.
func (f HookFile) verify(p *Parsed, out []byte, h Hook) error {
	q, err := f.ParseHookFile(out)
	if err != nil {
		return fmt.Errorf("%s: internal error: the edited file does not parse (%v); nothing was written", f.Path, err)
	}
	want, err := f.expected(p.Doc, h)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(normalize(want), normalize(q.Doc)) {
		return fmt.Errorf("%s: internal error: the edit changed more than our hook entry; nothing was written", f.Path)
	}
	return nil
}

// expected computes on decoded values what MergeHook must produce.
func (f HookFile) expected(doc any, h Hook) (any, error) {
	entryJSON, err := marshal(h.Entry)
	if err != nil {
		return nil, err
	}
	var entry map[string]any
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
	isOurs := func(v any) bool {
		o, _ := v.(map[string]any)
		cmd, _ := o["command"].(string)
		return o != nil && h.Ours(cmd)
	}
	slots := f.expectedSlots(arr, isOurs)
	keeper := f.expectedKeeper(slots, entry["matcher"])
	var out []any
	for i, el := range arr {
		in := slots[i]
		switch {
		case i == keeper && in.ours == in.count:
			out = append(out, entry)
		case in.ours == 0:
			out = append(out, el)
		case in.ours == in.count:
			// dropped
		default:
			out = append(out, keptHandlers(el.(map[string]any), isOurs, i == keeper, entry))
		}
	}
	if keeper < 0 {
		out = append(out, entry)
	}
	hooks[f.Event] = out
	return doc, nil
}

// slot is, for expected, what one element of the event's array holds:
// how many handlers, how many of them ours, and its group's matcher.
type slot struct {
	ours, count int
	matcher     any
	grouped     bool
}

// expectedSlots describes each element of arr (see slot).
func (f HookFile) expectedSlots(arr []any, isOurs func(any) bool) []slot {
	slots := make([]slot, len(arr))
	for i, el := range arr {
		o, _ := el.(map[string]any)
		if !f.Grouped {
			slots[i] = slot{count: 1}
			if isOurs(el) {
				slots[i].ours = 1
			}
			continue
		}
		hs, ok := o["hooks"].([]any)
		if o == nil || !ok {
			continue
		}
		slots[i] = slot{count: len(hs), matcher: o["matcher"], grouped: true}
		for _, hv := range hs {
			if isOurs(hv) {
				slots[i].ours++
			}
		}
	}
	return slots
}

// expectedKeeper is keeper on decoded values: the first element that is
// all ours, else (grouped) the first group with ours and our matcher, or
// -1.
func (f HookFile) expectedKeeper(slots []slot, matcher any) int {
	for i, in := range slots {
		if in.ours > 0 && in.ours == in.count {
			return i
		}
	}
	if f.Grouped {
		for i, in := range slots {
			if in.ours > 0 && in.grouped && reflect.DeepEqual(normalize(in.matcher), normalize(matcher)) {
				return i
			}
		}
	}
	return -1
}

// keptHandlers is group o with our handlers taken out and, when it keeps
// our hook, entry's one handler in place of the first of them.
func keptHandlers(o map[string]any, isOurs func(any) bool, keeps bool, entry map[string]any) map[string]any {
	var kept []any
	placed := false
	for _, hv := range o["hooks"].([]any) {
		if !isOurs(hv) {
			kept = append(kept, hv)
		} else if keeps && !placed {
			kept = append(kept, entry["hooks"].([]any)[0])
			placed = true
		}
	}
	o["hooks"] = kept
	return o
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
