package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// responsesMock is an OpenAI Responses API on 127.0.0.1 that records every
// request body (E2E.md, Codex CLI). Its first ordinary request gets a single
// tool call and a reported usage above the auto-compaction limit, so Codex
// compacts in the middle of the turn; compaction requests get a summary;
// every other request gets a short assistant message.
type responsesMock struct {
	srv *httptest.Server

	mu       sync.Mutex
	reqs     []recordedRequest
	toolSent bool
}

func newResponsesMock(t *testing.T) *responsesMock {
	t.Helper()
	m := &responsesMock{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *responsesMock) requests() []recordedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedRequest(nil), m.reqs...)
}

// responsesRequest is the part of a Responses API request the mock reads.
type responsesRequest struct {
	Stream         bool              `json:"stream"`
	ClientMetadata map[string]string `json:"client_metadata"`
}

// requestKind returns "compaction" when Codex's turn metadata says so.
func (r responsesRequest) requestKind() string {
	var meta struct {
		RequestKind string `json:"request_kind"`
	}
	if s := r.ClientMetadata["x-codex-turn-metadata"]; s != "" {
		json.Unmarshal([]byte(s), &meta)
	}
	return meta.RequestKind
}

func (m *responsesMock) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := recordedRequest{Method: r.Method, Path: r.URL.Path, Body: body}
	var req responsesRequest
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
	if req.requestKind() == "compaction" {
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
		item = assistantMessage(n, "Summary: the user said hello and the assistant ran echo hi.")
	default:
		item = assistantMessage(n, fmt.Sprintf("Reply %d from the mock.", n))
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	respID := fmt.Sprintf("resp_mock_%d", n)
	writeSSE(w, "response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID}})
	writeSSE(w, "response.output_item.done", map[string]any{"type": "response.output_item.done",
		"output_index": 0, "item": item})
	writeSSE(w, "response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "usage": usage}})
}

func assistantMessage(n int, text string) map[string]any {
	return map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_mock_%d", n),
		"content": []any{map[string]any{"type": "output_text", "text": text}}}
}

func (m *responsesMock) record(rec recordedRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, rec)
}
