package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// --scope: where setup and remove work. The project scope (the default) is
// the repository; the user scope is the user's own agent settings, which
// the agent loads in every session wherever it starts (docs/platforms.md),
// for the agents that load project hooks only from the directory they
// start in. It is opt-in: --yes never implies it.
const (
	scopeProject = "project"
	scopeUser    = "user"
)

// scopeFlag checks a --scope value.
func scopeFlag(s string) error {
	if s != scopeProject && s != scopeUser {
		return usageError("--scope %q: the scopes are project (the repository, the default) and user (your own agent settings, for every session on this machine)", s)
	}
	return nil
}

// userNames lists the agents that have a user scope.
func userNames() []string {
	var names []string
	for _, a := range agent.All {
		if a.Scope.User != nil {
			names = append(names, a.Name)
		}
	}
	return names
}

// userTarget is an agent at the user scope in its folder as the
// environment names it: the agent as the reconcile sees it there.
func userTarget(a *agent.Agent, mode agent.Mode) (engine.Target, error) {
	if reason := a.UserRefusal(); reason != "" {
		return engine.Target{}, fmt.Errorf("--scope user --agents %s is refused: %s", a.Name, reason)
	}
	dir, err := a.Scope.User.Folder(os.Getenv, os.Getenv("HOME"))
	if err != nil {
		return engine.Target{}, fmt.Errorf("--scope user --agents %s: %w", a.Name, err)
	}
	return engine.Target{Agent: a.AtUserScope(dir), Mode: mode, Folder: dir}, nil
}

// setupUser is setup --scope user: the compact hook and its wrapper in the
// user's own settings of each agent named, and nothing else.
func setupUser(o setupOptions, io stdio) error {
	switch {
	case o.dir != "":
		return usageError("--dir names a repository, and --scope user writes your own settings outside any repository; drop --dir (or use --scope project)")
	case o.checkpointSet:
		return usageError("--checkpoint is set up per repository; --scope user installs the compact hook only")
	case o.trust:
		return usageError("--trust-codex goes with Codex's project hook; Codex has no user-scope hook")
	case !o.agentsSet:
		return usageError("--scope user writes your own agent settings, which every session on this machine reads: name the agents with --agents (%s)", strings.Join(userNames(), ", "))
	}
	choices, err := agent.ParseUserAgents(o.agents)
	if err != nil {
		return refused(err)
	}
	var targets []engine.Target
	for _, c := range choices {
		t, err := userTarget(c.Agent, agent.Reinject)
		if err != nil {
			return refused(err)
		}
		if c.Mode != agent.Reinject {
			return refused(fmt.Errorf("--scope user --agents %s=%s: the user scope has only the hook that re-injects; on-demand blocks are written per repository (nowhook setup --agents %s=%s there)", c.Agent.Name, c.Mode, c.Agent.Name, c.Mode))
		}
		targets = append(targets, t)
	}
	u := userRun{targets: targets, opts: agent.Options{Budget: o.budget, Force: o.force, Sources: o.sources}, outside: o.outside,
		yes: o.yes, dryRun: o.dryRun, fullDiff: o.fullDiff, accessible: o.accessible, verb: "setup", command: o.command}
	if o.check {
		pl, err := u.plan()
		if err != nil {
			return err
		}
		return checkSetup(o, pl, verdict{}, nil, userShow, io)
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return errNoTerminal
	}
	return u.run(io)
}

// removeUser is remove --scope user: what setup --scope user installed
// for the agents named (default: every agent with a user scope) goes.
func removeUser(o removeOptions, named []*agent.Agent, io stdio) error {
	if o.dir != "" {
		return usageError("--dir names a repository, and --scope user removes from your own settings outside any repository; drop --dir (or use --scope project)")
	}
	if len(named) == 0 {
		for _, a := range agent.All {
			if a.Scope.User != nil {
				named = append(named, a)
			}
		}
	}
	// Every folder the record says setup wrote into, as well as the one
	// the environment names today (CLAUDE_CONFIG_DIR set then, not now).
	var targets []engine.Target
	for _, a := range named {
		t, err := userTarget(a, "")
		if err != nil {
			return refused(err)
		}
		targets = append(targets, t)
		for _, dir := range engine.UserFolders(a) {
			if !sameDir(dir, t.Folder) {
				targets = append(targets, engine.Target{Agent: a.AtUserScope(dir), Folder: dir})
			}
		}
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return usageError("remove needs a terminal to ask before it deletes anything; pass --yes to remove without asking")
	}
	u := userRun{targets: targets, opts: agent.Options{Budget: agent.DefaultBudget}, outside: o.outside,
		yes: o.yes, dryRun: o.dryRun, fullDiff: true, accessible: o.accessible, verb: "remove", command: o.command}
	return u.run(io)
}

