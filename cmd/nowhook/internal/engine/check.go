package engine

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// setup --check reads the plan setup would write: every step that changes
// a file is one difference, placed on the line of the file as it is now
// where that change starts, so that `file:line` opens the spot. Nothing
// here judges the files a second time: a file differs exactly when Write
// would change it.

// Difference is one place where the repository is not as setup would
// leave it.
type Difference struct {
	// Name is the file as the diff names it (relative to the root where
	// it lies inside it); Path is it absolute. A folder's Name ends in /.
	Name, Path string
	// Line is the line of the current file where the difference starts:
	// 1 for a file that is missing or goes whole; 0 for a folder.
	Line int
	// What says what differs and what setup does about it.
	What string
}

// Differences lists where writing the plan would change the repository:
// file by file in the plan's order, each file's differences by line, then
// the folders the plan deletes. It is empty exactly when Changed is false.
func (pl *Plan) Differences() []Difference {
	byFile := map[*change][]targetStep{}
	// The order the reconcile took: every target's applies, then every
	// target's removals (reconcile.go, planWith).
	for _, applies := range []bool{true, false} {
		for _, ap := range pl.agents {
			for _, s := range ap.steps {
				if s.apply == applies {
					byFile[s.c] = append(byFile[s.c], targetStep{s, ap.t})
				}
			}
		}
	}
	var out []Difference
	for _, c := range pl.p.changes {
		if c.changed() {
			out = append(out, pl.p.fileDifferences(c, byFile[c])...)
		}
	}
	for _, d := range pl.p.rmdirs {
		out = append(out, Difference{Name: pl.p.shownDir(d) + "/", Path: d,
			What: "setup deletes this folder, which nowhook created and which is empty once the files above are gone"})
	}
	return out
}

// targetStep is a step with the target it was planned for.
type targetStep struct {
	s *step
	t Target
}

