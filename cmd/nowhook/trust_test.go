package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/generate"
)

// findRealCodex finds the real codex (CODEX_BIN, PATH, then the pinned
// client .ci/run installs), or skips: this test needs the real binary.
func findRealCodex(t *testing.T) string {
	t.Helper()
	if bin, err := codexpkg.Find(nil, agent.CodexBinary); err == nil {
		return bin
	}
	if dir, err := os.UserCacheDir(); err == nil {
		bin := filepath.Join(dir, "nowhook", "agents", "codex", "node_modules", ".bin", "codex")
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	msg := "codex not found (set CODEX_BIN or put codex on PATH; .ci/run installs @openai/codex@0.171.0)"
	if os.Getenv("NOWHOOK_E2E_REQUIRE_AGENTS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + ": skipping the real --trust-codex test")
	return ""
}

// TestSetupTrustCodexReal runs `setup --trust-codex` against the real
// codex app-server and checks, with hooks/list, that exactly our hook is
// trusted, a foreign one is not, and the user's comments survive.
func TestSetupTrustCodexReal(t *testing.T) {
	codex := findRealCodex(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kanbusProject(t, root)
	t.Setenv("PATH", hookPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(filepath.Join(root, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	userConfig := "# my settings\nmodel = \"o3\" # pinned\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo foreign"}]}]}}` + "\n"
	if err := os.WriteFile(filepath.Join(root, ".codex", "hooks.json"), []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_BIN", codex)
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("HOME", home)

	var out, errOut bytes.Buffer
	status := run([]string{"setup", "--yes", "--dir", root, "--agents", "codex", "--trust-codex"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	if status != exitOK {
		t.Fatalf("setup exited %d\nstdout:\n%s\nstderr:\n%s", status, out.String(), errOut.String())
	}
	t.Logf("setup output:\n%s", out.String())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := codexpkg.List(ctx, codexpkg.Options{Codex: codex, Dir: root}, root)
	if err != nil {
		t.Fatal(err)
	}
	ours := generate.RunsScript(agent.CodexScript)
	var sawOurs, sawForeign bool
	for _, h := range list.Hooks {
		t.Logf("hooks/list: %s %s %q", h.Key, h.TrustStatus, h.Command)
		switch {
		case ours(h.Command):
			sawOurs = true
			if h.TrustStatus != "trusted" {
				t.Errorf("our hook %s is %s, want trusted", h.Key, h.TrustStatus)
			}
		case strings.Contains(h.Command, "echo foreign"):
			sawForeign = true
			if h.TrustStatus == "trusted" {
				t.Errorf("the foreign hook %s was trusted too", h.Key)
			}
		}
	}
	if !sawOurs || !sawForeign {
		t.Errorf("hooks/list lacks ours (%v) or the foreign hook (%v)", sawOurs, sawForeign)
	}
	if len(list.Warnings) > 0 || len(list.Errors) > 0 {
		t.Errorf("hooks/list warnings %v errors %v", list.Warnings, list.Errors)
	}
	after, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), userConfig) {
		t.Errorf("the user's config.toml lost its beginning:\n%s", after)
	}
	if !strings.Contains(string(after), "hooks.json:session_start:1:0") {
		t.Fatalf("config.toml records no trust for our hook (group 1):\n%s", after)
	}

	// remove takes the hook out and forgets its trust through codex.
	out.Reset()
	errOut.Reset()
	status = run([]string{"remove", "--yes", "--dir", root, "--agents", "codex"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	if status != exitOK {
		t.Fatalf("remove exited %d\nstdout:\n%s\nstderr:\n%s", status, out.String(), errOut.String())
	}
	t.Logf("remove output:\n%s", out.String())
	if !strings.Contains(out.String(), "forgot the trust of hook") {
		t.Errorf("remove did not say it forgot the trust:\n%s", out.String())
	}
	hooks, err := os.ReadFile(filepath.Join(root, ".codex", "hooks.json"))
	if err != nil || string(hooks) != foreign {
		t.Errorf("hooks.json after remove (%v):\n%s\nwant:\n%s", err, hooks, foreign)
	}
	gone, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gone), "hooks.json:session_start:1:0") || !strings.HasPrefix(string(gone), userConfig) {
		t.Errorf("config.toml after remove still trusts our hook, or lost the user's lines:\n%s", gone)
	}
}

// TestSetupTrustCodexWorktreeReal runs `setup --trust-codex` in a linked
// git worktree against the real codex: Codex loads a worktree's project
// hooks from the main checkout's .codex/hooks.json and takes its project
// trust from the main checkout (measured on 0.171.0), so setup trusts the
// main checkout and its entry, and hooks/list for the worktree then shows
// our hook trusted; remove in the worktree forgets nothing, since the main
// checkout's entry stays.
func TestSetupTrustCodexWorktreeReal(t *testing.T) {
	codex := findRealCodex(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH: skipping the worktree trust test")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	t.Setenv("PATH", hookPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_BIN", codex)
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("HOME", home)
	runGit := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	runGit("init", "-q", main)
	if err := os.WriteFile(filepath.Join(main, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	nowhook := func(args ...string) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if status := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); status != exitOK {
			t.Fatalf("nowhook %v exited %d\nstdout:\n%s\nstderr:\n%s", args, status, out.String(), errOut.String())
		}
		t.Logf("nowhook %v:\n%s", args, out.String())
	}
	nowhook("setup", "--yes", "--dir", main, "--agents", "codex")
	runGit("-C", main, "add", "-A")
	runGit("-C", main, "commit", "-qm", "setup")
	runGit("-C", main, "worktree", "add", "-q", wt)

	nowhook("setup", "--yes", "--dir", wt, "--agents", "codex", "--trust-codex")
	if !strings.Contains(out.String(), "codex: trusted the project "+main+" and hook "+main+"/.codex/hooks.json:session_start:0:0") ||
		!strings.Contains(out.String(), "from its main checkout, "+main) {
		t.Errorf("setup did not say it trusted the main checkout and its entry:\n%s", out.String())
	}
	config, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(config), wt) {
		t.Errorf("config.toml names the worktree; Codex trusts it through the main checkout:\n%s", config)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := codexpkg.List(ctx, codexpkg.Options{Codex: codex, Dir: wt}, wt)
	if err != nil {
		t.Fatal(err)
	}
	ours := generate.RunsScript(agent.CodexScript)
	saw := false
	for _, h := range list.Hooks {
		t.Logf("hooks/list in the worktree: %s %s %s", h.Key, h.TrustStatus, h.SourcePath)
		if ours(h.Command) {
			saw = true
			if h.TrustStatus != codexpkg.StatusTrusted || h.SourcePath != filepath.Join(main, ".codex", "hooks.json") {
				t.Errorf("our hook in the worktree: %s from %s, want trusted from the main checkout's hooks.json", h.TrustStatus, h.SourcePath)
			}
		}
	}
	if !saw {
		t.Errorf("hooks/list in the worktree lacks our hook")
	}

	// doctor --live in the worktree, with codex's own listing, calls it
	// trusted (doctor without --live computes it from the user config).
	out.Reset()
	errOut.Reset()
	if status := run([]string{"doctor", "--live", "--dir", wt}, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); status > exitFailed {
		t.Fatalf("doctor exited %d: %s", status, errOut.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "codex.trust") {
			t.Logf("doctor: %s", line)
			if !strings.HasPrefix(line, "ok") {
				t.Errorf("doctor's trust row in the worktree is not ok: %s", line)
			}
		}
	}

	// remove in the worktree takes the worktree's entry out and leaves the
	// main checkout's trust alone.
	nowhook("remove", "--yes", "--dir", wt, "--agents", "codex")
	if strings.Contains(out.String(), "forgot the trust") {
		t.Errorf("remove in the worktree forgot the main checkout's trust:\n%s", out.String())
	}
	after, err := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if err != nil || string(after) != string(config) {
		t.Errorf("config.toml changed by remove in the worktree (%v):\n%s", err, after)
	}
}
