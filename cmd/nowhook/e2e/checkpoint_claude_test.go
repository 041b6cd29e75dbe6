package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkpointMarker opens every checkpoint the runtime prints.
const checkpointMarker = "Kanbus checkpoint: the context window is "

// hintMarker opens the summary hint.
const hintMarker = "Kanbus work in progress: keep every issue id and title below verbatim in the summary"

// installClaudeCheckpoint installs the checkpoint (PostToolUse and
// UserPromptSubmit) and the summary hint (PreCompact) the way a user does,
// with `nowhook setup --yes --agents claude=ondemand --checkpoint`: the
// hook entries in the repo's .claude/settings.json and the signed scripts
// they run. On demand, so that the checkpoint is all the hooks setup
// writes: the default mode (reinject) adds the SessionStart compact hook,
// whose wrapper runs kbs after every compaction (the tests count the kbs
// calls of the checkpoint and the hint), and CLAUDE.md's Compact
// Instructions, whose example id kbs-abc would reach every request.
func installClaudeCheckpoint(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "claude=ondemand", "--checkpoint")
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup: %s", strings.TrimSpace(res.stdout))
}

// claudeCheckpointScript is the model's side of one session (hello,
// second, /compact, third) on claude-opus-5-5, a 1,000,000-token window:
// the context climbs to 84% (just below --at 85), then 86% (the checkpoint
// fires after that tool call), stays above 85% for the rest of the first
// two turns, is compacted, and climbs from 10% to 87% again in the third.
var claudeCheckpointScript = []checkpointStep{
	{Tool: "echo one", Usage: 840_000},   // T1
	{Tool: "echo two", Usage: 860_000},   // T2: fires after this tool call
	{Tool: "echo three", Usage: 900_000}, // T3: carries the checkpoint
	{Usage: 910_000},                     // T4: end of "hello"
	{Usage: 920_000},                     // T5: "second" (its prompt hook stays latched)
	{Tool: "echo four", Usage: 100_000},  // T6: "third", after /compact
	{Tool: "echo five", Usage: 870_000},  // T7: fires again
	{Usage: 880_000},                     // T8: carries the second checkpoint
}

// claudeAutoCheckpointScript is a session (hello, next) whose context
// reaches 98.5%, past Claude Code's auto-compaction point (977,000 of
// 1,000,000 tokens, measured), so that the second prompt compacts first.
var claudeAutoCheckpointScript = []checkpointStep{
	{Tool: "echo one", Usage: 860_000},   // T1: fires after this tool call
	{Usage: 985_000},                     // T2: carries it; compaction follows
	{Tool: "echo two", Usage: 100_000},   // T3: "next", after the compaction
	{Tool: "echo three", Usage: 880_000}, // T4: fires again
	{Usage: 890_000},                     // T5: carries the second checkpoint
}

// claudeCheckpointSession runs the scripted session with kbs behaving as
// mode and returns the ordinary requests (T1...), the summary request, the
// session and the sandbox.
func claudeCheckpointSession(t *testing.T, mode kbsMode) (turns []recordedRequest, summary recordedRequest, sess claudeSession, s *sandbox) {
	t.Helper()
	return claudeCheckpointRun(t, mode, claudeCheckpointScript, []string{"hello", "second", "/compact", "third"}, "manual")
}

// claudeCheckpointRun runs one session of prompts against script, which
// must compact once with trigger.
func claudeCheckpointRun(t *testing.T, mode kbsMode, script []checkpointStep, prompts []string, trigger string) (turns []recordedRequest, summary recordedRequest, sess claudeSession, s *sandbox) {
	t.Helper()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s = newSandbox(t, mode)
	m := newCheckpointAnthropic(t, script)
	env := claudeEnv(s, m.URL)
	clientVersion(t, ctx, env, bin)
	installClaudeCheckpoint(t, ctx, s)

	sess = runClaudeSession(t, ctx, bin, env, s.repo, prompts)
	reqs := m.Requests()
	dumpRequests(t, reqs)
	if len(sess.compactions) != 1 || sess.compactions[0] != trigger {
		t.Fatalf("compact_boundary triggers = %q, want [%s]", sess.compactions, trigger)
	}
	idx := summaryIndex(t, reqs)
	for i, r := range reqs {
		if i != idx {
			turns = append(turns, r)
		}
	}
	if len(turns) != len(script) {
		t.Fatalf("%d ordinary requests, want %d (one per scripted reply)", len(turns), len(script))
	}
	return turns, reqs[idx], sess, s
}

