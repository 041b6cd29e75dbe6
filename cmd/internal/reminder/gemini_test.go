package reminder

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gmsg is one message of a BeforeModel payload's llm_request.
type gmsg struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ack is the model message Gemini CLI 0.61.0 writes after a summary.
var ack = gmsg{"model", "Got it. Thanks for the additional context!"}

// sessionContext is the start of the first user message Gemini CLI sends.
const sessionContext = "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>"

// summaryMsg is the first message after the n-th compression, as Gemini CLI
// 0.61.0 hands it to the hook: the session context and the summary joined.
func summaryMsg(text string) gmsg {
	return gmsg{"user", sessionContext + "<state_snapshot>" + text + "</state_snapshot>"}
}

// gem is one Gemini session against the fake kbs.
type gem struct {
	proj, state, calls string
	getenv             func(string) string
}

func newGem(t *testing.T, mode string) *gem {
	t.Helper()
	g := &gem{proj: project(t), state: t.TempDir(), calls: filepath.Join(t.TempDir(), "calls")}
	kbs := filepath.Join(toolDir(t, "kbs"), "kbs")
	fakeEnv(t, "FAKE_KBS_PAYLOAD", abs(t, filepath.Join(fixtures, "basic.json")),
		"FAKE_KBS_RAW_PAYLOAD", abs(t, filepath.Join(fixtures, "raw.json")),
		"FAKE_KBS_MODE", mode, "FAKE_KBS_LOG", g.calls)
	g.getenv = env("KBS", kbs, "XDG_STATE_HOME", g.state, "HOME", "/nonexistent-home")
	return g
}

// payload is a BeforeModel payload of session with these messages, its
// fields in the order Gemini CLI writes them.
func (g *gem) payload(session string, msgs ...gmsg) string {
	b, _ := json.Marshal(msgs)
	return `{"session_id":` + jsonString(session) + `,"transcript_path":"/tmp/chats/session.jsonl","cwd":` + jsonString(g.proj) +
		`,"hook_event_name":"BeforeModel","timestamp":"2026-12-01T13:39:01.721Z","llm_request":{"model":"gemini-2.5-flash","messages":` +
		string(b) + `,"config":{"temperature":1,"topP":0.95,"topK":64}}}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *gem) run(t *testing.T, stdin string) (out, log string) {
	t.Helper()
	var debug bytes.Buffer
	b := geminiTurn(options{budget: 5 * time.Second, stdin: strings.NewReader(stdin), getenv: g.getenv, wd: t.TempDir(), log: logger{w: &debug, on: true}})
	return string(b), debug.String()
}

func (g *gem) kbsCalls() int {
	b, err := os.ReadFile(g.calls)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// basicReminder is the reminder for basic.json, without its last newline.
func basicReminder(t *testing.T) string {
	t.Helper()
	return strings.TrimRight(quoted(string(readFixtureT(t, "basic.expected.txt"))), "\n")
}

// geminiAnswer decodes what --gemini-turn printed: the messages it hands
// back, checking the envelope.
func geminiAnswer(t *testing.T, out string) []gmsg {
	t.Helper()
	var v struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			LLMRequest    struct {
				Messages []gmsg `json:"messages"`
			} `json:"llm_request"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("the output is not the BeforeModel answer: %v\n%s", err, out)
	}
	if v.HookSpecificOutput.HookEventName != eventBeforeModel {
		t.Errorf("hookEventName %q", v.HookSpecificOutput.HookEventName)
	}
	if !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("the output is not one line: %q", out)
	}
	return v.HookSpecificOutput.LLMRequest.Messages
}

// TestGeminiTurnOncePerCompression walks one session through two
// compressions: nothing before the first, the reminder after the summary
// in the first request after each, nothing in the requests after that.
func TestGeminiTurnOncePerCompression(t *testing.T) {
	g := newGem(t, "")
	rem := basicReminder(t)
	hello := gmsg{"user", sessionContext + "hello"}
	s1, s2 := summaryMsg("Summary one."), summaryMsg("Summary two, which integrates the first.")
	steps := []struct {
		name  string
		msgs  []gmsg
		fires gmsg // the summary message expected back, or none
		calls int
	}{
		{"first request", []gmsg{hello}, gmsg{}, 0},
		{"second request", []gmsg{hello, {"model", "Reply."}, {"user", "more"}}, gmsg{}, 0},
		{"first after compression 1", []gmsg{s1, ack, {"user", "Please continue."}}, s1, 1},
		{"second after compression 1", []gmsg{s1, ack, {"user", "Please continue."}, {"model", "Reply."}, {"user", "Please continue."}}, gmsg{}, 1},
		{"third after compression 1", []gmsg{s1, ack, {"user", "Please continue."}, {"model", "Reply."}, {"user", "next"}}, gmsg{}, 1},
		{"first after compression 2", []gmsg{s2, ack, {"user", "next"}}, s2, 2},
		{"second after compression 2", []gmsg{s2, ack, {"user", "next"}, {"model", "Reply."}, {"user", "again"}}, gmsg{}, 2},
	}
	for _, s := range steps {
		out, log := g.run(t, g.payload("session-1", s.msgs...))
		if s.fires.Role == "" {
			if out != "" {
				t.Errorf("%s: printed %s\nlog:\n%s", s.name, out, log)
			}
		} else {
			got := geminiAnswer(t, out)
			want := []gmsg{{s.fires.Role, s.fires.Content + "\n\n" + rem}}
			if len(got) != 1 || got[0] != want[0] {
				t.Errorf("%s: messages\n%+v\nwant\n%+v", s.name, got, want)
			}
		}
		if n := g.kbsCalls(); n != s.calls {
			t.Errorf("%s: kbs ran %d times in all, want %d\nlog:\n%s", s.name, n, s.calls, log)
		}
	}
}

