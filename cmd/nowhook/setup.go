package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/templates"
)

const templateVersion = templates.Version

// setupOptions is what setup does; flags and the wizard both fill it.
type setupOptions struct {
	dir        string
	yes        bool
	dryRun     bool
	fullDiff   bool   // --diff: the dry run prints scripts in full too
	check      bool   // --check: list what setup would change, write nothing
	fix        string // with check: the setup command that makes it so
	force      bool
	trust      bool // --trust-codex: run the agents' trust steps
	accessible bool
	agents     string // the --agents list; empty: the detected agents
	agentsSet  bool   // --agents was given
	wizard     bool   // the wizard chose the agents and modes
	// checkpoint is --checkpoint; checkpointSet says it was given (without
	// it, each agent keeps the checkpoint it has). checkpointAt is
	// --checkpoint-at (0: what is installed, else the default).
	checkpoint, checkpointSet bool
	checkpointAt              int
	ask                       asker // asks the wizard's and the review's questions
	budget                    time.Duration
	scope                     string // --scope: project or user
	outside                   bool   // --follow-outside-links
	command                   string // the command line, as the writer lock names its holder
	// sources are the reminder's sources (--sources, in printing order);
	// sourcesSet says the flag was given (without it, the sources the
	// installed wrappers name stay, else the default).
	sources    string
	sourcesSet bool
}

const (
	minBudget = time.Second
	maxBudget = 30 * time.Second
)

// errNoTerminal is setup without --yes where it cannot ask: in the words
// README's "Commands" section quotes, which name no command after
// "nowhook:", then its promise for exit 2.
var errNoTerminal = &cmdError{err: errors.New("setup needs a terminal to ask questions; pass --yes to accept the detected defaults"), status: exitUsage, untouched: true, bare: true}

func setupCmd(args []string, io stdio) error {
	var o setupOptions
	fs := flag.NewFlagSet("nowhook setup", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "the repository (default: the git top level of the working directory)")
	fs.BoolVar(&o.yes, "yes", false, "accept the detected defaults without asking")
	fs.StringVar(&o.agents, "agents", "", "comma-separated agent[=mode] list: agents "+strings.Join(agent.Names(), ", ")+"; modes reinject, ondemand, nudge")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of every change (scripts nowhook owns summarised in one line) and write nothing")
	fs.BoolVar(&o.fullDiff, "diff", false, "with --dry-run: print scripts in full too, as a patch git apply takes")
	fs.BoolVar(&o.check, "check", false, "write nothing, ask nothing, run no program: list each difference from what setup would write as file:line, with the command that fixes them; exit 1 when there is one (with --dry-run, also the diff)")
	o.budget = agent.DefaultBudget
	fs.Var((*durationFlag)(&o.budget), "timeout", "the time the hook gives kbs, with its unit (1s to 30s)")
	fs.BoolVar(&o.trust, "trust-codex", false, "record the trust of our Codex hook in your Codex config, through codex app-server")
	fs.BoolVar(&o.force, "force", false, "replace scripts at our paths and our Markdown blocks even when they were changed by hand (the old file is kept as FILE.bak)")
	fs.BoolVar(&o.checkpoint, "checkpoint", false, "also install the checkpoint: near a full context the agent is told once to write its progress into its Kanbus issues (--checkpoint=false takes it away; without the flag each agent keeps what it has)")
	fs.IntVar(&o.checkpointAt, "checkpoint-at", 0, "the share of the context window, in percent, at which the checkpoint fires (default 85; turns --checkpoint on)")
	fs.BoolVar(&o.accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	fs.StringVar(&o.sources, "sources", templates.DefaultSources, "what the reminder brings back after a compaction, comma-separated: "+strings.Join(reminder.SourceNames(), ", ")+" (kanbus: the board's work in progress; rules: your own earlier words in the session; git: branch, HEAD, changed files; samemind: samemind handoff)")
	fs.BoolVar(&o.outside, "follow-outside-links", false, outsideUsage)
	fs.StringVar(&o.scope, "scope", scopeProject, "project: the repository; user: your own settings of the agents named with --agents ("+strings.Join(userNames(), ", ")+"), read by every session on this machine wherever it starts")
	const about = "Usage: nowhook setup [flags]\n\nInstalls the Kanbus compaction hook for the repository's agents, and takes\naway what nowhook installed for a mode an agent no longer uses.\n\nFlags:\n"
	if done, err := parseFlags(fs, args, help{about: about}, io); done || err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "agents" {
			o.agentsSet = true
		}
	})
	if o.fullDiff && !o.dryRun {
		return usageError("--diff goes with --dry-run")
	}
	o.fix = fixCommand(fs)
	o.command = commandLine("setup", args)
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "sources":
			o.sourcesSet = true
		case "checkpoint":
			o.checkpointSet = true
		case "checkpoint-at":
			if !o.checkpointSet {
				o.checkpoint, o.checkpointSet = true, true
			}
		}
	})
	if o.checkpointAt != 0 && (o.checkpointAt < 50 || o.checkpointAt > 95) {
		return usageError("--checkpoint-at %d is out of range: allowed 50 to 95 (percent of the context window)", o.checkpointAt)
	}
	if o.checkpointAt != 0 && !o.checkpoint {
		return usageError("--checkpoint-at goes with --checkpoint")
	}
	if o.budget < minBudget || o.budget > maxBudget {
		return usageError("--timeout %s is out of range: allowed 1s to 30s", o.budget)
	}
	if o.sourcesSet {
		norm, err := reminder.NormalSources(o.sources)
		if err != nil {
			return usageError("%v", err)
		}
		o.sources = norm
	}
	if err := scopeFlag(o.scope); err != nil {
		return err
	}
	if o.scope == scopeUser {
		return setupUser(o, io)
	}
	var choices []agent.Choice
	if o.agentsSet {
		var err error
		if choices, err = agent.ParseAgents(o.agents); err != nil {
			return refused(err)
		}
	}
	root, err := projectRoot(o.dir, "setup")
	if err != nil {
		return err
	}
	found := agent.Detect(root)
	if choices == nil {
		choices = defaultChoices(found)
	}
	if !o.yes && !o.check {
		if !o.accessible && !isTerminal(io.in, io.out) {
			return errNoTerminal
		}
		o.ask = newAsker(o.accessible, io)
		if choices, err = runWizard(&o, root, found, choices, io); err != nil {
			return err
		}
	}
	return setup(o, root, found, choices, io)
}

