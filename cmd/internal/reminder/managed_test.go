//go:build unix

package reminder

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// managedDirs are the system folders of the managed layer that the tests
// lay out below a system root of their own (and bind-mount over the real
// ones in a private mount namespace: managedView).
var managedDirs = []string{"etc/claude-code", "etc/codex", "etc/gemini-cli", "etc/qwen-code", "etc/factory", managedDir}

// managedLayout writes, below the system root sys, the managed layer that
// layout names: "<client>-<how>", where client is claude, codex, gemini,
// qwen or droid and how says which file names the wrapper, or what is
// wrong with it. "" writes the folders alone. It returns the variables
// the layout needs (a moved settings file).
func managedLayout(t *testing.T, sys, layout string) (env []string) {
	t.Helper()
	for _, d := range managedDirs {
		mkdir(t, filepath.Join(sys, d))
	}
	if layout == "" {
		return nil
	}
	client, how, _ := strings.Cut(layout, "-")
	wrappers := map[string]string{"claude": "claude.sh", "codex": "codex.sh", "gemini": "gemini-turn.sh", "qwen": "qwen.sh", "droid": "droid.sh"}
	name := "/" + managedDir + "/" + wrappers[client]
	wrapper := filepath.Join(sys, name)
	body := []byte(templates.RenderWrapper(5*time.Second, ""))
	switch how {
	case "noexec":
		writeMode(t, wrapper, body, 0o644)
	case "wrapperdir":
		mkdir(t, wrapper)
	case "nowrapper":
	default:
		writeMode(t, wrapper, body, 0o755)
	}
	runs := []byte(`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"` + name + `","timeout":10}]}]}}`)
	other := []byte(`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"/usr/local/bin/someone-else.sh"}]}]}}`)
	file := map[string]string{
		"claude": "etc/claude-code/managed-settings.d/50-nowhook.json", "codex": "etc/codex/hooks.json",
		"gemini": "etc/gemini-cli/settings.json", "qwen": "etc/qwen-code/settings.json", "droid": "etc/factory/settings.json",
	}[client]
	switch how {
	case "base":
		file = "etc/claude-code/managed-settings.json"
	case "dot":
		file = "etc/claude-code/managed-settings.d/.50-nowhook.json"
	case "txt":
		file = "etc/claude-code/managed-settings.d/50-nowhook.txt"
	case "requirements":
		file = "etc/codex/requirements.toml"
		runs = []byte("[[hooks.SessionStart]]\nmatcher = \"compact\"\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"" + name + "\"\ntimeout = 10\n")
	case "config":
		file = "etc/codex/config.toml"
		runs = []byte("[[hooks.SessionStart]]\nmatcher = \"compact\"\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"" + name + "\"\n")
	case "moved":
		// The variable moves the file: the one at the usual place, which
		// names the wrapper, is not read.
		writeMode(t, filepath.Join(sys, file), other, 0o644)
		file = filepath.Join(filepath.Dir(file), "moved.json")
		env = append(env, map[string]string{"gemini": "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "qwen": "QWEN_CODE_SYSTEM_SETTINGS_PATH"}[client]+"=/"+file)
	case "movedaway":
		env = append(env, map[string]string{"gemini": "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "qwen": "QWEN_CODE_SYSTEM_SETTINGS_PATH"}[client]+"=/"+filepath.Join(filepath.Dir(file), "moved.json"))
	}
	path := filepath.Join(sys, file)
	switch how {
	case "unnamed":
		writeMode(t, path, other, 0o644)
	case "fifo":
		mkfifo(t, path)
	case "late":
		writeMode(t, path, append(bytes.Repeat([]byte(" "), maxDeferRead), runs...), 0o644)
	default:
		writeMode(t, path, runs, 0o644)
	}
	return env
}

// clientEnv is what the client names gives its hooks (docs/platforms.md,
// "Managed channels: three layers"), with dir as the project directory,
// and whether its payload has permission_mode and prompt_id.
func clientEnv(client, dir string) (env []string, permissionMode, promptID bool) {
	switch client {
	case "claude":
		return []string{"CLAUDE_PROJECT_DIR=" + dir, "CLAUDE_CODE_SESSION_ID=s1"}, false, true
	case "claude-nosession": // CLAUDE_PROJECT_DIR alone: no client named
		return []string{"CLAUDE_PROJECT_DIR=" + dir}, false, true
	case "codex":
		return nil, true, false
	case "codex-prompt": // permission_mode and prompt_id without a variable: no client named
		return nil, true, true
	case "gemini":
		return []string{"GEMINI_PROJECT_DIR=" + dir}, false, false
	case "qwen":
		return []string{"QWEN_PROJECT_DIR=" + dir}, true, true
	case "droid":
		return []string{"CLAUDE_PROJECT_DIR=" + dir, "FACTORY_PROJECT_DIR=" + dir, "DROID_PROJECT_DIR=" + dir}, true, false
	}
	return nil, false, false
}

// TestManagedRule: which hooks step aside for the managed layer, over
// every client and every way its layer can (not) hold nowhook's hook; the
// debug line says why.
func TestManagedRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, client, layout string
		self                 string // user, managed, managed-link, none (no --script), missing
		want                 managed
		says                 string // in the debug log
	}{
		{"claude drop-in", "claude", "claude-dropin", "user", managedRuns, "Claude Code's managed hook runs here"},
		{"claude base file", "claude", "claude-base", "user", managedRuns, "managed-settings.json runs"},
		{"claude drop-in starting with a dot", "claude", "claude-dot", "user", managedNone, "no managed file of Claude Code names it"},
		{"claude drop-in not .json", "claude", "claude-txt", "user", managedNone, "no managed file of Claude Code names it"},
		{"claude drop-in a FIFO", "claude", "claude-fifo", "user", managedNone, "no managed file of Claude Code names it"},
		{"claude wrapper named past the read bound", "claude", "claude-late", "user", managedNone, "no managed file"},
		{"claude wrapper not executable", "claude", "claude-noexec", "user", managedNone, "not an executable file"},
		{"claude wrapper a folder", "claude", "claude-wrapperdir", "user", managedNone, "not an executable file"},
		{"claude wrapper absent", "claude", "claude-nowrapper", "user", managedNone, ""},
		{"claude wrapper there, named by no file", "claude", "claude-unnamed", "user", managedNone, "no managed file of Claude Code names it"},
		{"the managed hook itself", "claude", "claude-dropin", "managed", managedSelf, "this is Claude Code's managed hook"},
		{"the managed hook through a link", "claude", "claude-dropin", "managed-link", managedSelf, "this is Claude Code's managed hook"},
		{"a hook that does not name its wrapper", "claude", "claude-dropin", "none", managedNone, "no --script"},
		{"a hook whose wrapper is gone", "claude", "claude-dropin", "missing", managedNone, "cannot be found"},
		{"CLAUDE_PROJECT_DIR alone names no client", "claude-nosession", "claude-dropin", "user", managedNone, "not one whose managed layer is known"},
		{"codex hooks.json", "codex", "codex-hooks", "user", managedRuns, "Codex CLI's managed hook runs here"},
		{"codex requirements.toml", "codex", "codex-requirements", "user", managedRuns, "requirements.toml runs"},
		{"codex config.toml", "codex", "codex-config", "user", managedRuns, "config.toml runs"},
		{"a payload with prompt_id is not Codex's", "codex-prompt", "codex-hooks", "user", managedNone, "not one whose managed layer is known"},
		{"gemini", "gemini", "gemini-settings", "user", managedRuns, "Gemini CLI's managed hook runs here"},
		{"gemini, the file moved", "gemini", "gemini-moved", "user", managedRuns, "moved.json runs"},
		{"gemini, moved away from the file that names it", "gemini", "gemini-movedaway", "user", managedNone, "no managed file"},
		{"qwen", "qwen", "qwen-settings", "user", managedRuns, "Qwen Code's managed hook runs here"},
		{"qwen, the file moved", "qwen", "qwen-moved", "user", managedRuns, "moved.json runs"},
		{"droid", "droid", "droid-settings", "user", managedRuns, "Factory Droid's managed hook runs here"},
		{"another client's layer", "qwen", "claude-dropin", "user", managedNone, ""},
		{"droid is not claude", "droid", "claude-dropin", "user", managedNone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			sys := filepath.Join(base, "sys")
			kv := managedLayout(t, sys, tc.layout)
			vars, pm, pid := clientEnv(tc.client, filepath.Join(base, "repo"))
			l, seen := hookClient(envList(append(vars, kv...)), pm, pid)
			wrapper := filepath.Join(sys, managedDir, map[string]string{"claude": "claude.sh", "codex": "codex.sh", "gemini": "gemini-turn.sh", "qwen": "qwen.sh", "droid": "droid.sh"}[strings.SplitN(tc.layout, "-", 2)[0]])
			self := ""
			switch tc.self {
			case "user":
				self = filepath.Join(base, "home", deferScript)
				writeMode(t, self, []byte("#!/bin/sh\n"), 0o755)
			case "managed":
				self = wrapper
			case "managed-link":
				self = filepath.Join(base, "link.sh")
				symlink(t, wrapper, self)
			case "missing":
				self = filepath.Join(base, "gone.sh")
			}
			var log strings.Builder
			got := managedDeferred(envList(append(vars, kv...)), l, seen, self, sys, logger{w: &log, on: true})
			if got != tc.want || !strings.Contains(log.String(), tc.says) {
				t.Errorf("managedDeferred = %v, want %v, saying %q; log:\n%s", got, tc.want, tc.says, log.String())
			}
		})
	}
}

// envList is a getenv over NAME=VALUE entries.
func envList(kv []string) func(string) string {
	var pairs []string
	for _, e := range kv {
		k, v, _ := strings.Cut(e, "=")
		pairs = append(pairs, k, v)
	}
	return env(pairs...)
}

// TestManagedBeforeProject: the managed hook prints where NOWHOOK_DEFER,
// exported into its environment, names a project hook that runs; a user
// hook steps aside for the managed layer where the session's folder holds
// no project hook (a sub-folder); the system root "" leaves the managed
// layer out.
func TestManagedBeforeProject(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sys, root := filepath.Join(base, "sys"), filepath.Join(base, "repo")
	managedLayout(t, sys, "claude-dropin")
	projectHook(t, root, ".claude/settings.json", 0o755)
	sub := filepath.Join(root, "sub")
	mkdir(t, sub)
	wrapper := filepath.Join(sys, managedDir, "claude.sh")
	user := filepath.Join(base, "home", deferScript)
	writeMode(t, user, []byte("#!/bin/sh\n"), 0o755)
	at := func(dir string) func(string) string {
		return env("NOWHOOK_DEFER", claudeDefer, "CLAUDE_PROJECT_DIR", dir, "CLAUDE_CODE_SESSION_ID", "s1")
	}
	for _, tc := range []struct {
		name, dir, self, sys string
		want                 bool
	}{
		{"the managed hook, NOWHOOK_DEFER exported", root, wrapper, sys, false},
		{"the user's hook at the root", root, user, sys, true},
		{"the user's hook in a sub-folder", sub, user, sys, true},
		{"the user's hook in a sub-folder, no managed layer looked at", sub, user, "", false},
		{"the managed wrapper, no managed layer looked at: the project rule", root, wrapper, "", true},
	} {
		var log strings.Builder
		if got := deferred(at(tc.dir), payload{}, tc.dir, tc.self, tc.sys, logger{w: &log, on: true}); got != tc.want {
			t.Errorf("%s: deferred = %v, want %v; log:\n%s", tc.name, got, tc.want, log.String())
		}
	}
}

// TestGeminiDeferred: --gemini-turn steps aside for Gemini CLI's managed
// gate alone: not for another client's managed layer, even where that
// client's variable is what the environment holds, and never the
// managed gate itself.
func TestGeminiDeferred(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sys := filepath.Join(base, "sys")
	managedLayout(t, sys, "gemini-settings")
	managedLayout(t, sys, "claude-dropin")
	project := filepath.Join(base, "repo", geminiProjectGate)
	writeMode(t, project, []byte("#!/bin/sh\n"), 0o755)
	for _, tc := range []struct {
		name string
		kv   []string
		self string
		want bool
	}{
		{"the project's gate", []string{"GEMINI_PROJECT_DIR", base}, project, true},
		{"the managed gate", []string{"GEMINI_PROJECT_DIR", base}, filepath.Join(sys, managedDir, "gemini-turn.sh"), false},
		{"no GEMINI_PROJECT_DIR, Claude Code's variables", []string{"CLAUDE_PROJECT_DIR", base, "CLAUDE_CODE_SESSION_ID", "s1"}, project, false},
	} {
		var log strings.Builder
		o := options{getenv: env(tc.kv...), script: tc.self, sysRoot: sys, log: logger{w: &log, on: true}}
		if got := o.geminiDeferred(); got != tc.want {
			t.Errorf("%s: geminiDeferred = %v, want %v; log:\n%s", tc.name, got, tc.want, log.String())
		}
	}
}

// geminiProjectGate is where the project's gate lives
// (agent.GeminiTurnScript, which this package must not import).
const geminiProjectGate = ".gemini/hooks/kanbus-gemini-turn.sh"

// BenchmarkDeferred is the defer rule's cost on a machine without a
// managed install, the hook's usual case: the project rule alone (what
// the hook did before the managed layer), then the whole rule, in one
// run. The user-scope hook of Claude Code in a project whose own hook
// runs.
func BenchmarkDeferred(b *testing.B) {
	base := b.TempDir()
	root, sys := filepath.Join(base, "repo"), filepath.Join(base, "sys")
	for _, d := range managedDirs {
		if err := os.MkdirAll(filepath.Join(sys, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".claude/hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, deferScript), []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".claude/settings.json"), []byte(`{"command": "`+deferRuns+`"}`), 0o644); err != nil {
		b.Fatal(err)
	}
	self := filepath.Join(base, "home", deferScript)
	getenv := env("NOWHOOK_DEFER", claudeDefer, "CLAUDE_PROJECT_DIR", root, "CLAUDE_CODE_SESSION_ID", "s1")
	b.Run("project rule alone", func(b *testing.B) {
		for b.Loop() {
			if !projectDeferred(getenv, "", root, self, logger{}) {
				b.Fatal("not deferred")
			}
		}
	})
	b.Run("managed layer, then the project rule", func(b *testing.B) {
		for b.Loop() {
			if !deferred(getenv, payload{}, root, self, sys, logger{}) {
				b.Fatal("not deferred")
			}
		}
	})
	b.Run("no NOWHOOK_DEFER: project rule alone", func(b *testing.B) {
		getenv := env("CLAUDE_PROJECT_DIR", root, "CLAUDE_CODE_SESSION_ID", "s1")
		for b.Loop() {
			if projectDeferred(getenv, "", root, self, logger{}) {
				b.Fatal("deferred")
			}
		}
	})
	b.Run("no NOWHOOK_DEFER: managed layer, then the project rule", func(b *testing.B) {
		getenv := env("CLAUDE_PROJECT_DIR", root, "CLAUDE_CODE_SESSION_ID", "s1")
		for b.Loop() {
			if deferred(getenv, payload{}, root, self, sys, logger{}) {
				b.Fatal("deferred")
			}
		}
	})
}

// The wrapper reads the managed layer at the fixed system paths, and the
// tests must never write the machine's own. A case with a managed layout
// therefore runs the wrapper in a private mount namespace (unshare
// --mount, which needs root; CI runs as root) where /etc and /usr/local
// are overlays whose writable layer is a tmpfs of that namespace alone,
// and each folder of managedDirs is the test's folder below its system
// root, bind-mounted there (cmd/nowhook/e2e's sysView does the same for
// the real clients). The Go runtime and the python3 fallback both read the
// real paths there, as on a machine with a managed install.

var (
	viewOnce sync.Once
	viewErr  string // why no view can be made here; "" when one can
)

// canView skips the test, saying why, where no private view of the system
// folders can be made.
func canView(t *testing.T) {
	t.Helper()
	viewOnce.Do(func() {
		switch {
		case runtime.GOOS != "linux":
			viewErr = "the managed layer is read at system paths, which the tests show through a Linux mount namespace; " + runtime.GOOS + " has none"
			return
		case os.Geteuid() != 0:
			viewErr = "unshare --mount needs root (CI runs as root): the managed-layer cases run the wrapper in a private view of /etc and /usr/local, never writing the machine's"
			return
		}
		for _, tool := range []string{"unshare", "mount"} {
			if _, err := exec.LookPath(tool); err != nil {
				viewErr = tool + " not found (util-linux): the managed-layer cases run the wrapper in a private view of the system folders with unshare --mount"
				return
			}
		}
		sys, err := os.MkdirTemp("", "nowhook-view-check-")
		if err != nil {
			viewErr = err.Error()
			return
		}
		defer os.RemoveAll(sys)
		for _, d := range managedDirs {
			if err := os.MkdirAll(filepath.Join(sys, d), 0o755); err != nil {
				viewErr = err.Error()
				return
			}
		}
		if err := os.WriteFile(filepath.Join(sys, managedDir, "check"), []byte("in the view\n"), 0o644); err != nil {
			viewErr = err.Error()
			return
		}
		args, cleanup, err := viewArgs(sys)
		if err != nil {
			viewErr = err.Error()
			return
		}
		defer cleanup()
		out, err := exec.Command(args[0], append(args[1:], "/bin/cat", "/"+managedDir+"/check")...).CombinedOutput()
		if err != nil || string(out) != "in the view\n" {
			viewErr = fmt.Sprintf("cannot make a private view of the system folders here (unshare --mount, a tmpfs, overlays and bind mounts): %v\n%s", err, out)
		}
	})
	if viewErr != "" {
		t.Skip(viewErr)
	}
}

// managedView is the command that runs its arguments in a private view of
// the system folders that shows sys's managedDirs at their system paths.
func managedView(t *testing.T, sys string) []string {
	t.Helper()
	args, cleanup, err := viewArgs(sys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return args
}

// viewArgs writes the script that makes the view and returns the command
// that runs it, then its arguments, and what removes the script.
func viewArgs(sys string) (args []string, cleanup func(), err error) {
	// The wrapper runs with a PATH of the test's: the tools by their paths.
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, nil, err
	}
	mount, err := exec.LookPath("mount")
	if err != nil {
		return nil, nil, err
	}
	// A folder of its own, outside the test's: an overlay's option string
	// cannot hold the commas a test's name may put in its temporary folder.
	stage, err := os.MkdirTemp("", "nowhook-view-")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(stage) }
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var b strings.Builder
	b.WriteString("# A private view of the system folders of the managed layer (managed_test.go), then \"$@\".\nset -e\n")
	fmt.Fprintf(&b, "%s -t tmpfs nowhook-view %s\n", q(mount), q(stage+"/fs"))
	for i, lower := range []string{"/etc", "/usr/local"} {
		up, work := fmt.Sprintf("%s/fs/%d-upper", stage, i), fmt.Sprintf("%s/fs/%d-work", stage, i)
		fmt.Fprintf(&b, "/bin/mkdir %s %s\n", q(up), q(work))
		fmt.Fprintf(&b, "%s -t overlay nowhook-view -o %s %s\n", q(mount), q("lowerdir="+lower+",upperdir="+up+",workdir="+work), q(lower))
	}
	for _, d := range managedDirs {
		fmt.Fprintf(&b, "/bin/mkdir -p %s\n%s --bind %s %s\n", q("/"+d), q(mount), q(filepath.Join(sys, d)), q("/"+d))
	}
	b.WriteString("exec \"$@\"\n")
	if err := os.Mkdir(filepath.Join(stage, "fs"), 0o755); err != nil {
		cleanup()
		return nil, nil, err
	}
	script := filepath.Join(stage, "view.sh")
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		cleanup()
		return nil, nil, err
	}
	return []string{unshare, "--mount", "--propagation", "private", "/bin/sh", script}, cleanup, nil
}
