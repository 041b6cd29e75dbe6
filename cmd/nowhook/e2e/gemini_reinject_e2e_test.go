package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// The Gemini CLI re-inject (docs/platforms.md#gemini-cli): `nowhook setup
// --yes --agents gemini=reinject` writes a BeforeModel hook into
// .gemini/settings.json that runs .gemini/hooks/kanbus-gemini-turn.sh
// (templates/gemini-turn.sh), which runs `nowhook reminder --gemini-turn`.
// The tests run setup and then the real client, so they prove what setup
// writes.

// setupGeminiTurn runs `nowhook setup --yes --agents gemini=reinject` in
// the sandbox's repository and checks that it wrote the hook.
func setupGeminiTurn(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	out := runNowhook(t, ctx, s, "setup", "--yes", "--agents", "gemini=reinject")
	for _, w := range []string{".gemini/settings.json (created)", ".gemini/hooks/kanbus-gemini-turn.sh (created)", "GEMINI.md (created)"} {
		if !strings.Contains(out, w) {
			t.Fatalf("setup --agents gemini=reinject does not say %q:\n%s", w, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(s.repo, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"command": "[ ! -r \"${GEMINI_PROJECT_DIR}\"/.gemini/hooks/kanbus-gemini-turn.sh ] || . \"${GEMINI_PROJECT_DIR}\"/.gemini/hooks/kanbus-gemini-turn.sh"`) {
		t.Fatalf(".gemini/settings.json lacks the BeforeModel command:\n%s", b)
	}
	t.Logf(".gemini/settings.json as setup wrote it:\n%s", b)
}

// runGeminiMulti runs `gemini -m MODEL -p hello` in the repository and
// returns every request the mock received.
func runGeminiMulti(t *testing.T, ctx context.Context, s *sandbox, m *geminiMock, bin string, env []string) []recordedRequest {
	t.Helper()
	res := runCmd(t, ctx, env, s.repo, "", bin, "-m", geminiModel, "-p", "hello")
	reqs := m.Requests()
	dumpRequests(t, reqs)
	if res.err != nil {
		t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "from the mock.") {
		t.Fatalf("gemini did not print the model's answer\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "kanbus-gemini-turn.sh") {
		t.Fatalf("Gemini CLI did not list the project's hook (it warns about every project hook it runs):\n%s", res.stderr)
	}
	for i, r := range reqs {
		if r.Kind == "other" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
	return reqs
}

// geminiTwoCompressions installs the hook in a sandbox whose kbs behaves
// as mode and runs Gemini CLI once, forcing two compressions and then
// continues more requests.
func geminiTwoCompressions(t *testing.T, mode kbsMode, continues int) (*sandbox, []recordedRequest) {
	t.Helper()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, mode)
	setupGeminiTurn(t, ctx, s)
	m := newGeminiMultiMock(t, 2, continues)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	return s, runGeminiMulti(t, ctx, s, m, bin, env)
}

// onceAfterEachCompression checks that of Gemini CLI's requests (a session
// that compressed twice) the first after each compression holds reminder
// once and every other request none, and returns its count in each first.
func onceAfterEachCompression(t *testing.T, reqs []recordedRequest, reminder string) []int {
	t.Helper()
	first, _ := geminiFirstTurns(t, reqs)
	if len(first) != 2 {
		t.Fatalf("Gemini CLI compressed %d times, want 2", len(first))
	}
	var got []int
	for i, r := range reqs {
		want := 0
		if i == first[0] || i == first[1] {
			want = 1
		}
		n := countIn(t, r.Body, reminder)
		if n != want {
			t.Errorf("request %d (%s) has the reminder %d times, want %d", i, r.Kind, n, want)
		}
		if want == 1 {
			got = append(got, n)
		}
	}
	return got
}

// geminiFirstTurns returns, for each compression (a summary request), the
// index of the first turn request after it; and the indexes of all turns.
func geminiFirstTurns(t *testing.T, reqs []recordedRequest) (first, turns []int) {
	t.Helper()
	for i, r := range reqs {
		switch r.Kind {
		case "summary":
			first = append(first, -1)
		case "turn":
			turns = append(turns, i)
			if n := len(first); n > 0 && first[n-1] < 0 {
				first[n-1] = i
			}
		}
	}
	for n, i := range first {
		if i < 0 {
			t.Fatalf("no turn request after compression %d", n+1)
		}
	}
	return first, turns
}

// TestGeminiReinjectAfterCompression: with the BeforeModel hook setup wrote, the
// reminder is in the first request after each of two compressions, once,
// right after that compression's summary, and in no other request: not
// before the first compression, not in the request after the first one
// that followed a compression, and not in the summary requests.
func TestGeminiReinjectAfterCompression(t *testing.T) {
	t.Parallel()
	s, reqs := geminiTwoCompressions(t, kbsFixture, 1)

	reminder := expectedReminder(t)
	first, turns := geminiFirstTurns(t, reqs)
	if len(first) != 2 {
		t.Fatalf("Gemini CLI compressed %d times, want 2: the mock did not force what the test needs", len(first))
	}
	if len(turns) != 4 {
		t.Fatalf("%d turn requests, want 4 (hello, two after the compressions, one more)", len(turns))
	}
	want := map[int]int{first[0]: 1, first[1]: 2} // request index -> compression
	for i, r := range reqs {
		got := countIn(t, r.Body, reminder)
		n, isFirst := want[i]
		switch {
		case !isFirst && got > 0:
			t.Errorf("request %d (%s) carries the reminder %d times; only the first request after each compression may", i, r.Kind, got)
		case isFirst && got != 1:
			t.Errorf("request %d, the first after compression %d, carries the reminder %d times, want once", i, n, got)
		case isFirst:
			c := geminiContents(t, r)
			text := c[0].Text()
			at, snap := strings.Index(text, reminder), strings.Index(text, mockmodel.GeminiSnapshot(n))
			if snap < 0 || at < snap {
				t.Errorf("request %d: the reminder is not after the summary of compression %d in the first message:\n%.3000s", i, n, text)
			}
			if len(c) < 2 || c[1].Text() != "Got it. Thanks for the additional context!" {
				t.Errorf("request %d: the CLI's acknowledgement no longer follows the summary: %+v", i, c)
			}
		}
	}
	if calls := s.kbsCalls(t); calls != 2 {
		t.Errorf("kbs ran %d times, want 2 (once per compression)", calls)
	}
	if !t.Failed() {
		t.Logf("the reminder is in requests %d and %d, the first after each compression, once each; in none of the other %d requests (turns at %v)",
			first[0], first[1], len(reqs)-2, turns)
	}
}

// TestGeminiReinjectKbsFails: when kbs fails, the hook runs after each
// compression and no request carries anything of the reminder; Gemini CLI
// goes on as usual.
func TestGeminiReinjectKbsFails(t *testing.T) {
	t.Parallel()
	s, reqs := geminiTwoCompressions(t, kbsFailing, 0)

	if first, _ := geminiFirstTurns(t, reqs); len(first) != 2 {
		t.Fatalf("Gemini CLI compressed %d times, want 2", len(first))
	}
	for i, r := range reqs {
		for _, w := range []string{"Kanbus WIP", "kbs-abc", "Right-now summary"} {
			if bodyContains(t, r.Body, w) {
				t.Errorf("request %d (%s) contains %q though kbs failed", i, r.Kind, w)
			}
		}
	}
	// Once per compression, and once more with --raw after the failure.
	calls := s.kbsCalls(t)
	if calls < 2 || calls > 4 {
		t.Errorf("kbs ran %d times, want 2 to 4 (one try, and one retry with --raw, per compression)", calls)
	}
	if !t.Failed() {
		t.Logf("kbs failed %d times over 2 compressions; none of the %d requests carries any of the reminder", calls, len(reqs))
	}
}

// TestGeminiReinjectSubfolder: Gemini CLI started in sub/deeper of the
// repository does not load the root's .gemini/settings.json, so the hook
// never runs there and no request carries the reminder, though the
// history was compressed. (When this fails, a new client loads project
// hooks from the folders above: check $GEMINI_PROJECT_DIR in the command,
// which is the start directory.)
func TestGeminiReinjectSubfolder(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	setupGeminiTurn(t, ctx, s)
	sub := filepath.Join(s.repo, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	m := newGeminiMultiMock(t, 1, 0)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, sub, "", bin, "-m", geminiModel, "-p", "hello")
	reqs := m.Requests()
	dumpRequests(t, reqs)
	if res.err != nil {
		t.Fatalf("gemini -p in sub/deeper: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	if first, _ := geminiFirstTurns(t, reqs); len(first) != 1 {
		t.Fatalf("Gemini CLI compressed %d times, want 1", len(first))
	}
	if strings.Contains(res.stderr, "kanbus-gemini-turn.sh") {
		t.Errorf("Gemini CLI started in sub/deeper lists the root's project hook: it loads project settings from the folders above now\n%s", res.stderr)
	}
	reminder := expectedReminder(t)
	for i, r := range reqs {
		if countIn(t, r.Body, reminder) > 0 {
			t.Errorf("request %d (%s) carries the reminder", i, r.Kind)
		}
	}
	if calls := s.kbsCalls(t); calls != 0 {
		t.Errorf("kbs ran %d times", calls)
	}
	if !t.Failed() {
		t.Logf("started in sub/deeper: the root's hook did not run (no project hook listed, kbs never ran) and none of the %d requests carries the reminder", len(reqs))
	}
}