// projectRoot is the repository a command works on: --dir, else the git
// top level of the working directory. Outside git without --dir, and in
// the user's home directory, it refuses: a project-level install never
// touches the user's own agent settings.
func projectRoot(dir, command string) (string, error) {
	var root string
	if dir != "" {
		abs, err := detect.Dir(dir)
		if err != nil {
			return "", usageError("--dir: %v", err)
		}
		root = abs
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return "", failedUntouched(err)
		}
		top, ok := detect.GitTop(wd)
		if !ok {
			return "", usageError("%s is not inside a git repository; run nowhook %s in your project's repository, or name the project with --dir DIR", wd, command)
		}
		root = top
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && sameDir(home, root) {
		return "", usageError("%s is your home directory: the agents would read what nowhook writes here as your own settings for every project (~/.claude/settings.json, ~/.codex/), so the hook would run in every session on this machine (that is --scope user, for the agents that have it); run nowhook %s in a project's repository (or pass --dir DIR)", root, command)
	}
	return root, nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// defaultChoices are the detected agents in their default modes; with
// nothing detected, the table's fallback agents.
func defaultChoices(found []agent.Found) []agent.Choice {
	var choices []agent.Choice
	for _, f := range found {
		if f.Present() {
			choices = append(choices, agent.Choice{Agent: f.Agent, Mode: f.Agent.Default})
		}
	}
	if len(choices) == 0 {
		for _, a := range agent.All {
			if a.Fallback {
				choices = append(choices, agent.Choice{Agent: a, Mode: a.Default})
			}
		}
	}
	return choices
}

func anyDetected(found []agent.Found) bool {
	for _, f := range found {
		if f.Present() {
			return true
		}
	}
	return false
}

// setupTargets turns the choices into the desired state: each agent's
// mode, and its checkpoint as --checkpoint says, else as installed. It
// returns the checkpoint's threshold: --checkpoint-at, else what is
// installed, else the default.
func setupTargets(o setupOptions, root string, choices []agent.Choice, io stdio) ([]engine.Target, int) {
	var targets []engine.Target
	at := o.checkpointAt
	for _, c := range choices {
		t := engine.Target{Agent: c.Agent, Mode: c.Mode, Checkpoint: o.checkpoint}
		if !o.checkpointSet {
			in := c.Agent.InstalledIn(root, false)
			t.Checkpoint = in.Checkpoint
			if at == 0 {
				at = in.CheckpointAt
			}
		}
		if t.Checkpoint && len(c.Agent.Checkpoint) == 0 && o.checkpointSet {
			fmt.Fprintf(io.out, "Note: %s has no hook that can add context mid-session, so it gets no automatic checkpoint; its kbs-now block says how to write one by hand.\n", c.Agent.Title)
		}
		targets = append(targets, t)
	}
	if at == 0 {
		at = agent.DefaultCheckpointAt
	}
	return targets, at
}

// setupSources are the reminder's sources setup writes: --sources, else
// what the repository's wrappers name (a teammate's setup keeps the
// team's choice), else the default.
func setupSources(o setupOptions, root string) string {
	if o.sourcesSet {
		return o.sources
	}
	for _, a := range agent.All {
		if in := a.InstalledIn(root, false); in.Sources != "" {
			if norm, err := reminder.NormalSources(in.Sources); err == nil {
				return norm
			}
		}
	}
	return templates.DefaultSources
}

// setup plans, checks and writes; every line after the options are
// decided is shared by the wizard and --yes.
func setup(o setupOptions, root string, found []agent.Found, choices []agent.Choice, io stdio) error {
	targets, at := setupTargets(o, root, choices, io)
	sources := setupSources(o, root)
	var trusting []*agent.Agent
	for _, t := range targets {
		if t.Agent.Desire(t.Mode, t.Checkpoint).Trust {
			trusting = append(trusting, t.Agent)
		}
	}
	if o.trust && len(trusting) == 0 {
		return usageError("--trust-codex: no Codex hook is being set up (add codex to --agents, in mode reinject)")
	}
	if o.trust && !o.dryRun && !o.check {
		// Before anything is written: the trust step needs its program.
		for _, a := range trusting {
			if err := a.Trust.Available(); err != nil {
				return failedUntouched(fmt.Errorf("--trust-codex: %w", err))
			}
		}
	}
	if !anyDetected(found) && !o.agentsSet {
		var names []string
		for _, c := range choices {
			names = append(names, c.Agent.Name)
		}
		verb := "configuring"
		if o.check {
			verb = "checking"
		}
		fmt.Fprintf(io.out, "No agent detected; %s %s.\n", verb, strings.Join(names, " and "))
	}
	req := engine.Request{Root: root, Targets: targets, Found: found, Outside: o.outside,
		Options: agent.Options{Budget: o.budget, Force: o.force, CheckpointAt: at, Sources: sources}}
	if !o.check && !o.dryRun {
		release, err := engine.Lock(req, o.command)
		if err != nil {
			return failedUntouched(err)
		}
		defer release()
	}
	pl, err := engine.Reconcile(req)
	if err != nil && o.check {
		// A file setup cannot edit as the agent reads it (doctor calls it
		// an error in the same words): setup would refuse, and only the
		// user can fix it.
		return failedUntouched(fmt.Errorf("%w (setup would refuse and write nothing; only you can fix it, and doctor's hooks-file row says the same)", err))
	}
	if err != nil {
		return refused(err)
	}
	v, err := judgePlan(root, pl, targets)
	if err != nil {
		return failedUntouched(err)
	}
	if o.check {
		return checkSetup(o, pl, v, trusting, projectShow(root), io)
	}
	if err := pl.Refusal(); err != nil {
		pl.WriteNotes(io.out)
		return refused(err)
	}
	if err := v.others(pl).refusal(); err != nil {
		pl.WriteNotes(io.out)
		return refused(err)
	}
	if o.dryRun {
		if !pl.WriteDiff(io.out, o.fullDiff) {
			fmt.Fprintln(io.out, "No changes.")
		}
		pl.WriteNotes(io.out)
		return nil
	}
	if !o.yes {
		if err := review(o.ask, pl, "setup", io); err != nil {
			return err
		}
	}
	now, later := splitWrite(pl.Write())
	if now != nil {
		return now
	}
	pl.WriteSummary(io.out, false, func(t engine.Target) string { return onDemandReason(t, o) }, subFolderNote)
	var failures []error
	if later != nil {
		failures = append(failures, later)
	}
	ctx := context.Background()
	for _, a := range trusting {
		if !o.trust {
			fmt.Fprintln(io.out, a.Trust.Hint)
			continue
		}
		done, err := a.Trust.Record(ctx, root)
		if err != nil {
			failures = append(failures, failedAfterWrite(fmt.Errorf("--trust-codex: %w", err), "The hook files were written; only the trust step failed."))
			continue
		}
		fmt.Fprintln(io.out, osutil.TildeHome(done.Message))
		// Remembered, so that remove forgets a trust nowhook gave.
		if err := engine.RememberTrust(root, a.Name, done.Project); err != nil {
			failures = append(failures, failedAfterWrite(err, "The hook files were written and the trust recorded; only nowhook's record of it failed."))
		}
	}
	if err := pl.ForgetTrust(ctx, io.out); err != nil {
		failures = append(failures, err)
	}
	pl.WriteNotes(io.out)
	kanbusNote(io.out, root, targets)
	doctorWarnings(io.out, root, choices)
	return errors.Join(append(failures, v.afterWrite())...)
}

// kanbusNote says where the Kanbus project is when the hook might not find
// it: setup, doctor and the hook runtime look the same way, from the
// session's directory up to the git root. A repository whose projects all
// lie in sub-folders gets each one named with what a session started
// there needs from the agents set up with a hook.
func kanbusNote(w io.Writer, root string, targets []engine.Target) {
	from, _ := os.Getwd()
	if !engine.Within(root, from) {
		from = root
	}
	// --dir as the user types it, from where they are.
	dirArg := func(abs string) string {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil {
				return rel
			}
		}
		return abs
	}
	k := detect.DetectKanbusFrom(root, from)
	if dir, below := k.Below(root); below {
		arg := dirArg(filepath.Join(root, filepath.FromSlash(dir)))
		fmt.Fprintf(w, "Note: the Kanbus project is %s/ (%s/.kanbus.yml), below the repository root: the hook finds it in agent sessions whose directory is %s/ or below it, and prints nothing in sessions started elsewhere. If your agents start in %s/, set nowhook up there: nowhook setup --dir %s\n", dir, dir, dir, dir, arg)
		return
	}
	if k.Config != "" {
		return
	}
	if len(k.Projects) > 0 {
		var hooked []*agent.Agent
		for _, t := range targets {
			if t.Mode == agent.Reinject {
				hooked = append(hooked, t.Agent)
			}
		}
		fmt.Fprintln(w, "Note: "+doctor.ProjectsBelowNote(k, hooked, dirArg))
		return
	}
	more := ""
	if !k.Search.Complete {
		more = fmt.Sprintf(" (the search below the root stopped after %d folders: if your Kanbus project lives deeper, run nowhook setup in its folder to check)", k.Search.Folders)
	}
	fmt.Fprintf(w, "Note: no .kanbus.yml found from %s up to the git root, nor below the repository root%s; the hook prints nothing until there is one: create the Kanbus project with kbs init.\n", from, more)
}