// countIn returns how many string values of a JSON request body contain text.
func countIn(t *testing.T, body []byte, text string) int {
	t.Helper()
	strs, err := jsonStrings(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	n := 0
	for _, s := range strs {
		n += strings.Count(s, text)
	}
	return n
}

// checkCheckpointCounts asserts how many checkpoints each ordinary
// request carries.
func checkCheckpointCounts(t *testing.T, turns []recordedRequest, want []int) {
	t.Helper()
	for i, r := range turns {
		if got := countIn(t, r.Body, checkpointMarker); got != want[i] {
			t.Errorf("request T%d carries %d checkpoints, want %d", i+1, got, want[i])
		}
	}
}

// kbsArgs returns the arguments of every call of the sandbox's fake kbs.
func (s *sandbox) kbsArgs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(s.kbsLog)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestCheckpointClaude: in one Claude Code session the checkpoint reaches
// the model exactly once when the context use crosses 85% (not at 84%),
// through PostToolUse additionalContext in the very next request; the
// prompt hook stays quiet while latched; the summary request carries the
// in-progress ids from the PreCompact hint; after the compaction and a new
// climb the checkpoint comes exactly once more.
func TestCheckpointClaude(t *testing.T) {
	// Not in parallel (sequential tests run alone): the summary hint gives
	// kbs 2 s (reminder.DefaultHintBudget), which a test beside it on a
	// loaded machine makes tighter (a hint missed at a load of 35).
	turns, summary, sess, s := claudeCheckpointSession(t, kbsFixture)

	// T3..T5 hold the first checkpoint (T3 is the request right after the
	// tool call that crossed 85%); T8 holds the second; T6 and T7 come
	// after the compaction, which dropped the first.
	checkCheckpointCounts(t, turns, []int{0, 0, 1, 1, 1, 0, 0, 1})
	for _, i := range []int{2, 7} {
		for _, want := range []string{"kbs comment <id>", "kbs-abc: Ship compaction docs", "kbs-def: Add Claude Code example"} {
			if !bodyContains(t, turns[i].Body, want) {
				t.Errorf("request T%d lacks %q", i+1, want)
			}
		}
	}
	fired := 0
	for _, e := range sess.hookEvents {
		if out, _ := e["output"].(string); e["subtype"] == "hook_response" && strings.Contains(out, checkpointMarker) {
			fired++
			if e["hook_event"] != "PostToolUse" {
				t.Errorf("the checkpoint came from %v, want PostToolUse", e["hook_event"])
			}
		}
	}
	if fired != 2 {
		t.Errorf("the checkpoint hook printed the checkpoint %d times, want 2 (once per climb)", fired)
	}

	// The summariser is told the ids and titles; no earlier request was.
	for _, want := range []string{hintMarker, "kbs-abc: Ship compaction docs", "kbs-def: Add Claude Code example", "kbs-epic1: Agent compaction support"} {
		if !bodyContains(t, summary.Body, want) {
			t.Errorf("the summary request lacks %q\nbody:\n%.3000s", want, summary.Body)
		}
	}
	for i, r := range turns[:5] {
		if bodyContains(t, r.Body, hintMarker) {
			t.Errorf("request T%d, before the compaction, already carries the hint", i+1)
		}
	}

	// kbs ran for each checkpoint and once (--raw) for the hint.
	args := s.kbsArgs(t)
	if strings.Join(args, "|") != "now --json --list|now --json --list --raw|now --json --list" {
		t.Errorf("kbs calls %q, want the checkpoint's, the hint's (--raw) and the second checkpoint's", args)
	}
}

// TestCheckpointClaudeFailingKbs is the negative control: with kbs
// failing, the same session completes every turn, and no request carries a
// checkpoint or a hint, although the hooks ran kbs (once per climb, with
// the --raw retry, and once for the hint): the latch keeps a failing
// checkpoint from running kbs after every tool call.
func TestCheckpointClaudeFailingKbs(t *testing.T) {
	// Not in parallel (sequential tests run alone): the summary hint gives
	// kbs 2 s (reminder.DefaultHintBudget), which a test beside it on a
	// loaded machine makes tighter (a hint missed at a load of 35).
	turns, summary, _, s := claudeCheckpointSession(t, kbsFailing)
	for i, r := range append(turns, summary) {
		for _, marker := range []string{"Kanbus checkpoint", hintMarker, "kbs-abc"} {
			if bodyContains(t, r.Body, marker) {
				t.Errorf("request %d carries %q", i, marker)
			}
		}
	}
	args := s.kbsArgs(t)
	want := "now --json --list|now --json --list --raw|now --json --list --raw|now --json --list|now --json --list --raw"
	if strings.Join(args, "|") != want {
		t.Errorf("kbs calls %q, want %q (two attempts with the --raw retry, one hint)", args, want)
	}
}

// TestCheckpointClaudeAutoCompact is the production path: the checkpoint
// fires once on the climb, Claude Code compacts on its own, the summary
// request carries the hint, and the next climb brings the checkpoint back
// exactly once.
func TestCheckpointClaudeAutoCompact(t *testing.T) {
	// Not in parallel (sequential tests run alone): the summary hint gives
	// kbs 2 s (reminder.DefaultHintBudget), which a test beside it on a
	// loaded machine makes tighter (a hint missed at a load of 35).
	turns, summary, _, s := claudeCheckpointRun(t, kbsFixture, claudeAutoCheckpointScript, []string{"hello", "next"}, "auto")
	checkCheckpointCounts(t, turns, []int{0, 1, 0, 0, 1})
	for _, want := range []string{hintMarker, "kbs-abc: Ship compaction docs", "kbs-def: Add Claude Code example"} {
		if !bodyContains(t, summary.Body, want) {
			t.Errorf("the summary request lacks %q", want)
		}
	}
	if args := s.kbsArgs(t); strings.Join(args, "|") != "now --json --list|now --json --list --raw|now --json --list" {
		t.Errorf("kbs calls %q, want the checkpoint's, the hint's (--raw) and the second checkpoint's", args)
	}
}
