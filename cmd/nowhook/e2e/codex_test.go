package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexSandboxTOML keeps /tmp and $TMPDIR out of the writable roots of
// Codex's sandbox for the commands the mock asks it to run. With them in,
// Codex 0.171.0's bubblewrap sandbox makes empty mount targets /tmp/.git
// and /tmp/.codex for the duration of a command (seen 2026-12-01), and
// while /tmp/.git exists every test repository under /tmp, in this package
// and in the others that go test runs beside it, looks nested in a git
// repository at /tmp. The hooks are not sandboxed: this changes nothing
// of what the tests prove.
const codexSandboxTOML = `
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true
`

// codexHome writes a user-level Codex config that points at the mock and
// returns the CODEX_HOME directory (E2E.md, Codex CLI).
func codexHome(t *testing.T, s *sandbox, m *responsesMock) string {
	t.Helper()
	home := filepath.Join(s.root, "codex-home")
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
model_auto_compact_token_limit = 500

[model_providers.mock]
name = "Mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
`+codexSandboxTOML, m.URL), 0o644)
	return home
}

// codexEnv is the whole environment Codex runs with.
func codexEnv(s *sandbox, codexHome string) []string {
	return s.env([]string{
		"CODEX_HOME=" + codexHome,
		"MOCK_API_KEY=dummy",
	})
}

// developerTexts returns the text of every developer message in a
// Responses API request's input.
func developerTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, it := range req.Input {
		if it.Type == "message" && it.Role == "developer" {
			for _, c := range it.Content {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// setupCodex runs `nowhook setup --yes --agents codex --trust-codex` in the
// repo, with the real codex on PATH so that nowhook records the trust
// through Codex's own app-server.
func setupCodex(t *testing.T, ctx context.Context, s *sandbox, bin string, env []string) {
	t.Helper()
	if err := os.Symlink(bin, filepath.Join(s.bin, "codex")); err != nil {
		t.Fatal(err)
	}
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"),
		"setup", "--yes", "--agents", "codex", "--trust-codex")
	if res.err != nil {
		t.Fatalf("nowhook setup --trust-codex: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents codex --trust-codex:\n%s", strings.TrimSpace(res.stdout+res.stderr))
	for _, f := range []string{".codex/hooks.json", ".codex/hooks/kanbus-compaction-right-now.sh"} {
		if _, err := os.Stat(filepath.Join(s.repo, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
}
