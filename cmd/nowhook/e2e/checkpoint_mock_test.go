package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// The checkpoint's tests need model replies that report a chosen context
// use and call a tool, in a fixed order: these mocks answer the ordinary
// (non-compaction) requests from a script, and compaction requests as the
// other mocks do. They record every request like the other mocks.

// checkpointStep is one scripted model reply.
type checkpointStep struct {
	tool  string // a shell command to run through the agent's shell tool; "" for a text reply
	usage int64  // the context use the reply reports, in tokens
}

// checkpointAnthropic is a Messages API on 127.0.0.1 answering from a
// script (E2E.md, Claude Code).
type checkpointAnthropic struct {
	srv *httptest.Server

	mu     sync.Mutex
	reqs   []recordedRequest
	script []checkpointStep
	next   int
}

func newCheckpointAnthropic(t *testing.T, script []checkpointStep) *checkpointAnthropic {
	t.Helper()
	m := &checkpointAnthropic{script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *checkpointAnthropic) Requests() []recordedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedRequest(nil), m.reqs...)
}

func (m *checkpointAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := recordedRequest{Method: r.Method, Path: r.URL.Path, Body: body}
	var req mockmodel.MessagesRequest
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" || json.Unmarshal(body, &req) != nil {
		m.mu.Lock()
		m.reqs = append(m.reqs, rec)
		m.mu.Unlock()
		http.Error(w, "mock: only POST /v1/messages with a JSON body", http.StatusBadRequest)
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
	step := checkpointStep{usage: 100}
	if rec.Kind == "turn" && m.next < len(m.script) {
		step = m.script[m.next]
		m.next++
	}
	m.mu.Unlock()

	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	id := fmt.Sprintf("msg_mock_%d", n)
	var block map[string]any
	var delta map[string]any
	stop := "end_turn"
	switch {
	case rec.Kind == "summary":
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": "<summary>The user asked for some shell commands; they ran.</summary>"}
	case step.tool != "":
		input, _ := json.Marshal(map[string]any{"command": step.tool, "description": "Run " + step.tool})
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock_%d", n), "name": "Bash", "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
		stop = "tool_use"
	default:
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": fmt.Sprintf("Reply %d from the mock.", n)}
	}
	const output = 8
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	events := []struct {
		name string
		data map[string]any
	}{
		{"message_start", map[string]any{"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": step.usage - output, "output_tokens": 1},
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
		mockmodel.WriteSSE(w, e.name, e.data)
	}
}

// checkpointResponses is a Responses API on 127.0.0.1 answering from a
// script (E2E.md, Codex CLI). A tool step is a function call to
// exec_command.
type checkpointResponses struct {
	srv *httptest.Server

	mu     sync.Mutex
	reqs   []recordedRequest
	script []checkpointStep
	next   int
}

func newCheckpointResponses(t *testing.T, script []checkpointStep) *checkpointResponses {
	t.Helper()
	m := &checkpointResponses{script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *checkpointResponses) Requests() []recordedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedRequest(nil), m.reqs...)
}

func (m *checkpointResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := recordedRequest{Method: r.Method, Path: r.URL.Path, Body: body}
	var req mockmodel.ResponsesRequest
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" || json.Unmarshal(body, &req) != nil {
		m.mu.Lock()
		m.reqs = append(m.reqs, rec)
		m.mu.Unlock()
		http.Error(w, "mock: only POST /v1/responses with a JSON body", http.StatusBadRequest)
		return
	}
	rec.Kind = "turn"
	if req.RequestKind() == "compaction" {
		rec.Kind = "compaction"
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, rec)
	n := len(m.reqs)
	step := checkpointStep{usage: 105}
	if rec.Kind == "turn" && m.next < len(m.script) {
		step = m.script[m.next]
		m.next++
	}
	m.mu.Unlock()

	var item map[string]any
	switch {
	case rec.Kind == "compaction":
		item = mockmodel.AssistantMessage(n, "Summary: the user asked for some shell commands; they ran.")
	case step.tool != "":
		args, _ := json.Marshal(map[string]any{"cmd": step.tool})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc%d", n), "name": "exec_command",
			"call_id": fmt.Sprintf("call_%d", n), "arguments": string(args)}
	default:
		item = mockmodel.AssistantMessage(n, fmt.Sprintf("Reply %d from the mock.", n))
	}
	usage := map[string]any{"input_tokens": step.usage - 5, "output_tokens": 5, "total_tokens": step.usage}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	respID := fmt.Sprintf("resp_mock_%d", n)
	mockmodel.WriteSSE(w, "response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID}})
	mockmodel.WriteSSE(w, "response.output_item.done", map[string]any{"type": "response.output_item.done",
		"output_index": 0, "item": item})
	mockmodel.WriteSSE(w, "response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "usage": usage}})
}
