package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// Options says which codex to start and how.
type Options struct {
	// Codex is the codex executable (see Find). Required: without it
	// every call fails with ErrCodexNotFound.
	Codex string
	// Env is the app-server's whole environment (CODEX_HOME in it selects
	// the user config). Nil: this process's environment.
	Env []string
	// Dir is the app-server's working directory. Empty: this process's.
	Dir string
	// ClientVersion is sent in initialize's clientInfo. Empty: "dev".
	ClientVersion string
	// Stderr, if set, receives a copy of the app-server's stderr.
	Stderr io.Writer
	// Notify, if set, receives each notification the server sends (turn,
	// item and hook events), in order, from the reading goroutine; it
	// must not call the Conn.
	Notify func(method string, params json.RawMessage)

	started func(*Conn) // test hook: called once the process runs
}

// ErrCodexNotFound is returned (wrapped) when no codex executable is found.
var ErrCodexNotFound = errors.New("codex not found")

// Find returns the Codex executable called name (the agent table's
// CodexBinary): the one named by the variable <NAME>_BIN in env
// (CODEX_BIN for codex), else the first name on env's PATH. Nil env
// means this process's environment.
func Find(env []string, name string) (string, error) {
	if env == nil {
		env = os.Environ()
	}
	override := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_BIN"
	if bin := osutil.Getenv(env, override); bin != "" {
		if osutil.IsExecutable(bin) {
			return bin, nil
		}
		return "", fmt.Errorf("%w: %s=%s is not an executable file", ErrCodexNotFound, override, bin)
	}
	if p, ok := osutil.LookPath(env, name); ok {
		return p, nil
	}
	return "", fmt.Errorf("%w on PATH: install Codex CLI (npm install -g @openai/codex) or set %s", ErrCodexNotFound, override)
}

// RPCError is an error answer from the app-server.
type RPCError struct {
	Method  string
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("codex app-server: %s: %s (code %d)", e.Method, e.Message, e.Code)
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " " + string(e.Data)
	}
	return s
}

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *RPCError        `json:"error,omitempty"`
}

// Conn is one running `codex app-server`, initialized and ready for calls.
// It is not meant for concurrent calls from several goroutines.
type Conn struct {
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *stderrTail

	// CodexHome is the server's $CODEX_HOME, from initialize.
	CodexHome string
	// UserAgent is the server's user agent, from initialize (it names the version).
	UserAgent string

	writeMu sync.Mutex
	nextID  int
	mu      sync.Mutex
	pending map[string]chan message
	onNote  func(method string, params json.RawMessage)
	readErr error
	dead    chan struct{} // closed when stdout ends

	waitOnce sync.Once
	waitErr  error
	exited   chan struct{}
	stopCtx  func() bool
}

// Start runs `codex app-server`, sends initialize and initialized, and
// returns the connection. The server is killed when ctx ends or Close is
// called; callers must Close.
func Start(ctx context.Context, opts Options) (*Conn, error) {
	bin := opts.Codex
	if bin == "" {
		return nil, fmt.Errorf("%w: codex.Options.Codex is empty (find it with codex.Find)", ErrCodexNotFound)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	tail := &stderrTail{copyTo: opts.Stderr}
	cmd := exec.Command(bin, "app-server")
	cmd.Env = opts.Env
	cmd.Dir = opts.Dir
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = tail
	cmd.SysProcAttr = osutil.GroupAttr()
	cmd.WaitDelay = time.Second // a stray holder of stderr cannot block Wait
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s: %v", ErrCodexNotFound, bin, err)
		}
		return nil, fmt.Errorf("starting codex app-server (%s): %w", bin, err)
	}
	inR.Close()
	outW.Close()
	c := &Conn{
		cmd:     cmd,
		pgid:    cmd.Process.Pid,
		stdin:   inW,
		stdout:  outR,
		stderr:  tail,
		pending: map[string]chan message{},
		onNote:  opts.Notify,
		dead:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	go c.readLoop()
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	c.stopCtx = context.AfterFunc(ctx, c.kill)
	if opts.started != nil {
		opts.started(c)
	}

	version := opts.ClientVersion
	if version == "" {
		version = "dev"
	}
	var init struct {
		UserAgent string `json:"userAgent"`
		CodexHome string `json:"codexHome"`
	}
	params := map[string]any{
		"clientInfo":   map[string]any{"name": "nowhook", "title": "nowhook", "version": version},
		"capabilities": nil,
	}
	if err := c.Call(ctx, "initialize", params, &init); err != nil {
		c.Close()
		return nil, err
	}
	c.UserAgent, c.CodexHome = init.UserAgent, init.CodexHome
	if err := c.notify("initialized", nil); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Call sends one request and decodes its result into out (if not nil).
func (c *Conn) Call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	ch := make(chan message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	rawID := json.RawMessage(id)
	req := struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params any              `json:"params"`
	}{&rawID, method, params}
	if req.Params == nil {
		req.Params = map[string]any{}
	}
	if err := c.send(req); err != nil {
		return c.failure(method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			m.Error.Method = method
			return m.Error
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("codex app-server: %s: unexpected answer: %w", method, err)
			}
		}
		return nil
	case <-c.dead:
		return c.failure(method, nil)
	case <-ctx.Done():
		c.kill()
		return fmt.Errorf("codex app-server: %s: no answer: %w", method, ctx.Err())
	}
}

