package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// OpenCode (docs/platforms.md#opencode) is driven the way its TUI drives
// it: `opencode serve` over its HTTP API (a session, a message, a
// summarize call as /compact makes, more messages), offline against an
// OpenAI chat-completions mock on 127.0.0.1.

// opencodeMock answers OpenCode's chat requests on the shared
// chat-completions mock. It tells them apart by the system prompt OpenCode
// 1.18.33 gives each agent: "title" (the title generator, first message
// only), "summary" (the compaction agent) and "turn". With highUsage, its
// first turn reply reports a prompt close to the model's window
// (opencodeContext), so OpenCode compacts on its own right after it.
func opencodeMock(t *testing.T, highUsage bool) *chatMock {
	t.Helper()
	var mu sync.Mutex
	highDone := false
	return newChatMock(t, func(r *chatRequest) chatReply {
		first := ""
		if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
			first = r.Messages[0].Text()
		}
		reply := chatReply{Kind: "turn", Text: fmt.Sprintf("Reply %d from the mock.", r.Index), PromptTokens: 100, CompletionTokens: 8}
		switch {
		case strings.HasPrefix(first, "You are a title generator"):
			reply.Kind, reply.Text = "title", "Greeting"
		case strings.HasPrefix(first, "You are a context summarization agent"):
			reply.Kind, reply.Text = "summary", "Summary: the user greeted the assistant; nothing else happened."
		default:
			mu.Lock()
			if highUsage && !highDone {
				highDone = true
				reply.PromptTokens = opencodeHighUsage
			}
			mu.Unlock()
		}
		return reply
	})
}

// opencodeContext is the context window the test config gives the mock
// model; opencodeHighUsage is the prompt size that overflows it.
const (
	opencodeContext   = 10000
	opencodeHighUsage = 9900
)

// opencodeSystemTexts returns the system messages of a chat request.
func opencodeSystemTexts(r *chatRequest) []string {
	var out []string
	for _, msg := range r.Messages {
		if msg.Role == "system" {
			out = append(out, msg.Text())
		}
	}
	return out
}

// opencodeConfig writes the user config that makes the mock OpenCode's
// only provider and model (and turns sharing and updates off).
func opencodeConfig(t *testing.T, s *sandbox, m *chatMock) {
	t.Helper()
	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": m.BaseURL(), "apiKey": "dummy"},
			"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model",
				"limit": map[string]any{"context": opencodeContext, "output": 1000}}},
		}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.home, ".config", "opencode", "opencode.json"), string(b)+"\n", 0o644)
}

// opencodeEnv is the whole environment OpenCode runs with: no models.dev
// catalogue, no updates, and npm offline, so that the install of
// @opencode-ai/plugin OpenCode starts in .opencode/ fails at once instead of
// reaching the registry (our plugin needs nothing from it).
func opencodeEnv(s *sandbox) []string {
	return s.env([]string{
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"npm_config_offline=true",
	})
}