// userRun is one setup or remove at the user scope.
type userRun struct {
	targets                        []engine.Target
	opts                           agent.Options
	outside, yes, dryRun, fullDiff bool
	accessible                     bool
	verb, command                  string // "setup" or "remove"; the command line, for the lock
}

// run plans, checks and writes the user scope of the targets as one plan
// over absolute paths (its root is the file-system root), under the
// writer lock of each agent folder, with the record of what it created
// kept outside any repository.
func (u userRun) run(io stdio) error {
	if !u.dryRun {
		release, err := engine.Lock(u.request(), u.command)
		if err != nil {
			return failedUntouched(errors.New(osutil.TildeHome(err.Error())))
		}
		defer release()
	}
	pl, err := u.plan()
	if err != nil {
		return err
	}
	out := &tildeWriter{w: io.out}
	if u.dryRun {
		if !pl.WriteDiff(out, u.fullDiff) {
			fmt.Fprintln(out, "No changes.")
		}
		pl.WriteNotes(out)
		return nil
	}
	if u.verb == "remove" && !pl.Changed() {
		fmt.Fprintln(out, "Nothing of nowhook's was found in your user settings; nothing changed.")
		pl.WriteNotes(out)
		return nil
	}
	if !u.yes {
		if err := review(newAsker(u.accessible, io), pl, u.verb, io); err != nil {
			return err
		}
	}
	now, later := splitWrite(pl.Write())
	if now != nil {
		return errors.New(osutil.TildeHome(now.Error()))
	}
	pl.WriteSummary(out, true, func(t engine.Target) string {
		if u.verb == "remove" {
			return ""
		}
		line := "user scope: every " + t.Agent.Title + " session on this machine, started in any folder of a Kanbus project, gets the reminder after compaction"
		if len(t.Agent.Scope.User.Defer) == 0 {
			return line // no project hook to step aside for (Kimi Code loads none)
		}
		return line + " (where the project's own nowhook hook runs too, this one prints nothing)"
	})
	pl.WriteNotes(out)
	return later
}

func (u userRun) request() engine.Request {
	return engine.Request{Root: string(filepath.Separator), Targets: u.targets, Options: u.opts, User: true, Outside: u.outside}
}

// plan plans the user scope of the targets; an error is a refusal.
func (u userRun) plan() (*engine.Plan, error) {
	pl, err := engine.Reconcile(u.request())
	if err != nil {
		// Shown with ~ for the home directory, as the summary shows it.
		return nil, refused(errors.New(osutil.TildeHome(err.Error())))
	}
	return pl, nil
}

// tildeWriter shows the home directory as ~ in what it writes, line by line.
type tildeWriter struct{ w io.Writer }

func (t *tildeWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(t.w, osutil.TildeHome(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// subFolderNote is what setup's summary line says of a project-scope
// re-inject agent whose sessions started in a sub-folder run no project
// hook: that they get no reminder and the command that covers them, or
// that the user-scope hook already does.
func subFolderNote(t engine.Target) string {
	gap := t.Agent.SubFolderGap()
	if t.Mode != agent.Reinject || gap == "" {
		return ""
	}
	if file, ok := t.Agent.UserInstalled(os.Getenv, os.Getenv("HOME")); ok {
		return "sessions started in a sub-folder get the reminder from your user-scope hook in " + osutil.TildeHome(file)
	}
	if t.Agent.Scope.User == nil {
		return gap
	}
	return gap + "; for them: nowhook setup --scope user --agents " + t.Agent.Name
}
