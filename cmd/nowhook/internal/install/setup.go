package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// job is one setup or remove, decided: the scope, the reconcile, and
// what the pipeline says around it.
type job struct {
	verb string // "setup" or "remove"
	sc   *Scope
	o    Options
	req  engine.Request
	// choices are the agents set up, as chosen (doctor's warnings after a
	// setup in a repository name them); trusting the agents whose hook
	// needs a trust step.
	choices  []agent.Choice
	trusting []*agent.Agent
}

// Setup is nowhook setup: the scope's refusals, the targets as the
// options (and, in a repository without --yes, the wizard) decide them,
// then the pipeline.
func Setup(o Options, std IO) error {
	sc, err := rooted(o.Scope, o.Root)
	if err != nil {
		return err
	}
	o.Scope = sc
	if err := sc.RefuseSetup(o); err != nil {
		return err
	}
	var choices []agent.Choice
	if o.AgentsSet {
		var err error
		if choices, err = sc.ParseAgents(o.Agents); err != nil {
			return Refused(err)
		}
	}
	j := &job{verb: "setup", sc: sc, o: o}
	if sc.Repository {
		err = j.inRepository(choices, std)
	} else {
		err = j.inFolders(choices, std)
	}
	if err != nil {
		return err
	}
	return j.run(std)
}

// inFolders decides a setup outside a repository: each agent named, in
// the folder the scope gives it, in one of the scope's modes.
func (j *job) inFolders(choices []agent.Choice, std IO) error {
	var targets []engine.Target
	var agents []*agent.Agent // at the scope, in their folders
	for _, c := range choices {
		t, err := j.sc.target(c.Agent, j.sc.Modes[0])
		if err != nil {
			return Refused(err)
		}
		if !slices.Contains(j.sc.Modes, c.Mode) {
			return Refused(j.sc.ModeRefusal(c.Agent, c.Mode))
		}
		if j.sc.Absent != nil {
			if err := j.sc.Absent(c.Agent); err != nil {
				return Refused(err)
			}
		}
		targets = append(targets, t)
		agents = append(agents, t.Agent)
	}
	o := j.o
	sources := setupSources(o, string(filepath.Separator), agents)
	j.req = j.sc.request(targets, agent.Options{Budget: o.Budget, Force: o.Force, Sources: sources}, o.Outside)
	if !o.Check && !o.Yes && !o.DryRun && !o.Print && !o.Accessible && !isTerminal(std.In, std.Out) {
		return ErrNoTerminal
	}
	return nil
}

// rooted is the scope sc with its tree under root (--root), or sc itself
// without one.
func rooted(sc *Scope, root string) (*Scope, error) {
	if root == "" {
		return sc, nil
	}
	if sc.Rooted == nil {
		return nil, UsageError("--root goes with --scope managed: it builds the managed layer's tree under a folder, for packaging; the %s scope has no such tree", sc.Name)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, UsageError("--root %s: %v", root, err)
	}
	return sc.Rooted(abs), nil
}

// inRepository decides a setup in a repository: the agents named, else
// those detected, asked about in the wizard without --yes; their modes and
// checkpoints; the sources; the trust steps.
func (j *job) inRepository(choices []agent.Choice, std IO) error {
	o := &j.o
	root, err := projectRoot(o.Dir, "setup")
	if err != nil {
		return err
	}
	found := agent.Detect(root)
	if choices == nil {
		choices = defaultChoices(found)
	}
	if !o.Yes && !o.Check {
		if !o.Accessible && !isTerminal(std.In, std.Out) {
			return ErrNoTerminal
		}
		o.ask = newAsker(o.Accessible, std)
		if choices, err = runWizard(o, root, found, choices, std); err != nil {
			return err
		}
	}
	targets, at := setupTargets(*o, root, choices, std)
	sources := setupSources(*o, root, agent.All)
	if err := j.trustable(targets); err != nil {
		return err
	}
	if !anyDetected(found) && !o.AgentsSet {
		noneDetected(std.Out, choices, o.Check)
	}
	j.choices = choices
	j.req = engine.Request{Root: root, Targets: targets, Found: found, Outside: o.Outside,
		Options: agent.Options{Budget: o.Budget, Force: o.Force, CheckpointAt: at, Sources: sources}}
	return nil
}

// trustable finds the targets whose hook needs a trust step and, with
// --trust-codex, checks before anything is written that there is one and
// that its program is there.
func (j *job) trustable(targets []engine.Target) error {
	for _, t := range targets {
		if t.Agent.Desire(t.Mode, t.Checkpoint).Trust {
			j.trusting = append(j.trusting, t.Agent)
		}
	}
	o := j.o
	if o.Trust && len(j.trusting) == 0 {
		return UsageError("--trust-codex: no Codex hook is being set up (add codex to --agents, in mode reinject)")
	}
	if !o.Trust || o.DryRun || o.Check {
		return nil
	}
	for _, a := range j.trusting {
		if err := a.Trust.Available(); err != nil {
			return FailedUntouched(fmt.Errorf("--trust-codex: %w", err))
		}
	}
	return nil
}