// setupOpencode runs `nowhook setup --yes --agents opencode` in the repo.
func setupOpencode(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"),
		"setup", "--yes", "--agents", "opencode")
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents opencode:\n%s", strings.TrimSpace(res.stdout))
	for _, f := range []string{opencodePluginFile, opencodeWrapperFile} {
		if _, err := os.Stat(filepath.Join(s.repo, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
}

// The files setup writes for OpenCode (the agent table's names).
const (
	opencodePluginFile  = ".opencode/plugins/kanbus-compaction-right-now.js"
	opencodeWrapperFile = ".opencode/hooks/kanbus-compaction-right-now.sh"
)

// opencodeServer is one `opencode serve` in the repo.
type opencodeServer struct {
	url  string
	cmd  *exec.Cmd
	logs *opencodeLog
}

// opencodeLog collects the server's output for the test log.
type opencodeLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *opencodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *opencodeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startOpencode starts `opencode serve` on a free port of 127.0.0.1 (it
// ignores --port 0) and waits until it answers: the first start in a fresh
// HOME can accept a connection and not answer, so each try has its own
// short timeout. A port taken in between means another try with another.
func startOpencode(t *testing.T, ctx context.Context, bin string, env []string, dir string) *opencodeServer {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := opencodeFreePort()
		if err != nil {
			t.Fatal(err)
		}
		srv := &opencodeServer{url: "http://127.0.0.1:" + strconv.Itoa(port), logs: &opencodeLog{}}
		srv.cmd = prepare(t, ctx, env, dir, bin, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port), "--print-logs")
		srv.cmd.Stdout = srv.logs
		srv.cmd.Stderr = srv.logs
		if err := srv.cmd.Start(); err != nil {
			t.Fatalf("opencode serve: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- srv.cmd.Wait() }()
		t.Cleanup(func() { srv.stop() })
		began := time.Now()
		if lastErr = srv.waitReady(ctx, exited); lastErr == nil {
			t.Logf("opencode serve answers on %s (after %s)", srv.url, time.Since(began).Round(100*time.Millisecond))
			return srv
		}
		srv.stop()
	}
	t.Fatalf("opencode serve never answered: %v", lastErr)
	return nil
}

func opencodeFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls GET /session until it answers, the server exits or
// the test's bound (ctx) ends.
func (s *opencodeServer) waitReady(ctx context.Context, exited <-chan error) error {
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("opencode serve exited: %v\n%s", err, s.logs)
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/session", nil)
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /session: %s", resp.Status)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%v\n%s", err, s.logs)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// stop kills the server's process group (plugin children included).
func (s *opencodeServer) stop() {
	killGroup(s.cmd)
}

// call makes one API call and decodes the answer into out (when not nil).
func (s *opencodeServer) call(t *testing.T, ctx context.Context, method, path string, in, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req) // bounded by the test's ctx

	if err != nil {
		t.Fatalf("%s %s: %v\nopencode logs:\n%s", method, path, err, opencodeTail(s.logs.String(), 4000))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s\n%s\nopencode logs:\n%s", method, path, resp.Status, b, opencodeTail(s.logs.String(), 4000))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %v\n%.2000s", method, path, err, b)
		}
	}
}

func opencodeTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// opencodeSession is one session of the server.
type opencodeSession struct {
	srv *opencodeServer
	id  string
}

func (s *opencodeServer) newSession(t *testing.T, ctx context.Context) *opencodeSession {
	t.Helper()
	var info struct {
		ID string `json:"id"`
	}
	s.call(t, ctx, http.MethodPost, "/session", map[string]any{}, &info)
	if info.ID == "" {
		t.Fatal("POST /session: no session id")
	}
	return &opencodeSession{srv: s, id: info.ID}
}

// send sends a user message and waits for the turn to end; it fails the
// test unless the turn ended without an error.
func (ss *opencodeSession) send(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	var out struct {
		Info struct {
			Role   string          `json:"role"`
			Finish string          `json:"finish"`
			Error  json.RawMessage `json:"error"`
		} `json:"info"`
	}
	ss.srv.call(t, ctx, http.MethodPost, "/session/"+ss.id+"/message",
		map[string]any{"parts": []any{map[string]any{"type": "text", "text": text}}}, &out)
	if out.Info.Role != "assistant" || (len(out.Info.Error) > 0 && string(out.Info.Error) != "null") {
		t.Fatalf("message %q: the turn did not end with an assistant reply: %+v", text, out.Info)
	}
}

// compact compacts the session as the TUI's /compact does.
func (ss *opencodeSession) compact(t *testing.T, ctx context.Context) {
	t.Helper()
	var ok bool
	ss.srv.call(t, ctx, http.MethodPost, "/session/"+ss.id+"/summarize",
		map[string]any{"providerID": "mock", "modelID": "mock-model"}, &ok)
	if !ok {
		t.Fatal("summarize answered false")
	}
}

// opencodeRun is one OpenCode session against the mock, after setup.
type opencodeRun struct {
	s    *sandbox
	reqs []*chatRequest
	rec  []recordedRequest // the same requests, for the shared helpers
}

