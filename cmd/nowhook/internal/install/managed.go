package install

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// managedScope is the managed layer of the machine whose tree starts at
// root (/, or --root DIR for packaging): each client's managed file
// (agent.ManagedScope), the wrappers in agent.ManagedDir and the record
// at agent.ManagedRecord, all under root. Every user's sessions on the
// machine read it, so, like the user scope, it is opt-in and needs the
// agents named.
func managedScope(root string) *Scope {
	under := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	onMachine := root == string(filepath.Separator)
	where := "the machine's managed layer"
	if !onMachine {
		where = "the managed tree under " + root
	}
	serves := func(a *agent.Agent) bool { return a.Scope.Managed != nil }
	return &Scope{
		Name:        "managed",
		ParseAgents: agent.ParseManagedAgents,
		Serves:      serves,
		Folder: func(a *agent.Agent) (string, error) {
			if onMachine && runtime.GOOS != "linux" {
				return "", fmt.Errorf("the managed paths nowhook writes are Linux's (%s), and this is %s: build the tree with --root DIR and install it where the client looks on this system (docs/platforms.md, \"Managed channels\")", a.Scope.Managed.File(), runtime.GOOS)
			}
			return under(a.Scope.Managed.Folder), nil
		},
		Recorded: func(*agent.Agent) []string { return nil }, // each client's folder is fixed
		Record:   func() string { return under(agent.ManagedRecord) },
		At: func(a *agent.Agent, _ string) *agent.Agent {
			return a.AtManagedScope(root)
		},
		Absent: func(a *agent.Agent) error {
			m := a.Scope.Managed
			if m.Existing == "" {
				return nil
			}
			if _, err := os.Lstat(under(m.File())); err == nil {
				return nil
			}
			return fmt.Errorf("--scope managed --agents %s: %s does not exist, and %s", a.Name, under(m.File()), m.Existing)
		},
		Rights:     managedRights,
		Rooted:     managedScope,
		RecordBase: root,
		Areas:      []string{under(agent.ManagedDir)},
		Lock:       under(agent.ManagedRecord) + ".lock",
		LockWhat:   where,
		Modes:      []agent.Mode{agent.Reinject},
		ModeRefusal: func(a *agent.Agent, m agent.Mode) error {
			return fmt.Errorf("--scope managed --agents %s=%s: the managed scope has only the hook that re-injects; on-demand blocks are written per repository (nowhook setup --agents %s=%s there)", a.Name, m, a.Name, m)
		},
		Refusal: (*agent.Agent).ManagedRefusal,
		RefuseSetup: func(o Options) error {
			switch {
			case o.Dir != "":
				return UsageError("--dir names a repository, and --scope managed writes the machine's managed layer outside any repository; drop --dir (--root DIR builds that layer's tree under DIR)")
			case o.CheckpointSet:
				return UsageError("--checkpoint is set up per repository; --scope managed installs the compact hook only")
			case o.Trust:
				return UsageError("--trust-codex goes with Codex's project hook; Codex runs a managed hook with no trust step")
			case !o.AgentsSet:
				return UsageError("--scope managed writes files that every user's sessions on this machine read: name the agents with --agents (%s)", strings.Join(names(serves), ", "))
			}
			return nil
		},
		RefuseRemove: func(o RemoveOptions) error {
			if o.Dir != "" {
				return UsageError("--dir names a repository, and --scope managed removes from the machine's managed layer outside any repository; drop --dir")
			}
			return nil
		},
		Reach: func(t engine.Target, _ Options) string {
			return "managed scope: every " + t.Agent.Title + " session on this machine, of every user, started in any folder of a Kanbus project, gets the reminder after compaction; where nowhook's user or project hook runs too, that one prints nothing"
		},
		Where: func(string) string { return "in " + where },
		Empty: func(string) string { return "Nothing of nowhook's was found in " + where + "; nothing changed." },
	}
}

// managedRights refuses, before the writer lock is taken, a setup or
// remove that could not write a folder of the managed tree: the system
// folders need root.
func managedRights(req engine.Request) error {
	dirs := slices.Clone(req.Areas)
	for _, t := range req.Targets {
		dirs = append(dirs, t.Folder)
	}
	dirs = append(dirs, filepath.Dir(req.Lock))
	var denied []string
	for _, d := range dirs {
		if at := existingParent(d); !osutil.CanWrite(at) && !slices.Contains(denied, at) {
			denied = append(denied, at)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	who := "this user"
	if u, err := user.Current(); err == nil {
		who = "user " + u.Username
	}
	return fmt.Errorf("the managed layer needs the rights to write %s, which %s lacks: run it as root (sudo nowhook ...), or build the tree under a folder of your own with --root DIR and install that as root", strings.Join(denied, ", "), who)
}

// existingParent is dir, or the nearest folder above it that exists.
func existingParent(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}
