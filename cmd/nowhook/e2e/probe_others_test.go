package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Probes of Continue CLI, Crush and Auggie: what each reads, whether its
// hooks run, and (Auggie) why it cannot run offline. Continue CLI is
// pinned in scripts/pins.tsv, so CI runs its test; Crush and Auggie cannot
// be installed or run here (probeBin says why), so theirs skip unless
// their variable is set. Run: eval "$(sh scripts/install-agents.sh
// continue)"; CRUSH_BIN=... AUGGIE_BIN=... go test ./cmd/nowhook/e2e/ -run
// '^Test(Reads)?(Continue|Crush|Auggie)' -v

// continueConfig writes a config.yaml pointing Continue CLI at the mock.
func continueConfig(t *testing.T, home string, m *chatMock) string {
	t.Helper()
	path := filepath.Join(home, ".continue", "config.yaml")
	writeFile(t, path, fmt.Sprintf("name: probe\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: mock\n    provider: openai\n"+
		"    model: mock-model\n    apiBase: %s\n    apiKey: dummy\n    roles: [chat, edit, apply]\n", m.BaseURL()), 0o644)
	return path
}

// TestReadsContinue (Continue CLI 1.5.47, `cn -p`): the first of
// AGENTS.md, AGENT.md, CLAUDE.md at the start directory and
// .continue/rules/ reach the request; from a sub-folder nothing does; the
// Claude-style hooks it loads from .claude/ and .continue/settings.json
// never run.
func TestReadsContinue(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CONTINUE_BIN", "cn")
	for _, c := range []struct {
		name, where string
		files, want []string
	}{
		{"all", ".", nil, []string{"AGENTS.md", ".continue/rules/rules.md"}},
		{"no-AGENTS.md", ".", []string{"AGENT.md", "CLAUDE.md", ".continue/rules/rules.md"}, []string{"AGENT.md", ".continue/rules/rules.md"}},
		{"CLAUDE.md-only", ".", []string{"CLAUDE.md"}, []string{"CLAUDE.md"}},
		{"sub-folder", probeSub, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			repo := probeRepo(t, ctx, c.files...)
			var hooks []probeHook
			for _, f := range []string{".claude/settings.json", ".continue/settings.json"} {
				h := writeProbeHook(t, filepath.Join(repo, ".probe-hooks", strings.ReplaceAll(f, "/", "-")+".sh"), "PROBE-CONTINUE-HOOK", 0)
				hooks = append(hooks, h)
				groups := []string{}
				for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"} {
					groups = append(groups, fmt.Sprintf(`%q:[{"hooks":[{"type":"command","command":%q}]}]`, ev, shQuote(h.path)+" "+ev))
				}
				writeFile(t, filepath.Join(repo, filepath.FromSlash(f)), `{"hooks":{`+strings.Join(groups, ",")+"}}\n", 0o644)
			}
			m := newChatMock(t, (&probeChat{}).reply)
			home := t.TempDir()
			cfg := continueConfig(t, home, m)
			env := probeEnv(home)
			clientVersion(t, ctx, env, bin)
			res := runCmd(t, ctx, env, filepath.Join(repo, filepath.FromSlash(c.where)), "", bin, "--config", cfg, "-p", "say hello")
			if res.err != nil {
				t.Fatalf("cn -p: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkProbeFound(t, "cn started in "+c.where, reqs[0].Body, c.want...)
			for _, h := range hooks {
				if n := len(h.runs(t)); n != 0 {
					t.Errorf("%s ran %d times, want 0", h.path, n)
				}
			}
			checkNowhere(t, reqs, "PROBE-CONTINUE-HOOK")
		})
	}
}

// TestReadsCrush (Crush built from source; the npm package cannot
// fetch its binary offline): `crush run` sends a title request and the
// turn, which holds every context file at the start directory and none
// from a sub-folder.
func TestReadsCrush(t *testing.T) {
	t.Parallel()
	bin := probeBin(t, "CRUSH_BIN", "Crush")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{".", []string{"AGENTS.md", "CLAUDE.md", "CRUSH.md", "GEMINI.md", ".cursorrules", ".github/copilot-instructions.md"}},
		{probeSub, nil},
	} {
		t.Run(strings.ReplaceAll(c.where, "/", "-"), func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			repo := probeRepo(t, ctx)
			m := newChatMock(t, (&probeChat{}).reply)
			home := t.TempDir()
			writeFile(t, filepath.Join(home, ".config", "crush", "crush.json"), fmt.Sprintf(`{"providers":{"mock":{"type":"openai-compat",`+
				`"base_url":%q,"api_key":"dummy","models":[{"id":"mock-model","name":"Mock","context_window":128000,"default_max_tokens":4096}]}},`+
				`"models":{"large":{"model":"mock-model","provider":"mock"},"small":{"model":"mock-model","provider":"mock"}}}`+"\n", m.BaseURL()), 0o644)
			env := probeEnv(home, "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "CRUSH_DISABLE_METRICS=1")
			clientVersion(t, ctx, env, bin)
			res := runCmd(t, ctx, env, filepath.Join(repo, filepath.FromSlash(c.where)), "", bin, "run", "--quiet", "say hello")
			if res.err != nil {
				t.Fatalf("crush run: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (title, turn)", len(reqs))
			}
			turn := reqs[0] // the two may arrive in either order; the title request is the short one
			if len(reqs[1].Body) > len(turn.Body) {
				turn = reqs[1]
			}
			checkProbeFound(t, "crush run started in "+c.where, turn.Body, c.want...)
		})
	}
}

// TestAuggieNeedsLogin (Auggie 0.36.0): with no login it refuses to
// start and sends nothing; its models are reached only through Augment's
// own service, so no local mock can stand in.
func TestAuggieNeedsLogin(t *testing.T) {
	t.Parallel()
	bin := probeBin(t, "AUGGIE_BIN", "Auggie")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	env := probeEnv(t.TempDir())
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, repo, "", bin, "--print", "say hello")
	out := res.stdout + res.stderr
	if !strings.Contains(out, "No auth provided") || !strings.Contains(out, "auggie login") {
		t.Errorf("auggie --print without a login said (err %v):\n%s\nwant the 'No auth provided ... auggie login' refusal", res.err, out)
	}
}
