package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointQwenStopGate: Qwen Code 0.24.4's checkpoint as `nowhook
// setup --agents qwen --checkpoint` writes it, a Stop hook whose command
// sources .qwen/hooks/kanbus-checkpoint.sh (templates/qwen-checkpoint.sh)
// in the bash Qwen runs it with. Its gate reads the context use at the end
// of the Stop payload and, below the threshold (70%), exits without
// starting a program; a nowhook-reminder first on PATH records every start
// of the runtime. The mock reports 1,000 prompt tokens for most turns and
// 150,000 (75% of the 200,000 Qwen gives a model it does not know) for the
// third and the sixth prompt and for each checkpoint's continuation. So:
// the first two turns start nothing and carry no checkpoint; after the
// third the hook blocks the stop with the checkpoint as its reason, which
// Qwen sends the model as the turn's next request; that request's own
// Stop finds the latch; the fourth turn (1,000 tokens: as after a
// compression) hands the marked session over once, and the runtime
// re-arms; the fifth starts nothing; after the sixth the checkpoint comes
// again. kbs runs twice in all.
func TestCheckpointQwenStopGate(t *testing.T) {
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenHome(t, s)
	out := runNowhook(t, ctx, s, "setup", "--yes", "--agents", "qwen", "--checkpoint")
	if !strings.Contains(out, ".qwen/hooks/kanbus-checkpoint.sh (created)") {
		t.Fatalf("setup --agents qwen --checkpoint did not create .qwen/hooks/kanbus-checkpoint.sh:\n%s", out)
	}
	settings, err := os.ReadFile(filepath.Join(s.repo, ".qwen", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), `"command": "[ ! -r \"$QWEN_PROJECT_DIR\"/.qwen/hooks/kanbus-checkpoint.sh ] || . \"$QWEN_PROJECT_DIR\"/.qwen/hooks/kanbus-checkpoint.sh"`) {
		t.Fatalf(".qwen/settings.json lacks the Stop command that sources the checkpoint script:\n%s", settings)
	}
	starts := filepath.Join(s.root, "runtime-starts")
	writeFile(t, filepath.Join(s.bin, "nowhook-reminder"),
		"#!/bin/sh\necho \"$*\" >>"+shQuote(starts)+"\nexec nowhook reminder \"$@\"\n", 0o755)
	high := map[string]bool{"third": true, "sixth": true}
	m := newChatMock(t, func(r *chatRequest) chatReply {
		prompt := 1000
		if n := len(r.Messages); n > 0 {
			last := r.Messages[n-1].Text()
			if high[strings.TrimSpace(last)] || strings.Contains(last, "Kanbus checkpoint") {
				prompt = 150000
			}
		}
		return chatReply{Kind: "turn", PromptTokens: prompt, CompletionTokens: 5, Text: fmt.Sprintf("Reply %d from the mock.", r.Index)}
	})
	env := s.env([]string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + m.BaseURL(), "XDG_STATE_HOME=" + filepath.Join(s.root, "state")})
	clientVersion(t, ctx, env, bin)
	startsAfter := []int{}
	runQwenSession(t, ctx, bin, env, s.repo, []string{"first", "second", "third", "fourth", "fifth", "sixth"}, func(int) {
		startsAfter = append(startsAfter, countStarts(t, starts))
	})
	startsAfter = append(startsAfter, countStarts(t, starts))
	reqs := m.Recorded()
	dumpRequests(t, reqs)
	const marker = "Kanbus checkpoint: the context window is 75% full"
	// Requests: first, second, third (150,000), its continuation, fourth,
	// fifth, sixth (150,000), its continuation.
	if len(reqs) != 8 {
		t.Fatalf("%d requests, want 8 (six prompts and a continuation after the third and the sixth)", len(reqs))
	}
	want := []int{0, 0, 0, 1, 1, 1, 1, 2}
	for i, r := range reqs {
		if n := countIn(t, r.Body, marker); n != want[i] {
			t.Errorf("request %d carries the checkpoint %d times, want %d", i, n, want[i])
		}
	}
	for _, i := range []int{3, 7} {
		msgs := m.Requests()[i].Messages
		if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" || !strings.Contains(msgs[len(msgs)-1].Text(), marker) {
			t.Errorf("request %d's last message is not the checkpoint, from the user", i)
		}
		for _, id := range []string{"kbs-abc", "kbs-def"} {
			if !bodyContains(t, reqs[i].Body, id) {
				t.Errorf("the checkpoint request %d lacks the in-progress issue %s", i, id)
			}
		}
	}
	// The runtime's starts after each turn: none after the first two, the
	// third and its continuation (2), the fourth (3: the re-arm), none
	// after the fifth, the sixth and its continuation (5).
	if got, wantStarts := fmt.Sprint(startsAfter), fmt.Sprint([]int{0, 0, 2, 3, 3, 5}); got != wantStarts {
		t.Errorf("the runtime had started %s times after each turn, want %s", got, wantStarts)
	}
	if calls := s.kbsCalls(t); calls != 2 {
		t.Errorf("kbs ran %d times, want twice (once per climb)", calls)
	}
	if !t.Failed() {
		t.Logf("below 70%% the Stop hook started no program (runtime starts after each turn: %v); the checkpoint reached the model in requests 3 and 7, each the continuation of a turn at 75%%, once per climb; kbs twice", startsAfter)
	}
}

// countStarts counts the lines of the runtime's start record.
func countStarts(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
