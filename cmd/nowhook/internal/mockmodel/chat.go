package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Chat is an OpenAI chat-completions API on 127.0.0.1 (POST
// /v1/chat/completions, the API of OpenAI-compatible providers that Qwen
// Code and others speak). It records every request it receives, whatever
// its method and path, in order, and answers each chat request with what
// its handler returns: a text, tool calls, or an HTTP error, streamed as
// server-sent events when the request asks for a stream and as one JSON
// completion otherwise. The handler runs without the mock's lock, one
// call per request, so it may keep state of its own (guarded by its own
// lock when the client sends requests in parallel).
type Chat struct {
	server
	handle func(r *ChatRequest) ChatReply
	chats  []*ChatRequest // guarded by server.mu
}

// ChatRequest is one request the mock received: what was recorded, and
// for a chat request its decoded body.
type ChatRequest struct {
	Request
	// Index is the request's position among all the mock received.
	Index    int
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	Messages []ChatMessage   `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
}

// ChatMessage is one message of a chat request.
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// Text is the message's text: its content when that is a string, else
// the text of its text parts, joined by newlines.
func (m ChatMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// AnyMessageContains reports whether the text of some message contains s.
func (r *ChatRequest) AnyMessageContains(s string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Text(), s) {
			return true
		}
	}
	return false
}

// LastUserText is the text of the request's last user message.
func (r *ChatRequest) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// ChatReply is how the mock answers one chat request.
type ChatReply struct {
	// Kind is recorded as the request's kind ("summary", "turn", ...).
	Kind string
	// Text is the assistant's text (the error message when Status is set).
	Text string
	// ToolCalls, when set, make the reply a request to call tools.
	ToolCalls []ChatToolCall
	// PromptTokens and CompletionTokens are the usage reported.
	PromptTokens, CompletionTokens int
	// Status, when non-zero, answers with that HTTP error instead.
	Status int
}

// ChatToolCall is one function call in a reply; Arguments is JSON text.
type ChatToolCall struct{ ID, Name, Arguments string }

// NewChat starts a mock whose handler answers every chat request.
func NewChat(handle func(r *ChatRequest) ChatReply) (*Chat, error) {
	m := &Chat{handle: handle}
	return m, m.start(m.serve)
}

// BaseURL is the URL clients take as an OpenAI base URL.
func (m *Chat) BaseURL() string { return m.URL + "/v1" }

// Requests returns a copy of every request received so far, in order.
func (m *Chat) Requests() []*ChatRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*ChatRequest, len(m.chats))
	for i, r := range m.chats {
		c := *r
		out[i] = &c
	}
	return out
}

// Recorded returns the requests as Request values, for the
// helpers that take those.
func (m *Chat) Recorded() []Request {
	var out []Request
	for _, r := range m.Requests() {
		out = append(out, r.Request)
	}
	return out
}

func (m *Chat) add(r *ChatRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.Index = len(m.chats)
	m.chats = append(m.chats, r)
}

func (m *Chat) setKind(r *ChatRequest, kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.Kind = kind
}

func (m *Chat) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &ChatRequest{Request: Request{Method: r.Method, Path: r.URL.Path, Body: body}}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		m.add(req)
		http.Error(w, "mock: only POST /v1/chat/completions", http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(body, req); err != nil {
		m.add(req)
		http.Error(w, "mock: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	m.add(req)
	reply := m.handle(req)
	m.setKind(req, reply.Kind)
	if reply.Status != 0 {
		http.Error(w, reply.Text, reply.Status)
		return
	}
	id := fmt.Sprintf("chatcmpl-mock-%d", req.Index)
	usage := map[string]any{"prompt_tokens": reply.PromptTokens, "completion_tokens": reply.CompletionTokens,
		"total_tokens": reply.PromptTokens + reply.CompletionTokens}
	finish := "stop"
	var calls []map[string]any
	for i, c := range reply.ToolCalls {
		calls = append(calls, map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		w.Header().Set("content-type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := map[string]any{"role": "assistant"}
	if reply.Text != "" {
		delta["content"] = reply.Text
	}
	if len(calls) > 0 {
		delta["tool_calls"] = calls
	}
	chunk(delta, nil, nil)
	chunk(map[string]any{}, finish, usage)
	io.WriteString(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
