// Package install is nowhook setup and nowhook remove once their flags
// are parsed: one pipeline (Setup, Remove: plan, check, write, summary)
// for every scope, where a scope is data (Scope: where its files live,
// which agents it serves, its record, its refusal rules). The project
// scope is the repository; the user scope each agent's own settings;
// the managed scope (issue 27) is a third value of the same type. The
// engine package does the reconcile; this package decides what to
// reconcile, asks, and says what it did.
package install

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

// A Scope is where setup and remove work.
type Scope struct {
	// Name is the --scope value.
	Name string
	// Repository: the scope's files lie in a repository (--dir, detection,
	// the wizard, doctor's verdict, the trust steps); else they lie in each
	// agent's own folder outside any repository, named absolutely with
	// $HOME as ~, and the plan's root is the file-system root.
	Repository bool
	// Serves reports whether the scope has a place for the agent.
	Serves func(*agent.Agent) bool
	// Folder is, outside a repository, the agent's folder of this scope as
	// the environment names it today; an error is a refusal.
	Folder func(*agent.Agent) (string, error)
	// Recorded are, outside a repository, the agent's folders the scope's
	// record says setup wrote into (remove takes what it put there too).
	Recorded func(*agent.Agent) []string
	// At is, outside a repository, the agent as the scope installs it in
	// its folder.
	At func(a *agent.Agent, folder string) *agent.Agent
	// Absent, if set, refuses to set up an agent whose file the scope
	// merges into only where it exists.
	Absent func(*agent.Agent) error
	// Rights, if set, says before anything is written which of the
	// folders the request writes this process may not write, and how to
	// get the rights.
	Rights func(engine.Request) error
	// Rooted, if set, is the scope writing its tree under root (--root);
	// nil: the scope takes no --root.
	Rooted func(root string) *Scope
	// RecordBase, Areas, Lock and LockWhat go into the scope's requests
	// (engine.Request).
	RecordBase     string
	Areas          []string
	Lock, LockWhat string
	// Record is, outside a repository, the file that records what nowhook
	// created ("" where there is no home); a repository keeps its own.
	Record func() string
	// ParseAgents reads --agents as the scope takes it (the user scope
	// reads a bare name as the agent's user-scope hook).
	ParseAgents func(string) ([]agent.Choice, error)
	// Modes are the modes the scope installs (nil: every mode of the
	// agent); ModeRefusal says why another is refused.
	Modes       []agent.Mode
	ModeRefusal func(a *agent.Agent, m agent.Mode) error
	// Refusal is the agent's own refusal of the scope ("" for none).
	Refusal func(*agent.Agent) string
	// RefuseSetup and RefuseRemove are the scope's rules on the options:
	// the flags it does not take.
	RefuseSetup  func(Options) error
	RefuseRemove func(RemoveOptions) error
	// Reach is what setup's summary says of an agent set up here.
	Reach func(engine.Target, Options) string
	// Where says where the review's files are, for the root.
	Where func(root string) string
	// Empty is remove's sentence when nothing of nowhook's is there.
	Empty func(root string) string
}

// Project is the repository (the default scope).
var Project = &Scope{
	Name:         "project",
	Repository:   true,
	ParseAgents:  agent.ParseAgents,
	Serves:       func(*agent.Agent) bool { return true },
	RefuseSetup:  func(Options) error { return nil },
	RefuseRemove: func(RemoveOptions) error { return nil },
	Reach:        onDemandReason,
	Where:        func(root string) string { return "in " + root },
	Empty:        func(root string) string { return "Nothing of nowhook's was found in " + root + "; nothing changed." },
}

