package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestVerdictCases runs issue 24's cases 1-4 with a nowhook binary given
// by NOWHOOK_BIN (main's, to see the before; unset: this tree's) and the
// real client: setup's and setup --check's exits, doctor's rows for the
// agent from the start folder, and what the client sent the model from
// there. It asserts nothing: it prints what it saw, for the evidence. Run
// by hand:
//
//	NOWHOOK_E2E_PROBE=cases [NOWHOOK_BIN=/path/to/nowhook] go test ./cmd/nowhook/e2e/ -run TestVerdictCases -v
func TestVerdictCases(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "cases" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=cases")
	}
	t.Run("case1-claude-package-claude-md", func(t *testing.T) {
		bin := findClient(t, "CLAUDE_BIN", "claude")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), "# Team rules\n\nTeam line tmk_case1_root.\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "packages", "app", "CLAUDE.md"), "# App notes\n\nApp line tmk_case1_app.\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "packages", "app", "package.json"), "{}\n", 0o644)
		s.commitAll(t, "case 1")
		from := filepath.Join(s.repo, "packages", "app")
		casesSetup(t, s, from, "claude", "claude=ondemand")
		m := newAnthropicMock(t)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		runClaudeSession(t, ctx, bin, claudeEnv(s, m.URL), from, []string{"hello"})
		first := m.Requests()[0].Body
		t.Logf("CASE1 client: first request from packages/app: kbs-now block %v, app line %v, root line %v",
			bodyContains(t, first, kbsNowLine), bodyContains(t, first, "tmk_case1_app"), bodyContains(t, first, "tmk_case1_root"))
	})
	t.Run("case2-codex-joint-budget", func(t *testing.T) {
		bin := findClient(t, "CODEX_BIN", "codex")
		s := casesSandbox(t)
		var root, pkg strings.Builder
		for i := range 400 {
			fmt.Fprintf(&root, "Root rule %03d: keep the build green, forty bytes.\n", i)
		}
		for i := range 250 {
			fmt.Fprintf(&pkg, "Pkg rule %03d: keep the API stable, tmk_case2_%03d.\n", i, i)
		}
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), root.String(), 0o644)
		writeFile(t, filepath.Join(s.repo, "svc", "api", "AGENTS.md"), pkg.String(), 0o644)
		writeFile(t, filepath.Join(s.repo, "svc", "api", "go.mod"), "module example.com/api\n", 0o644)
		s.commitAll(t, "case 2")
		from := filepath.Join(s.repo, "svc", "api")
		m := newPlainResponsesMock(t)
		home := codexManualHome(t, s, m)
		env := codexEnv(s, home)
		codexFirst := func(what string) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			seen := len(m.Requests())
			res := runCmd(t, ctx, env, from, "", bin, "exec", "--strict-config", "--skip-git-repo-check", "hello")
			if res.err != nil {
				t.Fatalf("codex exec: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			b := m.Requests()[seen].Body
			n := 0
			for i := range 250 {
				if bodyContains(t, b, fmt.Sprintf("tmk_case2_%03d", i)) {
					n++
				}
			}
			t.Logf("CASE2 client %s: first request from svc/api: %d of 250 svc/api rule lines, kbs-now block %v", what, n, bodyContains(t, b, kbsNowLine))
		}
		codexFirst("before setup")
		casesSetup(t, s, from, "codex", "codex=ondemand", "CODEX_HOME="+home)
		codexFirst("after setup")
		// The fix setup names: raise the cap in the user's config.
		cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
		writeFile(t, filepath.Join(home, "config.toml"), "project_doc_max_bytes = 40000\n"+string(cfg), 0o644)
		casesSetup(t, s, from, "codex", "codex=ondemand", "CODEX_HOME="+home)
		codexFirst("after raising project_doc_max_bytes to 40000 and setup again")
	})
	t.Run("case2b-codex-project-cap-untrusted", func(t *testing.T) {
		bin := findClient(t, "CODEX_BIN", "codex")
		s := casesSandbox(t)
		var root strings.Builder
		for i := range 700 {
			fmt.Fprintf(&root, "Root rule %03d: keep the build green, forty bytes.\n", i)
		}
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), root.String(), 0o644)
		writeFile(t, filepath.Join(s.repo, ".codex", "config.toml"), "project_doc_max_bytes = 65536\n", 0o644)
		s.commitAll(t, "case 2b")
		m := newPlainResponsesMock(t)
		home := codexManualHome(t, s, m)
		casesSetup(t, s, s.repo, "codex", "codex=ondemand", "CODEX_HOME="+home)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		res := runCmd(t, ctx, codexEnv(s, home), s.repo, "", bin, "exec", "--strict-config", "--skip-git-repo-check", "hello")
		if res.err != nil {
			t.Fatalf("codex exec: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		t.Logf("CASE2b client: first request at the root (project untrusted): kbs-now block %v", bodyContains(t, m.Requests()[0].Body, kbsNowLine))
	})
	t.Run("case3-droid-hooks-json", func(t *testing.T) {
		bin := findClient(t, "DROID_BIN", "droid")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, ".factory", "hooks.json"), `{"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo team-start-tmk_case3"}]}]}`+"\n", 0o644)
		s.commitAll(t, "case 3")
		casesSetup(t, s, s.repo, "droid", "droid=reinject")
		m := droidMock(t, &probeChat{})
		home := droidHome(t, m, "")
		reqs := droidManualSession(t, bin, home, s.repo, m)
		idx := summaryAt(t, reqs)
		n := 0
		if idx+1 < len(reqs) {
			n = strings.Count(string(reqs[idx+1].Body), "kbs-abc")
		}
		t.Logf("CASE3 client: reminder mentions in the first request after /compact: %d (kbs ran %d times)", n, s.kbsCalls(t))
	})
	t.Run("case4-gemini-context-filename", func(t *testing.T) {
		bin := findClient(t, "GEMINI_BIN", "gemini")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, ".gemini", "settings.json"), `{"context": {"fileName": "CONTEXT.md"}}`+"\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "CONTEXT.md"), "# Context\n\nContext line tmk_case4_context.\n", 0o644)
		s.commitAll(t, "case 4")
		casesSetup(t, s, s.repo, "gemini", "gemini")
		m := newGeminiMock(t, false)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		run := runGeminiIn(t, ctx, s.repo, m, bin, geminiEnv(t, s, m))
		var body []byte
		for _, r := range run.reqs {
			if r.Kind == "turn" {
				body = r.Body
				break
			}
		}
		t.Logf("CASE4 client: first request: kbs-now block %v, CONTEXT.md line %v", bodyContains(t, body, kbsNowLine), bodyContains(t, body, "tmk_case4_context"))
	})
	t.Run("case4b-qwen-context-filename", func(t *testing.T) {
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), `{"context": {"fileName": "TEAM.md"}}`+"\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "TEAM.md"), "# Team\n\nTeam line tmk_case4b_team.\n", 0o644)
		s.commitAll(t, "case 4b")
		first := func(what string) {
			b := probeFirst(t, "qwen", s, s.repo)
			t.Logf("CASE4b client %s: first request: kbs-now block %v, TEAM.md line %v", what, bodyContains(t, b, kbsNowLine), bodyContains(t, b, "tmk_case4b_team"))
		}
		casesSetup(t, s, s.repo, "qwen", "qwen=ondemand")
		first("after setup")
		// The fix doctor names: list AGENTS.md beside TEAM.md.
		writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), `{"context": {"fileName": ["TEAM.md", "AGENTS.md"]}}`+"\n", 0o644)
		s.commitAll(t, "the fix")
		casesSetup(t, s, s.repo, "qwen", "qwen=ondemand")
		first("after the fix and setup again")
	})
	t.Run("case5-both-scopes-no-nowhook", func(t *testing.T) {
		bin := findClient(t, "CLAUDE_BIN", "claude")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), "# Team\n", 0o644)
		s.commitAll(t, "case 5")
		ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
		defer cancel()
		nowhook := filepath.Join(s.bin, "nowhook")
		for _, args := range [][]string{{"setup", "--yes", "--agents", "claude"}, {"setup", "--scope", "user", "--yes", "--agents", "claude"}} {
			res := runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, args...)
			t.Logf("CASE5 nowhook %s: err %v", strings.Join(args, " "), res.err)
		}
		s.commitAll(t, "nowhook setup")
		doc := runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, "doctor")
		t.Logf("CASE5 doctor (nowhook on PATH): err %v; claude/user/runtime rows at warn or error:\n%s", doc.err, badRows(doc.stdout, "claude", "user.", "runtime"))
		// The agent's PATH has python3 and kbs, not nowhook (an IDE
		// without ~/.local/bin).
		os.Remove(nowhook)
		m := newAnthropicMock(t)
		kbsBefore := s.kbsCalls(t)
		runClaudeSession(t, ctx, bin, claudeEnv(s, m.URL), s.repo, []string{"hello", "/compact", "What was I working on?"})
		reqs := m.Requests()
		idx := summaryIndex(t, reqs)
		t.Logf("CASE5 client: reminders in the first request after /compact: %d; kbs ran %d times", countInBody(t, reqs[idx+1].Body, expectedReminder(t)), s.kbsCalls(t)-kbsBefore)
	})
	t.Run("case6a-remove-user-claude-config-dir", func(t *testing.T) {
		bin := findClient(t, "CLAUDE_BIN", "claude")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), "# Team\n", 0o644)
		s.commitAll(t, "case 6a")
		ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
		defer cancel()
		nowhook := filepath.Join(s.bin, "nowhook")
		cfg := filepath.Join(s.home, "claude-config")
		res := runCmd(t, ctx, s.env([]string{"CLAUDE_CONFIG_DIR=" + cfg}), s.repo, "", nowhook, "setup", "--scope", "user", "--yes", "--agents", "claude")
		t.Logf("CASE6a setup --scope user with CLAUDE_CONFIG_DIR set: err %v", res.err)
		res = runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, "remove", "--scope", "user", "--yes")
		t.Logf("CASE6a remove --scope user, CLAUDE_CONFIG_DIR unset: err %v\n%s", res.err, strings.TrimSpace(res.stdout+res.stderr))
		left, _ := os.ReadFile(filepath.Join(cfg, "settings.json"))
		t.Logf("CASE6a after remove: %s/settings.json names nowhook's hook: %v", "$CLAUDE_CONFIG_DIR", strings.Contains(string(left), "kanbus-compaction-right-now"))
		sub := filepath.Join(s.repo, "sub")
		writeFile(t, filepath.Join(sub, "README.md"), "sub\n", 0o644)
		m := newAnthropicMock(t)
		kbsBefore := s.kbsCalls(t)
		runClaudeSession(t, ctx, bin, append(claudeEnv(s, m.URL), "CLAUDE_CONFIG_DIR="+cfg), sub, []string{"hello", "/compact", "What was I working on?"})
		reqs := m.Requests()
		idx := summaryIndex(t, reqs)
		t.Logf("CASE6a client (CLAUDE_CONFIG_DIR set, in sub/): reminders after /compact: %d; kbs ran %d times", countInBody(t, reqs[idx+1].Body, expectedReminder(t)), s.kbsCalls(t)-kbsBefore)
	})
	t.Run("case6b-remove-forgets-codex-trust", func(t *testing.T) {
		bin := findClient(t, "CODEX_BIN", "codex")
		s := casesSandbox(t)
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), "# Team\n", 0o644)
		s.commitAll(t, "case 6b")
		if err := os.Symlink(bin, filepath.Join(s.bin, "codex")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
		defer cancel()
		m := newPlainResponsesMock(t)
		home := codexManualHome(t, s, m)
		before, _ := os.ReadFile(filepath.Join(home, "config.toml"))
		env := codexEnv(s, home)
		nowhook := filepath.Join(s.bin, "nowhook")
		res := runCmd(t, ctx, env, s.repo, "", nowhook, "setup", "--yes", "--agents", "codex", "--trust-codex")
		mid, _ := os.ReadFile(filepath.Join(home, "config.toml"))
		t.Logf("CASE6b setup --trust-codex: err %v; config.toml grew %d bytes, has [projects: %v", res.err, len(mid)-len(before), strings.Contains(string(mid), "[projects."))
		s.commitAll(t, "nowhook setup")
		res = runCmd(t, ctx, env, s.repo, "", nowhook, "remove", "--yes")
		after, _ := os.ReadFile(filepath.Join(home, "config.toml"))
		t.Logf("CASE6b remove: err %v\n%s\nCASE6b after remove: config.toml byte-identical to before setup: %v; has [projects: %v", res.err, strings.TrimSpace(res.stdout+res.stderr), string(after) == string(before), strings.Contains(string(after), "[projects."))
	})
}

