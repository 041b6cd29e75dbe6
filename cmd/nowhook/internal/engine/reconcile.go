package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// Setup and remove are one reconcile: each target's artifacts are made
// present and current where its desired state keeps them, and absent
// where it does not (remove is the state of nothing). Agents that are not
// targets are left as they are, and keep what they share (inuse.go).

// desire is what the target's desired state makes of its artifacts:
// samemind's pre-compact note where the sources choose it, in project
// scope.
func (s *session) desire(t Target) agent.Desire {
	return t.Agent.DesireNote(t.Mode, t.Checkpoint, !s.User && reminder.NoteChosen(s.Options.Sources))
}

// step is what the reconcile does to one artifact.
type step struct {
	art    agent.Artifact
	c      *change
	apply  bool
	status string // "created", "updated", "unchanged", "removed", "deleted", "kept"
	// from and to are the file's content just before and after the step
	// (check.go places each difference by them).
	from, to []byte
}

// agentPlan is one target and its steps, for the summary.
type agentPlan struct {
	t      Target
	desire agent.Desire
	steps  []*step
	// kept are the artifacts the desired state keeps: those its mode owns,
	// less the conditional ones that are not needed.
	kept map[agent.Artifact]bool
	// trustKeys are the trust keys of the agent's hook entries that the
	// reconcile removes (to forget their trust after writing).
	trustKeys []string
}

// session is one reconcile: the request, the record of what nowhook
// created, the agents outside the targets that are in use (their shared
// artifacts stay where they use them), and the mode each agent was set up
// in (inuse.go). Every stage of the plan reads it.
type session struct {
	Request
	rec    *record
	others []*agent.Agent
	modes  map[*agent.Agent]agent.Mode
	// starts are the folders below the root where a session plausibly
	// starts: every judgement of what the agents read is made for the
	// root and for each of them.
	starts []string
	// disk is what the plans of this reconcile found on disk.
	disk *diskCache
}

// newPlan is an empty plan of the session's repository.
func (s *session) newPlan() *plan {
	p := newPlan(s.Root)
	p.starts = s.starts
	if s.disk == nil {
		s.disk = p.disk
	}
	p.disk = s.disk
	return p
}

// reconciler plans the session onto one plan: the real one, or a scratch
// plan with a copy of the record (reads.go).
type reconciler struct {
	s   *session
	p   *plan
	rec *record
	// spare are files the plan must not create (reads.go).
	spare map[string]bool
}

// reconcile plans every target onto p: all applies first, in table order,
// then all removals, each agent's last artifact first, so that a removal
// sees the file as the applies left it and undoes appends in reverse
// order. What the agents will read decides two things first (reads.go):
// which conditional artifacts are needed, and which files setup must not
// create because they would hide another from an agent in use.
func (s *session) reconcile(p *plan) ([]*agentPlan, error) {
	d, err := s.decideReads(p)
	if err != nil {
		return nil, err
	}
	return s.planWith(p, s.rec, d)
}

// planWith plans every target onto p as d decided, with rec for the
// record.
func (s *session) planWith(p *plan, rec *record, d readsDecision) ([]*agentPlan, error) {
	r := &reconciler{s: s, p: p, rec: rec, spare: d.spare}
	var plans []*agentPlan
	for _, t := range s.Targets {
		ap := &agentPlan{t: t, desire: s.desire(t), kept: map[agent.Artifact]bool{}}
		if ap.desire.Trust && t.Agent.Trust.Preflight != nil {
			if err := t.Agent.Trust.Preflight(p.root); err != nil {
				return nil, err
			}
		}
		for _, w := range ap.desire.Artifacts {
			if _, cond := w.Artifact.(agent.Conditional); w.Keep && (!cond || d.needed[w.Artifact]) {
				if err := r.keep(ap, w.Artifact); err != nil {
					return nil, err
				}
			}
		}
		plans = append(plans, ap)
	}
	for _, ap := range plans {
		if err := r.removeUnkept(plans, ap); err != nil {
			return nil, err
		}
	}
	r.planFolders()
	r.markClean()
	r.linkNotes()
	return plans, nil
}