func (c *Conn) notify(method string, params any) error {
	req := struct {
		Method string `json:"method"`
		Params any    `json:"params,omitempty"`
	}{method, params}
	if err := c.send(req); err != nil {
		return c.failure(method, err)
	}
	return nil
}

func (c *Conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(b)
	return err
}

// failure explains why the server stopped answering.
func (c *Conn) failure(method string, cause error) error {
	// Give the exit status and last stderr lines a moment to arrive.
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
	}
	msg := fmt.Sprintf("codex app-server stopped before answering %s", method)
	select {
	case <-c.exited:
		if c.waitErr != nil {
			msg += " (" + c.waitErr.Error() + ")"
		}
	default:
	}
	c.mu.Lock()
	readErr := c.readErr
	c.mu.Unlock()
	if readErr != nil {
		msg += ": " + readErr.Error()
	} else if cause != nil {
		msg += ": " + cause.Error()
	}
	if t := c.stderr.summary(); t != "" {
		msg += ": " + t
	}
	return errors.New(msg)
}

func (c *Conn) readLoop() {
	defer close(c.dead)
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				c.mu.Lock()
				c.readErr = fmt.Errorf("not a JSON-RPC message: %.200q", line)
				c.mu.Unlock()
				c.kill() // a peer that breaks the protocol is not waited for
				return
			}
			switch {
			case m.ID != nil && m.Method != "":
				// A request from the server (approvals and the like): we
				// offer none of those capabilities.
				_ = c.send(map[string]any{"id": m.ID, "error": map[string]any{
					"code": -32601, "message": "nowhook does not handle " + m.Method}})
			case m.ID != nil:
				c.mu.Lock()
				ch := c.pending[idKey(*m.ID)]
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			case m.Method != "" && c.onNote != nil:
				c.onNote(m.Method, m.Params)
			}
			// Other notifications (configWarning and the like) are ignored.
		}
		if err != nil {
			return
		}
	}
}

func idKey(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// kill ends the server's whole process group now (on systems without
// process groups, the server itself).
func (c *Conn) kill() {
	osutil.KillGroup(c.cmd.Process)
}

// Close ends the session: it closes the server's stdin, gives it a moment
// to exit, then kills its whole process group and waits for it. It never
// leaves a process behind and is safe to call more than once.
func (c *Conn) Close() error {
	c.waitOnce.Do(func() {
		c.stopCtx()
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(500 * time.Millisecond):
		}
		c.kill() // also reaps anything the server left in its group
		<-c.exited
		c.stdout.Close()
	})
	return nil
}

// stderrTail keeps the last few KiB of the server's stderr for error messages.
type stderrTail struct {
	mu     sync.Mutex
	buf    []byte
	copyTo io.Writer
}

const stderrKeep = 8 << 10

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.copyTo != nil {
		_, _ = t.copyTo.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrKeep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrKeep:]...)
	}
	return len(p), nil
}

// summary returns the server's own error line if it printed one ("Error:
// ..."), else its last non-empty stderr line.
func (t *stderrTail) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(t.buf), "\n")
	last := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error:") || strings.Contains(l, "panicked at") {
			return l
		}
		if l != "" && !strings.HasPrefix(l, "note:") && !strings.HasPrefix(l, "stack backtrace") && !isBacktraceLine(l) {
			last = l
		}
	}
	return last
}

func isBacktraceLine(l string) bool {
	head, _, ok := strings.Cut(l, ":")
	if !ok {
		return false
	}
	for _, r := range head {
		if r < '0' || r > '9' {
			return false
		}
	}
	return head != ""
}
