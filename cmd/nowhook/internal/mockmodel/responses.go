package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Responses is an OpenAI Responses API (E2E.md, Codex CLI). Its ordinary
// requests get the next step of its script while it lasts (a call of
// Codex's exec_command tool, or a reply reporting a chosen usage), then a
// short assistant message; compaction requests get a summary. NewResponses'
// script is a single tool call reporting a usage above the
// auto-compaction limit, so Codex compacts in the middle of the turn.
type Responses struct {
	server
	script []Step
}

// NewResponses starts the mock with its one tool call (once only:
// compaction drops the tool output, so a mock that answered every request
// without it with a tool call would loop).
func NewResponses() (*Responses, error) {
	return NewResponsesScript([]Step{{Tool: "echo hi", Usage: 1005}})
}

// NewResponsesScript starts a mock whose ordinary replies follow script.
func NewResponsesScript(script []Step) (*Responses, error) {
	m := &Responses{script: script}
	return m, m.start(m.serve)
}

// NoTool drops what is left of the script: every ordinary request gets a
// short message and a small usage, so Codex never compacts on its own.
func (m *Responses) NoTool() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = nil
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
	var req ResponsesRequest
	rec, ok := m.read(w, r, "/v1/responses", &req)
	if !ok {
		return
	}
	rec.Kind = "turn"
	if req.RequestKind() == "compaction" {
		rec.Kind = "compaction"
	}
	n, step := m.turn(rec, &m.script, 105)

	var item map[string]any
	switch {
	case rec.Kind == "compaction":
		item = AssistantMessage(n, "Summary: the user said hello and the assistant ran some shell commands.")
	case step.Tool != "":
		args, _ := json.Marshal(map[string]any{"cmd": step.Tool})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc%d", n), "name": "exec_command",
			"call_id": fmt.Sprintf("call_%d", n), "arguments": string(args)}
	default:
		item = AssistantMessage(n, fmt.Sprintf("Reply %d from the mock.", n))
	}
	usage := map[string]any{"input_tokens": step.Usage - 5, "output_tokens": 5, "total_tokens": step.Usage}
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
