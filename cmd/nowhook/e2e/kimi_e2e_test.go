package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// Kimi Code (npm @moonshot-ai/kimi-code 2.1.0, command kimi, run under the
// Node.js 22 its pin names), offline: ~/.kimi-code/config.toml names an
// OpenAI-compatible provider at the chat mock and holds the [[hooks]]
// tables of the two-step re-inject (agent.KimiHooks: PreCompact,
// PostCompact and UserPromptSubmit, each running `nowhook reminder
// --kimi`). A manual /compact is driven through `kimi acp` (the Agent
// Client Protocol, JSON-RPC lines on stdio: initialize, session/new,
// session/prompt), where /compact is a command; `kimi -p` sends it to the
// model as text. An automatic compaction is forced by a first reply that
// reports a prompt close to the model's window. Pinned in
// scripts/pins.tsv, so CI runs these. Run:
// eval "$(sh scripts/install-agents.sh kimi)"; go test ./cmd/nowhook/e2e/ -run '^TestKimi' -v

// kimiSummaryPhrase starts Kimi Code's compaction instruction, the last
// user message of its summary request.
const kimiSummaryPhrase = "You are about to run out of context. Create a handoff summary"

// kimiWindow is the mock model's max_context_size in config.toml.
const kimiWindow = 100000

// kimiWorld is a sandbox with Kimi Code configured against a chat mock.
type kimiWorld struct {
	*sandbox
	bin   string
	mock  *chatMock
	state string // XDG_STATE_HOME: the runtime's markers
}

// newKimiWorld configures Kimi Code in a sandbox; highFirst makes the
// first turn's reply report 95% of the window, so that the next turn
// compacts on its own.
func newKimiWorld(t *testing.T, mode kbsMode, highFirst bool) *kimiWorld {
	t.Helper()
	w := &kimiWorld{sandbox: newSandbox(t, mode), bin: findClient(t, "KIMI_BIN", "kimi")}
	w.state = filepath.Join(w.root, "state")
	var mu sync.Mutex
	turns := 0
	w.mock = newChatMock(t, func(r *chatRequest) chatReply {
		if strings.Contains(r.LastUserText(), kimiSummaryPhrase) {
			return chatReply{Kind: "summary", Text: "The user greeted the assistant; nothing else happened.", PromptTokens: 100, CompletionTokens: 8}
		}
		mu.Lock()
		turns++
		n := turns
		mu.Unlock()
		reply := chatReply{Kind: "turn", Text: fmt.Sprintf("Reply %d from the mock.", n), PromptTokens: 100, CompletionTokens: 8}
		if n == 1 && highFirst {
			reply.PromptTokens = kimiWindow * 95 / 100
		}
		return reply
	})
	writeKimiConfig(t, w.home, w.mock, agent.KimiHooks(5*time.Second))
	return w
}

// writeKimiConfig writes ~/.kimi-code/config.toml under home: the mock as
// the default model, telemetry off, then hooks (TOML tables, or "").
func writeKimiConfig(t *testing.T, home string, m *chatMock, hooks string) {
	t.Helper()
	config := fmt.Sprintf(`default_model = "mock"
telemetry = false

[providers.mock]
type = "openai"
base_url = %q
api_key = "dummy"

[models.mock]
provider = "mock"
model = "mock-model"
max_context_size = %d

`, m.BaseURL(), kimiWindow) + hooks
	writeFile(t, filepath.Join(home, ".kimi-code", "config.toml"), config, 0o644)
}

// env is the client's environment: no update check (its only other
// connection), the runtime's state in the sandbox.
func (w *kimiWorld) env() []string {
	return w.sandbox.env([]string{"KIMI_CODE_NO_AUTO_UPDATE=1", "XDG_STATE_HOME=" + w.state})
}

// kimiACP is one `kimi acp` process, spoken to over its stdio.
type kimiACP struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan map[string]any
	id    int
}

