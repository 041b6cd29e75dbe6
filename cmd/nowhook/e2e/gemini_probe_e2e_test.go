package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// geminiHookInput is the part of a Gemini CLI hook's stdin the probe reads.
type geminiHookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"`
	Prompt         string `json:"prompt"`
	Trigger        string `json:"trigger"`
	LLMRequest     *struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	} `json:"llm_request"`
}

// TestGeminiHookPayloads records what Gemini CLI hands its BeforeAgent,
// BeforeModel and PreCompress hooks over one headless run with two
// compressions (docs/platforms.md, "Gemini CLI: re-inject through
// BeforeModel"): BeforeAgent runs once, for the user's prompt, before anything is compressed, and not for the CLI's own
// "Please continue."; BeforeModel runs before every turn request and
// never before the CLI's helper requests (next-speaker check, summary,
// verification), and after a compression its llm_request.messages start
// from the summary, followed by the CLI's acknowledgement.
func TestGeminiHookPayloads(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newGeminiMultiMock(t, 2, 0)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	dump := filepath.Join(s.root, "dump")
	if err := os.MkdirAll(dump, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each payload lands in a file named by the nanosecond it arrived at.
	writeFile(t, filepath.Join(s.repo, "probe.sh"), "#!/bin/sh\ncat > "+shQuote(dump)+"/$(date +%s%N).$1.json\n", 0o755)
	group := func(event string) string {
		return `[{"matcher": "*", "hooks": [{"type": "command", "command": "sh $GEMINI_PROJECT_DIR/probe.sh ` + event + `", "timeout": 5000}]}]`
	}
	writeFile(t, filepath.Join(s.repo, ".gemini", "settings.json"), `{"hooks": {"BeforeModel": `+group("BeforeModel")+
		`, "BeforeAgent": `+group("BeforeAgent")+`, "PreCompress": `+group("PreCompress")+`}}`, 0o644)
	res := runCmd(t, ctx, env, s.repo, "", bin, "-m", geminiModel, "-p", "hello")
	if res.err != nil {
		t.Fatalf("gemini -p: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	dumpRequests(t, reqs)
	first, turns := geminiFirstTurns(t, reqs)
	if len(first) != 2 {
		t.Fatalf("Gemini CLI compressed %d times, want 2", len(first))
	}

	ents, err := os.ReadDir(dump)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var order []string
	var models []geminiHookInput
	var agent *geminiHookInput
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dump, n))
		if err != nil {
			t.Fatal(err)
		}
		var in geminiHookInput
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %v\n%s", n, err, b)
		}
		t.Logf("%s: %d bytes: %.600s", in.Event, len(b), b)
		order = append(order, in.Event)
		if in.SessionID == "" || in.TranscriptPath == "" || in.Cwd != s.repo || in.Timestamp == "" {
			t.Errorf("%s: session_id, transcript_path, cwd or timestamp missing or wrong: %+v", n, in)
		}
		switch in.Event {
		case "BeforeAgent":
			if agent != nil {
				t.Errorf("BeforeAgent ran more than once (the CLI's \"Please continue.\" is the same prompt)")
			}
			agent = &in
		case "BeforeModel":
			models = append(models, in)
		}
	}
	t.Logf("hooks in order: %s", strings.Join(order, ", "))
	if agent == nil || agent.Prompt != "hello" {
		t.Fatalf("BeforeAgent did not run once with the prompt: %+v", agent)
	}
	if len(order) == 0 || order[0] != "BeforeAgent" {
		t.Errorf("BeforeAgent is not the first hook, before any compression: %v", order)
	}
	if len(models) != len(turns) {
		t.Fatalf("BeforeModel ran %d times for %d turn requests (and %d requests in all)", len(models), len(turns), len(reqs))
	}
	for i, in := range models {
		if in.SessionID != agent.SessionID {
			t.Errorf("BeforeModel %d: session_id %q, BeforeAgent's was %q", i, in.SessionID, agent.SessionID)
		}
		if in.LLMRequest == nil || len(in.LLMRequest.Messages) == 0 {
			t.Fatalf("BeforeModel %d: no llm_request.messages", i)
		}
		msgs := in.LLMRequest.Messages
		compressed := len(msgs) > 1 && msgs[0].Role == "user" && strings.Contains(msgs[0].Content, "<state_snapshot>") &&
			msgs[1].Role == "model" && msgs[1].Content == "Got it. Thanks for the additional context!"
		if compressed != (i > 0) {
			t.Errorf("BeforeModel %d (turn request %d): history starts from a summary: %v, want %v\n%+v", i, turns[i], compressed, i > 0, msgs)
		}
		if i > 0 && !strings.Contains(msgs[0].Content, mockmodel.GeminiSnapshot(i)) {
			t.Errorf("BeforeModel %d: the first message does not hold the summary of compression %d", i, i)
		}
	}
}