// noneDetected says which agents setup takes where it detected none.
func noneDetected(w io.Writer, choices []agent.Choice, check bool) {
	var names []string
	for _, c := range choices {
		names = append(names, c.Agent.Name)
	}
	verb := "configuring"
	if check {
		verb = "checking"
	}
	fmt.Fprintf(w, "No agent detected; %s %s.\n", verb, strings.Join(names, " and "))
}

// run is the one pipeline of every scope: lock, plan and judge; then
// check, refuse or show; else write, summarise and say what follows.
func (j *job) run(std IO) error {
	if !j.o.Check && !j.o.DryRun && !j.o.Print {
		if j.sc.Rights != nil {
			if err := j.sc.Rights(j.req); err != nil {
				return FailedUntouched(err)
			}
		}
		release, err := engine.Lock(j.req, j.o.Command)
		if err != nil {
			return FailedUntouched(j.sc.shown(err))
		}
		defer release()
	}
	pl, v, err := j.plan()
	if err != nil {
		return err
	}
	if done, err := j.show(pl, v, std); done {
		return err
	}
	return j.write(pl, v, std)
}

// plan reconciles the request and, for a setup in a repository, judges
// the plan as doctor would (verdict.go).
func (j *job) plan() (*engine.Plan, verdict, error) {
	pl, err := engine.Reconcile(j.req)
	if err != nil && j.o.Check && j.sc.Repository {
		// A file setup cannot edit as the agent reads it (doctor calls it
		// an error in the same words): setup would refuse, and only the
		// user can fix it.
		return nil, verdict{}, FailedUntouched(fmt.Errorf("%w (setup would refuse and write nothing; only you can fix it, and doctor's hooks-file row says the same)", err))
	}
	if err != nil {
		return nil, verdict{}, Refused(j.sc.shown(err))
	}
	var v verdict
	if j.verb == "setup" && j.sc.Repository {
		if v, err = judgePlan(pl.Root, pl, j.req.Targets); err != nil {
			return nil, verdict{}, FailedUntouched(err)
		}
	}
	return pl, v, nil
}

// show ends the job before anything is written (done) where it writes
// nothing: --check's list, a refusal, --dry-run's diff, a remove with
// nothing to take.
func (j *job) show(pl *engine.Plan, v verdict, std IO) (done bool, err error) {
	o, out := j.o, j.sc.out(std.Out)
	if o.Check {
		return true, checkSetup(o, pl, v, j.trusting, j.sc.show(pl.Root), std)
	}
	if j.verb == "setup" {
		if err := errors.Join(pl.Refusal(), v.others(pl).refusal()); err != nil {
			pl.WriteRefusedNotes(out)
			return true, Refused(firstOf(err))
		}
	}
	switch {
	case o.Print:
		if !pl.WriteFiles(out) {
			fmt.Fprintln(out, "No changes.")
		}
	case o.DryRun:
		if !pl.WriteDiff(out, o.FullDiff) {
			fmt.Fprintln(out, "No changes.")
		}
	case j.verb == "remove" && !pl.Changed():
		if pl.Acting() && j.sc.Repository {
			pl.WriteSummary(out, true, none)
			fmt.Fprintln(out, "Nothing changed: what nowhook installed for these agents is still in use.")
		} else {
			fmt.Fprintln(out, j.sc.Empty(pl.Root))
		}
	default:
		return false, nil
	}
	pl.WriteNotes(out)
	return true, nil
}

// firstOf is the first of errors joined by errors.Join: a refusal says
// one reason, the plan's own before doctor's.
func firstOf(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()[0]
	}
	return err
}

// none says nothing of a target: remove's summary.
func none(engine.Target) string { return "" }

// write asks (without --yes), writes the plan, summarises it, and runs
// what follows a write: the trust steps, the notes, and for a setup in a
// repository what doctor would still call an error.
func (j *job) write(pl *engine.Plan, v verdict, std IO) error {
	o, sc, out := j.o, j.sc, j.sc.out(std.Out)
	if !o.Yes {
		ask := o.ask
		if ask == nil {
			ask = newAsker(o.Accessible, std)
		}
		if err := review(ask, pl, j.verb, sc, std); err != nil {
			return err
		}
	}
	now, later := splitWrite(pl.Write())
	if now != nil {
		return sc.shown(now)
	}
	reach := func(t engine.Target) string { return sc.Reach(t, o) }
	switch {
	case j.verb == "remove":
		pl.WriteSummary(out, true, none)
	case sc.Repository:
		pl.WriteSummary(out, false, reach, subFolderNote)
	default:
		pl.WriteSummary(out, true, reach)
	}
	failures := []error{later}
	ctx := context.Background()
	failures = append(failures, j.trust(ctx, pl.Root, out)...)
	if err := pl.ForgetTrust(ctx, out); err != nil {
		if j.verb == "remove" {
			err = FailedAfterWrite(err, "The files were changed; only forgetting the trust failed.")
		}
		failures = append(failures, err)
	}
	pl.WriteNotes(out)
	if j.verb == "setup" && sc.Repository {
		kanbusNote(out, pl.Root, j.req.Targets)
		doctorWarnings(out, pl.Root, j.choices)
		failures = append(failures, v.afterWrite())
	}
	return errors.Join(failures...)
}