func startKimiACP(t *testing.T, ctx context.Context, w *kimiWorld, dir string) *kimiACP {
	t.Helper()
	cmd := prepare(t, ctx, w.env(), dir, w.bin, "acp")
	in, out, stderr := startPiped(t, cmd)
	a := &kimiACP{t: t, in: in, lines: make(chan map[string]any, 256)}
	go func() {
		defer close(a.lines)
		jsonLines(out, func(m map[string]any) { a.lines <- m })
	}()
	t.Cleanup(func() {
		in.Close()
		killGroup(cmd)
		cmd.Wait()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("kimi acp stderr:\n%.3000s", stderr.String())
		}
	})
	return a
}

// call sends a request and returns its result, answering any request the
// agent makes meanwhile with an error (the mock never asks for a tool).
func (a *kimiACP) call(ctx context.Context, method string, params any) map[string]any {
	a.t.Helper()
	a.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": method, "params": params})
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("kimi acp %s: %v", method, err)
	}
	for {
		select {
		case m, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("kimi acp ended before answering %s", method)
			}
			if _, isRequest := m["method"]; isRequest {
				if id, has := m["id"]; has {
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "not offered by the test"}})
					a.in.Write(append(b, '\n'))
				}
				continue
			}
			if id, _ := m["id"].(float64); int(id) != a.id {
				continue
			}
			if e, bad := m["error"]; bad {
				a.t.Fatalf("kimi acp %s: %v", method, e)
			}
			res, _ := m["result"].(map[string]any)
			return res
		case <-ctx.Done():
			a.t.Fatalf("kimi acp %s: %v", method, ctx.Err())
		}
	}
}

// session starts a session in dir and returns its id.
func (a *kimiACP) session(ctx context.Context, dir string) string {
	a.t.Helper()
	a.call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	id, _ := a.call(ctx, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})["sessionId"].(string)
	if id == "" {
		a.t.Fatal("kimi acp session/new returned no sessionId")
	}
	return id
}

