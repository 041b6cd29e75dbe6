package engine

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// planFiles shows the agent table a repository's files as a plan leaves
// them (or, with before, as they were before it), so that setup can ask
// which instruction files each agent loads before and after it writes.
type planFiles struct {
	p      *plan
	before bool
	// rec, where set, answers Kept.
	rec *record
}

func (f planFiles) Read(rel string) ([]byte, bool) {
	c, err := f.p.file(rel)
	if err != nil {
		return nil, false
	}
	if f.before {
		return c.old, c.existed
	}
	if c.remove || (!c.existed && !c.touched) {
		return nil, false
	}
	return c.next, true
}

// Kept reports whether nowhook's record says the file was there before
// nowhook first wrote into it: the user's, even when it now holds nothing
// but nowhook's blocks (an empty CLAUDE.md that setup filled).
func (f planFiles) Kept(rel string) bool {
	if f.rec != nil && f.rec.lines["k "+f.rec.key(rel)] {
		return true
	}
	// A file that was there before the plan and held something of the
	// user's, if only nothing (an empty CLAUDE.md), is the user's.
	c, err := f.p.file(rel)
	return err == nil && c.existed && (len(c.old) == 0 || !agent.OnlyOurs(rel, c.old))
}

// RecordKept is what nowhook's record of the repository at root says of a
// file: whether it was there before nowhook first wrote into it (doctor
// asks, to tell the user's file from one nowhook made).
func RecordKept(root string) func(rel string) bool {
	rec := loadRecord(root)
	return func(rel string) bool { return rec.lines["k "+rec.key(rel)] }
}

// RecordedTrust is agent.TrustRecord: the project whose trust nowhook's
// record says the agent's trust step recorded.
func (f planFiles) RecordedTrust(agentName string) string {
	if f.rec == nil {
		return ""
	}
	return f.rec.trustedProject(agentName)
}

// RecordTrusted is what nowhook's record of the repository at root says of
// an agent's trust step (agent.TrustRecord): the project whose trust it
// recorded, "" for none (doctor asks, to judge the repository without
// nowhook).
func RecordTrusted(root string) func(agentName string) string {
	rec := loadRecord(root)
	return rec.trustedProject
}

// List lists the files of the folder dir as the plan leaves it (or, with
// before, as it was): those on disk and those the plan creates, less those
// it deletes.
func (f planFiles) List(dir string) []string {
	names, ok := f.p.disk.lists[dir]
	if !ok {
		names = agent.ListDir(filepath.Join(f.p.root, filepath.FromSlash(dir)))
		f.p.disk.lists[dir] = names
	}
	if f.before {
		return names
	}
	names = slices.Clone(names)
	for _, c := range f.p.changes {
		if path.Dir(c.rel) == dir && c.touched && !c.remove && !slices.Contains(names, path.Base(c.rel)) {
			names = append(names, path.Base(c.rel))
		}
	}
	var out []string
	for _, n := range names {
		if _, ok := f.Read(path.Join(dir, n)); ok {
			out = append(out, n)
		}
	}
	return out
}

// BareView is the plan's files as they would be without nowhook's blocks
// (agent.Bare), made once per plan: vet asks for them from every folder.
func (f planFiles) BareView() agent.Files {
	if f.p.bare == nil {
		f.p.bare = map[bool]agent.Files{}
	}
	if b, ok := f.p.bare[f.before]; ok {
		return b
	}
	b := agent.BareOf(f)
	f.p.bare[f.before] = b
	return b
}

