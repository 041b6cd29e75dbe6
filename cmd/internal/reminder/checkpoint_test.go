package reminder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Synthetic transcript records in the two formats, shaped as Claude Code
// 2.1.332 and Codex 0.171.0 write them (docs/platforms.md, "Checkpoint and
// summary hint").

func claudeReply(model string, in, cacheCreate, cacheRead, out int64, toolID string) string {
	content := `[{"type":"text","text":"ok"}]`
	if toolID != "" {
		content = `[{"type":"tool_use","id":"` + toolID + `","name":"Bash","input":{"command":"echo hi"}}]`
	}
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":%s,"stop_reason":"end_turn","usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d,"output_tokens_details":{"thinking_tokens":0},"service_tier":"standard","iterations":[]}},"requestedModel":%q,"type":"assistant","uuid":"u","timestamp":"2026-11-30T13:56:53.597Z"}`,
		model, content, in, cacheCreate, cacheRead, out, model)
}

func claudeUser(text string) string {
	return fmt.Sprintf(`{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"u"}`, text)
}

func claudeBoundary(post int64) string {
	return fmt.Sprintf(`{"parentUuid":null,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":900000,"postTokens":%d}}`, post)
}

func codexTaskStarted(window int64) string {
	return fmt.Sprintf(`{"timestamp":"t","type":"event_msg","payload":{"type":"task_started","turn_id":"x","model_context_window":%d}}`, window)
}

func codexUsageRecord(total int64) string {
	return fmt.Sprintf(`{"timestamp":"t","type":"token_usage_record","payload":{"thread_id":"x","usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":5,"total_tokens":%d},"turn_token_usage":{"total_tokens":1}}}`, total-5, total)
}

func codexTokenCount(total, window int64) string {
	return fmt.Sprintf(`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":999999},"last_token_usage":{"input_tokens":0,"output_tokens":0,"total_tokens":%d},"model_context_window":%d},"rate_limits":null}}`, total, window)
}

const codexCompacted = `{"timestamp":"t","type":"compacted","payload":{"message":"summary","replacement_history":[]}}`

// transcript writes lines as a JSONL file and returns its path.
func transcript(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	writeFile(t, path, strings.Join(lines, "\n")+"\n")
	return path
}