// TestGeminiTurnEcho: the messages before the summary come back byte for
// byte (escapes included), the summary with the reminder after it, and
// fields after llm_request are still read.
func TestGeminiTurnEcho(t *testing.T) {
	g := newGem(t, "")
	rem := basicReminder(t)
	first := gmsg{"user", "IDE context: \"quoted\" \\ tab\t line\u2028sep \U0001F600 </x>"}
	sum := summaryMsg("Keep \"this\" \\ and\nthat \u00e9.")
	msgs := []gmsg{first, {"system", "a system line"}, sum, ack, {"user", "go on"}}
	out, log := g.run(t, g.payload("s", msgs...))
	got := geminiAnswer(t, out)
	want := []gmsg{first, {"system", "a system line"}, {sum.Role, sum.Content + "\n\n" + rem}}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d\n%s\nlog:\n%s", len(got), len(want), out, log)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	raw, _ := json.Marshal(first.Content)
	if !strings.Contains(out, string(raw)) {
		t.Errorf("the first message did not come back byte for byte: %s", out)
	}

	// The fields after llm_request: the parser reads the whole payload.
	g2 := newGem(t, "")
	b, _ := json.Marshal([]gmsg{sum, ack})
	late := `{"llm_request":{"messages":` + string(b) + `,"model":"m"},"timestamp":"t","hook_event_name":"BeforeModel","cwd":` +
		jsonString(g2.proj) + `,"session_id":"late"}`
	if got := geminiAnswer(t, func() string { o, _ := g2.run(t, late); return o }()); len(got) != 1 || got[0].Content != sum.Content+"\n\n"+rem {
		t.Errorf("fields after llm_request: %+v", got)
	}
}

// TestGeminiTurnPerSession: a latch belongs to one session in one
// directory; the same summary in another session is answered again.
func TestGeminiTurnPerSession(t *testing.T) {
	g := newGem(t, "")
	sum := summaryMsg("Same text.")
	for i, session := range []string{"a", "a", "b"} {
		out, _ := g.run(t, g.payload(session, sum, ack))
		if fired := out != ""; fired != (i != 1) {
			t.Errorf("run %d (session %s): fired %v", i, session, fired)
		}
	}
	if n := g.kbsCalls(); n != 2 {
		t.Errorf("kbs ran %d times, want 2", n)
	}
}

