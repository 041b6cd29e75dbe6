package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestClineUserPromptSubmitReachesNothing: the other half of a two-step
// re-inject (a mark at compaction, the reminder with the next prompt) is
// missing in Cline CLI 3.0.65 too. In a `cline --json PROMPT` task with a
// tool call, TaskStart's and PreToolUse's hooks in the same folder run,
// but UserPromptSubmit's never starts, and what it would print reaches no
// request. (Its code starts prompt_submit hooks only for a user message
// added to a running session, detached, and drops their result; a second
// prompt in one session needs the TUI, `--id` refuses to run without a
// terminal and `--acp` without a Cline sign-in.) With PreCompact never run
// either (TestClinePreCompactNeverRuns), Cline has no route to re-inject.
func TestClineUserPromptSubmitReachesNothing(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLINE_BIN", "cline")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	hooks := filepath.Join(repo, ".clinerules", "hooks")
	ups := writeProbeHook(t, filepath.Join(hooks, "UserPromptSubmit"), clineHookOut("PROBE-CLINE-USERPROMPTSUBMIT"), 0)
	start := writeProbeHook(t, filepath.Join(hooks, "TaskStart"), clineHookOut("PROBE-CLINE-TASKSTART"), 0)
	tool := writeProbeHook(t, filepath.Join(hooks, "PreToolUse"), clineHookOut("PROBE-CLINE-PRETOOLUSE"), 0)
	args, _ := json.Marshal(map[string]any{"commands": []string{"echo hi"}})
	m := newChatMock(t, (&probeChat{summaryPhrases: []string{clineSummaryPhrase},
		tool: &chatToolCall{ID: "call_1", Name: "run_commands", Arguments: string(args)}}).reply)
	clineRun(t, ctx, bin, clineHome(t, ctx, bin, m), repo, "say hello")
	reqs := m.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests, want the tool call's and the one after it", len(reqs))
	}
	if n, s := len(start.runs(t)), len(tool.runs(t)); n != 1 || s != 1 {
		t.Fatalf("TaskStart ran %d times and PreToolUse %d, want once each: the hooks folder was not loaded", n, s)
	}
	if runs := ups.runs(t); len(runs) != 0 {
		t.Errorf("UserPromptSubmit ran %d times: %q", len(runs), runs)
	}
	checkNowhere(t, reqs, "PROBE-CLINE-USERPROMPTSUBMIT")
	if !bodyContains(t, reqs[1].Body, "PROBE-CLINE-PRETOOLUSE") {
		t.Errorf("the request after the tool call lacks PreToolUse's contextModification (the control)")
	}
}