func TestContextUse(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3<<20)
	cases := []struct {
		name           string
		lines          []string
		used, window   int64
		model, format  string
		after, errText string
	}{
		{"claude reply: input + cache creation + cache read + output",
			[]string{claudeUser("hi"), claudeReply("claude-opus-4-6", 1000, 2000, 3000, 400, "")}, 6400, 0, "claude-opus-4-6", formatMessages, "reply", ""},
		{"claude newest reply wins",
			[]string{claudeReply("claude-opus-4-6", 9000, 0, 0, 1, ""), claudeUser("next"), claudeReply("claude-opus-4-6", 100, 0, 0, 1, "")}, 101, 0, "claude-opus-4-6", formatMessages, "reply", ""},
		{"claude compaction after the last reply",
			[]string{claudeReply("claude-opus-5-5", 900000, 0, 0, 8, ""), claudeBoundary(2538), claudeUser("go on")}, 2538, 0, "", formatMessages, "compaction", ""},
		{"claude subagent and synthetic replies skipped",
			[]string{claudeReply("claude-opus-5-5", 500, 0, 0, 0, ""),
				strings.Replace(claudeReply("claude-opus-5-5", 999999, 0, 0, 0, ""), `"isSidechain":false`, `"isSidechain":true`, 1),
				strings.Replace(claudeReply("<synthetic>", 0, 0, 0, 0, ""), `"requestedModel":"<synthetic>",`, "", 1)}, 500, 0, "claude-opus-5-5", formatMessages, "reply", ""},
		{"claude half-written last line skipped",
			[]string{claudeReply("claude-opus-4-6", 700, 0, 0, 0, ""), `{"parentUuid":"p","message":{"usage":{"input_tokens":99999`}, 700, 0, "claude-opus-4-6", formatMessages, "reply", ""},
		{"claude reply behind a 3 MiB record",
			[]string{claudeReply("claude-opus-4-6", 800, 0, 0, 0, ""), claudeUser(big)}, 800, 0, "claude-opus-4-6", formatMessages, "reply", ""},
		{"codex usage record, window from the token count before it",
			[]string{codexTaskStarted(258400), codexTokenCount(1000, 258400), codexUsageRecord(5000)}, 5000, 258400, "", formatRollout, "reply", ""},
		{"codex token count",
			[]string{codexTaskStarted(95000), codexUsageRecord(5000), codexTokenCount(7000, 95000)}, 7000, 95000, "", formatRollout, "reply", ""},
		{"codex compaction: the estimate after it",
			[]string{codexUsageRecord(91000), codexTokenCount(91000, 95000), codexCompacted, codexTokenCount(5969, 95000)}, 5969, 95000, "", formatRollout, "reply", ""},
		{"codex compaction last",
			[]string{codexTaskStarted(95000), codexUsageRecord(91000), codexCompacted}, 0, 95000, "", formatRollout, "compaction", ""},
		{"codex token count without info",
			[]string{codexTaskStarted(95000), `{"type":"event_msg","payload":{"type":"token_count","info":null}}`}, 0, 0, "", "", "", "no model reply"},
		{"no reply yet", []string{claudeUser("hi")}, 0, 0, "", "", "", "no model reply"},
		{"garbage", []string{"not json", "{", `{"type":"assistant","message":"usage"}`}, 0, 0, "", "", "", "no model reply"},
		{"empty", nil, 0, 0, "", "", "", "no model reply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := readContextUse(transcript(t, c.lines...), "")
			if c.errText != "" {
				if err == nil || !strings.Contains(err.Error(), c.errText) {
					t.Fatalf("got %+v, %v; want error %q", u, err, c.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.used != c.used || u.window != c.window || u.model != c.model || u.format != c.format || u.after != c.after || !u.current {
				t.Errorf("got %+v, want used %d window %d model %q format %s after %s", u, c.used, c.window, c.model, c.format, c.after)
			}
		})
	}
	if _, err := readContextUse(filepath.Join(t.TempDir(), "missing.jsonl"), ""); err == nil {
		t.Error("a missing transcript gave a use")
	}
	if _, err := readContextUse(t.TempDir(), ""); err == nil {
		t.Error("a directory gave a use")
	}
}

// TestContextUseBounded: a reply further back than maxTranscriptTail is
// not looked for.
func TestContextUseBounded(t *testing.T) {
	t.Parallel()
	path := transcript(t, claudeReply("claude-opus-4-6", 800, 0, 0, 0, ""), claudeUser(strings.Repeat("y", maxTranscriptTail)))
	if u, err := readContextUse(path, ""); err == nil {
		t.Errorf("read %+v from beyond %d bytes", u, maxTranscriptTail)
	}
}

func TestContextUseToolCall(t *testing.T) {
	t.Parallel()
	path := transcript(t, claudeReply("claude-opus-4-6", 800, 0, 0, 0, "toolu_12"))
	for id, current := range map[string]bool{"toolu_12": true, "toolu_1": false, "": true} {
		u, err := readContextUse(path, id)
		if err != nil || u.current != current {
			t.Errorf("tool call %q: current %v (%v), want %v", id, u.current, err, current)
		}
	}
	// Codex writes the usage before the hook: always current.
	u, err := readContextUse(transcript(t, codexUsageRecord(100)), "call_9")
	if err != nil || !u.current {
		t.Errorf("codex: %+v %v", u, err)
	}
}

func TestWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flag  int64
		use   contextUse
		want  int64
		known string
	}{
		{0, contextUse{model: "claude-opus-4-6", used: 1}, 200_000, "the model"},
		{0, contextUse{model: "claude-sonnet-4-5-20250929", used: 1}, 200_000, "the model"},
		{0, contextUse{model: "claude-haiku-4-5-20251001", used: 1}, 200_000, "the model"},
		{0, contextUse{model: "claude-3-7-sonnet-20250219", used: 1}, 200_000, "the model"},
		{0, contextUse{model: "claude-opus-4-6[1m]", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "claude-opus-4-7", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "claude-opus-5-5", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "claude-sonnet-5", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "claude-haiku-5-5", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "claude-fable-5-2", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "us.anthropic.claude-opus-4-8-v1:0", used: 1}, 1_000_000, "the model"},
		{0, contextUse{model: "mock-model", used: 1}, 200_000, "the default"},
		{0, contextUse{used: 1}, 200_000, "the default"},
		{0, contextUse{model: "claude-opus-4-6", used: 250_000}, 1_000_000, "a use above"},
		{0, contextUse{model: "mock-model", used: 250_000}, 1_000_000, "a use above"},
		{0, contextUse{window: 95_000, used: 200_000}, 95_000, "the transcript"},
		{50_000, contextUse{window: 95_000, model: "claude-opus-5-5", used: 1}, 50_000, "--window"},
	}
	for _, c := range cases {
		w, why := resolveWindow(c.flag, c.use)
		if w != c.want || !strings.HasPrefix(why, c.known) {
			t.Errorf("%d %+v: %d (%s), want %d (%s)", c.flag, c.use, w, why, c.want, c.known)
		}
	}
}