// removeUnkept plans the removal of every artifact of ap that no desired
// state keeps, its last first; one that another agent in use shares stays.
func (r *reconciler) removeUnkept(plans []*agentPlan, ap *agentPlan) error {
	owned := ap.desire.Artifacts
	for j := len(owned) - 1; j >= 0; j-- {
		art := owned[j].Artifact
		if ap.kept[art] || r.keptElsewhere(plans, art) || r.shadowed(art) {
			continue
		}
		var s *step
		var err error
		if users := r.usedByOthers(art); len(users) > 0 {
			s, err = r.keepFor(art, users)
		} else {
			if err := r.trustKeys(ap, art); err != nil {
				return err
			}
			s, err = r.remove(art)
		}
		if err != nil {
			return err
		}
		if s != nil {
			owner := r.owner(plans, ap, art)
			owner.steps = append(owner.steps, s)
		}
	}
	return nil
}

// owner is the plan whose summary line tells what happened to art: ap's,
// unless art is shared and ap's agent was not set up with it while
// another target was (remove of every agent takes the AGENTS.md block out
// once, for the first agent in table order that had it, which need not be
// ap's).
func (r *reconciler) owner(plans []*agentPlan, ap *agentPlan, art agent.Artifact) *agentPlan {
	if r.uses(ap.t.Agent, art) {
		return ap
	}
	for _, o := range plans {
		if r.uses(o.t.Agent, art) {
			return o
		}
	}
	return ap
}

// uses reports whether agent a was set up (session.modes) in a mode that
// keeps art, or the same block in the same file.
func (r *reconciler) uses(a *agent.Agent, art agent.Artifact) bool {
	m := r.s.modes[a]
	if m == "" {
		return false
	}
	for _, x := range a.Owned() {
		if (x == art || r.sameBlock(x, art)) && a.Desired(m, false, x) {
			return true
		}
	}
	return false
}

// trustKeys notes the trust keys of art when it is the hook entry of ap's
// agent that needs trust, before its removal moves their positions.
func (r *reconciler) trustKeys(ap *agentPlan, art agent.Artifact) error {
	tr := ap.t.Agent.Trust
	h, ok := art.(*agent.HookEntry)
	if !ok || tr == nil || h.File.Path != tr.Hook.File.Path {
		return nil
	}
	c, err := r.p.file(art.Path())
	if err != nil {
		return err
	}
	ap.trustKeys = append(ap.trustKeys, tr.Keys(r.p.root, c.next, h.File.Event)...)
	return nil
}

// keep applies art for ap, the desired state keeping it.
func (r *reconciler) keep(ap *agentPlan, art agent.Artifact) error {
	ap.kept[art] = true
	s, err := r.apply(art)
	if err != nil {
		return err
	}
	if s != nil {
		ap.steps = append(ap.steps, s)
	}
	return nil
}

// keptElsewhere reports whether the plan keeps art's block, in art's
// file, under another artifact (CLAUDE.md linked to AGENTS.md holds the
// one kbs-now block both name).
func (r *reconciler) keptElsewhere(plans []*agentPlan, art agent.Artifact) bool {
	for _, ap := range plans {
		for x := range ap.kept {
			if x != art && r.sameBlock(x, art) {
				return true
			}
		}
	}
	return false
}

// shadowed reports whether art is a conditional block whose block, in its
// file, an unconditional artifact of some agent names too: the block
// there is that artifact's (CLAUDE.md linked to AGENTS.md).
func (r *reconciler) shadowed(art agent.Artifact) bool {
	if _, cond := art.(agent.Conditional); !cond {
		return false
	}
	for _, a := range agent.All {
		for _, x := range a.Owned() {
			if _, cond := x.(agent.Conditional); !cond && r.sameBlock(x, art) {
				return true
			}
		}
	}
	return false
}

