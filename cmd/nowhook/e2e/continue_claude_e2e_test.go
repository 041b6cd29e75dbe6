package e2e

import (
	"testing"
)

// TestContinueClaudeEntry: after `nowhook setup --yes --agents claude
// --checkpoint`, a Continue CLI 1.5.47 run in the repository (`cn -p`,
// with the chat mock asking for one tool call) loads .claude/settings.json
// but starts none of nowhook's entries there (the compact hook, the
// checkpoint, the summary hint: a shim on PATH records every run of
// nowhook, and there is none), kbs never runs, and no request holds the
// reminder or a checkpoint.
func TestContinueClaudeEntry(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CONTINUE_BIN", "cn")
	ctx := probeCtx(t)
	s := newSandbox(t, kbsFixture)
	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude", "--checkpoint")
	runs := shimNowhook(t, s)
	tool := &chatToolCall{ID: "call_1", Name: "Bash", Arguments: `{"command":"echo hi"}`}
	m := newChatMock(t, (&probeChat{tool: tool}).reply)
	env := s.env(nil)
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, s.repo, "", bin, "--config", continueConfig(t, s.home, m), "-p", "say hello")
	if res.err != nil {
		t.Fatalf("cn -p: %v\n%.3000s%.3000s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	t.Logf("requests: %s", kinds(reqs))
	toolRan := false
	for _, r := range reqs {
		for _, msg := range r.Messages {
			toolRan = toolRan || msg.Role == "tool"
		}
	}
	if !toolRan {
		t.Errorf("no request carries a tool result: the tool call (a PostToolUse) never happened")
	}
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	if r := runs(); len(r) != 0 {
		t.Errorf("Continue CLI started nowhook %d times: %+v", len(r), r)
	}
	if n := s.kbsCalls(t); n != 0 {
		t.Errorf("kbs ran %d times, want 0", n)
	}
	for _, r := range reqs {
		for _, text := range []string{"Kanbus WIP", checkpointMarker, "Kanbus work in progress: keep"} {
			if bodyContains(t, r.Body, text) {
				t.Errorf("request %d holds %q", r.Index, text)
			}
		}
	}
}
