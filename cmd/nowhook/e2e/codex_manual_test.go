package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// codexManualHome writes a user-level Codex config that points at the mock,
// like codexHome but without model_auto_compact_token_limit: in these tests
// the only compaction is the one the test asks for.
func codexManualHome(t *testing.T, s *sandbox, m *responsesMock) string {
	t.Helper()
	home := filepath.Join(s.root, "codex-home")
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "mock-model"
model_provider = "mock"

[model_providers.mock]
name = "Mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
`+codexSandboxTOML, m.URL), 0o644)
	return home
}

// newPlainResponsesMock is the Responses API mock without its one tool
// call: every ordinary request gets a short assistant message with a small
// usage, so Codex never compacts on its own.
func newPlainResponsesMock(t *testing.T) *responsesMock {
	t.Helper()
	m := newResponsesMock(t)
	m.NoTool()
	return m
}

// turnMetadata decodes a Responses API request's
// client_metadata["x-codex-turn-metadata"] (a JSON string).
func turnMetadata(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var req mockmodel.ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	s := req.ClientMetadata["x-codex-turn-metadata"]
	if s == "" {
		return nil
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(s), &meta); err != nil {
		t.Fatalf("x-codex-turn-metadata is not JSON: %v: %q", err, s)
	}
	return meta
}

// rpcMessage is one JSON-RPC line from the app-server: a response (ID and
// Result or Error), a notification (Method) or a request (ID and Method).
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// rpcNote is one notification from the app-server (or, with Method
// "request:<method>", a request it sent and the test refused).
type rpcNote struct {
	Method string
	Params json.RawMessage
}

// appServer drives one `codex app-server` over stdio, one JSON-RPC object
// per line (E2E.md, Codex CLI). Unlike codex.Conn, which ignores
// notifications, it keeps every notification in order, so a test can follow
// turns, items and hook runs. It runs in its own process group under the
// test's context and is killed with that group when the test ends.
type appServer struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser

	stderrMu sync.Mutex
	stderr   strings.Builder

	mu      sync.Mutex
	nextID  int
	pending map[string]chan rpcMessage
	notes   []rpcNote
	changed chan struct{} // closed (and replaced) whenever notes grows or the server ends
	ended   bool
	endErr  error

	readDone  chan struct{} // closed when readLoop returns
	closeOnce sync.Once
}

// startAppServer starts `codex app-server` in dir with env and sends
// initialize and initialized.
func startAppServer(t *testing.T, ctx context.Context, bin string, env []string, dir string) *appServer {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, bin, "app-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &appServer{
		t:        t,
		cmd:      cmd,
		stdin:    stdin,
		pending:  map[string]chan rpcMessage{},
		changed:  make(chan struct{}),
		readDone: make(chan struct{}),
	}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		a.stderrMu.Lock()
		defer a.stderrMu.Unlock()
		a.stderr.Write(p)
		return len(p), nil
	})
	if err := cmd.Start(); err != nil {
		t.Fatalf("codex app-server: %v", err)
	}
	go a.readLoop(stdout)
	t.Cleanup(a.close)

	var init struct {
		UserAgent string `json:"userAgent"`
	}
	a.call(ctx, "initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "nowhook-e2e", "title": "nowhook e2e", "version": "0"},
		"capabilities": nil,
	}, &init)
	a.send(map[string]any{"method": "initialized"})
	t.Logf("codex app-server: %s", init.UserAgent)
	return a
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (a *appServer) readLoop(stdout io.Reader) {
	defer close(a.readDone)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		var m rpcMessage
		if err := json.Unmarshal(line, &m); err != nil {
			a.end(fmt.Errorf("not a JSON-RPC line: %.300q", line))
			return
		}
		switch {
		case len(m.ID) > 0 && m.Method != "":
			// A request from the server (an approval and the like): these
			// turns run no tools, so any request is answered with an error
			// and shows up in the notes for the test to see.
			a.send(map[string]any{"id": m.ID, "error": map[string]any{
				"code": -32601, "message": "nowhook e2e does not handle " + m.Method}})
			a.note(rpcNote{Method: "request:" + m.Method, Params: m.Params})
		case len(m.ID) > 0:
			a.mu.Lock()
			ch := a.pending[string(m.ID)]
			a.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.Method != "":
			a.note(rpcNote{Method: m.Method, Params: m.Params})
		}
	}
	a.end(sc.Err())
}

func (a *appServer) note(n rpcNote) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notes = append(a.notes, n)
	close(a.changed)
	a.changed = make(chan struct{})
}

func (a *appServer) end(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended {
		return
	}
	a.ended, a.endErr = true, err
	close(a.changed)
	a.changed = make(chan struct{})
	for _, ch := range a.pending {
		select {
		case ch <- rpcMessage{}: // no answer will come
		default: // the answer is already there
		}
	}
}

// send writes one JSON-RPC object as a line. A write to a server that has
// gone shows up as a missing answer, so its error is not reported here.
func (a *appServer) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of JSON values are sent
	}
	_, _ = a.stdin.Write(append(b, '\n'))
}

// call sends one request and decodes its result into out (if not nil);
// an error answer, a server that ends, or ctx ending fails the test.
func (a *appServer) call(ctx context.Context, method string, params, out any) {
	a.t.Helper()
	a.mu.Lock()
	if a.ended {
		a.mu.Unlock()
		a.t.Fatalf("codex app-server ended before %s\n%s", method, a.diagnostics())
	}
	a.nextID++
	id := fmt.Sprint(a.nextID)
	ch := make(chan rpcMessage, 1)
	a.pending[id] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, id)
		a.mu.Unlock()
	}()
	a.send(map[string]any{"id": json.RawMessage(id), "method": method, "params": params})
	var m rpcMessage
	select {
	case m = <-ch:
	case <-ctx.Done():
		a.t.Fatalf("codex app-server: no answer to %s: %v\n%s", method, ctx.Err(), a.diagnostics())
	}
	switch {
	case m.Error != nil:
		a.t.Fatalf("codex app-server: %s: error %d: %s %s", method, m.Error.Code, m.Error.Message, m.Error.Data)
	case m.ID == nil:
		a.t.Fatalf("codex app-server ended before answering %s\n%s", method, a.diagnostics())
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			a.t.Fatalf("codex app-server: %s: unexpected answer %s: %v", method, m.Result, err)
		}
	}
}

// waitNote returns the index and the first notification at or after index
// from that match says is the one; the server ending or ctx ending first
// fails the test, naming what was awaited.
func (a *appServer) waitNote(ctx context.Context, from int, what string, match func(rpcNote) bool) (int, rpcNote) {
	a.t.Helper()
	for {
		a.mu.Lock()
		notes, changed, ended := a.notes, a.changed, a.ended
		a.mu.Unlock()
		for i := from; i < len(notes); i++ {
			if match(notes[i]) {
				return i, notes[i]
			}
		}
		if ended {
			a.t.Fatalf("codex app-server ended while waiting for %s\n%s", what, a.diagnostics())
		}
		from = len(notes)
		select {
		case <-changed:
		case <-ctx.Done():
			a.t.Fatalf("codex app-server: no %s: %v\n%s", what, ctx.Err(), a.diagnostics())
		}
	}
}

// snapshot returns the notifications read so far.
func (a *appServer) snapshot() []rpcNote {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]rpcNote(nil), a.notes...)
}

// diagnostics lists the notifications read so far and the end of stderr.
func (a *appServer) diagnostics() string {
	var b strings.Builder
	a.mu.Lock()
	if a.endErr != nil {
		fmt.Fprintf(&b, "read error: %v\n", a.endErr)
	}
	fmt.Fprintf(&b, "%d notifications:\n", len(a.notes))
	for i, n := range a.notes {
		fmt.Fprintf(&b, "  %d %s %.300s\n", i, n.Method, n.Params)
	}
	a.mu.Unlock()
	a.stderrMu.Lock()
	s := a.stderr.String()
	a.stderrMu.Unlock()
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	fmt.Fprintf(&b, "stderr:\n%s", s)
	return b.String()
}

// close ends the server: stdin closed, a moment to exit, then its whole
// process group killed and reaped, so no hook or helper is left behind.
// It is safe to call more than once.
func (a *appServer) close() {
	a.closeOnce.Do(func() {
		a.stdin.Close()
		select {
		case <-a.readDone:
		case <-time.After(2 * time.Second):
		}
		killGroup(a.cmd) // before Wait, so the group's leader is not yet reaped
		select {
		case <-a.readDone:
		case <-time.After(5 * time.Second):
		}
		_ = a.cmd.Wait()
	})
}

// turnParams is the part of turn/started and turn/completed the tests read.
type turnParams struct {
	ThreadID string `json:"threadId"`
	Turn     struct {
		ID     string          `json:"id"`
		Status string          `json:"status"`
		Error  json.RawMessage `json:"error"`
	} `json:"turn"`
}

// itemParams is the part of item/started and item/completed the tests read.
type itemParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Item     struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"item"`
}