// TestGeminiTurnNothing: every case that must print nothing, and whether
// it ran kbs.
func TestGeminiTurnNothing(t *testing.T) {
	sum := summaryMsg("S.")
	cases := []struct {
		name, mode string
		stdin      func(g *gem) string
		calls      int
	}{
		{"empty stdin", "", func(*gem) string { return "" }, 0},
		{"not JSON", "", func(*gem) string { return "Got it. Thanks for the additional context! {" }, 0},
		{"truncated", "", func(g *gem) string {
			p := g.payload("s", sum, ack)
			return p[:len(p)/2] + `"Got it. Thanks for the additional context!"`
		}, 0},
		{"BeforeAgent", "", func(g *gem) string {
			return strings.Replace(g.payload("s", sum, ack), `"BeforeModel"`, `"BeforeAgent"`, 1)
		}, 0},
		{"the words typed by the user", "", func(g *gem) string {
			return g.payload("s", gmsg{"user", "<state_snapshot>"}, gmsg{"user", "Got it. Thanks for the additional context!"})
		}, 0},
		{"acknowledgement without a summary", "", func(g *gem) string { return g.payload("s", gmsg{"user", "hello"}, ack) }, 0},
		{"summary not right before it", "", func(g *gem) string { return g.payload("s", sum, gmsg{"user", "x"}, ack) }, 0},
		{"no session id", "", func(g *gem) string { return g.payload("", sum, ack) }, 0},
		{"an odd message before the summary", "", func(g *gem) string {
			return strings.Replace(g.payload("s", gmsg{"user", "x"}, sum, ack), `{"role":"user","content":"x"}`, `{"role":"user","content":["x"]}`, 1)
		}, 0},
		{"kbs fails", "fail", func(g *gem) string { return g.payload("s", sum, ack) }, 2},
		{"nothing in progress", "", func(g *gem) string {
			fakeEnv(t, "FAKE_KBS_PAYLOAD", abs(t, filepath.Join(fixtures, "empty.json")), "FAKE_KBS_LOG", g.calls)
			return g.payload("s", sum, ack)
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGem(t, c.mode)
			stdin := c.stdin(g)
			for i := 0; i < 2; i++ { // the second run is the next request
				if out, log := g.run(t, stdin); out != "" {
					t.Errorf("run %d printed %s\nlog:\n%s", i, out, log)
				}
			}
			if n := g.kbsCalls(); n != c.calls {
				t.Errorf("kbs ran %d times, want %d (one try per compression)", n, c.calls)
			}
		})
	}

	t.Run("no Kanbus project", func(t *testing.T) {
		g := newGem(t, "")
		g.proj = t.TempDir()
		mkdir(t, filepath.Join(g.proj, ".git"))
		if out, log := g.run(t, g.payload("s", sum, ack)); out != "" || g.kbsCalls() != 0 {
			t.Errorf("printed %q, kbs ran %d times\n%s", out, g.kbsCalls(), log)
		}
	})
	t.Run("no state folder", func(t *testing.T) {
		g := newGem(t, "")
		kbs := g.getenv("KBS")
		g.getenv = env("KBS", kbs)
		if out, log := g.run(t, g.payload("s", sum, ack)); out != "" || g.kbsCalls() != 0 {
			t.Errorf("printed %q, kbs ran %d times\n%s", out, g.kbsCalls(), log)
		}
	})
}

// TestGeminiTurnRun goes through Run as the wrapper does, and checks the
// flag forms that select the mode.
func TestGeminiTurnRun(t *testing.T) {
	g := newGem(t, "")
	t.Setenv("KBS", g.getenv("KBS"))
	t.Setenv("XDG_STATE_HOME", g.state)
	t.Setenv("NOWHOOK_DEBUG", "")
	var out, errb bytes.Buffer
	code := Run([]string{"--gemini-turn", "--timeout", "5s"}, strings.NewReader(g.payload("s", summaryMsg("S."), ack)), &out, &errb)
	if code != 0 || len(geminiAnswer(t, out.String())) != 1 || errb.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	Run([]string{"--gemini-turn", "--help"}, nil, &out, &errb)
	if !strings.HasPrefix(out.String(), "Usage: nowhook reminder --gemini-turn") {
		t.Errorf("--help: %q", out.String())
	}
	for args, want := range map[string]bool{
		"--gemini-turn": true, "-gemini-turn": true, "--gemini-turn=true": true, "--timeout 5s --gemini-turn": true,
		"--gemini-turn=false": false, "--gemini-turn --checkpoint": false, "---gemini-turn": false, "-- --gemini-turn": false, "gemini-turn": false, "--checkpoint": false,
	} {
		if cfg, _ := parseFlags(strings.Fields(args), logger{}); (cfg.mode == modeGeminiTurn) != want {
			t.Errorf("parseFlags(%s): mode %v, want --gemini-turn %v", args, cfg.mode, want)
		}
	}
}

// TestGeminiTurnReadsTheStart: of a 2 MB history only the start is read,
// compressed or not, and a summary further in than the first messages
// is not looked for.
func TestGeminiTurnReadsTheStart(t *testing.T) {
	g := newGem(t, "")
	for _, compressed := range []bool{false, true} {
		data := geminiHistory(g.proj, "s", 2<<20, compressed)
		r := &pipeReader{r: bytes.NewReader(data)}
		var debug bytes.Buffer
		out := geminiTurn(options{budget: 5 * time.Second, stdin: r, getenv: g.getenv, wd: t.TempDir(), log: logger{w: &debug, on: true}})
		if fired := len(out) > 0; fired != compressed {
			t.Errorf("compressed %v: fired %v\n%s", compressed, fired, debug.String())
		}
		if r.read > 256<<10 {
			t.Errorf("compressed %v: read %d of %d bytes", compressed, r.read, len(data))
		}
	}
	late := []gmsg{{"user", "a"}, {"model", "b"}, {"user", "c"}, {"model", "d"}, summaryMsg("S."), ack}
	if out, log := g.run(t, g.payload("s", late...)); out != "" {
		t.Errorf("a summary at message %d: printed %s\n%s", len(late)-2, out, log)
	}
	within := late[1:]
	if out, log := g.run(t, g.payload("s", within...)); out == "" {
		t.Errorf("a summary at message %d: printed nothing\n%s", len(within)-2, log)
	}
}