// ckpt is one checkpoint run's world: a project, the fake kbs, a state
// directory, and a Claude Code transcript.
type ckpt struct {
	proj, kbs, state, transcript, calls string
	getenv                              func(string) string
}

func newCkpt(t *testing.T, mode string) *ckpt {
	t.Helper()
	c := &ckpt{proj: project(t), state: t.TempDir(), calls: filepath.Join(t.TempDir(), "calls")}
	c.kbs = filepath.Join(toolDir(t, "kbs"), "kbs")
	c.transcript = filepath.Join(t.TempDir(), "session.jsonl")
	fakeEnv(t, "FAKE_KBS_PAYLOAD", abs(t, filepath.Join(fixtures, "basic.json")),
		"FAKE_KBS_RAW_PAYLOAD", abs(t, filepath.Join(fixtures, "raw.json")),
		"FAKE_KBS_MODE", mode, "FAKE_KBS_LOG", c.calls)
	c.getenv = env("CLAUDE_PROJECT_DIR", c.proj, "KBS", c.kbs, "XDG_STATE_HOME", c.state, "HOME", "/nonexistent-home")
	return c
}

// reply appends a Claude Code reply reporting used tokens on
// claude-opus-4-6 (200,000 tokens) with tool call id, if any.
func (c *ckpt) reply(t *testing.T, used int64, toolID string) {
	t.Helper()
	c.append(t, claudeReply("claude-opus-4-6", used-100, 0, 0, 100, toolID))
}

