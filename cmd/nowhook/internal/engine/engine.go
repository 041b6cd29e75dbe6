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
	"path/filepath"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// Target is an agent and the state it should end up in: Mode ("" for
// nothing, as remove wants), with the checkpoint or without.
type Target struct {
	Agent      *agent.Agent
	Mode       agent.Mode
	Checkpoint bool
	// Folder is, at the user scope, the agent's own folder that the
	// target's artifacts lie in (~/.claude): the one folder it may write.
	Folder string
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
	// User: a scope outside any repository (setup --scope user), whose
	// artifacts' paths are absolute and whose record of what nowhook
	// created lives outside any repository, in Record ("" where there is
	// no home folder for it).
	User   bool
	Record string
	// RecordBase, if set, is the tree the record's paths are relative to
	// (the managed scope's root); Areas are the folders besides the
	// targets' own that the plan may write (the managed wrappers'); Lock,
	// if set, is the writer lock's file, named LockWhat, in place of
	// those in nowhook's state folder.
	RecordBase     string
	Areas          []string
	Lock, LockWhat string
	// Outside: --follow-outside-links. A file or folder that a link in
	// the repository (at the user scope, in the agent's folder) leads out
	// of it to is written there, its old bytes kept for remove; without
	// it, such a write is refused (guard.go). The user's own agent
	// folders stay refused to a project install either way.
	Outside bool
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
	g      *guard
	// restored are the files remove gives their recorded bytes back
	// (restore.go).
	restored map[string]bool
	// prior is the record as it was read, before planning changed it.
	prior *record
	// verdict is doctor's verdict on what the agents read, as the plan
	// leaves the files (vet.go).
	verdict []diag.Finding
}

// Reconcile plans the request and checks that the plan can be written
// whole. An error is a refusal: nothing was written.
func Reconcile(req Request) (*Plan, error) {
	rec := loadScopeRecord(req.Record, req.RecordBase)
	if !req.User {
		rec = loadRecord(req.Root)
	}
	prior := rec.clone() // as read: planning drops what removals will take away
	s := &session{Request: req, rec: rec, others: inUse(req.Root, rec, req.Targets, req.Found), modes: setUpModes(req.Root, rec, req.Found)}
	if !req.User {
		s.starts = agent.StartFolders(req.Root)
	}
	p := s.newPlan()
	g := newGuard(req, rec)
	agents, err := s.reconcile(p)
	var restored map[string]bool
	if err == nil {
		restored = restore(p, rec)
		err = p.check(g)
	}
	if err == nil && req.Outside && rec.path == "" {
		err = outsideWithoutRecord(p, g)
	}
	if err != nil {
		return nil, err
	}
	return &Plan{Root: req.Root, user: req.User, p: p, rec: rec, prior: prior, agents: agents, s: s, g: g, restored: restored, verdict: s.vet(p)}, nil
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

// WriteFiles prints each file the plan writes, whole, as it will be
// (setup --print), and reports whether there was any.
func (pl *Plan) WriteFiles(w io.Writer) bool { return pl.p.writeFiles(w) }

// WriteNotes prints the plan's notes: warnings, what it left alone, and
// what an agent no longer reads once it is written.
func (pl *Plan) WriteNotes(w io.Writer) { writeNotes(w, slices.Concat(pl.p.notes, pl.p.losses)) }

// WriteRefusedNotes prints the notes of a plan that is refused, so never
// written: not what an agent would no longer read, which is not so (the
// refusal names each loss doctor calls an error).
func (pl *Plan) WriteRefusedNotes(w io.Writer) { writeNotes(w, pl.p.notes) }

// writeNotes prints notes, one "Note:" line each.
func writeNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "Note: "+n)
	}
}

