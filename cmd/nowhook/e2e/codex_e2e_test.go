package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
)

// codexRun is one `codex exec` against the mock, after setup.
type codexRun struct {
	s    *sandbox
	m    *responsesMock
	res  result
	reqs []recordedRequest
}

// runCodexExec sets up a sandbox with kbs behaving as mode, installs the
// hook with nowhook's real setup and trust path, checks that Codex reports
// the hook trusted, and runs one `codex exec --strict-config` whose turn
// compacts in the middle (no trust-bypass flag).
func runCodexExec(t *testing.T, mode kbsMode) codexRun {
	t.Helper()
	bin := findClient(t, "CODEX_BIN", "codex")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	s := newSandbox(t, mode)
	m := newResponsesMock(t)
	home := codexHome(t, s, m)
	env := codexEnv(s, home)
	clientVersion(t, ctx, env, bin)
	setupCodex(t, ctx, s, bin, env)
	checkCodexTrusted(t, ctx, s, bin, env)

	return codexExecIn(t, ctx, s, m, bin, env, s.repo)
}

// codexExecIn runs one `codex exec --strict-config` in dir (the repository
// root, a sub-folder or a worktree) against m, after setup.
func codexExecIn(t *testing.T, ctx context.Context, s *sandbox, m *responsesMock, bin string, env []string, dir string) codexRun {
	t.Helper()
	res := runCmd(t, ctx, env, dir, "", bin, "exec", "--strict-config", "hello")
	if res.err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	dumpRequests(t, reqs)
	if !strings.Contains(res.stdout, "from the mock.") {
		t.Fatalf("codex exec did not print the model's final answer\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	return codexRun{s: s, m: m, res: res, reqs: reqs}
}

// checkCodexTrusted asserts through `codex app-server` hooks/list that the
// repo has exactly our compact hook, trusted, with no warnings or errors.
func checkCodexTrusted(t *testing.T, ctx context.Context, s *sandbox, bin string, env []string) {
	t.Helper()
	checkCodexTrustedIn(t, ctx, bin, env, s.repo)
}

// checkCodexTrustedIn is checkCodexTrusted for a session started in dir
// (a sub-folder, or a worktree, where Codex reads the main checkout's
// hooks.json).
func checkCodexTrustedIn(t *testing.T, ctx context.Context, bin string, env []string, dir string) {
	t.Helper()
	hl, err := codex.List(ctx, codex.Options{Codex: bin, Env: env, Dir: dir, ClientVersion: "nowhook-e2e"}, dir)
	if err != nil {
		t.Fatalf("hooks/list: %v", err)
	}
	if len(hl.Warnings) > 0 || len(hl.Errors) > 0 {
		t.Errorf("hooks/list: warnings %v, errors %v", hl.Warnings, hl.Errors)
	}
	var ours []codex.Hook
	for _, h := range hl.Hooks {
		if strings.Contains(h.Command, ".codex/hooks/kanbus-compaction-right-now.sh") {
			ours = append(ours, h)
		}
	}
	if len(ours) != 1 {
		t.Fatalf("hooks/list: %d nowhook hooks, want 1: %+v", len(ours), hl.Hooks)
	}
	h := ours[0]
	if h.EventName != "sessionStart" || h.Matcher == nil || *h.Matcher != "compact" {
		t.Errorf("hooks/list: our hook is event %q matcher %v, want sessionStart/compact", h.EventName, h.Matcher)
	}
	if h.TrustStatus != "trusted" {
		t.Fatalf("hooks/list: our hook %s is %q, want trusted: Codex would skip it silently", h.Key, h.TrustStatus)
	}
	t.Logf("hooks/list: %s trusted (%s), no warnings or errors", h.Key, h.CurrentHash)
}

// compactionIndex returns the index of the only compaction request.
func compactionIndex(t *testing.T, reqs []recordedRequest) int {
	t.Helper()
	for i, r := range reqs {
		if r.Path != "/v1/responses" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
	return onlyRequest(t, reqs, "compaction", "Codex never compacted")
}

// TestCodexSetupTrustsHook: after `nowhook setup --trust-codex`, Codex's
// own app-server lists our hook as trusted, with no warnings or errors.
func TestCodexSetupTrustsHook(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CODEX_BIN", "codex")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newResponsesMock(t)
	env := codexEnv(s, codexHome(t, s, m))
	clientVersion(t, ctx, env, bin)
	setupCodex(t, ctx, s, bin, env)
	checkCodexTrusted(t, ctx, s, bin, env)
}

// TestCodexAutoCompactReinjects: one `codex exec` whose turn compacts in the
// middle; the request after the compaction request carries the exact
// reminder as a developer message, and no earlier request has it.
func TestCodexAutoCompactReinjects(t *testing.T) {
	t.Parallel()
	run := runCodexExec(t, kbsFixture)
	reminder := expectedReminder(t)
	idx := compactionIndex(t, run.reqs)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, run.reqs[i].Body, reminder) {
			t.Errorf("request %d (before or at the compaction) already contains the reminder", i)
		}
	}
	found := false
	for _, text := range developerTexts(t, run.reqs[idx+1].Body) {
		if strings.Contains(text, reminder) {
			found = true
		}
	}
	if !found {
		t.Errorf("the request after the compaction request (request %d of %d) has no developer message with the reminder\nwant:\n%s\nbody:\n%.4000s",
			idx+1, len(run.reqs), reminder, run.reqs[idx+1].Body)
	}
	if n := run.s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1", n)
	}
}

// TestCodexFailingKbsInjectsNothing is the negative control: with kbs
// failing, the trusted hook runs, no request carries any reminder line, and
// the turn completes.
func TestCodexFailingKbsInjectsNothing(t *testing.T) {
	t.Parallel()
	run := runCodexExec(t, kbsFailing)
	compactionIndex(t, run.reqs) // it compacted and asked the model again
	checkNoReminder(t, run.reqs, expectedReminder(t))
	if n := run.s.kbsCalls(t); n == 0 {
		t.Errorf("the failing kbs never ran: the control proves nothing")
	}
}