// doctorWarnings prints, after a write, every finding doctor calls an
// error in the files of the agents just set up (doctor's file checks
// only: nothing is run), so that setup never leaves in silence a hook
// that will not run: "disableAllHooks": true, a blocking PreCompact hook,
// Codex's [features] hooks = false, and the like; and the warnings of the
// checks in setupWarns, about what setup's own hook just caused.
func doctorWarnings(w io.Writer, root string, choices []agent.Choice) {
	var names []string
	for _, c := range choices {
		names = append(names, c.Agent.Name)
	}
	for _, f := range doctor.Static(root, names, os.Environ()) {
		_, check, _ := strings.Cut(f.Check, ".")
		if f.Severity != doctor.Error && (f.Severity != doctor.Warn || !slices.Contains(setupWarns, check)) {
			continue
		}
		fmt.Fprintln(w, "Warning: "+f.Message)
		if f.Fix != "" {
			fmt.Fprintln(w, "  fix: "+f.Fix)
		}
	}
}

// setupWarns are doctor's per-agent checks (the part of the row's name
// after the agent's) whose warnings setup repeats: "twice", the reminder
// that runs twice because the user's own compact hook already runs kbs now
// beside the one setup just added (doctor derives the check for every
// agent whose hook format runs a byte-identical command once:
// HookFormat.OnceByCommand).
var setupWarns = []string{"twice"}