// badRows lists doctor's text rows at warn or error whose check starts
// with one of prefixes.
func badRows(out string, prefixes ...string) string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "warn" && f[0] != "error" {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(f[1], p) {
				rows = append(rows, l)
				break
			}
		}
	}
	return strings.Join(rows, "\n")
}

// casesSandbox is a sandbox whose nowhook is NOWHOOK_BIN where set.
func casesSandbox(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t, kbsFixture)
	if b := os.Getenv("NOWHOOK_BIN"); b != "" {
		link := filepath.Join(s.bin, "nowhook")
		os.Remove(link)
		if err := os.Symlink(b, link); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// casesSetup runs setup and setup --check (exits logged), then doctor
// --json from the start folder, and logs the agent's warn and error rows.
func casesSetup(t *testing.T, s *sandbox, from, agent, agents string, extra ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	env := s.env(extra)
	nowhook := filepath.Join(s.bin, "nowhook")
	exit := func(r result) int {
		if r.err == nil {
			return 0
		}
		var code int
		if _, err := fmt.Sscanf(r.err.Error(), "exit status %d", &code); err == nil {
			return code
		}
		return -1
	}
	setup := runCmd(t, ctx, env, s.repo, "", nowhook, "setup", "--yes", "--agents", agents)
	t.Logf("CASE setup --yes --agents %s: exit %d\n%s", agents, exit(setup), strings.TrimSpace(setup.stdout+setup.stderr))
	s.commitAll(t, "nowhook setup")
	check := runCmd(t, ctx, env, s.repo, "", nowhook, "setup", "--check", "--agents", agents)
	t.Logf("CASE setup --check --agents %s: exit %d\n%s", agents, exit(check), strings.TrimSpace(check.stdout+check.stderr))
	doc := runCmd(t, ctx, env, from, "", nowhook, "doctor", "--json", "--dir", s.repo)
	var rows []diag.Finding
	if err := json.Unmarshal([]byte(doc.stdout), &rows); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, doc.stdout, doc.stderr)
	}
	var bad []string
	for _, r := range rows {
		if r.Agent == agent && r.Severity >= diag.Warn {
			bad = append(bad, fmt.Sprintf("%s %s [from %q]: %s", r.Severity, r.Check, r.From, r.Message))
		}
	}
	t.Logf("CASE doctor (run in %s): exit %d; %s rows at warn or error: %d\n%s", strings.TrimPrefix(from, s.repo), exit(doc), agent, len(bad), strings.Join(bad, "\n"))
}