// apply plans art present and current in its file, or nothing where the
// file is absent and the artifact would not create it (or must not: a file
// that would hide another, r.spare).
func (r *reconciler) apply(art agent.Artifact) (*step, error) {
	c, err := r.p.file(art.Path())
	if err != nil {
		return nil, err
	}
	e, err := art.Apply(c.next, r.s.Options)
	if err != nil {
		return nil, err
	}
	if e.Backup && c.existed {
		if err := r.backup(c); err != nil {
			return nil, err
		}
	}
	if !c.existed && !c.touched && (len(e.Next) == 0 || r.spare[art.Path()]) {
		return nil, nil // a file the artifact only edits where it exists, or one that would hide another
	}
	from := c.next
	c.take(e)
	s := &step{art: art, c: c, apply: true, from: from, to: c.next}
	if e.Note != "" {
		r.p.note("%s", e.Note)
		if bytes.Equal(e.Next, c.old) && c.existed {
			s.status = "kept"
		}
	}
	return s, nil
}

// backup plans a copy of c's current content beside it, as FILE.bak (or
// FILE.bak.N when that is taken by something else).
func (r *reconciler) backup(c *change) error {
	for n := 0; n < 100; n++ {
		rel := c.rel + ".bak"
		if n > 0 {
			rel += fmt.Sprintf(".%d", n)
		}
		b, err := r.p.file(rel)
		if err != nil {
			return err
		}
		if b.existed && !bytes.Equal(b.old, c.old) {
			continue
		}
		b.next, b.touched, b.mode = c.old, true, c.oldMode
		return nil
	}
	return fmt.Errorf("%s: too many backups beside it; clear some away, then run nowhook again", c.rel)
}

// remove plans art's removal, or returns nil when it is not there.
func (r *reconciler) remove(art agent.Artifact) (*step, error) {
	c, err := r.p.file(art.Path())
	if err != nil {
		return nil, err
	}
	if !c.existed || c.remove {
		return nil, nil
	}
	e, err := art.Remove(c.next, func(path string) bool { return r.rec.dropContainer(c.target, path) })
	if err != nil {
		return nil, err
	}
	s := &step{art: art, c: c, from: c.next}
	switch {
	case e.Delete:
		c.remove = true
		s.status = "deleted"
	case e.Note != "" && slices.Contains(r.p.notes, e.Note):
		return nil, nil // kept, as an earlier agent's removal of it said
	case e.Note != "":
		r.p.note("%s", e.Note)
		s.status = "kept"
	case e.Done == "":
		return nil, nil
	default:
		c.next, c.unhooked = e.Next, true
		s.status = e.Done
		if e.Empty && r.rec.createdFile(c.target) {
			c.remove = true
			s.status = "deleted"
		}
		gone := map[string]bool{}
		for _, g := range e.Gone {
			gone[g] = true
		}
		r.rec.dropRemoved(c.target, func(path string) bool { return !gone[path] })
	}
	s.to = c.next
	return s, nil
}

