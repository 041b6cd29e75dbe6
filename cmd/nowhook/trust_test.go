package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/codexapp"
	"github.com/nowhook/nowhook/generate"
)

// findRealCodex finds the real codex (CODEX_BIN, PATH, then the pinned
// client .ci/run installs), or skips: this test needs the real binary.
func findRealCodex(t *testing.T) string {
	t.Helper()
	if bin, err := codexapp.Find(nil, agent.CodexBinary); err == nil {
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
	list, err := codexapp.List(ctx, codexapp.Options{Codex: codex, Dir: root}, root)
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
