package reminder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeDefer is NOWHOOK_DEFER as the Claude Code user-scope hook sets it.
const claudeDefer = ".claude/hooks/kanbus-compaction-right-now.sh:.claude/settings.json:.claude/settings.local.json"

// projectHook writes, in dir, the project's wrapper (with mode) and a
// settings file that runs it.
func projectHook(t *testing.T, dir, settings string, mode int) {
	t.Helper()
	mkdir(t, filepath.Join(dir, ".claude/hooks"))
	writeFile(t, filepath.Join(dir, ".claude/hooks/kanbus-compaction-right-now.sh"), "#!/bin/sh\n")
	if err := chmod(filepath.Join(dir, ".claude/hooks/kanbus-compaction-right-now.sh"), mode); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		writeFile(t, filepath.Join(dir, settings), `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/kanbus-compaction-right-now.sh","timeout":10}]}]}}`)
	}
}

func TestDeferRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings string // the settings file that runs the project's wrapper; "" none
		mode     int    // the wrapper's mode
		spec     string // NOWHOOK_DEFER
		from     string // "env": CLAUDE_PROJECT_DIR, "qwen": QWEN_PROJECT_DIR, "cwd": the payload's, "wd": the working directory
		want     bool
	}{
		{name: "project hook in settings.json", settings: ".claude/settings.json", mode: 0o755, spec: claudeDefer, from: "env", want: true},
		{name: "project hook in settings.local.json", settings: ".claude/settings.local.json", mode: 0o755, spec: claudeDefer, from: "env", want: true},
		{name: "found from QWEN_PROJECT_DIR", settings: ".claude/settings.json", mode: 0o755, spec: claudeDefer, from: "qwen", want: true},
		{name: "found from the payload's cwd", settings: ".claude/settings.json", mode: 0o755, spec: claudeDefer, from: "cwd", want: true},
		{name: "found from the working directory", settings: ".claude/settings.json", mode: 0o755, spec: claudeDefer, from: "wd", want: true},
		{name: "no variable: the project hook does not matter", settings: ".claude/settings.json", mode: 0o755, spec: "", from: "env", want: false},
		{name: "wrapper without a settings file that runs it", settings: "", mode: 0o755, spec: claudeDefer, from: "env", want: false},
		{name: "wrapper not executable", settings: ".claude/settings.json", mode: 0o644, spec: claudeDefer, from: "env", want: false},
		{name: "settings file not named in the variable", settings: ".claude/other.json", mode: 0o755, spec: claudeDefer, from: "env", want: false},
		{name: "variable without settings files", settings: ".claude/settings.json", mode: 0o755, spec: ".claude/hooks/kanbus-compaction-right-now.sh", from: "env", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			projectHook(t, root, tc.settings, tc.mode)
			kv := []string{"NOWHOOK_DEFER", tc.spec}
			cwd, wd := "", t.TempDir()
			switch tc.from {
			case "env":
				kv = append(kv, "CLAUDE_PROJECT_DIR", root)
			case "qwen":
				kv = append(kv, "QWEN_PROJECT_DIR", root)
			case "cwd":
				cwd = root
			case "wd":
				wd = root
			}
			var log strings.Builder
			if got := projectDeferred(env(kv...), cwd, wd, "", logger{w: &log, on: true}); got != tc.want {
				t.Errorf("deferred = %v, want %v (log: %s)", got, tc.want, log.String())
			}
		})
	}
}

// TestDeferSubFolder: in a session started in a sub-folder the project
// directory is that sub-folder, which holds no project hook, so the
// user-scope hook prints the reminder.
func TestDeferSubFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	projectHook(t, root, ".claude/settings.json", 0o755)
	sub := filepath.Join(root, "sub", "deeper")
	mkdir(t, sub)
	if projectDeferred(env("NOWHOOK_DEFER", claudeDefer, "CLAUDE_PROJECT_DIR", sub), sub, sub, "", logger{}) {
		t.Error("deferred in a sub-folder, where the project's hook does not run")
	}
}

// TestDeferredPrintsNothing: remind with the variable set and the project's
// hook in place prints nothing and never starts kbs; without the project's
// hook it prints the reminder.
func TestDeferredPrintsNothing(t *testing.T) {
	proj := project(t)
	bin := toolDir(t, "kbs")
	callLog := filepath.Join(t.TempDir(), "calls")
	fakeEnv(t, "FAKE_KBS_PAYLOAD", abs(t, filepath.Join(fixtures, "basic.json")), "FAKE_KBS_LOG", callLog)
	getenv := env("CLAUDE_PROJECT_DIR", proj, "KBS", filepath.Join(bin, "kbs"), "NOWHOOK_DEFER", claudeDefer)
	out, _ := goReminder(t, DefaultBudget, strings.NewReader(compactPayload), getenv, proj)
	if out != expected(t, "basic.expected.txt") {
		t.Fatalf("without the project's hook: got %q, want the reminder", out)
	}
	projectHook(t, proj, ".claude/settings.json", 0o755)
	out, log := goReminder(t, DefaultBudget, strings.NewReader(compactPayload), getenv, proj)
	if out != "" {
		t.Errorf("with the project's hook: printed %q, want nothing", out)
	}
	if !strings.Contains(log, "the project's own hook runs here") {
		t.Errorf("log does not say why: %s", log)
	}
	if calls := readLines(callLog); len(calls) != 1 {
		t.Errorf("kbs ran %d times, want once (the run without the project's hook): %q", len(calls), calls)
	}
}

func chmod(path string, mode int) error { return os.Chmod(path, os.FileMode(mode)) }

// readLines returns the lines of the file at path (none when absent).
func readLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