// keepFor reports a shared artifact that stays because other agents use
// it, naming them.
func (r *reconciler) keepFor(art agent.Artifact, users []*agent.Agent) (*step, error) {
	c, err := r.p.file(art.Path())
	if err != nil {
		return nil, err
	}
	if !art.Present(c.next) {
		return nil, nil
	}
	var names []string
	for _, a := range users {
		names = append(names, a.Name)
	}
	verb := " uses it"
	if len(names) > 1 {
		verb = " use it"
	}
	return &step{art: art, c: c, status: "kept: " + andList(names) + verb}, nil
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// usedByOthers returns the agents outside the targets that were set up
// with art, or the same block in the same file under another name
// (GEMINI.md linked to AGENTS.md holds one kbs-now block for both): an
// agent that is only detected uses nothing of nowhook's.
func (r *reconciler) usedByOthers(art agent.Artifact) []*agent.Agent {
	var out []*agent.Agent
	for _, a := range r.s.others {
		if r.uses(a, art) {
			out = append(out, a)
		}
	}
	return out
}

// sameBlock reports whether a and b are blocks of one name in one file.
func (r *reconciler) sameBlock(a, b agent.Artifact) bool {
	ba, ok1 := agent.BlockOf(a)
	bb, ok2 := agent.BlockOf(b)
	if !ok1 || !ok2 || ba.Block.Name != bb.Block.Name {
		return false
	}
	ta, err1 := r.p.target(ba.File)
	tb, err2 := r.p.target(bb.File)
	return err1 == nil && err2 == nil && ta == tb
}

// planFolders adds the folders that removals leave empty, deepest first,
// where nowhook created them. It climbs a removed file's folders as the
// repository names them (.claude/hooks, then .claude), up to the root,
// and deletes the folder each name really is, wherever a link above it
// points (a .claude linked into a dotfiles folder has its hooks/ there);
// it stops at a name that is itself a link, which it never deletes.
func (r *reconciler) planFolders() {
	gone := map[string]bool{}
	var candidates []string
	for _, c := range r.p.changes {
		if !c.remove || !c.existed {
			continue
		}
		gone[c.target] = true
		logical := filepath.Join(r.p.root, filepath.FromSlash(c.rel))
		for d := filepath.Dir(logical); Within(r.p.root, d); d = filepath.Dir(d) {
			if info, err := os.Lstat(d); err != nil || info.Mode()&os.ModeSymlink != 0 {
				break
			}
			real := realDir(d)
			if _, seen := r.p.dirNames[real]; !seen {
				r.p.dirNames[real] = relTo(r.p.root, d)
				candidates = append(candidates, real)
			}
		}
	}
	sort.SliceStable(candidates, func(i, j int) bool { return len(candidates[i]) > len(candidates[j]) })
	for _, d := range candidates {
		if gone[d] {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		empty := true
		for _, e := range entries {
			if !gone[filepath.Join(d, e.Name())] {
				empty = false
				break
			}
		}
		if empty && r.rec.createdDir(d) {
			gone[d] = true
			r.p.rmdirs = append(r.p.rmdirs, d)
		}
	}
}

// markClean marks the files a removal left with nothing of nowhook's in
// them (no artifact of any agent is present any more), so that the record
// forgets them.
func (r *reconciler) markClean() {
	for _, c := range r.p.changes {
		if !c.unhooked || c.remove || c.touched {
			continue
		}
		c.clean = true
		for _, a := range agent.All {
			for _, art := range a.Owned() {
				t, err := r.p.target(art.Path())
				if err == nil && t == c.target && art.Present(c.next) {
					c.clean = false
				}
			}
		}
	}
}

// linkNotes says, for each symbolic link in the repository through which
// the plan changes files that lie outside it (a .claude linked into a
// dotfiles folder), where those files really are.
func (r *reconciler) linkNotes() {
	realRoot := realDir(r.p.root)
	var links []string
	files := map[string][]string{}
	for _, c := range r.p.changes {
		if !c.changed() || Within(realRoot, c.target) {
			continue
		}
		link, ok := firstLink(r.p.root, c.rel)
		if !ok {
			continue
		}
		if _, seen := files[link]; !seen {
			links = append(links, link)
		}
		status := c.status()
		switch {
		case c.remove:
			status = "deleted"
		case c.unhooked && !c.touched:
			status = "removed"
		}
		files[link] = append(files[link], c.rel+" ("+status+")")
	}
	for _, d := range r.p.rmdirs {
		name := r.p.dirNames[d]
		for _, link := range links {
			if strings.HasPrefix(name, link+"/") && !Within(realRoot, d) {
				files[link] = append(files[link], name+"/ (deleted)")
			}
		}
	}
	for _, link := range links {
		abs := filepath.Join(r.p.root, filepath.FromSlash(link))
		to, _ := os.Readlink(abs)
		real, err := resolve(abs)
		if err != nil {
			real = to
		}
		r.p.note("%s is a symbolic link to %s, outside the repository, so these files are really in %s: %s", link, to, osutil.TildeHome(real), strings.Join(files[link], ", "))
	}
}

// firstLink returns the first part of rel, taken from the root, that is a
// symbolic link.
func firstLink(root, rel string) (string, bool) {
	at := root
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		at = filepath.Join(at, part)
		if info, err := os.Lstat(at); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return strings.Join(parts[:i+1], "/"), true
		}
	}
	return "", false
}

// Within reports whether path lies strictly inside dir.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}