// hookParams is the part of hook/started and hook/completed the tests read.
type hookParams struct {
	ThreadID string  `json:"threadId"`
	TurnID   *string `json:"turnId"`
	Run      struct {
		EventName  string `json:"eventName"`
		Status     string `json:"status"`
		SourcePath string `json:"sourcePath"`
		Entries    []struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"entries"`
	} `json:"run"`
}

func decodeParams[T any](t *testing.T, n rpcNote) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(n.Params, &v); err != nil {
		t.Fatalf("%s: %v: %.500s", n.Method, err, n.Params)
	}
	return v
}

// waitTurnCompleted waits for turn/completed of turnID and fails the test
// unless the turn completed without error.
func (a *appServer) waitTurnCompleted(ctx context.Context, from int, turnID string) int {
	a.t.Helper()
	i, n := a.waitNote(ctx, from, "turn/completed for turn "+turnID, func(n rpcNote) bool {
		return n.Method == "turn/completed" && decodeParams[turnParams](a.t, n).Turn.ID == turnID
	})
	tp := decodeParams[turnParams](a.t, n)
	if tp.Turn.Status != "completed" {
		a.t.Fatalf("turn %s ended %q (error %s)\n%s", turnID, tp.Turn.Status, tp.Turn.Error, a.diagnostics())
	}
	return i
}

// compact starts a manual compaction (thread/compact/start, Codex's
// /compact), waits for its contextCompaction item and for its turn to
// complete, and returns that turn's id.
func (a *appServer) compact(ctx context.Context, threadID string) string {
	a.t.Helper()
	from := len(a.snapshot())
	a.call(ctx, "thread/compact/start", map[string]any{"threadId": threadID}, nil)
	_, item := a.waitNote(ctx, from, "contextCompaction item/completed", func(n rpcNote) bool {
		return n.Method == "item/completed" && decodeParams[itemParams](a.t, n).Item.Type == "contextCompaction"
	})
	turn := decodeParams[itemParams](a.t, item).TurnID
	a.waitTurnCompleted(ctx, from, turn)
	return turn
}

// runTurn starts a turn with one text input and waits for it to complete;
// it returns the turn's id.
func (a *appServer) runTurn(ctx context.Context, threadID, text string) string {
	a.t.Helper()
	from := len(a.snapshot())
	var resp turnParams
	a.call(ctx, "turn/start", map[string]any{
		"threadId": threadID,
		"input":    []any{map[string]any{"type": "text", "text": text}},
	}, &resp)
	if resp.Turn.ID == "" {
		a.t.Fatalf("turn/start returned no turn id")
	}
	a.waitTurnCompleted(ctx, from, resp.Turn.ID)
	return resp.Turn.ID
}