func (c *ckpt) append(t *testing.T, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(c.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// payload is a hook payload for event in session.
func (c *ckpt) payload(event, session, toolID string) string {
	m := map[string]any{"session_id": session, "transcript_path": c.transcript, "cwd": c.proj, "hook_event_name": event}
	if event == eventPostToolUse {
		m["tool_name"] = "Bash"
		m["tool_input"] = map[string]any{"command": "echo hi"}
		m["tool_response"] = map[string]any{"stdout": "hi"}
		m["tool_use_id"] = toolID
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// run runs the checkpoint with the given stdin and flags.
func (c *ckpt) run(t *testing.T, stdin string, o options) (out, log string) {
	t.Helper()
	var debug bytes.Buffer
	o.stdin = strings.NewReader(stdin)
	o.getenv = c.getenv
	o.wd = t.TempDir()
	o.log = logger{w: &debug, on: true}
	if o.budget == 0 {
		o.budget = 5 * time.Second
	}
	if o.at == 0 {
		o.at, o.refire = DefaultAt, DefaultRefire
	}
	return string(checkpoint(o)), debug.String()
}

func (c *ckpt) kbsCalls(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(c.calls)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// wantCheckpoint is the checkpoint for basic.json at pct, as plain text.
func wantCheckpoint(pct int) string {
	return fmt.Sprintf(`Kanbus checkpoint: the context window is %d%% full and will be compacted soon; what is not written down will be lost. Before you go on, record where you stand as one comment on each in-progress Kanbus issue below: what is done, what is next, and the user's constraints and decisions in the user's own words. For each issue run
  kbs comment <id> "Done: ... Next: ... User's words: ..."
(several lines: kbs comment <id> --body-file - with the text on stdin). Then carry on with the task.

`, pct) + quoted(`- [P1][in_progress] kbs-abc: Ship compaction docs
- [P2][in_progress] kbs-def: Add Claude Code example
`)
}

// TestCheckpointLatch walks one session through two climbs: silent below
// 85%, once at the crossing, silent while latched (between 70% and 85%
// too), re-armed below 70%, once again at the next crossing.
func TestCheckpointLatch(t *testing.T) {
	c := newCkpt(t, "")
	steps := []struct {
		used  int64
		event string
		want  string // "" nothing, else the plain checkpoint at that percentage
		calls int    // kbs calls so far
	}{
		{100_000, eventUserPromptSubmit, "", 0},
		{169_998, eventPostToolUse, "", 0}, // 84.999%
		{170_000, eventPostToolUse, wantCheckpoint(85), 1},
		{180_000, eventPostToolUse, "", 1},
		{190_000, eventUserPromptSubmit, "", 1},
		{141_000, eventPostToolUse, "", 1}, // 70.5%: still latched
		{175_000, eventPostToolUse, "", 1},
		{139_000, eventPostToolUse, "", 1}, // 69.5%: re-armed
		{176_000, eventUserPromptSubmit, wantCheckpoint(88), 2},
		{196_000, eventUserPromptSubmit, "", 2},
	}
	for i, s := range steps {
		id := fmt.Sprintf("toolu_%d", i)
		c.reply(t, s.used, id)
		out, log := c.run(t, c.payload(s.event, "session-1", id), options{})
		want := s.want
		if want != "" && s.event == eventPostToolUse {
			want = string(additionalContext(eventPostToolUse, []byte(want)))
		}
		if out != want {
			t.Errorf("step %d (%d tokens, %s): printed\n%s\nwant\n%s\nlog:\n%s", i, s.used, s.event, out, want, log)
		}
		if n := c.kbsCalls(t); n != s.calls {
			t.Errorf("step %d: kbs ran %d times in all, want %d", i, n, s.calls)
		}
	}
	// A compaction re-arms too: the next crossing fires.
	c.append(t, claudeBoundary(3000))
	if out, log := c.run(t, c.payload(eventUserPromptSubmit, "session-1", ""), options{}); out != "" {
		t.Errorf("after the compaction: %q\n%s", out, log)
	}
	c.reply(t, 172_000, "toolu_x")
	if out, _ := c.run(t, c.payload(eventUserPromptSubmit, "session-1", "toolu_x"), options{}); out != wantCheckpoint(86) {
		t.Errorf("after compaction and a new climb: %q", out)
	}
}

// TestCheckpointPerSession: the latch of one session is not another's,
// nor that of the same session id in another project.
func TestCheckpointPerSession(t *testing.T) {
	c := newCkpt(t, "")
	c.reply(t, 180_000, "")
	for _, s := range []string{"a", "b"} {
		if out, _ := c.run(t, c.payload(eventUserPromptSubmit, s, ""), options{}); out == "" {
			t.Errorf("session %s: nothing", s)
		}
		if out, _ := c.run(t, c.payload(eventUserPromptSubmit, s, ""), options{}); out != "" {
			t.Errorf("session %s: twice", s)
		}
	}
	other := project(t)
	c.getenv = env("CLAUDE_PROJECT_DIR", other, "KBS", c.kbs, "XDG_STATE_HOME", c.state)
	if out, _ := c.run(t, c.payload(eventUserPromptSubmit, "a", ""), options{}); out == "" {
		t.Error("session a in another project: nothing")
	}
	entries, err := os.ReadDir(filepath.Join(c.state, "nowhook", "checkpoint"))
	if err != nil || len(entries) != 3 {
		t.Errorf("%d latches (%v), want 3", len(entries), err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("left in the state directory: %s", e.Name())
		}
	}
}

// TestCheckpointConcurrent: parallel tool calls run the hook at the same
// moment; exactly one of them says it.
func TestCheckpointConcurrent(t *testing.T) {
	c := newCkpt(t, "")
	c.reply(t, 180_000, "")
	var wg sync.WaitGroup
	outs := make([]string, 8)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _ = c.run(t, c.payload(eventUserPromptSubmit, "s", ""), options{})
		}()
	}
	wg.Wait()
	n := 0
	for _, o := range outs {
		if o != "" {
			n++
		}
	}
	if n != 1 || c.kbsCalls(t) != 1 {
		t.Errorf("%d of %d runs printed, kbs ran %d times; want 1 and 1", n, len(outs), c.kbsCalls(t))
	}
}

func TestCheckpointNothing(t *testing.T) {
	cases := []struct {
		name    string
		mode    string
		stdin   func(c *ckpt) string
		getenv  func(c *ckpt) func(string) string
		setup   func(t *testing.T, c *ckpt)
		log     string
		calls   int
		latched bool
	}{
		{name: "missing transcript", stdin: func(c *ckpt) string {
			os.Remove(c.transcript)
			return c.payload(eventUserPromptSubmit, "s", "")
		}, log: "no such file"},
		{name: "garbled transcript", setup: func(t *testing.T, c *ckpt) { writeFile(t, c.transcript, "\x00\x01garbage\n{{{\n") },
			log: "no model reply"},
		{name: "no session id", stdin: func(c *ckpt) string {
			return strings.Replace(c.payload(eventUserPromptSubmit, "s", ""), `"session_id":"s"`, `"session_id":5`, 1)
		}, log: "no session_id"},
		{name: "no payload", stdin: func(*ckpt) string { return "" }, log: "no hook payload"},
		{name: "not JSON", stdin: func(*ckpt) string { return "hello" }, log: "not a JSON object"},
		{name: "SessionStart", stdin: func(c *ckpt) string { return c.payload("SessionStart", "s", "") }, log: `hook_event_name is "SessionStart"`},
		{name: "Cursor", stdin: func(c *ckpt) string {
			return strings.Replace(c.payload(eventPostToolUse, "s", ""), "{", `{"cursor_version":"1.7",`, 1)
		}, log: "cursor_version"},
		{name: "no Kanbus project", getenv: func(c *ckpt) func(string) string {
			return env("KBS", c.kbs, "XDG_STATE_HOME", c.state)
		}, stdin: func(c *ckpt) string {
			return strings.Replace(c.payload(eventUserPromptSubmit, "s", ""), c.proj, "/", 1)
		}, log: "no .kanbus.yml"},
		{name: "no state directory", getenv: func(c *ckpt) func(string) string {
			return env("CLAUDE_PROJECT_DIR", c.proj, "KBS", c.kbs)
		}, log: "neither XDG_STATE_HOME nor HOME"},
		{name: "state directory not writable", getenv: func(c *ckpt) func(string) string {
			file := filepath.Join(c.state, "file")
			os.WriteFile(file, nil, 0o644)
			return env("CLAUDE_PROJECT_DIR", c.proj, "KBS", c.kbs, "XDG_STATE_HOME", file)
		}, log: "setting the latch"},
		{name: "failing kbs, latched all the same", mode: "fail", log: "exit status 1", calls: 2, latched: true},
		{name: "hanging kbs", mode: "hang", log: "out of time", calls: 1, latched: true},
		{name: "nothing in progress", setup: func(t *testing.T, c *ckpt) {
			t.Setenv("FAKE_KBS_PAYLOAD", abs(t, filepath.Join(fixtures, "empty.json")))
		}, log: "nothing in progress", calls: 1, latched: true},
		{name: "kbs not installed", getenv: func(c *ckpt) func(string) string {
			return env("CLAUDE_PROJECT_DIR", c.proj, "KBS", "kbs-missing", "XDG_STATE_HOME", c.state)
		}, log: "not found on PATH", latched: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCkpt(t, tc.mode)
			c.reply(t, 190_000, "")
			if tc.setup != nil {
				tc.setup(t, c)
			}
			if tc.getenv != nil {
				c.getenv = tc.getenv(c)
			}
			stdin := c.payload(eventUserPromptSubmit, "s", "")
			if tc.stdin != nil {
				stdin = tc.stdin(c)
			}
			// A budget no busy machine overruns where kbs must answer
			// (the failing kbs's --raw retry needs a second of it left);
			// a short one where it hangs.
			budget := roomy
			if tc.mode == "hang" {
				budget = 2 * time.Second
			}
			out, log := c.run(t, stdin, options{budget: budget})
			if out != "" {
				t.Errorf("printed %q", out)
			}
			if !strings.Contains(log, tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, log)
			}
			if n := c.kbsCalls(t); n != tc.calls {
				t.Errorf("kbs ran %d times, want %d", n, tc.calls)
			}
			// A second run never tries again while latched.
			if tc.latched {
				c.run(t, c.payload(eventUserPromptSubmit, "s", ""), options{budget: budget})
				if n := c.kbsCalls(t); n != tc.calls {
					t.Errorf("kbs ran again after the latch: %d calls", n)
				}
			}
		})
	}
}

// roomy is the budget of a run whose kbs must answer in time: no busy
// machine overruns it, and the run ends as soon as kbs does.
const roomy = 30 * time.Second

// TestCheckpointWaitsForTranscript: Claude Code may run the PostToolUse
// hook before the reply that asked for the tool is in the transcript; the
// checkpoint reads again until it is there. The reply is written while
// the checkpoint waits (its catchUp), not after a sleep that a busy
// machine outlasts; and when the wait ends (a catchUp that says not
// again), the newest reply counts, with kbs given the whole budget.
func TestCheckpointWaitsForTranscript(t *testing.T) {
	c := newCkpt(t, "")
	c.reply(t, 100_000, "toolu_old")
	waits := 0
	out, log := c.run(t, c.payload(eventPostToolUse, "s", "toolu_new"), options{catchUp: func(<-chan os.Signal) (bool, os.Signal) {
		if waits++; waits == 1 {
			c.append(t, claudeReply("claude-opus-4-6", 180_000, 0, 0, 0, "toolu_new"))
		}
		return true, nil
	}})
	if !strings.Contains(out, "context window is 90% full") || waits != 1 {
		t.Errorf("after %d waits, printed %q\nlog:\n%s", waits, out, log)
	}
	// When it never comes, the newest reply counts.
	out, log = c.run(t, c.payload(eventPostToolUse, "s2", "toolu_never"), options{catchUp: func(<-chan os.Signal) (bool, os.Signal) { return false, nil }})
	if !strings.Contains(log, "does not show tool call toolu_never yet") || !strings.Contains(out, "90% full") {
		t.Errorf("printed %q\nlog:\n%s", out, log)
	}
	// At a session's first tool call the transcript may hold no reply
	// yet, or not exist: the checkpoint waits for it too (Claude Code
	// 2.1.332 under load: the first checkpoint of a session came one
	// request late, TestCheckpointClaudeAutoCompact).
	for _, start := range []string{"no file", "no reply"} {
		c := newCkpt(t, "")
		if start == "no reply" {
			c.append(t, claudeUser("hello"))
		}
		waits := 0
		out, log := c.run(t, c.payload(eventPostToolUse, "s", "toolu_first"), options{catchUp: func(<-chan os.Signal) (bool, os.Signal) {
			if waits++; waits == 1 {
				c.append(t, claudeReply("claude-opus-4-6", 180_000, 0, 0, 0, "toolu_first"))
			}
			return true, nil
		}})
		if !strings.Contains(out, "context window is 90% full") || waits != 1 {
			t.Errorf("%s: after %d waits, printed %q\nlog:\n%s", start, waits, out, log)
		}
	}
	// A prompt (no tool call to wait for) does not wait for a first reply.
	c = newCkpt(t, "")
	c.run(t, c.payload(eventUserPromptSubmit, "s", ""), options{catchUp: func(<-chan os.Signal) (bool, os.Signal) {
		t.Errorf("a prompt waited for a transcript that does not exist")
		return false, nil
	}})
	// The wait itself: a poll while its time lasts, none after it.
	if again, s := catchUpFor(time.Hour)(nil); !again || s != nil {
		t.Errorf("catchUpFor(1h) at once: again %v, signal %v", again, s)
	}
	if again, s := catchUpFor(-time.Second)(nil); again || s != nil {
		t.Errorf("catchUpFor(-1s): again %v, signal %v", again, s)
	}
}

func TestCheckpointCodexRollout(t *testing.T) {
	c := newCkpt(t, "")
	c.append(t, `{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`, codexTaskStarted(95000), codexUsageRecord(79000), codexTokenCount(79000, 95000))
	if out, log := c.run(t, c.payload(eventPostToolUse, "s", "call_1"), options{}); out != "" {
		t.Errorf("at 83%%: %q\n%s", out, log)
	}
	c.append(t, codexUsageRecord(82000))
	out, log := c.run(t, c.payload(eventPostToolUse, "s", "call_2"), options{})
	if out != string(additionalContext(eventPostToolUse, []byte(wantCheckpoint(86)))) {
		t.Errorf("at 86%%: %q\n%s", out, log)
	}
	// --window overrides the rollout's.
	out, _ = c.run(t, c.payload(eventUserPromptSubmit, "s3", ""), options{window: 1_000_000})
	if out != "" {
		t.Errorf("--window 1000000: %q", out)
	}
}

// TestCheckpointOutput: the JSON form is exactly what Codex parses
// strictly, and decodes to the plain text; the plain form never opens with
// a bracket; the caps hold; kanbus is named where it is the CLI.
func TestCheckpointOutput(t *testing.T) {
	t.Parallel()
	text := wantCheckpoint(87)
	raw := additionalContext(eventPostToolUse, []byte(text))
	var got map[string]map[string]string
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["hookSpecificOutput"]) != 2 || got["hookSpecificOutput"]["hookEventName"] != "PostToolUse" ||
		got["hookSpecificOutput"]["additionalContext"] != text {
		t.Errorf("decoded %v", got)
	}
	for _, s := range []string{"a\"b\\c\n\t\x01\x7f\u2028\u2029é—👍", "\uFFFD"} {
		var back string
		if err := json.Unmarshal(appendJSONString(nil, s), &back); err != nil || back != s {
			t.Errorf("%q: %q %v", s, back, err)
		}
	}

	items := mustParse(t, string(readFixtureT(t, "cap31.json")))
	out := checkpointText(items, 90, "kbs")
	if len(out) >= maxOutBytes || !bytes.HasSuffix(out, []byte("- … 1 more: run kbs now --list\nEnd of the quote from the Kanbus board.\n")) || bytes.Count(out, []byte("\n- [P")) != 30 {
		t.Errorf("cap31: %d bytes:\n%s", len(out), out)
	}
	hostile := checkpointText(mustParse(t, string(readFixtureT(t, "hostile.json"))), 90, "kbs")
	if bytes.ContainsAny(hostile, "\x1b\r") || bytes.HasPrefix(hostile, []byte("{")) || bytes.HasPrefix(hostile, []byte("[")) {
		t.Errorf("hostile:\n%q", hostile)
	}
	for _, line := range strings.Split(string(hostile), "\n") {
		if n := len([]rune(line)); strings.HasPrefix(line, "- [") && n > maxLineLen {
			t.Errorf("line of %d characters", n)
		}
	}
	if out := checkpointText(mustParse(t, string(readFixtureT(t, "basic.json"))), 90, "kanbus"); !strings.Contains(string(out), "  kanbus comment <id> \"Done:") {
		t.Errorf("kanbus:\n%s", out)
	}
	// No item in progress: every item is listed; no item: nothing.
	open := mustParse(t, `[{"id":"kbs-o","title":"Open one","status":"open"}]`)
	if out := checkpointText(open, 90, "kbs"); !strings.Contains(string(out), "- [P?][open] kbs-o: Open one\n") {
		t.Errorf("no in_progress item:\n%s", out)
	}
	if out := checkpointText(nil, 90, "kbs"); out != nil {
		t.Errorf("no item: %q", out)
	}
	for prog, want := range map[string]string{"/usr/bin/kbs": "kbs", "/x/kanbus": "kanbus", `C:\x\KANBUS.EXE`: "kanbus", "/x/kbs-wrapper": "kbs"} {
		if got := kbsName(filepath.FromSlash(prog)); got != want && !strings.Contains(prog, `\`) {
			t.Errorf("kbsName(%s) = %s, want %s", prog, got, want)
		}
	}
}

func readFixtureT(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHint(t *testing.T) {
	c := newCkpt(t, "")
	pre := `{"session_id":"s","transcript_path":"/x","cwd":"` + c.proj + `","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}`
	run := func(stdin string, budget time.Duration) (string, string) {
		var debug bytes.Buffer
		out := hint(options{budget: budget, stdin: strings.NewReader(stdin), getenv: c.getenv, wd: t.TempDir(), log: logger{w: &debug, on: true}})
		return string(out), debug.String()
	}
	out, log := run(pre, roomy)
	want := hintHeader + quoted("- [P3][in_progress] kbs-raw1: Raw mode item\n")
	if out != want {
		t.Errorf("printed\n%s\nwant\n%s\nlog:\n%s", out, want, log)
	}
	if b, _ := os.ReadFile(c.calls); !strings.HasSuffix(strings.TrimSpace(string(b)), "args=now --json --list --raw") || strings.Count(string(b), "\n") != 1 {
		t.Errorf("kbs calls:\n%s", b)
	}
	for _, stdin := range []string{"", `{"hook_event_name":"PostCompact"}`, strings.Replace(pre, "{", `{"cursor_version":"1",`, 1)} {
		if out, log := run(stdin, DefaultHintBudget); out != "" {
			t.Errorf("%q: printed %q\n%s", stdin, out, log)
		}
	}
	t.Setenv("FAKE_KBS_MODE", "fail")
	if out, _ := run(pre, DefaultHintBudget); out != "" {
		t.Errorf("failing kbs: %q", out)
	}
	t.Setenv("FAKE_KBS_MODE", "hang")
	if out, log := run(pre, 500*time.Millisecond); out != "" || !strings.Contains(log, "out of time") {
		t.Errorf("hanging kbs: %q\n%s", out, log)
	}
}

func TestCheckpointFlags(t *testing.T) {
	cases := []struct {
		args       []string
		mode       mode
		budget     time.Duration
		at, refire int
		window     int64
		log        string
	}{
		{nil, modeReminder, 5 * time.Second, 85, 15, 0, ""},
		{[]string{"--checkpoint"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, ""},
		{[]string{"--checkpoint", "--at", "70", "--refire", "20", "--window", "400000", "--timeout", "3s"}, modeCheckpoint, 3 * time.Second, 70, 20, 400000, ""},
		{[]string{"--hint"}, modeHint, 2 * time.Second, 85, 15, 0, ""},
		{[]string{"--hint", "--timeout", "4s"}, modeHint, 4 * time.Second, 85, 15, 0, ""},
		{[]string{"--hint", "--timeout", "0s"}, modeHint, 2 * time.Second, 85, 15, 0, "out of range, using 2s"},
		{[]string{"--checkpoint", "--hint"}, modeNone, 5 * time.Second, 85, 15, 0, "exclude each other"},
		{[]string{"--checkpoint", "--at", "0"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, "--at 0 out of range"},
		{[]string{"--checkpoint", "--at", "101"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, "--at 101 out of range"},
		{[]string{"--checkpoint", "--at", "10"}, modeCheckpoint, 5 * time.Second, 10, 9, 0, ""},
		{[]string{"--checkpoint", "--refire", "90"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, "--refire 90 out of range"},
		{[]string{"--checkpoint", "--window", "-5"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, "--window -5 out of range"},
		{[]string{"--checkpoint", "--at", "banana"}, modeCheckpoint, 5 * time.Second, 85, 15, 0, "ignoring arguments"},
	}
	for _, c := range cases {
		var log bytes.Buffer
		cfg, _ := parseFlags(c.args, logger{w: &log, on: true})
		if cfg.mode != c.mode || cfg.budget != c.budget || cfg.at != c.at || cfg.refire != c.refire || cfg.window != c.window || !strings.Contains(log.String(), c.log) {
			t.Errorf("%q: %+v, log %q", c.args, cfg, log.String())
		}
	}
	// Conflicting modes print nothing, and exit 0.
	var stdout bytes.Buffer
	if code := Run([]string{"--checkpoint", "--hint"}, strings.NewReader(compactPayload), &stdout, io.Discard); code != 0 || stdout.Len() != 0 {
		t.Errorf("exit %d, printed %q", code, stdout.String())
	}
}

func TestPruneLatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	for i := range latchMaxFiles + 10 {
		p := filepath.Join(dir, fmt.Sprintf("latch%03d", i))
		writeFile(t, p, "x")
		os.Chtimes(p, now, now.Add(-time.Duration(latchMaxFiles+10-i)*time.Minute))
	}
	old := filepath.Join(dir, "old")
	writeFile(t, old, "x")
	os.Chtimes(old, now, now.Add(-latchMaxAge-time.Hour))
	tmp := filepath.Join(dir, "x.123.tmp")
	writeFile(t, tmp, "x")
	os.Chtimes(tmp, now, now.Add(-time.Hour))
	if err := setLatch(dir, "new", "content", now); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != latchMaxFiles {
		t.Errorf("%d files left, want %d", len(entries), latchMaxFiles)
	}
	for _, gone := range []string{"old", "x.123.tmp", "latch000", "latch010"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s was kept", gone)
		}
	}
	for _, kept := range []string{"new", "latch011", "latch265"} {
		if _, err := os.Stat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s was removed", kept)
		}
	}
	if err := setLatch(dir, "new", "again", now); err != errLatched {
		t.Errorf("second latch: %v", err)
	}
}

// qwenStop is Qwen Code 0.24.4's Stop payload (TestQwenStopCheckpoint in
// the e2e package records its keys): the context use rides in it, and the
// transcript it names is not read.
func qwenStop(session, cwd string, input, limit int64) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/nonexistent/chats/%s.jsonl","cwd":%q,"hook_event_name":"Stop","timestamp":"2026-12-01T00:00:00.000Z","permission_mode":"default","prompt_id":"p1","stop_hook_active":false,"last_assistant_message":"Done.","background_tasks":[],"crons":[],"context_usage":%v,"context_limit":%d,"input_tokens":%d}`,
		session, session, cwd, float64(input)/float64(limit), limit, input)
}

// TestCheckpointQwenStop: after Qwen Code's Stop hook the checkpoint
// judges the context from the payload alone (the transcript it names does
// not exist), says it once per climb, as the decision to block the stop
// with the checkpoint as the reason, and never below the threshold.
func TestCheckpointQwenStop(t *testing.T) {
	c := newCkpt(t, "")
	steps := []struct {
		input int64
		want  bool
		calls int
	}{
		{1000, false, 0},
		{169_998, false, 0}, // 84.999% of 200,000
		{170_000, true, 1},
		{190_000, false, 1}, // the turn the block started ends in Stop again: latched
		{100_000, false, 1}, // 50%: re-armed
		{176_000, true, 2},
	}
	for i, s := range steps {
		out, log := c.run(t, qwenStop("qwen-1", c.proj, s.input, 200_000), options{})
		if !s.want {
			if out != "" {
				t.Errorf("step %d (%d tokens): printed %q\nlog:\n%s", i, s.input, out, log)
			}
		} else {
			var got map[string]string
			if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 2 || got["decision"] != "block" ||
				got["reason"] != wantCheckpoint(int(s.input*100/200_000)) {
				t.Errorf("step %d (%d tokens): printed %q (%v), want the decision to block with the checkpoint as reason\nlog:\n%s", i, s.input, out, err, log)
			}
		}
		if n := c.kbsCalls(t); n != s.calls {
			t.Errorf("step %d: kbs ran %d times in all, want %d", i, n, s.calls)
		}
		if !strings.Contains(log, "the payload's context use") {
			t.Errorf("step %d: the log does not say the use came from the payload:\n%s", i, log)
		}
	}
	// A Stop payload without the use (Claude Code's) prints nothing.
	if out, log := c.run(t, strings.Replace(qwenStop("qwen-2", c.proj, 180_000, 200_000), `"input_tokens":180000`, `"input_tokens":"x"`, 1), options{}); out != "" {
		t.Errorf("a Stop payload without input_tokens: printed %q\n%s", out, log)
	}
}
