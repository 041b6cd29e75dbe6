package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQwenStopPayload measures what Qwen Code 0.24.4 hands a Stop hook: a
// project Stop hook that records its stdin runs after each turn, and the
// payload carries context_usage (input tokens over the window, a ratio),
// context_limit (the window) and input_tokens (the last prompt's tokens, as
// the model reported them), so that a checkpoint can judge the context from
// the payload alone, with no transcript to read. The mock reports 120,000
// prompt tokens on the second turn.
func TestQwenStopPayload(t *testing.T) {
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenHome(t, s)
	dump := filepath.Join(s.root, "stop")
	hook := filepath.Join(s.root, "stop-hook.sh")
	writeFile(t, hook, fmt.Sprintf("#!/bin/sh\ncat >%s.$$.json\n", shQuote(dump)), 0o755)
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook, "timeout": 10}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), string(settings)+"\n", 0o644)
	turn := 0
	m := newChatMock(t, func(r *chatRequest) chatReply {
		turn++
		prompt := 1000
		if turn == 2 {
			prompt = 120000
		}
		return chatReply{Kind: "turn", PromptTokens: prompt, CompletionTokens: 5, Text: fmt.Sprintf("Reply %d from the mock.", turn)}
	})
	env := s.env([]string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + m.BaseURL()})
	clientVersion(t, ctx, env, bin)
	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "and again"}, nil)
	files, _ := filepath.Glob(dump + ".*.json")
	if len(files) != 2 {
		t.Fatalf("the Stop hook ran %d times, want 2 (once per turn)", len(files))
	}
	var payloads []map[string]any
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, b)
		}
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		t.Logf("Stop payload keys: %s\ncontext_usage=%v context_limit=%v input_tokens=%v hook_event_name=%v", strings.Join(keys, ", "), p["context_usage"], p["context_limit"], p["input_tokens"], p["hook_event_name"])
		payloads = append(payloads, p)
	}
	seen := map[float64]bool{}
	for _, p := range payloads {
		usage, ok1 := p["context_usage"].(float64)
		limit, ok2 := p["context_limit"].(float64)
		input, ok3 := p["input_tokens"].(float64)
		if !ok1 || !ok2 || !ok3 || limit <= 0 {
			t.Fatalf("a Stop payload lacks context_usage, context_limit or input_tokens: %v", p)
		}
		if d := usage - input/limit; d > 1e-9 || d < -1e-9 {
			t.Errorf("context_usage %v is not input_tokens/context_limit (%v/%v)", usage, input, limit)
		}
		seen[input] = true
	}
	if !seen[120000] {
		t.Errorf("no Stop payload carries the 120000 prompt tokens the mock reported: %v", payloads)
	}
}
