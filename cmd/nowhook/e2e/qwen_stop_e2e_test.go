package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// TestQwenStopCheckpoint: the checkpoint script (templates/checkpoint.sh,
// as setup renders it, at 70%) as Qwen Code 0.24.4's Stop hook, which
// first records its payload. The payloads carry the context use:
// context_usage (input tokens over the window), context_limit (the window)
// and input_tokens (the last prompt's tokens, as the model reported them). The mock
// reports 1,000 prompt tokens on the first turn and 150,000 (75% of the
// 200,000 the payload's context_limit gives) on the later ones: after the
// second turn the hook blocks the stop with the checkpoint as its reason,
// which Qwen Code sends the model as the next request of the turn, once
// (that request's own Stop finds the latch); kbs runs once. The use comes
// from the payload: no transcript is read. (Qwen Code compresses on its
// own at min(85% of the window, the window less 33,000 tokens): 167,000
// here; at 85% the checkpoint would come after that compression, so the
// test, and a Qwen checkpoint, fire below it.)
func TestQwenStopCheckpoint(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenHome(t, s)
	script := filepath.Join(s.repo, ".qwen", "hooks", "kanbus-checkpoint.sh")
	writeFile(t, script, templates.RenderCheckpoint(70, 5*time.Second), 0o755)
	dump := filepath.Join(s.root, "stop")
	command := `f=` + shQuote(dump) + `.$$.json; cat >"$f"; exec "$QWEN_PROJECT_DIR"/.qwen/hooks/kanbus-checkpoint.sh <"$f"`
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 10}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), string(settings)+"\n", 0o644)
	turn := 0
	m := newChatMock(t, func(r *chatRequest) chatReply {
		turn++
		prompt := 1000
		if turn >= 2 {
			prompt = 150000
		}
		return chatReply{Kind: "turn", PromptTokens: prompt, CompletionTokens: 5, Text: fmt.Sprintf("Reply %d from the mock.", turn)}
	})
	env := s.env([]string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + m.BaseURL(), "XDG_STATE_HOME=" + filepath.Join(s.root, "state")})
	clientVersion(t, ctx, env, bin)
	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "and again", "one more"}, nil)
	reqs := m.Recorded()
	dumpRequests(t, reqs)
	const marker = "Kanbus checkpoint: the context window is 75% full"
	with := []int{}
	for i, r := range reqs {
		if n := countIn(t, r.Body, marker); n > 0 {
			with = append(with, i)
			if n != 1 {
				t.Errorf("request %d carries the checkpoint %d times", i, n)
			}
		}
	}
	// Requests: hello, and again (150,000), the checkpoint's continuation,
	// one more; each later request holds the history, so the checkpoint is
	// in every request from the continuation on: it must first appear in
	// request 2, right after the turn that crossed the threshold, as the
	// last message.
	if len(with) == 0 || with[0] != 2 {
		t.Fatalf("the checkpoint is in requests %v; want it first in request 2, the one after the turn at 75%%", with)
	}
	if msgs := m.Requests()[2].Messages; len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" || !strings.Contains(string(msgs[len(msgs)-1].Content), "Kanbus checkpoint") {
		t.Errorf("request 2's last message is not the checkpoint, from the user: %s", msgs[len(msgs)-1].Content)
	}
	if len(reqs) != 4 {
		t.Errorf("%d requests, want 4 (hello, and again, the checkpoint's continuation, one more): the checkpoint blocked more than once?", len(reqs))
	}
	if calls := s.kbsCalls(t); calls != 1 {
		t.Errorf("kbs ran %d times, want once", calls)
	}
	for _, id := range []string{"kbs-abc", "kbs-def"} {
		if !bodyContains(t, reqs[2].Body, id) {
			t.Errorf("the checkpoint request lacks the in-progress issue %s", id)
		}
	}
	checkStopPayloads(t, dump, 150000)
	if !t.Failed() {
		t.Logf("the checkpoint reached the model in request 2, the turn's continuation after the Stop hook blocked at 75%%, once; %d requests in all, kbs once", len(reqs))
	}
}

// checkStopPayloads checks the Stop payloads the hook recorded: one per
// turn and continuation, each with context_usage = input_tokens /
// context_limit, one of them with the high prompt the mock reported.
func checkStopPayloads(t *testing.T, dump string, high float64) {
	t.Helper()
	files, _ := filepath.Glob(dump + ".*.json")
	if len(files) < 3 {
		t.Fatalf("the Stop hook ran %d times, want at least 3 (two turns and the checkpoint's continuation)", len(files))
	}
	seen := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, b)
		}
		usage, ok1 := p["context_usage"].(float64)
		limit, ok2 := p["context_limit"].(float64)
		input, ok3 := p["input_tokens"].(float64)
		if !ok1 || !ok2 || !ok3 || limit <= 0 || p["hook_event_name"] != "Stop" {
			t.Fatalf("a Stop payload lacks context_usage, context_limit or input_tokens: %v", p)
		}
		if d := usage - input/limit; d > 1e-9 || d < -1e-9 {
			t.Errorf("context_usage %v is not input_tokens/context_limit (%v/%v)", usage, input, limit)
		}
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		t.Logf("Stop payload: context_usage=%v context_limit=%v input_tokens=%v stop_hook_active=%v; keys %s", usage, limit, input, p["stop_hook_active"], strings.Join(keys, ", "))
		seen = seen || input == high
	}
	if !seen {
		t.Errorf("no Stop payload carries the %v prompt tokens the mock reported", high)
	}
}