// fileDifferences places the steps that change c on the lines of c as it
// is now.
func (p *plan) fileDifferences(c *change, steps []targetStep) []Difference {
	name := p.shown(c)
	at := func(line int, what string) Difference {
		return Difference{Name: name, Path: c.target, Line: line, What: what}
	}
	var edits []targetStep
	for _, ts := range steps {
		if !bytes.Equal(ts.s.from, ts.s.to) || ts.s.c.remove && ts.s.status == "deleted" {
			edits = append(edits, ts)
		}
	}
	switch {
	case c.remove:
		return []Difference{at(1, "setup deletes this file"+holding(edits, "which holds only "))}
	case !c.existed:
		if len(edits) == 0 {
			return []Difference{at(1, "missing: setup creates it"+backupOf(c.rel))}
		}
		return []Difference{at(1, "missing: setup creates it"+holding(edits, "with "))}
	}
	var out []Difference
	var done []*step
	cur := c.old
	for _, ts := range edits {
		line := firstDiff(c.old, c.next)
		if bytes.Equal(ts.s.from, cur) {
			line = startLine(ts)
			for i := len(done) - 1; i >= 0; i-- {
				line = lineBefore(done[i], line)
			}
		}
		out = append(out, at(clampLine(line, c.old), describeEdit(ts)))
		done, cur = append(done, ts.s), ts.s.to
	}
	if c.mode != c.oldMode {
		out = append(out, at(1, fmt.Sprintf("has mode %04o; setup makes it %04o", c.oldMode, c.mode)))
	}
	if len(out) == 0 {
		out = append(out, at(clampLine(firstDiff(c.old, c.next), c.old), "differs from what setup writes; setup changes it"))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// holding names what the edits put into a file or take out of it, after
// lead: "" when there are none.
func holding(edits []targetStep, lead string) string {
	var names []string
	for _, ts := range edits {
		if n := noun(ts); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + lead + strings.Join(names, ", ") + ")"
}

// backupOf says what a file with no step of its own is: the copy
// setup --force keeps of a file it replaces.
func backupOf(rel string) string {
	if i := strings.LastIndex(rel, ".bak"); i > 0 {
		return ", a copy of " + rel[:i] + " as it is now (--force replaces that file)"
	}
	return ""
}

// noun names what a step puts in place or takes away.
func noun(ts targetStep) string {
	switch a := ts.s.art.(type) {
	case *agent.HookEntry:
		return fmt.Sprintf("%s's %s hook entry", ts.t.Agent.Title, a.File.Event)
	case *agent.Script:
		switch {
		case a.Reminder:
			return "nowhook's reminder wrapper"
		case a.NotExec:
			return "nowhook's plugin"
		}
		return "nowhook's script"
	}
	if b, ok := agent.BlockOf(ts.s.art); ok {
		return "nowhook's " + b.Block.Name + " block"
	}
	return "nowhook's part of it"
}

// describeEdit says what a step changes in a file that stays.
func describeEdit(ts targetStep) string {
	s, what := ts.s, noun(ts)
	if !s.apply {
		as := ts.t.Agent.Name + " in mode " + string(ts.t.Mode)
		if !ts.t.Checkpoint && slices.Contains(ts.t.Agent.Checkpoint, s.art) {
			as += " without the checkpoint"
		}
		return fmt.Sprintf("%s is here, but setup (%s) does not keep it; setup takes it out", what, as)
	}
	if !s.art.Present(s.from) {
		if state, _ := generate.InspectScript(s.from); state == generate.ScriptKanbus {
			return "Kanbus's example wrapper, copied unchanged; setup replaces it with " + what
		}
		if _, ok := s.art.(*agent.Script); ok {
			return "not " + what + "; setup --force replaces it"
		}
		return what + " is missing; setup adds it"
	}
	if byHand(s.art, s.from) {
		return what + " was changed by hand since nowhook wrote it; setup --force replaces it and keeps the file as it is now as " + s.art.Path() + ".bak"
	}
	if v := version(s.art, s.from); v > 0 && v < templates.Version {
		return fmt.Sprintf("%s is from template v%d; setup writes v%d", what, v, templates.Version)
	}
	return what + " differs from what setup writes; setup updates it"
}

// byHand reports whether the artifact in cur is nowhook's, changed by
// hand since: a script whose body no longer matches its signature, a
// block whose text nowhook never wrote.
func byHand(art agent.Artifact, cur []byte) bool {
	if _, ok := art.(*agent.Script); ok {
		state, _ := generate.InspectScript(cur)
		return state == generate.ScriptModified
	}
	if b, ok := agent.BlockOf(art); ok {
		span, found, err := generate.FindBlock(cur, b.Block.Name)
		return err == nil && found && !b.Block.Wrote(span.Body)
	}
	return false
}

// version is the template version of the artifact in cur, 0 where it
// carries none (a hook entry).
func version(art agent.Artifact, cur []byte) int {
	if _, ok := art.(*agent.Script); ok {
		_, v := generate.InspectScript(cur)
		return v
	}
	if b, ok := agent.BlockOf(art); ok {
		if span, found, err := generate.FindBlock(cur, b.Block.Name); err == nil && found {
			return span.Version
		}
	}
	return 0
}

// startLine is the line (0-based, in the step's from) where the step's
// change starts: for a block that is there, its begin line; for a hook
// entry that is missing, its event's key; for one that is there, where
// the change starts when that is inside our entry, else the entry's first
// line; otherwise the first line that differs.
func startLine(ts targetStep) int {
	s := ts.s
	head := firstDiff(s.from, s.to)
	if b, ok := agent.BlockOf(s.art); ok {
		if span, found, err := generate.FindBlock(s.from, b.Block.Name); err == nil && found {
			return span.Line - 1
		}
		return head
	}
	h, ok := s.art.(*agent.HookEntry)
	if !ok {
		return head
	}
	v, err := hujson.Parse(s.from)
	if err != nil {
		return head
	}
	event := member(&v, h.File.Event)
	if event == nil {
		return head
	}
	if !h.Present(s.from) {
		return lineOf(s.from, event.Name.StartOffset)
	}
	ours := h.Hook(agent.Options{Budget: agent.DefaultBudget}).Ours
	if start, end, ok := entrySpan(&event.Value, nil, nil, ours); ok {
		first, last := lineOf(s.from, start), lineOf(s.from, end)
		if head < first || head > last {
			return first
		}
	}
	return head
}

// member finds the first object member named name in v, depth first (an
// event's key: "SessionStart" names nothing else in a hook file).
func member(v *hujson.Value, name string) *hujson.ObjectMember {
	switch x := v.Value.(type) {
	case *hujson.Object:
		for i := range x.Members {
			m := &x.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
				return m
			}
			if found := member(&m.Value, name); found != nil {
				return found
			}
		}
	case *hujson.Array:
		for i := range x.Elements {
			if found := member(&x.Elements[i], name); found != nil {
				return found
			}
		}
	}
	return nil
}

// entrySpan finds, in an event's value, the first handler object whose
// "command" ours recognises and returns the byte span of its entry: the matcher group
// around it ({"matcher": ..., "hooks": [handler]}) where there is one,
// else the handler itself. parent and grand are v's containers.
func entrySpan(v, parent, grand *hujson.Value, ours func(string) bool) (start, end int, ok bool) {
	switch x := v.Value.(type) {
	case *hujson.Object:
		for i := range x.Members {
			m := &x.Members[i]
			name, _ := m.Name.Value.(hujson.Literal)
			cmd, isLit := m.Value.Value.(hujson.Literal)
			if name.String() == "command" && isLit && cmd.Kind() == '"' && ours(cmd.String()) {
				if g, isObj := groupOf(parent, grand); isObj {
					return g.StartOffset, g.EndOffset - 1, true
				}
				return v.StartOffset, v.EndOffset - 1, true
			}
		}
		for i := range x.Members {
			if s, e, ok := entrySpan(&x.Members[i].Value, v, parent, ours); ok {
				return s, e, true
			}
		}
	case *hujson.Array:
		for i := range x.Elements {
			if s, e, ok := entrySpan(&x.Elements[i], v, parent, ours); ok {
				return s, e, true
			}
		}
	}
	return 0, 0, false
}

// groupOf returns grand when it is a matcher group holding parent as its
// "hooks" array.
func groupOf(parent, grand *hujson.Value) (*hujson.Value, bool) {
	if parent == nil || grand == nil {
		return nil, false
	}
	if _, isArr := parent.Value.(*hujson.Array); !isArr {
		return nil, false
	}
	obj, isObj := grand.Value.(*hujson.Object)
	if !isObj {
		return nil, false
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		if name, _ := m.Name.Value.(hujson.Literal); name.String() == "hooks" && &m.Value == parent {
			return grand, true
		}
	}
	return nil, false
}

// lineBefore maps line (0-based) of s.to back to s.from: lines above the
// change keep their number, lines below it move by what the change added
// or took, and lines inside it land on the change's first line.
func lineBefore(s *step, line int) int {
	head, tail := common(s.from, s.to)
	from, to := len(splitLines(s.from)), len(splitLines(s.to))
	switch {
	case line < head:
		return line
	case line >= to-tail:
		return line - (to - from)
	}
	return head
}

// firstDiff is the first line (0-based) where a and b differ.
func firstDiff(a, b []byte) int {
	head, _ := common(a, b)
	return head
}

// common counts the lines a and b share at their head and, after it, at
// their tail, as unifiedDiff does.
func common(a, b []byte) (head, tail int) {
	al, bl := splitLines(a), splitLines(b)
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		head++
	}
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	return head, tail
}

// lineOf is the line (0-based) of the byte at off.
func lineOf(b []byte, off int) int {
	return bytes.Count(b[:min(off, len(b))], []byte("\n"))
}

// clampLine makes a 0-based line a 1-based one that the file has: a
// change after the last line (an append) is placed on the last line.
func clampLine(line int, cur []byte) int {
	return max(min(line+1, len(splitLines(cur))), 1)
}

// Annotation is d as a GitHub Actions workflow command, `::error
// file=…,line=…::…`, with file the path GitHub knows the file by and fix
// the command that fixes it. The message and the properties are escaped
// as GitHub's toolkit escapes them (% \r \n, and in properties : and ,
// too), so that no file name or message can end the command early.
func Annotation(d Difference, file, fix string) string {
	props := "file=" + escapeProperty(file)
	if d.Line > 0 {
		props += fmt.Sprintf(",line=%d", d.Line)
	}
	props += ",title=" + escapeProperty("nowhook setup --check")
	msg := d.What
	if fix != "" {
		msg += "; to fix it, run: " + fix
	}
	return "::error " + props + "::" + escapeData(msg)
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