// IsLink reports whether rel is a symbolic link as the plan leaves it: a
// link on disk stays one (the plan writes through it); a file the plan
// creates is not.
func (f planFiles) IsLink(rel string) bool {
	info, err := os.Lstat(filepath.Join(f.p.root, filepath.FromSlash(rel)))
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

// Memo is agent.Memoizer: once per reconcile, whose plans share what they
// found on disk (nothing is written while they are made).
func (f planFiles) Memo(key string, fn func() any) any {
	if f.p.disk == nil {
		return fn()
	}
	if v, ok := f.p.disk.memo[key]; ok {
		return v
	}
	v := fn()
	f.p.disk.memo[key] = v
	return v
}

// Site is the repository's root and this process's environment.
func (f planFiles) Site() (string, []string) { return f.p.root, os.Environ() }

// StartFolders are the folders below the root where a session plausibly
// starts.
func (f planFiles) StartFolders() []string { return f.p.starts }

func (f planFiles) Same(a, b string) bool {
	ta, err1 := f.p.target(a)
	tb, err2 := f.p.target(b)
	return err1 == nil && err2 == nil && ta == tb
}

// readsDecision is what the agents' reading decides for one reconcile:
// the conditional artifacts that are needed, and the files setup must not
// create (spare) because each would hide a file an agent in use reads.
type readsDecision struct {
	needed map[agent.Artifact]bool
	spare  map[string]bool
}

// loss is an instruction file an agent in use read before the plan and
// would not after it, in a session started in from, and the file that
// hides it ("" for none).
type loss struct {
	agent          *agent.Agent
	file, by, from string
}

// decideReads finds what the plan keeps of the conditional artifacts, and
// whether a file it would create hides one that an agent in use reads
// (OpenCode and Amp read CLAUDE.md only where there is no AGENTS.md). Such
// a file is spared when every agent set up is still taught `kbs now`
// without it, each from a file it loads; otherwise setup creates it and
// says what the agent no longer reads and how to keep it in view.
func (s *session) decideReads(p *plan) (readsDecision, error) {
	d, scratch, err := s.settle(nil)
	if err != nil {
		return d, err
	}
	using := s.inUse()
	lost := losses(scratch, using)
	if spare := createdHiders(scratch, lost); len(spare) > 0 {
		d2, scratch2, err := s.settle(spare)
		if err == nil && len(losses(scratch2, using)) < len(lost) && stillTaught(s.Targets, scratch, scratch2) {
			for _, l := range lost {
				if spare[l.by] {
					p.note("%s is not created: %s reads %s only where there is no %s, and would stop reading it; the agents set up learn `kbs now` from files they read (nowhook doctor's reach rows name them).", l.by, l.agent.Title, l.file, l.by)
				}
			}
			d, lost = d2, losses(scratch2, using)
		}
	}
	for _, l := range lost {
		msg := fmt.Sprintf("%s no longer reads %s", l.agent.Title, l.file)
		if l.from != "." {
			msg = fmt.Sprintf("%s started in %s/ no longer reads %s", l.agent.Title, l.from, l.file)
		}
		if l.by != "" {
			msg += fmt.Sprintf(": %s, which setup creates, hides it (%s reads %s only where there is no %s)", l.by, l.agent.Title, l.file, l.by)
		}
		if keep := l.agent.Reads.Keep(l.file); keep != "" {
			msg += "; to keep it in view, " + keep
		}
		p.lose(msg + ".")
	}
	return d, nil
}

// settle finds the conditional artifacts the targets need, on scratch
// plans that nothing writes: one without any, then one with those found
// needed, until the answer holds (an import makes a CLAUDE.md kbs-now
// block unneeded). It returns the last scratch plan, made with the answer.
func (s *session) settle(spare map[string]bool) (readsDecision, *plan, error) {
	d := readsDecision{needed: map[agent.Artifact]bool{}, spare: spare}
	var scratch *plan
	for range 5 {
		scratch = s.newPlan()
		if _, err := s.planWith(scratch, s.rec.clone(), d); err != nil {
			return d, nil, err
		}
		next := map[agent.Artifact]bool{}
		before, after := planFiles{p: scratch, before: true, rec: s.rec}, planFiles{p: scratch, rec: s.rec}
		for _, t := range s.Targets {
			for _, w := range s.desire(t).Artifacts {
				if c, ok := w.Artifact.(agent.Conditional); ok && w.Keep && c.Needed(before, after) {
					next[w.Artifact] = true
				}
			}
		}
		if sameSet(next, d.needed) {
			break
		}
		d.needed = next
	}
	return d, scratch, nil
}

func sameSet(a, b map[agent.Artifact]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// inUse are the targets that keep a mode and the other agents in use.
func (s *session) inUse() []*agent.Agent {
	var out []*agent.Agent
	for _, t := range s.Targets {
		if t.Mode != "" {
			out = append(out, t.Agent)
		}
	}
	return append(out, s.others...)
}

// losses lists the instruction files agents read before the plan and not
// after it, from the root and from every start folder, of those the plan
// leaves in place (a file of nowhook's that it deletes is no loss).
func losses(p *plan, agents []*agent.Agent) []loss {
	before, after := planFiles{p: p, before: true}, planFiles{p: p}
	var out []loss
	for _, a := range agents {
		for _, from := range agent.Folders(after) {
			now := a.Judge(after, from)
			for _, f := range a.Judge(before, from).Files() {
				if _, exists := after.Read(f); !exists {
					continue
				}
				if _, ok := now.Load(f); !ok {
					h, _ := now.HiddenBy(f)
					out = append(out, loss{agent: a, file: f, by: h.By, from: from})
				}
			}
		}
	}
	return out
}

// createdHiders are the files the plan creates that hide a lost file.
func createdHiders(p *plan, lost []loss) map[string]bool {
	before := planFiles{p: p, before: true}
	spare := map[string]bool{}
	for _, l := range lost {
		if _, existed := before.Read(l.by); l.by != "" && !existed {
			spare[l.by] = true
		}
	}
	return spare
}

// stillTaught reports whether every target taught `kbs now` in plan a, in
// a session started at the root or in a start folder, is still taught
// there in plan b.
func stillTaught(targets []Target, a, b *plan) bool {
	fa, fb := planFiles{p: a}, planFiles{p: b}
	for _, t := range targets {
		if t.Mode == "" {
			continue
		}
		for _, from := range agent.Folders(fa) {
			if len(t.Agent.TeachesAt(fa, from)) > 0 && len(t.Agent.TeachesAt(fb, from)) == 0 {
				return false
			}
		}
	}
	return true
}
