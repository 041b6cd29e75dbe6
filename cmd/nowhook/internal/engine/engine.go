// Package engine is what setup and remove do once their options are
// decided: one reconcile of the targets' artifacts (reconcile.go) that
// keeps what agents in use share (inuse.go), shaped by what the agents
// will read (reads.go), planned onto every file it touches before any is
// written (plan.go), checked, shown as a diff (diff.go), written
// atomically with a rollback (write.go), remembered in a record of what
// nowhook created (record.go), and summarised per agent (summary.go).
//
// A command hands Reconcile a Request and gets a Plan back, or the
// refusal that means nothing was written; it then shows the plan, asks,
// and calls Write. Every error of Reconcile is a refusal; an error of
// Write is a failure after which the files are as they were.
package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// Target is an agent and the state it should end up in: Mode ("" for
// nothing, as remove wants), with the checkpoint or without.
type Target struct {
	Agent      *agent.Agent
	Mode       agent.Mode
	Checkpoint bool
}

// Request is one reconcile.
type Request struct {
	// Root is the repository; for the user scope, the file-system root
	// (the artifacts' paths are absolute there).
	Root    string
	Targets []Target
	// Found is what detection found in Root: the agents outside Targets
	// that are in use keep what they share with the targets.
	Found []agent.Found
	// Options shape what the artifacts render.
	Options agent.Options
	// User: the user scope (setup --scope user), whose record of what
	// nowhook created lives outside any repository.
	User bool
}

// Plan is a reconcile planned and checked; nothing is written before
// Write.
type Plan struct {
	// Root is the request's root.
	Root   string
	user   bool
	p      *plan
	rec    *record
	agents []*agentPlan
	s      *session
	// verdict is doctor's verdict on what the agents read, as the plan
	// leaves the files (vet.go).
	verdict []diag.Finding
}

// Reconcile plans the request and checks that the plan can be written
// whole. An error is a refusal: nothing was written.
func Reconcile(req Request) (*Plan, error) {
	rec := loadUserRecord()
	if !req.User {
		rec = loadRecord(req.Root)
	}
	s := &session{Request: req, rec: rec, others: inUse(req.Root, rec, req.Targets, req.Found), modes: setUpModes(req.Root, rec, req.Found)}
	if !req.User {
		s.starts = agent.StartFolders(req.Root)
	}
	p := s.newPlan()
	agents, err := s.reconcile(p)
	if err == nil {
		err = p.check()
	}
	if err != nil {
		return nil, err
	}
	return &Plan{Root: req.Root, user: req.User, p: p, rec: rec, agents: agents, s: s, verdict: s.vet(p)}, nil
}

// Changed reports whether writing the plan changes anything.
func (pl *Plan) Changed() bool {
	for _, c := range pl.p.changes {
		if c.changed() {
			return true
		}
	}
	return len(pl.p.rmdirs) > 0
}

// Acting reports whether the plan does anything for some target, if
// only to say why it keeps a file (another agent uses it).
func (pl *Plan) Acting() bool {
	for _, ap := range pl.agents {
		if len(ap.steps) > 0 {
			return true
		}
	}
	return false
}

// Change is one file or folder the plan changes, as a review lists it.
type Change struct {
	// Status is "created", "updated" or "deleted".
	Status string
	// Name is the file really written, relative to the root where it
	// lies inside it; Path is it absolute.
	Name, Path string
	// Folder: a folder the plan deletes once the files in it are gone.
	Folder bool
}

// Changes lists what the plan changes: the files, then the folders.
func (pl *Plan) Changes() []Change {
	var out []Change
	for _, c := range pl.p.changes {
		if c.changed() {
			out = append(out, Change{Status: c.status(), Name: pl.p.shown(c), Path: c.target})
		}
	}
	for _, d := range pl.p.rmdirs {
		out = append(out, Change{Status: "deleted", Name: pl.p.shownDir(d), Path: d, Folder: true})
	}
	return out
}

// WriteDiff prints the plan as a unified diff (diff.go) and reports
// whether there was anything to show.
func (pl *Plan) WriteDiff(w io.Writer, full bool) bool { return pl.p.writeDiff(w, full) }

// WriteNotes prints the plan's notes: warnings and what it left alone.
func (pl *Plan) WriteNotes(w io.Writer) {
	for _, n := range pl.p.notes {
		fmt.Fprintln(w, "Note: "+n)
	}
}

// Write makes the plan's changes, undoing them all if one fails, and
// records what it created (at the user scope, a record that lists only
// files that existed before is dropped).
func (pl *Plan) Write() error {
	if err := pl.p.write(); err != nil {
		return err
	}
	pl.rec.update(pl.p, pl.p.madeDirs)
	if pl.user {
		pl.rec.forgetKept()
	} else {
		pl.s.recordAgents(pl.rec)
	}
	pl.rec.save()
	return nil
}

// WriteSummary prints one line per target (with acting, only those the
// plan does something for): the agent, its mode (or "removed"), and what
// happened to each file, then how's words for it; below it, indented,
// what each of below says of the target, when it says something.
func (pl *Plan) WriteSummary(w io.Writer, acting bool, how func(Target) string, below ...func(Target) string) {
	var plans []*agentPlan
	for _, ap := range pl.agents {
		if !acting || len(ap.steps) > 0 {
			plans = append(plans, ap)
		}
	}
	printSummary(w, plans, how, below...)
}

// ForgetTrust forgets the trust of the hook entries the plan removed
// (Codex's), printing what it did.
func (pl *Plan) ForgetTrust(ctx context.Context, w io.Writer) error {
	return forgetTrust(ctx, pl.Root, pl.agents, w)
}
