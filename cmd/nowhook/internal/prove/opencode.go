package prove

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// OpenCode (measured on 1.18.33, docs/platforms.md#opencode): `opencode
// serve` in the view on a free port of 127.0.0.1, driven over its HTTP API
// the way its TUI drives it: a session, a message, the summarize call that
// /compact makes, and a next message, against the chat-completions mock
// that the temporary HOME's config makes the only provider. npm is
// offline, so the package install OpenCode starts in .opencode/ fails at
// once (the plugin needs nothing from it). OpenCode reports no plugin
// runs: the stand-in kbs's calls tell whether the plugin's hook ran.
var opencodeDriver = &driver{agent: "opencode", compaction: "summarize", run: runOpencode,
	unreported: "OpenCode reports no plugin run, so a plugin it did not load and a hook script that is missing or fails look the same: see the plugin and script rows"}

func runOpencode(ctx context.Context, w *world) seen {
	m, err := inNet(w, func() (*mockmodel.Chat, error) { return mockmodel.NewChat(opencodeReply) })
	if err != nil {
		return seen{err: err}
	}
	defer m.Close()
	if err := opencodeConfig(w, m.BaseURL()); err != nil {
		return seen{err: err}
	}
	l, err := inNet(w, func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") })
	if err != nil {
		return seen{err: err}
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	var logs strings.Builder
	cmd := command(ctx, w.client, "serve", "--hostname", "127.0.0.1", "--port", port)
	cmd.Dir = w.view
	cmd.Env = w.env("OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1", "npm_config_offline=true")
	out := &limited{b: &logs, n: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out // one writer: exec writes from one goroutine
	if err := w.start(cmd); err != nil {
		return seen{err: err}
	}
	api := opencodeAPI{url: "http://127.0.0.1:" + port, client: w.httpClient()}
	var s seen
	s.err = api.session(ctx)
	killGroup(cmd)
	cmd.Wait()
	s.stderr = logs.String()
	s.compacted, s.reached = afterKind(m.Recorded(), "summary")
	return s
}

// opencodeReply tells OpenCode 1.18.33's requests apart by the system
// prompt of each of its agents: the title generator, the compaction agent
// ("summary"), and the conversation ("turn").
func opencodeReply(r *mockmodel.ChatRequest) mockmodel.ChatReply {
	first := ""
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		first = r.Messages[0].Text()
	}
	reply := mockmodel.ChatReply{Kind: "turn", Text: fmt.Sprintf("Reply %d from the mock.", r.Index), PromptTokens: 100, CompletionTokens: 8}
	switch {
	case strings.HasPrefix(first, "You are a title generator"):
		reply.Kind, reply.Text = "title", "Greeting"
	case strings.HasPrefix(first, "You are a context summarization agent"):
		reply.Kind, reply.Text = "summary", "Summary: the user greeted the assistant; nothing else happened."
	}
	return reply
}

// opencodeConfig writes the temporary HOME's OpenCode config: the mock
// as the only provider and model, sharing and updates off.
func opencodeConfig(w *world, baseURL string) error {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "mock/mock-model", "small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": baseURL, "apiKey": "dummy"},
			"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model",
				"limit": map[string]any{"context": 10000, "output": 1000}}},
		}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(w.home, ".config", "opencode", "opencode.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// opencodeAPI is one `opencode serve`'s HTTP API, and the client that
// reaches it (in the world's network namespace).
type opencodeAPI struct {
	url    string
	client *http.Client
}

// session waits for the server, then runs hello, summarize and a next
// message in one session.
func (a opencodeAPI) session(ctx context.Context) error {
	for {
		// A first start can accept a connection and not answer: each try
		// has a short bound of its own.
		try, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := a.call(try, http.MethodGet, "/session", nil, nil)
		cancel()
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("opencode serve never answered: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	var info struct {
		ID string `json:"id"`
	}
	if err := a.call(ctx, http.MethodPost, "/session", map[string]any{}, &info); err != nil {
		return err
	}
	msg := map[string]any{"parts": []any{map[string]any{"type": "text", "text": "hello"}}}
	if err := a.call(ctx, http.MethodPost, "/session/"+info.ID+"/message", msg, nil); err != nil {
		return err
	}
	if err := a.call(ctx, http.MethodPost, "/session/"+info.ID+"/summarize", map[string]any{"providerID": "mock", "modelID": "mock-model"}, nil); err != nil {
		return err
	}
	msg = map[string]any{"parts": []any{map[string]any{"type": "text", "text": "What was I working on?"}}}
	return a.call(ctx, http.MethodPost, "/session/"+info.ID+"/message", msg, nil)
}

// call makes one API call and decodes the answer into out, if not nil.
func (a opencodeAPI) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	// Bounded by the run's limit (Options.Limit): a call of its own
	// bound would end a summarize that a busy machine makes slow.
	req, err := http.NewRequestWithContext(ctx, method, a.url+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("content-type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %.300s", method, path, resp.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
