package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Responses is an OpenAI Responses API (E2E.md, Codex CLI). Its first
// ordinary request gets a single tool call and a reported usage above the
// auto-compaction limit, so Codex compacts in the middle of the turn;
// compaction requests get a summary; every other request gets a short
// assistant message.
type Responses struct {
	server
	toolSent bool
}

// NewResponses starts the mock.
func NewResponses() (*Responses, error) {
	m := &Responses{}
	return m, m.start(m.serve)
}

// NoTool makes the mock answer every ordinary request with a short
// message and a small usage, so Codex never compacts on its own.
func (m *Responses) NoTool() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.toolSent = true
}

// ResponsesRequest is the part of a Responses API request the mock reads.
type ResponsesRequest struct {
	Stream         bool              `json:"stream"`
	ClientMetadata map[string]string `json:"client_metadata"`
}

// RequestKind returns "compaction" when Codex's turn metadata says so.
func (r ResponsesRequest) RequestKind() string {
	var meta struct {
		RequestKind string `json:"request_kind"`
	}
	if s := r.ClientMetadata["x-codex-turn-metadata"]; s != "" {
		json.Unmarshal([]byte(s), &meta)
	}
	return meta.RequestKind
}

func (m *Responses) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	var req ResponsesRequest
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		m.record(rec)
		http.Error(w, "mock: only POST /v1/responses", http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(body, &req); err != nil {
		m.record(rec)
		http.Error(w, "mock: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	rec.Kind = "turn"
	if req.RequestKind() == "compaction" {
		rec.Kind = "compaction"
	}

	m.mu.Lock()
	m.reqs = append(m.reqs, rec)
	n := len(m.reqs)
	sendTool := rec.Kind == "turn" && !m.toolSent
	if sendTool {
		// Once only: compaction drops the tool output, so a mock that
		// answered every request without it with a tool call would loop.
		m.toolSent = true
	}
	m.mu.Unlock()

	var item map[string]any
	usage := map[string]any{"input_tokens": 100, "output_tokens": 5, "total_tokens": 105}
	switch {
	case sendTool:
		item = map[string]any{"type": "function_call", "id": "fc1", "name": "exec_command",
			"call_id": "c1", "arguments": `{"cmd":"echo hi"}`}
		usage = map[string]any{"input_tokens": 1000, "output_tokens": 5, "total_tokens": 1005}
	case rec.Kind == "compaction":
		item = AssistantMessage(n, "Summary: the user said hello and the assistant ran echo hi.")
	default:
		item = AssistantMessage(n, fmt.Sprintf("Reply %d from the mock.", n))
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	respID := fmt.Sprintf("resp_mock_%d", n)
	WriteSSE(w, "response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID}})
	WriteSSE(w, "response.output_item.done", map[string]any{"type": "response.output_item.done",
		"output_index": 0, "item": item})
	WriteSSE(w, "response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "usage": usage}})
}

// AssistantMessage is the output item of an assistant's reply n.
func AssistantMessage(n int, text string) map[string]any {
	return map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_mock_%d", n),
		"content": []any{map[string]any{"type": "output_text", "text": text}}}
}
