package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic is a Messages API that answers like a model that says little
// (E2E.md, Claude Code): only POST /v1/messages; a summary request (its
// last user message asks to "create a detailed summary") gets a
// <summary>, every other request a short reply, or, while the mock's
// script lasts, the script's next step: a reply that reports a chosen
// context use, or calls Claude Code's Bash tool.
type Anthropic struct {
	server
	script []Step
}

// Step is one scripted model reply.
type Step struct {
	// Tool is a shell command to run through the agent's shell tool; ""
	// for a text reply.
	Tool string
	// Usage is the context use the reply reports, in tokens.
	Usage int64
}

// NewAnthropic starts the mock; highUsage makes Claude Code compact on
// its own after the first reply, which reports a context use close to
// the window.
func NewAnthropic(highUsage bool) (*Anthropic, error) {
	var script []Step
	if highUsage {
		script = []Step{{Usage: 990008}}
	}
	return NewAnthropicScript(script)
}

// NewAnthropicScript starts a mock whose ordinary replies follow script,
// in order, then are short replies.
func NewAnthropicScript(script []Step) (*Anthropic, error) {
	m := &Anthropic{script: script}
	return m, m.start(m.serve)
}

// MessagesRequest is the part of a Messages API request the mock reads.
type MessagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (m *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	var req MessagesRequest
	rec, ok := m.read(w, r, "/v1/messages", &req)
	if !ok {
		return
	}
	rec.Kind = "turn"
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" &&
		strings.Contains(string(req.Messages[n-1].Content), "create a detailed summary") {
		rec.Kind = "summary"
	}
	n, step := m.turn(rec, &m.script, 100)

	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	id := fmt.Sprintf("msg_mock_%d", n)
	text := fmt.Sprintf("Reply %d from the mock.", n)
	if rec.Kind == "summary" {
		text = "<summary>The user greeted the assistant; nothing else happened.</summary>"
	}
	const output = 8
	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": step.Usage - output, "output_tokens": output},
		})
		return
	}
	block := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": text}
	stop := "end_turn"
	if step.Tool != "" {
		input, _ := json.Marshal(map[string]any{"command": step.Tool, "description": "Run " + step.Tool})
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock_%d", n), "name": "Bash", "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
		stop = "tool_use"
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	events := []struct {
		name string
		data map[string]any
	}{
		{"message_start", map[string]any{"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": step.Usage - output, "output_tokens": 1},
		}}},
		{"content_block_start", map[string]any{"index": 0, "content_block": block}},
		{"content_block_delta", map[string]any{"index": 0, "delta": delta}},
		{"content_block_stop", map[string]any{"index": 0}},
		{"message_delta", map[string]any{
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": output}}},
		{"message_stop", map[string]any{}},
	}
	for _, e := range events {
		e.data["type"] = e.name
		WriteSSE(w, e.name, e.data)
	}
}