// Write makes the plan's changes, undoing them all if one fails (a
// *WriteError then says, file by file, what was undone), and records what
// it created (at the user scope, a record that lists only files that
// existed before is dropped). Before the first write it keeps, beside the
// record, the old bytes of each file it writes outside the repository
// with --follow-outside-links. An error of the record alone comes after
// the files were written: a *RecordError.
func (pl *Plan) Write() error {
	if err := pl.keepOutside(); err != nil {
		return fmt.Errorf("keeping the old bytes of the files outside the repository for nowhook remove: %w; nothing was written", err)
	}
	rescue := filepath.Dir(pl.rec.path)
	if pl.rec.path == "" {
		rescue = stateDir()
	}
	// Written ahead: a run killed while it writes leaves a record that
	// names the files and folders it was creating, so that the next run
	// and remove know them for nowhook's. Failing to save it here is said
	// by the save after the write.
	ahead := pl.prior.clone()
	ahead.path = pl.rec.path
	ahead.intend(pl.p)
	for line := range pl.rec.lines {
		if strings.HasPrefix(line, "o ") {
			ahead.lines[line] = true // keepOutside's, whose old bytes are saved already
		}
	}
	_ = ahead.save()
	if err := pl.p.write(pl.g, rescue); err != nil {
		ahead.lines, ahead.blank = pl.prior.lines, pl.prior.blank
		_ = ahead.save()
		return err
	}
	for _, d := range pl.p.madeDirs {
		if _, ok := pl.g.inside(d); !ok && len(pl.g.areas) > 0 && !pl.g.leadsTo(d) {
			pl.rec.lines["o "+pl.rec.key(d)] = true
		}
	}
	pl.rec.update(pl.p, pl.p.madeDirs, pl.restored)
	if pl.user {
		for _, ap := range pl.agents {
			if ap.t.Folder != "" && pl.rec.base == "" {
				pl.rec.userFolder(ap.t.Agent.Name, ap.t.Folder, ap.t.Mode != "")
			}
		}
		pl.rec.forgetKept()
	} else {
		pl.s.recordAgents(pl.rec)
	}
	if err := pl.rec.save(); err != nil {
		return &RecordError{Err: err}
	}
	return nil
}

// RecordError is a write whose files were all written but whose record
// could not be saved.
type RecordError struct{ Err error }

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// keepOutside keeps the old bytes of every file the plan writes or
// deletes outside its area (allowed by --follow-outside-links), once.
func (pl *Plan) keepOutside() error {
	if !pl.s.Outside {
		return nil
	}
	for _, c := range pl.p.changes {
		if !c.changed() {
			continue
		}
		if _, ok := pl.g.inside(c.target); ok || len(pl.g.areas) == 0 {
			continue
		}
		if err := pl.rec.keepOriginal(c.target, c.old, c.oldMode, c.existed); err != nil {
			return fmt.Errorf("%s: %w", c.rel, err)
		}
	}
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
// (Codex's), and the project's trust where nowhook's record says setup
// --trust-codex recorded it and the agent keeps no hook that needs it,
// printing what it did (or why it kept the project's trust).
func (pl *Plan) ForgetTrust(ctx context.Context, w io.Writer) error {
	for _, ap := range pl.agents {
		tr := ap.t.Agent.Trust
		if tr == nil {
			continue
		}
		project := pl.rec.trustedProject(ap.t.Agent.Name)
		if ap.desire.Trust {
			project = "" // still set up with its hook: the project's trust stays
		}
		if len(ap.trustKeys) == 0 && project == "" {
			continue
		}
		msg, forgotten, err := tr.Forget(ctx, pl.Root, ap.trustKeys, project)
		if err != nil {
			return fmt.Errorf("%s: forgetting the trust of the removed hook: %w", ap.t.Agent.Name, err)
		}
		if msg != "" {
			fmt.Fprintln(w, osutil.TildeHome(msg))
		}
		if project != "" && forgotten {
			pl.rec.rememberTrust(ap.t.Agent.Name, project, false)
			if err := pl.rec.save(); err != nil {
				return err
			}
		}
	}
	return nil
}

// RememberTrust records in the repository's record that agentName's
// trust step (setup --trust-codex) recorded the trust of project, so that
// remove forgets it again when nothing else needs it.
func RememberTrust(root, agentName, project string) error {
	if project == "" {
		return nil
	}
	rec := loadRecord(root)
	rec.rememberTrust(agentName, project, true)
	return rec.save()
}