// User is the user's own agent settings, which the agent loads in every
// session wherever it starts (docs/platforms.md), for the agents that
// load project hooks only from the directory they start in. It is
// opt-in: --yes never implies it.
var User = &Scope{
	Name:        "user",
	ParseAgents: agent.ParseUserAgents,
	Serves:      func(a *agent.Agent) bool { return a.Scope.User != nil },
	Folder: func(a *agent.Agent) (string, error) {
		return a.Scope.User.Folder(os.Getenv, os.Getenv("HOME"))
	},
	Recorded: engine.UserFolders,
	Record:   engine.UserRecord,
	At:       (*agent.Agent).AtUserScope,
	Modes:    []agent.Mode{agent.Reinject},
	ModeRefusal: func(a *agent.Agent, m agent.Mode) error {
		return fmt.Errorf("--scope user --agents %s=%s: the user scope has only the hook that re-injects; on-demand blocks are written per repository (nowhook setup --agents %s=%s there)", a.Name, m, a.Name, m)
	},
	Refusal: (*agent.Agent).UserRefusal,
	RefuseSetup: func(o Options) error {
		switch {
		case o.Dir != "":
			return UsageError("--dir names a repository, and --scope user writes your own settings outside any repository; drop --dir (or use --scope project)")
		case o.CheckpointSet:
			return UsageError("--checkpoint is set up per repository; --scope user installs the compact hook only")
		case o.Trust:
			return UsageError("--trust-codex goes with Codex's project hook; Codex has no user-scope hook")
		case !o.AgentsSet:
			return UsageError("--scope user writes your own agent settings, which every session on this machine reads: name the agents with --agents (%s)", strings.Join(names(func(a *agent.Agent) bool { return a.Scope.User != nil }), ", "))
		}
		return nil
	},
	RefuseRemove: func(o RemoveOptions) error {
		if o.Dir != "" {
			return UsageError("--dir names a repository, and --scope user removes from your own settings outside any repository; drop --dir (or use --scope project)")
		}
		return nil
	},
	Reach: func(t engine.Target, _ Options) string {
		line := "user scope: every " + t.Agent.Title + " session on this machine, started in any folder of a Kanbus project, gets the reminder after compaction"
		if len(t.Agent.Scope.User.Defer) == 0 {
			return line // no project hook to step aside for (Kimi Code loads none)
		}
		return line + " (where the project's own nowhook hook runs too, this one prints nothing)"
	},
	Where: func(string) string { return "outside any repository (your own agent settings)" },
	Empty: func(string) string { return "Nothing of nowhook's was found in your user settings; nothing changed." },
}

// Managed is the managed layer of the machine (managed.go).
var Managed = managedScope(string(filepath.Separator))

// Scopes are the scopes, in the order the help names them.
var Scopes = []*Scope{Project, User, Managed}

// LookupScope is the scope --scope names, or the usage error that lists
// them.
func LookupScope(name string) (*Scope, error) {
	for _, s := range Scopes {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, UsageError("--scope %q: the scopes are project (the repository, the default), user (your own agent settings, for every session on this machine) and managed (the machine's managed layer, for every user's sessions)", name)
}

// Names lists the agents the scope serves.
func (sc *Scope) Names() []string { return names(sc.Serves) }

// names lists the agents that serves reports.
func names(serves func(*agent.Agent) bool) []string {
	var out []string
	for _, a := range agent.All {
		if serves(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// target is an agent at the scope in mode, outside a repository: in its
// folder as the environment names it.
func (sc *Scope) target(a *agent.Agent, mode agent.Mode) (engine.Target, error) {
	if reason := sc.Refusal(a); reason != "" {
		return engine.Target{}, fmt.Errorf("--scope %s --agents %s is refused: %s", sc.Name, a.Name, reason)
	}
	dir, err := sc.Folder(a)
	if err != nil {
		return engine.Target{}, fmt.Errorf("--scope %s --agents %s: %w", sc.Name, a.Name, err)
	}
	return engine.Target{Agent: sc.At(a, dir), Mode: mode, Folder: dir}, nil
}

// request is the reconcile of targets at the scope, outside a repository:
// one plan over absolute paths (its root is the file-system root), with
// the scope's record.
func (sc *Scope) request(targets []engine.Target, opts agent.Options, outside bool) engine.Request {
	return engine.Request{Root: string(filepath.Separator), Targets: targets, Options: opts, User: true, Outside: outside, Record: sc.Record(),
		RecordBase: sc.RecordBase, Areas: sc.Areas, Lock: sc.Lock, LockWhat: sc.LockWhat}
}

// shown is err as the scope shows it: outside a repository, with ~ for
// the home directory, as the summary shows it.
func (sc *Scope) shown(err error) error {
	if sc.Repository {
		return err
	}
	return errors.New(osutil.TildeHome(err.Error()))
}

// out is the writer the scope's output goes through: outside a
// repository it shows $HOME as ~.
func (sc *Scope) out(w io.Writer) io.Writer {
	if sc.Repository {
		return w
	}
	return &tildeWriter{w: w}
}

// show names the files setup --check lists.
func (sc *Scope) show(root string) shower {
	if sc.Repository {
		return projectShow(root)
	}
	return userShow
}

// tildeWriter shows the home directory as ~ in what it writes, line by line.
type tildeWriter struct{ w io.Writer }

func (t *tildeWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(t.w, osutil.TildeHome(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