// prompt sends one prompt and waits for its turn to end.
func (a *kimiACP) prompt(ctx context.Context, session, text string) {
	a.t.Helper()
	a.call(ctx, "session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// waitCompacted waits until the runtime has marked a compaction applied
// (its PostCompact hook ran): ACP's /compact answers at once and compacts
// in the background. It fails the test when ctx ends first.
func (w *kimiWorld) waitCompacted(t *testing.T, ctx context.Context) {
	t.Helper()
	for {
		if m, _ := filepath.Glob(filepath.Join(w.state, "nowhook", "kimi", "*.ready")); len(m) > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the compaction was never marked applied (no PostCompact hook run): %v; requests: %s", ctx.Err(), kinds(w.mock.Requests()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kinds lists the requests' kinds, for messages.
func kinds(reqs []*chatRequest) string {
	var k []string
	for _, r := range reqs {
		k = append(k, r.Kind)
	}
	return strings.Join(k, ", ")
}

// hookResults counts, in a request, the user messages Kimi Code made of
// a UserPromptSubmit hook's output that hold text.
func hookResults(r *chatRequest, text string) int {
	n := 0
	for _, m := range r.Messages {
		if t := m.Text(); m.Role == "user" && strings.HasPrefix(t, `<hook_result hook_event="UserPromptSubmit">`) && strings.Contains(t, text) {
			n++
		}
	}
	return n
}

// checkKimiRequests asserts, for the turn requests (the summary request
// aside), how many hook results with the reminder each holds.
func checkKimiRequests(t *testing.T, reqs []*chatRequest, reminder string, want []int) {
	t.Helper()
	var turns []*chatRequest
	for _, r := range reqs {
		switch r.Kind {
		case "turn":
			turns = append(turns, r)
		case "summary":
			if bodyContains(t, r.Body, reminder) {
				t.Errorf("the summary request %d holds the reminder", r.Index)
			}
		default:
			t.Errorf("request %d to %s was not a chat request", r.Index, r.Path)
		}
	}
	if len(turns) != len(want) {
		t.Fatalf("%d turn requests (%s), want %d", len(turns), kinds(reqs), len(want))
	}
	var got []int
	for _, r := range turns {
		got = append(got, hookResults(r, reminder))
	}
	t.Logf("requests: %s; the reminder in the turn requests: %v times", kinds(reqs), got)
	for i, r := range turns {
		if got := hookResults(r, reminder); got != want[i] {
			t.Errorf("turn request %d (request %d) holds the reminder %d times, want %d", i+1, r.Index, got, want[i])
		}
		if got := countIn(t, r.Body, reminder); got != want[i] {
			t.Errorf("turn request %d (request %d) holds the reminder's text %d times, want %d", i+1, r.Index, got, want[i])
		}
	}
}

// TestKimiReinjectAfterCompact: two prompts, /compact, two more: the
// reminder is in the first request after the compaction, once, as the
// UserPromptSubmit hook's result before the prompt, stays in the history
// of the next request (once: the next prompt adds none), and is in no
// request before; kbs runs once.
func TestKimiReinjectAfterCompact(t *testing.T) {
	t.Parallel()
	w := newKimiWorld(t, kbsFixture, false)
	ctx := probeCtx(t)
	clientVersion(t, ctx, w.env(), w.bin)
	a := startKimiACP(t, ctx, w, w.repo)
	s := a.session(ctx, w.repo)
	a.prompt(ctx, s, "hello")
	a.prompt(ctx, s, "second")
	if n := w.kbsCalls(t); n != 0 {
		t.Fatalf("kbs ran %d times before any compaction", n)
	}
	a.prompt(ctx, s, "/compact")
	w.waitCompacted(t, ctx)
	a.prompt(ctx, s, "next")
	a.prompt(ctx, s, "again")
	reqs := w.mock.Requests()
	summaryAt(t, reqs)
	checkKimiRequests(t, reqs, expectedReminder(t), []int{0, 0, 1, 1})
	if n := w.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
}

// TestKimiReinjectAutoCompaction: the first turn's reply reports 95% of
// the window, so the second prompt compacts on its own before its request.
// Its UserPromptSubmit hook ran before that compaction, so the reminder
// is not in the request right after the summary, but in the first request
// of the next prompt, once (measured: the auto path delivers one prompt
// late). Three `kimi -p` runs resume one session.
func TestKimiReinjectAutoCompaction(t *testing.T) {
	t.Parallel()
	w := newKimiWorld(t, kbsFixture, true)
	ctx := probeCtx(t)
	clientVersion(t, ctx, w.env(), w.bin)
	kimiPrompts(t, ctx, w.env(), w.repo, w.bin, "hello", "second", "third")
	reqs := w.mock.Requests()
	if idx := summaryAt(t, reqs); idx != 1 {
		t.Fatalf("the summary request is request %d (%s), want the second prompt's first", idx, kinds(reqs))
	}
	checkKimiRequests(t, reqs, expectedReminder(t), []int{0, 0, 1})
	if n := w.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
}

// TestKimiReinjectKbsFails: with kbs failing, the hook runs after the
// compaction (kbs is asked once) and no request holds any reminder.
func TestKimiReinjectKbsFails(t *testing.T) {
	t.Parallel()
	w := newKimiWorld(t, kbsFailing, false)
	ctx := probeCtx(t)
	a := startKimiACP(t, ctx, w, w.repo)
	s := a.session(ctx, w.repo)
	a.prompt(ctx, s, "hello")
	a.prompt(ctx, s, "/compact")
	w.waitCompacted(t, ctx)
	a.prompt(ctx, s, "next")
	reqs := w.mock.Requests()
	summaryAt(t, reqs)
	for _, r := range reqs {
		if hookResults(r, "") > 0 || bodyContains(t, r.Body, "Kanbus WIP") {
			t.Errorf("request %d holds a hook result or a reminder", r.Index)
		}
	}
	if n := w.kbsCalls(t); n < 1 {
		t.Errorf("kbs never ran: the hook did not reach it")
	}
}

// TestKimiReinjectSessionsApart: two sessions of one `kimi acp` in one
// repository; only the one that compacts gets the reminder, once.
func TestKimiReinjectSessionsApart(t *testing.T) {
	t.Parallel()
	w := newKimiWorld(t, kbsFixture, false)
	ctx := probeCtx(t)
	a := startKimiACP(t, ctx, w, w.repo)
	s1 := a.session(ctx, w.repo)
	id, _ := a.call(ctx, "session/new", map[string]any{"cwd": w.repo, "mcpServers": []any{}})["sessionId"].(string)
	if id == "" || id == s1 {
		t.Fatalf("a second session/new returned %q", id)
	}
	a.prompt(ctx, s1, "hello")
	a.prompt(ctx, id, "hello")
	a.prompt(ctx, s1, "/compact")
	w.waitCompacted(t, ctx)
	a.prompt(ctx, id, "next")
	a.prompt(ctx, s1, "next")
	rem := expectedReminder(t)
	got := map[string][]int{}
	for _, r := range w.mock.Requests() {
		if r.Kind != "turn" {
			continue
		}
		var body struct {
			Key string `json:"prompt_cache_key"`
		}
		json.Unmarshal(r.Body, &body)
		got[body.Key] = append(got[body.Key], hookResults(r, rem))
	}
	if fmt.Sprint(got[s1]) != "[0 1]" || fmt.Sprint(got[id]) != "[0 0]" {
		t.Errorf("reminders per turn request: compacted session %v, want [0 1]; other session %v, want [0 0] (all: %v)", got[s1], got[id], got)
	}
	if n := w.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
}

// TestReadsKimi (Kimi Code 2.1.0, `kimi -p`): the instruction files in the
// first request, started at the root and in a sub-folder: AGENTS.md of
// each folder from the git root down to the start folder (and
// .kimi-code/AGENTS.md beside it), never CLAUDE.md.
func TestReadsKimi(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "KIMI_BIN", "kimi")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{".", []string{"AGENTS.md", ".kimi-code/AGENTS.md"}},
		{probeSub, []string{"AGENTS.md", ".kimi-code/AGENTS.md", "svc/AGENTS.md"}},
	} {
		t.Run(strings.ReplaceAll(c.where, "/", "-"), func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			files := []string{"AGENTS.md", "CLAUDE.md", "GEMINI.md", ".kimi-code/AGENTS.md", "svc/AGENTS.md"}
			repo := probeRepo(t, ctx, files...)
			home := t.TempDir()
			m := newChatMock(t, (&probeChat{summaryPhrases: []string{kimiSummaryPhrase}}).reply)
			writeKimiConfig(t, home, m, "")
			env := probeEnv(home, "KIMI_CODE_NO_AUTO_UPDATE=1")
			clientVersion(t, ctx, env, bin)
			dir := filepath.Join(repo, filepath.FromSlash(c.where))
			res := runCmd(t, ctx, env, dir, "", bin, "-p", "say hello", "--output-format", "stream-json")
			if res.err != nil {
				t.Fatalf("kimi -p: %v\n%.3000s%.3000s", res.err, res.stdout, res.stderr)
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			var got []string
			for _, f := range files {
				if bodyContains(t, reqs[0].Body, probeMarker(f)) {
					got = append(got, f)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("kimi started in %s: the first request has the instruction files %v, want %v", c.where, got, c.want)
			}
		})
	}
}

// kimiPrompts runs `kimi -p` once per prompt in repo, the first starting a
// session and each later one resuming it (-S), failing the test on a
// failed run or a first run that prints no session id.
func kimiPrompts(t *testing.T, ctx context.Context, env []string, repo, bin string, prompts ...string) {
	t.Helper()
	var session string
	for _, p := range prompts {
		args := []string{"-p", p, "--output-format", "stream-json"}
		if session != "" {
			args = append(args, "-S", session)
		}
		res := runCmd(t, ctx, env, repo, "", bin, args...)
		if res.err != nil {
			t.Fatalf("kimi %v: %v\n%.3000s%.3000s", args, res.err, res.stdout, res.stderr)
		}
		if session == "" {
			m := regexp.MustCompile(`"session_id":"(session_[^"]+)"`).FindStringSubmatch(res.stdout)
			if m == nil {
				t.Fatalf("kimi -p printed no session id:\n%.3000s", res.stdout)
			}
			session = m[1]
		}
	}
}
