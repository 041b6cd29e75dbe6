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
)

// geminiMultiMock is geminiMock (mock_gemini_test.go) forcing several
// compressions in one headless run of Gemini CLI 0.61.0, each with a
// summary of its own: while compressions are left, every turn's reply
// reports a prompt of 990000 tokens and every next-speaker check answers
// "model", so the CLI sends "Please continue." and compresses first. The
// summary and verification requests of the n-th compression are answered
// with geminiSnapshot(n). After the last compression, it answers
// "model" to continues more next-speaker checks, so that the CLI sends
// that many more requests without compressing.
type geminiMultiMock struct {
	srv *httptest.Server

	mu        sync.Mutex
	reqs      []recordedRequest
	left      int // compressions still to force
	speaker   int // next-speaker checks still to answer "model"
	summaries int // summary requests seen
}

// geminiSnapshot is the summary of the n-th compression (from 1).
func geminiSnapshot(n int) string {
	return fmt.Sprintf("<state_snapshot>Summary %d from the mock: the user said hello.</state_snapshot>", n)
}

func newGeminiMultiMock(t *testing.T, compressions, continues int) *geminiMultiMock {
	t.Helper()
	m := &geminiMultiMock{left: compressions, speaker: compressions + continues}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *geminiMultiMock) requests() []recordedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedRequest(nil), m.reqs...)
}

func (m *geminiMultiMock) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := recordedRequest{Method: r.Method, Path: r.URL.Path, Body: body, Kind: "other"}
	var req geminiRequest
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || json.Unmarshal(body, &req) != nil {
		m.record(rec)
		http.Error(w, "mock: only POST /v1beta/models/MODEL:method with a JSON body", http.StatusNotFound)
		return
	}
	last := ""
	if n := len(req.Contents); n > 0 {
		last = req.Contents[n-1].text()
	}
	switch {
	case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		rec.Kind = "turn"
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		rec.Kind = "count"
	case !strings.HasSuffix(r.URL.Path, ":generateContent"):
	case strings.Contains(string(body), "next_speaker"):
		rec.Kind = "speaker"
	case strings.Contains(last, "Critically evaluate the <state_snapshot>"):
		rec.Kind = "verify"
	case strings.Contains(last, "<state_snapshot>"):
		rec.Kind = "summary"
	}

	m.mu.Lock()
	m.reqs = append(m.reqs, rec)
	n := len(m.reqs)
	prompt := 100
	if rec.Kind == "turn" && m.left > 0 {
		m.left--
		prompt = 990000
	}
	speaker := "user"
	if rec.Kind == "speaker" && m.speaker > 0 {
		m.speaker--
		speaker = "model"
	}
	if rec.Kind == "summary" {
		m.summaries++
	}
	summary := geminiSnapshot(m.summaries)
	m.mu.Unlock()

	text := fmt.Sprintf("Reply %d from the mock.", n)
	switch rec.Kind {
	case "other":
		http.Error(w, "mock: unknown method "+r.URL.Path, http.StatusNotFound)
		return
	case "count":
		geminiWriteJSON(w, map[string]any{"totalTokens": 100})
		return
	case "speaker":
		b, _ := json.Marshal(map[string]string{"reasoning": "the mock decides", "next_speaker": speaker})
		text = string(b)
	case "summary", "verify":
		text = summary
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": 5, "totalTokenCount": prompt + 5},
		"modelVersion":  "mock",
	}
	if rec.Kind != "turn" {
		geminiWriteJSON(w, resp)
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func (m *geminiMultiMock) record(rec recordedRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, rec)
}
