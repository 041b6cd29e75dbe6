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

// userTarget is an agent at the user scope: the agent as the reconcile
// sees it there, with its user folder.
func userTarget(a *agent.Agent) (*agent.Agent, error) {
	if reason := a.UserRefusal(); reason != "" {
		return nil, fmt.Errorf("--scope user --agents %s is refused: %s", a.Name, reason)
	}
	dir, err := a.Scope.User.Folder(os.Getenv, os.Getenv("HOME"))
	if err != nil {
		return nil, fmt.Errorf("--scope user --agents %s: %w", a.Name, err)
	}
	return a.AtUserScope(dir), nil
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
	choices, err := agent.ParseAgents(o.agents)
	if err != nil {
		return refused(err)
	}
	var targets []engine.Target
	for _, c := range choices {
		ua, err := userTarget(c.Agent)
		if err != nil {
			return refused(err)
		}
		if c.Mode != agent.Reinject {
			return refused(fmt.Errorf("--scope user --agents %s=%s: the user scope has only the hook that re-injects; on-demand blocks are written per repository (nowhook setup --agents %s=%s there)", c.Agent.Name, c.Mode, c.Agent.Name, c.Mode))
		}
		targets = append(targets, engine.Target{Agent: ua, Mode: agent.Reinject})
	}
	if o.check {
		pl, err := userPlan(targets, agent.Options{Budget: o.budget, Force: o.force, Sources: o.sources})
		if err != nil {
			return err
		}
		return checkSetup(o, pl, nil, userShow, io)
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return errNoTerminal
	}
	return reconcileUser(targets, agent.Options{Budget: o.budget, Force: o.force, Sources: o.sources}, o.yes, o.dryRun, o.fullDiff, o.accessible, "setup", io)
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
	var targets []engine.Target
	for _, a := range named {
		ua, err := userTarget(a)
		if err != nil {
			return refused(err)
		}
		targets = append(targets, engine.Target{Agent: ua})
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return usageError("remove needs a terminal to ask before it deletes anything; pass --yes to remove without asking")
	}
	return reconcileUser(targets, agent.Options{Budget: agent.DefaultBudget}, o.yes, o.dryRun, true, o.accessible, "remove", io)
}

// reconcileUser plans, checks and writes the user scope of the targets as
// one plan over absolute paths (its root is the file-system root), with
// the record of what it created kept outside any repository.
func reconcileUser(targets []engine.Target, opts agent.Options, yes, dryRun, fullDiff, accessible bool, verb string, io stdio) error {
	pl, err := userPlan(targets, opts)
	if err != nil {
		return err
	}
	out := &tildeWriter{w: io.out}
	if dryRun {
		if !pl.WriteDiff(out, fullDiff) {
			fmt.Fprintln(out, "No changes.")
		}
		pl.WriteNotes(out)
		return nil
	}
	if verb == "remove" && !pl.Changed() {
		fmt.Fprintln(out, "Nothing of nowhook's was found in your user settings; nothing changed.")
		pl.WriteNotes(out)
		return nil
	}
	if !yes {
		if err := review(newAsker(accessible, io), pl, verb, io); err != nil {
			return err
		}
	}
	if err := pl.Write(); err != nil {
		return err
	}
	pl.WriteSummary(out, true, func(t engine.Target) string {
		if verb == "remove" {
			return ""
		}
		return "user scope: every " + t.Agent.Title + " session on this machine, started in any folder of a Kanbus project, gets the reminder after compaction (where the project's own nowhook hook runs too, this one prints nothing)"
	})
	pl.WriteNotes(out)
	return nil
}

// userPlan plans the user scope of the targets: one plan over absolute
// paths (its root is the file-system root); an error is a refusal.
func userPlan(targets []engine.Target, opts agent.Options) (*engine.Plan, error) {
	pl, err := engine.Reconcile(engine.Request{Root: string(filepath.Separator), Targets: targets, Options: opts, User: true})
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