// runOpencode sets up a sandbox with kbs behaving as mode, installs the
// plugin with nowhook's real setup, starts `opencode serve` in the repo and
// runs one session: with manual, hello, /compact, next, third; without,
// the mock's first turn reply fills the window, so OpenCode compacts on
// its own and continues, then next and third. The server is stopped
// before the requests are returned.
func runOpencode(t *testing.T, mode kbsMode, manual bool) opencodeRun {
	t.Helper()
	bin := findClient(t, "OPENCODE_BIN", "opencode")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	s := newSandbox(t, mode)
	m := opencodeMock(t, !manual)
	opencodeConfig(t, s, m)
	env := opencodeEnv(s)
	clientVersion(t, ctx, env, bin)
	setupOpencode(t, ctx, s)

	return opencodeSessionIn(t, ctx, s, m, bin, env, s.repo, manual)
}

// opencodeSessionIn starts `opencode serve` in dir (the repository root, a
// sub-folder or a worktree) and runs the session runOpencode describes.
func opencodeSessionIn(t *testing.T, ctx context.Context, s *sandbox, m *chatMock, bin string, env []string, dir string, manual bool) opencodeRun {
	t.Helper()
	srv := startOpencode(t, ctx, bin, env, dir)
	sess := srv.newSession(t, ctx)
	sess.send(t, ctx, "hello")
	if manual {
		sess.compact(t, ctx)
	}
	sess.send(t, ctx, "next")
	sess.send(t, ctx, "third")
	srv.stop()
	reqs, rec := m.Requests(), m.Recorded()
	dumpRequests(t, rec)
	for i, r := range reqs {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
	if t.Failed() {
		t.Logf("opencode logs:\n%s", opencodeTail(srv.logs.String(), 8000))
	}
	return opencodeRun{s: s, reqs: reqs, rec: rec}
}

// checkOpencodeReinjected asserts that the first request after the summary
// request carries the exact reminder as a system message, and that no
// other request carries any line of it: it came from the plugin after the
// compaction, once.
func checkOpencodeReinjected(t *testing.T, run opencodeRun, reminder string) int {
	t.Helper()
	reqs := run.reqs
	idx := onlyRequest(t, run.rec, "summary", "OpenCode never compacted")
	next := idx + 1
	if reqs[next].Kind != "turn" {
		t.Fatalf("request %d after the summary is a %s request, want a turn", next, reqs[next].Kind)
	}
	found := false
	for _, text := range opencodeSystemTexts(reqs[next]) {
		if strings.Contains(text, reminder) {
			found = true
		}
	}
	if !found {
		t.Errorf("the first request after the compaction (request %d of %d) has no system message with the reminder\nwant:\n%s\nbody:\n%.4000s",
			next, len(reqs), reminder, reqs[next].Body)
	}
	var others []recordedRequest
	others = append(others, run.rec[:next]...)
	others = append(others, run.rec[next+1:]...)
	checkNoReminder(t, others, reminder)
	if turns := len(reqs) - next; turns < 2 {
		t.Errorf("%d requests after the summary, want the session to go on (2 or more)", turns)
	}
	return next
}

// opencodeOwnFiles lists the files under the repo's .opencode/ that are
// not nowhook's, with their content: what OpenCode wrote itself.
func opencodeOwnFiles(t *testing.T, repo string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(repo, ".opencode")
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		rel = filepath.ToSlash(rel)
		if info.IsDir() || rel == opencodePluginFile || rel == opencodeWrapperFile {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// opencodeExists reports whether path exists.
func opencodeExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// checkOpencodeReadsAgentsMD asserts that every turn request carries the
// kbs-now block setup put into AGENTS.md: OpenCode reads AGENTS.md on every
// request, before and after a compaction, which is all the on-demand mode
// relies on.
func checkOpencodeReadsAgentsMD(t *testing.T, run opencodeRun) {
	t.Helper()
	line := ""
	for _, l := range strings.Split(templates.OnDemand, "\n") {
		if strings.Contains(l, "kbs now --json --list") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("the kbs-now block has no kbs now --json --list line")
	}
	turns := 0
	for i, r := range run.reqs {
		if r.Kind != "turn" {
			continue
		}
		turns++
		if !r.AnyMessageContains(line) {
			t.Errorf("turn request %d does not carry AGENTS.md's kbs-now block (%q)", i, line)
		}
	}
	if turns == 0 {
		t.Error("no turn request")
	}
}
