package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// TestClaudeDoctorAcceptsSettings: `claude doctor` (throwaway HOME) reports
// no invalid settings for what setup wrote.
func TestClaudeDoctorAcceptsSettings(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newAnthropicMock(t)
	env := claudeEnv(s, m.URL)
	clientVersion(t, ctx, env, bin)
	setupClaude(t, ctx, s)

	res := runCmd(t, ctx, env, s.repo, "", bin, "doctor")
	out := res.stdout + res.stderr
	if res.err != nil {
		t.Fatalf("claude doctor: %v\n%s", res.err, out)
	}
	if strings.Contains(out, "Invalid settings") {
		t.Fatalf("claude doctor rejects the settings setup wrote:\n%s", out)
	}
	t.Logf("claude doctor: no \"Invalid settings\" (%d bytes of output)", len(out))

	// The validator can fail: the same settings with a trailing comma
	// (Claude Code then ignores the whole file) must be reported.
	settings, err := os.ReadFile(filepath.Join(s.repo, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.LastIndexByte(settings, '}')
	if end < 0 {
		t.Fatalf("settings.json has no closing brace: %s", settings)
	}
	broken := filepath.Join(s.root, "broken")
	writeFile(t, filepath.Join(broken, ".claude", "settings.json"),
		string(settings[:end])+",\n"+string(settings[end:]), 0o644)
	res = runCmd(t, ctx, env, broken, "", bin, "doctor")
	if !strings.Contains(res.stdout+res.stderr, "Invalid settings") {
		t.Fatalf("claude doctor did not report a settings file with a trailing comma:\n%s%s", res.stdout, res.stderr)
	}
}

// TestClaudeManualCompactReinjects: hello, /compact, follow-up in one
// stream-json session; the request after the summary carries the reminder.
func TestClaudeManualCompactReinjects(t *testing.T) {
	t.Parallel()
	checkClaudeCompaction(t, false, []string{"hello", "/compact", "What was I working on?"}, "manual")
}

// TestClaudeAutoCompactReinjects: the mock reports a nearly full context
// window; the next turn compacts on its own and the request after the
// summary carries the reminder.
func TestClaudeAutoCompactReinjects(t *testing.T) {
	t.Parallel()
	checkClaudeCompaction(t, true, []string{"hello", "What was I working on?"}, "auto")
}

// checkClaudeCompaction runs one session of prompts after setup and checks
// that it compacted once with trigger, that the compact hook and kbs ran
// once, and that the request after the summary carries the reminder.
func checkClaudeCompaction(t *testing.T, highUsage bool, prompts []string, trigger string) {
	t.Helper()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m, err := mockmodel.NewAnthropic(highUsage)
	m = startMock(t, m, err)
	env := claudeEnv(s, m.URL)
	clientVersion(t, ctx, env, bin)
	setupClaude(t, ctx, s)

	sess := runClaudeSession(t, ctx, bin, env, s.repo, prompts)
	reqs := m.Requests()
	dumpRequests(t, reqs)
	checkReinjected(t, reqs, expectedReminder(t))
	if len(sess.compactions) != 1 || sess.compactions[0] != trigger {
		t.Errorf("compact_boundary triggers = %q, want [%s]", sess.compactions, trigger)
	}
	if n := len(sess.compactHookRuns()); n != 1 {
		t.Errorf("SessionStart:compact hook ran %d times, want 1", n)
	}
	if n := s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1", n)
	}
}

// TestClaudeFailingKbsInjectsNothing is the negative control: with kbs
// failing, the compact hook still runs, no request carries any reminder
// line, and every turn of the session completes.
func TestClaudeFailingKbsInjectsNothing(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFailing)
	m := newAnthropicMock(t)
	env := claudeEnv(s, m.URL)
	clientVersion(t, ctx, env, bin)
	setupClaude(t, ctx, s)

	sess := runClaudeSession(t, ctx, bin, env, s.repo, []string{"hello", "/compact", "What was I working on?"})
	reqs := m.Requests()
	dumpRequests(t, reqs)
	summaryIndex(t, reqs) // it did compact, and asked the model again after
	checkNoReminder(t, reqs, expectedReminder(t))
	if n := len(sess.compactHookRuns()); n != 1 {
		t.Errorf("SessionStart:compact hook ran %d times, want 1", n)
	}
	if n := s.kbsCalls(t); n == 0 {
		t.Errorf("the failing kbs never ran: the control proves nothing")
	}
}

func dumpRequests(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	for i, r := range reqs {
		t.Logf("request %d: %s %s kind=%s %d bytes", i, r.Method, r.Path, r.Kind, len(r.Body))
	}
}
