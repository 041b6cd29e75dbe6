package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
)

// installCodexCheckpoint installs the checkpoint (PostToolUse and
// UserPromptSubmit) the way a user does, with `nowhook setup --yes --agents
// codex=ondemand --checkpoint --trust-codex`: the hook entries in the
// repo's .codex/hooks.json and the signed script they run, and their
// trust, with the project's, recorded through Codex's own app-server (the
// real trust path: no bypass flag); Codex's own listing then shows both
// checkpoint hooks trusted. On demand, so that the checkpoint is all the
// hooks setup writes: the default mode (reinject) adds the SessionStart
// compact hook, whose wrapper runs kbs after every compaction, and the
// tests count the checkpoint's kbs calls.
func installCodexCheckpoint(t *testing.T, ctx context.Context, s *sandbox, bin string, env []string) {
	t.Helper()
	res := runCmd(t, ctx, append(env, "CODEX_BIN="+bin), s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "codex=ondemand", "--checkpoint", "--trust-codex")
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup: %s", strings.TrimSpace(res.stdout))
	l, err := codex.List(ctx, codex.Options{Codex: bin, Env: env, Dir: s.repo, ClientVersion: "nowhook-e2e"}, s.repo)
	if err != nil {
		t.Fatalf("listing the hooks: %v", err)
	}
	var checkpoint []codex.Hook
	for _, h := range l.Hooks {
		if strings.Contains(h.Command, ".codex/hooks/kanbus-checkpoint.sh") {
			checkpoint = append(checkpoint, h)
		}
	}
	if len(checkpoint) != 2 {
		t.Fatalf("codex lists %d checkpoint hooks, want 2: %+v", len(checkpoint), l.Hooks)
	}
	for _, h := range checkpoint {
		if h.TrustStatus != codex.StatusTrusted {
			t.Fatalf("hook %s is %s, want trusted", h.Key, h.TrustStatus)
		}
		t.Logf("hooks/list: %s %s trusted (%s)", h.Key, h.EventName, h.CurrentHash)
	}
}

// codexCheckpointScript is the model's side of one `codex exec` turn. The
// config sets model_context_window = 100000, which Codex 0.171.0 reports
// in the rollout as 95000 (95%) and compacts at 90% of (90000 tokens): the
// use climbs to 83% of 95000 (below --at 85), 86% (the checkpoint fires
// after that tool call), stays above, reaches 90000 so that Codex compacts
// in the middle of the turn, then climbs from 21% to 87% again.
var codexCheckpointScript = []checkpointStep{
	{Tool: "echo one", Usage: 79_000},   // T1: 83%
	{Tool: "echo two", Usage: 82_000},   // T2: 86%, fires after this tool call
	{Tool: "echo three", Usage: 84_000}, // T3: carries the checkpoint
	{Tool: "echo four", Usage: 91_000},  // T4: Codex compacts after this one
	{Tool: "echo five", Usage: 20_000},  // T5: after the compaction
	{Tool: "echo six", Usage: 83_000},   // T6: 87%, fires again
	{Usage: 84_000},                     // T7: carries the second checkpoint
}

// codexCheckpointRun runs the scripted turn with kbs behaving as mode and
// returns the ordinary requests (T1...), the compaction request and the
// sandbox.
func codexCheckpointRun(t *testing.T, mode kbsMode) (turns []recordedRequest, compaction recordedRequest, s *sandbox) {
	t.Helper()
	bin := findClient(t, "CODEX_BIN", "codex")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s = newSandbox(t, mode)
	m := newCheckpointResponses(t, codexCheckpointScript)
	home := filepath.Join(s.root, "codex-home")
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
model_context_window = 100000

[model_providers.mock]
name = "Mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
`+codexSandboxTOML, m.URL), 0o644)
	env := codexEnv(s, home)
	clientVersion(t, ctx, env, bin)
	installCodexCheckpoint(t, ctx, s, bin, env)

	res := runCmd(t, ctx, env, s.repo, "", bin, "exec", "--strict-config", "hello")
	if res.err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "from the mock.") {
		t.Fatalf("codex exec did not print the model's final answer\nstdout:\n%s\nstderr:\n%s", res.stdout, res.stderr)
	}
	reqs := m.Requests()
	dumpRequests(t, reqs)
	idx := compactionIndex(t, reqs)
	for i, r := range reqs {
		if i != idx {
			turns = append(turns, r)
		}
	}
	if len(turns) != len(codexCheckpointScript) {
		t.Fatalf("%d ordinary requests, want %d (one per scripted reply)", len(turns), len(codexCheckpointScript))
	}
	if idx != 4 {
		t.Fatalf("Codex compacted before request %d, want right after T4", idx)
	}
	return turns, reqs[idx], s
}

// developerCount returns how many developer messages of a Responses API
// request contain text.
func developerCount(t *testing.T, body []byte, text string) int {
	t.Helper()
	n := 0
	for _, d := range developerTexts(t, body) {
		n += strings.Count(d, text)
	}
	return n
}

// TestCheckpointCodex: in one Codex turn the checkpoint reaches the model
// exactly once when the use crosses 85% of the rollout's
// model_context_window (not at 83%), as a developer message in the request
// right after the tool call that crossed it (PostToolUse JSON
// additionalContext); after Codex compacts and the use climbs again, it
// comes exactly once more. The hooks are trusted through Codex's own
// app-server.
func TestCheckpointCodex(t *testing.T) {
	// Not in parallel (sequential tests run alone): the summary hint gives
	// kbs 2 s (reminder.DefaultHintBudget), which a test beside it on a
	// loaded machine makes tighter.
	turns, _, s := codexCheckpointRun(t, kbsFixture)
	want := []int{0, 0, 1, 1, 0, 0, 1}
	for i, r := range turns {
		if got := developerCount(t, r.Body, checkpointMarker); got != want[i] {
			t.Errorf("request T%d has %d developer messages with the checkpoint, want %d", i+1, got, want[i])
		}
		if got := countIn(t, r.Body, checkpointMarker); got != want[i] {
			t.Errorf("request T%d carries %d checkpoints in all, want %d", i+1, got, want[i])
		}
	}
	for _, i := range []int{2, 6} {
		for _, text := range []string{"kbs comment <id>", "kbs-abc: Ship compaction docs", "kbs-def: Add Claude Code example"} {
			if !bodyContains(t, turns[i].Body, text) {
				t.Errorf("request T%d lacks %q", i+1, text)
			}
		}
	}
	if args := s.kbsArgs(t); strings.Join(args, "|") != "now --json --list|now --json --list" {
		t.Errorf("kbs calls %q, want one per checkpoint", args)
	}
}

// TestCheckpointCodexFailingKbs is the negative control: with kbs failing,
// the turn completes, no request carries a checkpoint, and kbs ran once per
// climb (with the --raw retry), not after every tool call.
func TestCheckpointCodexFailingKbs(t *testing.T) {
	// Not in parallel (sequential tests run alone): the summary hint gives
	// kbs 2 s (reminder.DefaultHintBudget), which a test beside it on a
	// loaded machine makes tighter.
	turns, compaction, s := codexCheckpointRun(t, kbsFailing)
	for i, r := range append(turns, compaction) {
		for _, marker := range []string{"Kanbus checkpoint", "kbs-abc"} {
			if bodyContains(t, r.Body, marker) {
				t.Errorf("request %d carries %q", i, marker)
			}
		}
	}
	want := "now --json --list|now --json --list --raw|now --json --list|now --json --list --raw"
	if args := s.kbsArgs(t); strings.Join(args, "|") != want {
		t.Errorf("kbs calls %q, want %q", args, want)
	}
}
