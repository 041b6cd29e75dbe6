package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
	"github.com/nowhook/nowhook/templates"
)

// geminiModel is the model every run pins with -m, which skips the CLI's
// model router (one request fewer to mock).
const geminiModel = "gemini-2.5-flash"

// geminiUserSettings is the throwaway HOME's ~/.gemini/settings.json: an
// API key login (GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL point at the
// mock), the next-speaker check on (the mock uses it to force a
// compression; it is off by default), and nothing that talks to anything
// but the mock (no update check, usage statistics or telemetry; with these
// the CLI connects only to the mock, checked with strace on 0.61.0).
const geminiUserSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"skipNextSpeakerCheck": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`

// geminiEnv is the whole environment Gemini CLI runs with. Headless mode
// refuses an untrusted folder (exit 55); GEMINI_CLI_TRUST_WORKSPACE trusts
// the repository for this run only.
func geminiEnv(t *testing.T, s *sandbox, m *geminiMock) []string {
	t.Helper()
	writeFile(t, filepath.Join(s.home, ".gemini", "settings.json"), geminiUserSettings, 0o644)
	return s.env([]string{
		"GEMINI_API_KEY=dummy",
		"GOOGLE_GEMINI_BASE_URL=" + m.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	})
}

// geminiRun is one headless `gemini -p hello` against the mock.
type geminiRun struct {
	res  result
	reqs []recordedRequest
}

// runGemini runs `gemini -m MODEL -p hello` in the sandbox's repository.
func runGemini(t *testing.T, ctx context.Context, s *sandbox, m *geminiMock, bin string, env []string) geminiRun {
	t.Helper()
	return runGeminiIn(t, ctx, s.repo, m, bin, env)
}

// runGeminiIn runs `gemini -m MODEL -p hello` in dir; the run's requests
// are those the mock received after the ones it held before.
func runGeminiIn(t *testing.T, ctx context.Context, dir string, m *geminiMock, bin string, env []string) geminiRun {
	t.Helper()
	seen := len(m.Requests())
	res := runCmd(t, ctx, env, dir, "", bin, "-m", geminiModel, "-p", "hello")
	reqs := m.Requests()[seen:]
	dumpRequests(t, reqs)
	if res.err != nil {
		t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "from the mock.") {
		t.Fatalf("gemini did not print the model's answer\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	for i, r := range reqs {
		if r.Kind == "other" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
	return geminiRun{res: res, reqs: reqs}
}

// geminiContents decodes a request's contents.
func geminiContents(t *testing.T, r recordedRequest) []geminiContent {
	t.Helper()
	var req mockmodel.GeminiRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return req.Contents
}

// geminiTurns returns the indexes of the conversation's own requests.
func geminiTurns(reqs []recordedRequest) []int {
	var out []int
	for i, r := range reqs {
		if r.Kind == "turn" {
			out = append(out, i)
		}
	}
	return out
}

// geminiTurnAfterCompression returns the index of the only summary request
// (which must be followed by its verification) and of the first turn
// request after it.
func geminiTurnAfterCompression(t *testing.T, reqs []recordedRequest) (summary, turn int) {
	t.Helper()
	idx := onlyRequest(t, reqs, "summary", "Gemini CLI never compressed the history")
	if reqs[idx+1].Kind != "verify" {
		t.Errorf("request %d after the summary is %q, want the summary's verification", idx+1, reqs[idx+1].Kind)
	}
	for i := idx + 1; i < len(reqs); i++ {
		if reqs[i].Kind == "turn" {
			return idx, i
		}
	}
	t.Fatalf("no turn request after the compression (%d requests)", len(reqs))
	return idx, -1
}

// geminiBlockLines are the lines of the kbs-now block's body that must reach the
// model: every non-empty line of the template.
func geminiBlockLines() []string {
	var out []string
	for _, l := range strings.Split(templates.OnDemand, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// geminiMissing returns the lines of want that text lacks.
func geminiMissing(text string, want []string) []string {
	var out []string
	for _, l := range want {
		if !strings.Contains(text, l) {
			out = append(out, l)
		}
	}
	return out
}
