package mockmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Gemini is the Gemini API (generativelanguage v1beta), for Gemini CLI
// 0.61.0 run with GOOGLE_GEMINI_BASE_URL pointing at it (docs/platforms.md,
// Gemini CLI).
//
// Gemini CLI calls POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
// for the conversation (kind "turn"), and :generateContent for its helpers:
// the next-speaker check (kind "speaker", whose request asks for a JSON
// next_speaker), and, when it compresses, the summary (kind "summary") and
// its verification (kind "verify"). While compressions are left to force,
// every turn's reply reports a prompt of 990000 tokens (near the window)
// and every next-speaker check answers "model": the CLI then sends "Please
// continue." and, because the last prompt was over its threshold,
// compresses the history first. In headless -p mode there is no /compress
// command; this is how a compression is forced there. After the last
// compression, the mock answers "model" to a number of further
// next-speaker checks (continues), so that the CLI sends that many more
// requests without compressing.
type Gemini struct {
	server
	summary func(n int) string // the summary of the n-th compression

	left      int // compressions still to force
	speaker   int // next-speaker checks still to answer "model"
	summaries int // summary requests seen
}

// GeminiSummary is what NewGemini's mock answers the summary and
// verification requests with.
const GeminiSummary = "<state_snapshot>Summary from the mock: the user said hello.</state_snapshot>"

// NewGemini starts a mock that forces one compression when compress is
// set, answering its summary with GeminiSummary.
func NewGemini(compress bool) (*Gemini, error) {
	n := 0
	if compress {
		n = 1
	}
	m := &Gemini{left: n, speaker: n, summary: func(int) string { return GeminiSummary }}
	return m, m.start(m.serve)
}

// NewGeminiMulti starts a mock that forces compressions compressions in
// one headless run, the n-th answered with GeminiSnapshot(n), then
// continues more next-speaker checks answered "model".
func NewGeminiMulti(compressions, continues int) (*Gemini, error) {
	m := &Gemini{left: compressions, speaker: compressions + continues, summary: GeminiSnapshot}
	return m, m.start(m.serve)
}

// GeminiSnapshot is the summary of the n-th compression (from 1) of a
// NewGeminiMulti mock.
func GeminiSnapshot(n int) string {
	return fmt.Sprintf("<state_snapshot>Summary %d from the mock: the user said hello.</state_snapshot>", n)
}

// GeminiRequest is the part of a generateContent request the mock reads.
type GeminiRequest struct {
	Contents []GeminiContent `json:"contents"`
}

// GeminiContent is one content of a request.
type GeminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

// Text joins the text parts of a content.
func (c GeminiContent) Text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// geminiKind is what the mock takes a request to path with body for.
func geminiKind(path string, body []byte, req GeminiRequest) string {
	last := ""
	if n := len(req.Contents); n > 0 {
		last = req.Contents[n-1].Text()
	}
	switch {
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return "turn"
	case strings.HasSuffix(path, ":countTokens"):
		return "count"
	case !strings.HasSuffix(path, ":generateContent"):
		return "other"
	case strings.Contains(string(body), "next_speaker"):
		return "speaker"
	case strings.Contains(last, "Critically evaluate the <state_snapshot>"):
		return "verify"
	case strings.Contains(last, "<state_snapshot>"):
		return "summary"
	}
	return "other"
}

func (m *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Body: body, Kind: "other"}
	var req GeminiRequest
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || json.Unmarshal(body, &req) != nil {
		m.record(rec)
		http.Error(w, "mock: only POST /v1beta/models/MODEL:method with a JSON body", http.StatusNotFound)
		return
	}
	rec.Kind = geminiKind(r.URL.Path, body, req)

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
	summary := m.summary(m.summaries)
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

func geminiWriteJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("content-type", "application/json")
	w.Write(b)
}
