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

// geminiMock is the Gemini API (generativelanguage v1beta) on 127.0.0.1,
// recording every request body, for Gemini CLI 0.61.0 run with
// GOOGLE_GEMINI_BASE_URL pointing at it (docs/platforms.md, Gemini CLI).
//
// Gemini CLI calls POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
// for the conversation (kind "turn"), and :generateContent for its helpers:
// the next-speaker check (kind "speaker", whose request asks for a JSON
// next_speaker), and, when it compresses, the summary (kind "summary") and
// its verification (kind "verify"). With compress set, the first turn's
// reply reports a prompt of 990000 tokens (near the window) and the first
// next-speaker check answers "model": the CLI then sends "Please
// continue." and, because the last prompt was over its threshold,
// compresses the history first. In headless -p mode there is no /compress
// command; this is how a compression is forced there.
type geminiMock struct {
	srv      *httptest.Server
	compress bool

	mu          sync.Mutex
	reqs        []recordedRequest
	highSent    bool
	speakerSent bool
}

// geminiSummary is what the mock answers the summary and verification
// requests with.
const geminiSummary = "<state_snapshot>Summary from the mock: the user said hello.</state_snapshot>"

func newGeminiMock(t *testing.T, compress bool) *geminiMock {
	t.Helper()
	m := &geminiMock{compress: compress}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *geminiMock) requests() []recordedRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recordedRequest(nil), m.reqs...)
}

// geminiRequest is the part of a generateContent request the mock reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

// text joins the text parts of a content.
func (c geminiContent) text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (m *geminiMock) serve(w http.ResponseWriter, r *http.Request) {
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
	if rec.Kind == "turn" && m.compress && !m.highSent {
		m.highSent, prompt = true, 990000
	}
	speaker := "user"
	if rec.Kind == "speaker" && m.compress && !m.speakerSent {
		m.speakerSent, speaker = true, "model"
	}
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
		text = geminiSummary
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

func geminiWriteJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("content-type", "application/json")
	w.Write(b)
}

func (m *geminiMock) record(rec recordedRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, rec)
}
