package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Anthropic is a Messages API that answers like a model that says little
// (E2E.md, Claude Code): only POST /v1/messages; a summary request (its
// last user message asks to "create a detailed summary") gets a
// <summary>, every other request a short reply.
type Anthropic struct {
	server
	// highUsage, when set, makes the first ordinary (non-summary) reply
	// report an input size close to the context window, so that Claude
	// Code compacts on its own before the next turn.
	highUsage, highUsageDone bool
}

// NewAnthropic starts the mock; highUsage makes Claude Code compact on
// its own after the first reply.
func NewAnthropic(highUsage bool) (*Anthropic, error) {
	m := &Anthropic{highUsage: highUsage}
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
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		m.record(rec)
		http.Error(w, "mock: only POST /v1/messages", http.StatusNotFound)
		return
	}
	var req MessagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		m.record(rec)
		http.Error(w, "mock: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec.Kind = "turn"
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" &&
		strings.Contains(string(req.Messages[n-1].Content), "create a detailed summary") {
		rec.Kind = "summary"
	}

	m.mu.Lock()
	m.reqs = append(m.reqs, rec)
	n := len(m.reqs)
	inputTokens := 100
	if rec.Kind == "turn" && m.highUsage && !m.highUsageDone {
		m.highUsageDone = true
		inputTokens = 990000
	}
	m.mu.Unlock()

	text := fmt.Sprintf("Reply %d from the mock.", n)
	if rec.Kind == "summary" {
		text = "<summary>The user greeted the assistant; nothing else happened.</summary>"
	}
	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	id := fmt.Sprintf("msg_mock_%d", n)
	usage := map[string]any{"input_tokens": inputTokens, "output_tokens": 8}

	if !req.Stream {
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	events := []struct {
		name string
		data map[string]any
	}{
		{"message_start", map[string]any{"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
		}}},
		{"content_block_start", map[string]any{"index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}}},
		{"content_block_delta", map[string]any{"index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}}},
		{"content_block_stop", map[string]any{"index": 0}},
		{"message_delta", map[string]any{
			"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": 8}}},
		{"message_stop", map[string]any{}},
	}
	for _, e := range events {
		e.data["type"] = e.name
		WriteSSE(w, e.name, e.data)
	}
}
