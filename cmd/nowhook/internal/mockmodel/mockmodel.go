// Package mockmodel holds model servers on 127.0.0.1 that answer coding
// agents like a model that says little, and record every request they
// receive (docs/platforms.md and E2E.md: how each client was driven
// offline). The real-client tests (cmd/nowhook/e2e) and `nowhook doctor
// --prove` both start them: Anthropic is the Messages API of Claude Code,
// Responses the Responses API of Codex, Chat the chat-completions API of
// the OpenAI-compatible clients (Qwen Code, OpenCode, ...), Gemini the
// generativelanguage API of Gemini CLI. Each listens on 127.0.0.1 only
// and stops with Close.
package mockmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// Request is one request a mock received.
type Request struct {
	Method, Path string
	Body         []byte
	// Kind is what the mock took the request for: "summary" (a
	// compaction summary request), "compaction" (Codex's), "turn", or a
	// mock's own kinds.
	Kind string
}

// server is a mock's HTTP server on 127.0.0.1 and what it recorded.
type server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	srv *http.Server

	mu   sync.Mutex
	reqs []Request
}

// start listens on a free port of 127.0.0.1 and serves h there.
func (s *server) start(h http.HandlerFunc) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("mock model server: %w", err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: h}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err) // Serve fails only on a listener error, which 127.0.0.1 does not have
		}
	}()
	return nil
}

// Close stops the server and the connections it holds.
func (s *server) Close() error { return s.srv.Close() }

// Requests returns a copy of what was received so far, in order.
func (s *server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// record appends rec and returns how many requests there are now.
func (s *server) record(rec Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, rec)
	return len(s.reqs)
}

// read reads a request that must be a POST to path with a JSON body
// (decoded into into); another is recorded and answered with an error.
func (s *server) read(w http.ResponseWriter, r *http.Request, path string, into any) (Request, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return Request{}, false
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	if r.Method != http.MethodPost || r.URL.Path != path || json.Unmarshal(body, into) != nil {
		s.record(rec)
		http.Error(w, "mock: only POST "+path+" with a JSON body", http.StatusBadRequest)
		return Request{}, false
	}
	return rec, true
}

// turn records rec and returns its number (from 1) and the reply's step:
// for a turn, the next step of script (one reporting usage when it is
// empty); for another kind, one reporting usage.
func (s *server) turn(rec Request, script *[]Step, usage int64) (int, Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, rec)
	if rec.Kind != "turn" || len(*script) == 0 {
		return len(s.reqs), Step{Usage: usage}
	}
	st := (*script)[0]
	*script = (*script)[1:]
	return len(s.reqs), st
}

// WriteSSE writes one server-sent event and flushes it.
func WriteSSE(w http.ResponseWriter, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // the mocks' own values always marshal
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// Strings returns every string value inside a JSON document, decoded, so
// that a test of a request body's text does not depend on its escapes.
func Strings(body []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out, nil
}