// onDemandReason says why an agent is on demand only: the platform's
// reason, or that it was chosen.
func onDemandReason(t engine.Target, o setupOptions) string {
	if t.Mode == agent.Reinject || t.Mode == "" {
		return ""
	}
	if reason := t.Agent.OnDemandOnly(); reason != "" {
		return "on-demand only: " + reason
	}
	if t.Agent.OptIn != "" && t.Mode == t.Agent.Default {
		return "on-demand by default: " + t.Agent.OptIn
	}
	if o.wizard {
		return "on-demand only: chosen in the wizard"
	}
	if t.Mode == t.Agent.Default {
		return "on demand by default; --agents " + t.Agent.Name + "=reinject opts in to re-injection, " + strings.TrimPrefix(t.Agent.Reinject, "yes, ")
	}
	return "on-demand only: chosen with --agents " + t.Agent.Name + "=" + string(t.Mode)
}

// isTerminal reports whether both streams are terminals.
func isTerminal(in io.Reader, out io.Writer) bool {
	return isTTY(in) && isTTY(out)
}

// isTTY reports whether v is a terminal: /dev/null is a character device
// but not a terminal.
func isTTY(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// durationFlag is --timeout: a duration, and a clear word when the unit
// is missing ("5" is not a duration; "5s" is).
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
			return fmt.Errorf("%q has no unit: write %ss (seconds)", s, s)
		}
		return fmt.Errorf("%q is not a duration such as 5s or 2500ms", s)
	}
	*d = durationFlag(v)
	return nil
}
