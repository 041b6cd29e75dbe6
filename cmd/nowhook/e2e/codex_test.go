package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexHome writes a user-level Codex config that points at the mock and
// returns the CODEX_HOME directory (E2E.md, Codex CLI).
func codexHome(t *testing.T, s *sandbox, m *responsesMock) string {
	t.Helper()
	home := filepath.Join(s.root, "codex-home")
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
model_auto_compact_token_limit = 500

[model_providers.mock]
name = "Mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
`, m.srv.URL), 0o644)
	return home
}

// codexEnv is the whole environment Codex runs with.
func codexEnv(s *sandbox, codexHome string) []string {
	return s.env([]string{
		"CODEX_HOME=" + codexHome,
		"MOCK_API_KEY=dummy",
	})
}

// appServer is a JSON-RPC client of `codex app-server` over stdio.
type appServer struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan map[string]any
	nextID int
	stderr *strings.Builder
}

func startAppServer(t *testing.T, ctx context.Context, bin string, env []string, dir string) *appServer {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, bin, "app-server")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &appServer{t: t, in: in, lines: make(chan map[string]any, 64), stderr: &strings.Builder{}}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		jsonLines(bufio.NewReader(out), func(m map[string]any) { a.lines <- m })
		close(a.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		killGroup(cmd)
	})
	a.call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": "nowhook-e2e", "version": "0"}})
	a.notify("initialized")
	return a
}

func (a *appServer) send(msg map[string]any) {
	b, err := json.Marshal(msg)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("app-server: write: %v\nstderr:\n%s", err, a.stderr)
	}
}

func (a *appServer) notify(method string) { a.send(map[string]any{"method": method}) }

// call sends a request and waits for its response, skipping notifications.
func (a *appServer) call(ctx context.Context, method string, params any) json.RawMessage {
	a.t.Helper()
	a.nextID++
	id := a.nextID
	a.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		select {
		case <-ctx.Done():
			a.t.Fatalf("app-server %s: %v\nstderr:\n%s", method, ctx.Err(), a.stderr)
		case m, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("app-server %s: stdout closed\nstderr:\n%s", method, a.stderr)
			}
			if got, _ := m["id"].(float64); got != float64(id) || m["method"] != nil {
				continue
			}
			if e, ok := m["error"]; ok {
				a.t.Fatalf("app-server %s: error %v", method, e)
			}
			b, _ := json.Marshal(m["result"])
			return b
		}
	}
}

// codexHook is one entry of hooks/list.
type codexHook struct {
	Key         string          `json:"key"`
	EventName   string          `json:"eventName"`
	Matcher     *string         `json:"matcher"`
	Command     string          `json:"command"`
	SourcePath  string          `json:"sourcePath"`
	CurrentHash string          `json:"currentHash"`
	TrustStatus string          `json:"trustStatus"`
	Raw         json.RawMessage `json:"-"`
}

// hooksList is hooks/list's answer for one cwd.
type hooksList struct {
	Cwd      string            `json:"cwd"`
	Hooks    []json.RawMessage `json:"hooks"`
	Warnings []any             `json:"warnings"`
	Errors   []any             `json:"errors"`
}

func (a *appServer) hooksList(ctx context.Context, cwd string) hooksList {
	a.t.Helper()
	raw := a.call(ctx, "hooks/list", map[string]any{"cwds": []string{cwd}})
	var res struct {
		Data []hooksList `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Data) != 1 {
		a.t.Fatalf("hooks/list: unexpected answer %s (%v)", raw, err)
	}
	return res.Data[0]
}

// developerTexts returns the text of every developer message in a
// Responses API request's input.
func developerTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, it := range req.Input {
		if it.Type == "message" && it.Role == "developer" {
			for _, c := range it.Content {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

func jsonUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// setupCodex runs `nowhook setup --yes --agents codex --trust-codex` in the
// repo, with the real codex on PATH so that nowhook records the trust
// through Codex's own app-server.
func setupCodex(t *testing.T, ctx context.Context, s *sandbox, bin string, env []string) {
	t.Helper()
	if err := os.Symlink(bin, filepath.Join(s.bin, "codex")); err != nil {
		t.Fatal(err)
	}
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"),
		"setup", "--yes", "--agents", "codex", "--trust-codex")
	if res.err != nil {
		t.Fatalf("nowhook setup --trust-codex: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents codex --trust-codex:\n%s", strings.TrimSpace(res.stdout+res.stderr))
	for _, f := range []string{".codex/hooks.json", ".codex/hooks/kanbus-compaction-right-now.sh"} {
		if _, err := os.Stat(filepath.Join(s.repo, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
}