// trust runs the trust step of each agent whose hook needs one
// (--trust-codex), or says how to run it.
func (j *job) trust(ctx context.Context, root string, out io.Writer) []error {
	var failures []error
	for _, a := range j.trusting {
		if !j.o.Trust {
			fmt.Fprintln(out, a.Trust.Hint)
			continue
		}
		done, err := a.Trust.Record(ctx, root)
		if err != nil {
			failures = append(failures, FailedAfterWrite(fmt.Errorf("--trust-codex: %w", err), "The hook files were written; only the trust step failed."))
			continue
		}
		fmt.Fprintln(out, osutil.TildeHome(done.Message))
		// Remembered, so that remove forgets a trust nowhook gave.
		if err := engine.RememberTrust(root, a.Name, done.Project); err != nil {
			failures = append(failures, FailedAfterWrite(err, "The hook files were written and the trust recorded; only nowhook's record of it failed."))
		}
	}
	return failures
}

// Remove is nowhook remove: what setup installed for the agents named
// (default: every agent the scope serves) goes, through the same
// pipeline.
func Remove(ro RemoveOptions, std IO) error {
	sc, err := rooted(ro.Scope, ro.Root)
	if err != nil {
		return err
	}
	named, err := removeAgents(ro.Agents)
	if err != nil {
		return err
	}
	if err := sc.RefuseRemove(ro); err != nil {
		return err
	}
	if len(named) == 0 {
		if ro.Agents != "" && sc.Repository {
			return UsageError("--agents lists no agent (known: %s)", strings.Join(agent.Names(), ", "))
		}
		for _, a := range agent.All {
			if sc.Serves(a) {
				named = append(named, a)
			}
		}
	}
	j := &job{verb: "remove", sc: sc, o: Options{Yes: ro.Yes, DryRun: ro.DryRun, FullDiff: true, Accessible: ro.Accessible, Outside: ro.Outside, Command: ro.Command}}
	targets, err := sc.removeTargets(named)
	if err != nil {
		return err
	}
	if !ro.Yes && !ro.DryRun && !ro.Accessible && !isTerminal(std.In, std.Out) {
		return UsageError("remove needs a terminal to ask before it deletes anything; pass --yes to remove without asking")
	}
	opts := agent.Options{Budget: agent.DefaultBudget}
	if !sc.Repository {
		j.req = sc.request(targets, opts, ro.Outside)
		return j.run(std)
	}
	root, err := projectRoot(ro.Dir, "remove")
	if err != nil {
		return err
	}
	j.req = engine.Request{Root: root, Targets: targets, Options: opts, Outside: ro.Outside, Found: agent.Detect(root)}
	return j.run(std)
}

// removeTargets are remove's targets: each agent named with nothing to
// keep; outside a repository, in its folder of today and in every folder
// the record says setup wrote into (CLAUDE_CONFIG_DIR set then, not now).
func (sc *Scope) removeTargets(named []*agent.Agent) ([]engine.Target, error) {
	var targets []engine.Target
	for _, a := range named {
		if sc.Repository {
			targets = append(targets, engine.Target{Agent: a})
			continue
		}
		t, err := sc.target(a, "")
		if err != nil {
			return nil, Refused(err)
		}
		targets = append(targets, t)
		for _, dir := range sc.Recorded(a) {
			if !sameDir(dir, t.Folder) {
				targets = append(targets, engine.Target{Agent: sc.At(a, dir), Folder: dir})
			}
		}
	}
	return targets, nil
}

// removeAgents are the agents an --agents list of remove names, in its
// order (none for an empty list).
func removeAgents(list string) ([]*agent.Agent, error) {
	var named []*agent.Agent
	if list == "" {
		return nil, nil
	}
	for _, item := range strings.Split(list, ",") {
		name := strings.TrimSpace(item)
		if name == "" {
			continue
		}
		if strings.Contains(name, "=") {
			return nil, UsageError("--agents %q: remove takes agent names without a mode", name)
		}
		a, ok := agent.Lookup(name)
		if !ok {
			return nil, UsageError("unknown agent %q (known: %s)", name, strings.Join(agent.Names(), ", "))
		}
		named = append(named, a)
	}
	return named, nil
}

// splitWrite sorts an error of Write: a failure of the record alone
// (later) comes after every file was written, so the command goes on to
// say what it did and ends with it; any other (now) is the failure,
// whose message says what was undone.
func splitWrite(err error) (now, later error) {
	var re *engine.RecordError
	if errors.As(err, &re) {
		return nil, FailedAfterWrite(err, "The files were written; only the record failed.")
	}
	return err, nil
}
