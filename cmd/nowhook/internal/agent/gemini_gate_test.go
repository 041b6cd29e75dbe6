package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// The gate of Gemini CLI's BeforeModel hook (templates/gemini-turn.sh), run
// as Gemini CLI runs it: `bash -c GeminiTurnCommand` in the project, the
// payload on stdin. A fake nowhook-reminder on PATH records each hand-over
// and the bytes it got; the real client's runs are in the e2e tests.

// gateAck is the model message Gemini CLI 0.61.0 writes after a summary.
const gateAck = "Got it. Thanks for the additional context!"

// gatePayload is a BeforeModel payload, compact as Gemini CLI writes it,
// whose history is msgs (role, content pairs) and then filler up to pad
// bytes.
func gatePayload(t *testing.T, session string, pad int, msgs ...string) []byte {
	t.Helper()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var ms []msg
	for i := 0; i+1 < len(msgs); i += 2 {
		ms = append(ms, msg{msgs[i], msgs[i+1]})
	}
	line := strings.Repeat("A tool's output line, with \"quotes\", {braces} and ├── boxes. ", 20)
	for n := 0; n < pad; n += 2 * len(line) {
		ms = append(ms, msg{"model", line}, msg{"user", line})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ms); err != nil {
		t.Fatal(err)
	}
	return []byte(`{"session_id":"` + session + `","transcript_path":"/t/chats/s.jsonl","cwd":"/p","hook_event_name":"BeforeModel",` +
		`"timestamp":"2026-12-02T00:40:25.565Z","llm_request":{"model":"gemini-2.5-flash","messages":` +
		strings.TrimSpace(b.String()) + `,"config":{"temperature":1,"topP":0.95,"topK":64}}}`)
}

// gateContext is the start of the first user message: the session context.
func gateContext(size int) string {
	return "<session_context>\nThis is the Gemini CLI.\n" + strings.Repeat("├───a file of the folder listing\n", size/34) + "</session_context>"
}

type gate struct {
	t          *testing.T
	dir, state string
	log        string
}

// newGate writes the script setup writes, and a fake runtime that appends
// what it got on stdin to a log and prints nothing.
func newGate(t *testing.T) *gate {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed; Gemini CLI runs its hooks with bash")
	}
	g := &gate{t: t, dir: t.TempDir()}
	g.state = filepath.Join(g.dir, "state")
	g.log = filepath.Join(g.dir, "handed")
	script := filepath.Join(g.dir, "proj", GeminiTurnScript)
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(templates.RenderGeminiTurn(5*time.Second, "")), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(g.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\n{ printf 'args: %s LC_ALL=%s\\n' \"$*\" \"${LC_ALL-unset}\"; cat; printf '\\n--\\n'; } >>" + g.log + "\n"
	if err := os.WriteFile(filepath.Join(bin, "nowhook-reminder"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return g
}

// run runs the hook once with payload and extra environment, and returns
// what the runtime got, "" when the gate handed nothing over.
func (g *gate) run(payload []byte, shell string, env ...string) string {
	g.t.Helper()
	os.Remove(g.log)
	cmd := exec.Command(shell, "-c", GeminiTurnCommand)
	cmd.Dir = filepath.Join(g.dir, "proj")
	cmd.Env = append([]string{"PATH=" + filepath.Join(g.dir, "bin") + ":/usr/bin:/bin", "HOME=" + filepath.Join(g.dir, "home"),
		"XDG_STATE_HOME=" + g.state, "GEMINI_PROJECT_DIR=" + cmd.Dir, "GEMINI_SESSION_ID=s1"}, env...)
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		g.t.Fatalf("%s -c %s: %v, printed %q", shell, GeminiTurnCommand, err, out)
	}
	got, err := os.ReadFile(g.log)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		g.t.Fatal(err)
	}
	return string(got)
}

// handed checks that the runtime got payload whole, once.
func (g *gate) handed(what, got string, payload []byte) {
	g.t.Helper()
	args, rest, _ := strings.Cut(got, "\n")
	// --script names the gate that runs (BASH_SOURCE, which bash sets to
	// the file it sources; sh has none, and gives its own $0).
	if !strings.HasPrefix(args, "args: --timeout 5s --sources kanbus --gemini-turn --script ") || !strings.HasSuffix(args, " LC_ALL=unset") {
		g.t.Errorf("%s: the runtime ran as %q", what, args)
	}
	if rest != string(payload)+"\n--\n" {
		g.t.Errorf("%s: the runtime got %d bytes, not the payload's %d as they came", what, len(rest)-4, len(payload))
	}
}

// TestGeminiGate walks one session through its requests: none hands over
// before a compression, the first after each compression does, with the
// payload byte for byte, and the later ones of the same compression do
// not; a second session is apart.
func TestGeminiGate(t *testing.T) {
	g := newGate(t)
	ctx := gateContext(6000)
	summary1 := ctx + "<state_snapshot>Decisions so far, with \\\"quotes\\\" and a }\"},{\"role\": inside.</state_snapshot>"
	summary2 := ctx + "<state_snapshot>Decisions since then.</state_snapshot>"
	first := gatePayload(t, "s1", 0, "user", ctx+"hello")
	quiet := gatePayload(t, "s1", 2<<20, "user", ctx+"hello", "model", "Reply.", "user", "Please continue.")
	after1 := gatePayload(t, "s1", 0, "user", summary1, "model", gateAck, "user", "Please continue.")
	later1 := gatePayload(t, "s1", 2<<20, "user", summary1, "model", gateAck, "user", "Please continue.", "model", "Reply.")
	after2 := gatePayload(t, "s1", 300<<10, "user", summary2, "model", gateAck, "user", "Please continue.")
	summary3 := gateContext(40<<10) + "<state_snapshot>Decisions at last.</state_snapshot>"
	after3 := gatePayload(t, "s1", 1<<20, "user", summary3, "model", gateAck, "user", "Please continue.")

	for _, step := range []struct {
		what    string
		payload []byte
		hands   bool
	}{
		{"the first request", first, false},
		{"a 2 MB request before any compression", quiet, false},
		{"the first request after compression 1", after1, true},
		{"the next request", after1, false},
		{"a later request of compression 1, 2 MB", later1, false},
		{"the first request after compression 2", after2, true},
		{"a later request of compression 2", after2, false},
		{"the first request after compression 3, a 40 KiB first message", after3, true},
		{"a later request of compression 3", after3, false},
		{"a later request of compression 3 whose model name is longer", bytes.Replace(after3, []byte(`"gemini-2.5-flash"`), []byte(`"gemini-2.5-flash-lite"`), 1), true},
		{"and the next", bytes.Replace(after3, []byte(`"gemini-2.5-flash"`), []byte(`"gemini-2.5-flash-lite"`), 1), false},
	} {
		got := g.run(step.payload, "bash")
		switch {
		case step.hands && got == "":
			t.Errorf("%s: the gate handed nothing over", step.what)
		case step.hands:
			g.handed(step.what, got, step.payload)
		case got != "":
			t.Errorf("%s: the gate handed it over", step.what)
		}
	}
	// Another session in the same state folder: its own latch.
	if got := g.run(gatePayload(t, "s2", 0, "user", summary3, "model", gateAck), "bash", "GEMINI_SESSION_ID=s2"); got == "" {
		t.Errorf("session s2's first request after a compression was not handed over (s1's latch passed it)")
	}
	if got := g.run(bytes.Replace(after3, []byte(`"gemini-2.5-flash"`), []byte(`"gemini-2.5-flash-lite"`), 1), "bash"); got != "" {
		t.Errorf("session s1 after s2's hand-over: handed over again")
	}
	ents, err := os.ReadDir(filepath.Join(g.state, "nowhook", "compressions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("latch %s has mode %v, want 0600 (it holds the conversation's summary)", e.Name(), info.Mode().Perm())
		}
	}
	if len(ents) != 2 {
		t.Errorf("%d latches, want one per session (2)", len(ents))
	}
}

// TestGeminiGateHandsOver: every case the gate cannot decide with builtins
// goes to the runtime, the payload whole: a first message longer than its
// window, no session id or a strange one, a latch that is not the gate's,
// sh instead of bash; a locale of the user's comes back for the runtime.
func TestGeminiGateHandsOver(t *testing.T) {
	g := newGate(t)
	summary := gateContext(2000) + "<state_snapshot>S.</state_snapshot>"
	after := gatePayload(t, "s1", 100<<10, "user", summary, "model", gateAck)
	huge := gatePayload(t, "s1", 0, "user", gateContext(70<<10)+"hello", "model", "Reply.")
	for _, c := range []struct {
		what    string
		payload []byte
		shell   string
		env     []string
	}{
		{"a first message over 64 KiB", huge, "bash", nil},
		{"no GEMINI_SESSION_ID", after, "bash", []string{"GEMINI_SESSION_ID="}},
		{"a session id with a slash", after, "bash", []string{"GEMINI_SESSION_ID=../x"}},
		{"sh", after, "sh", nil},
	} {
		for i := range 2 {
			g.handed(c.what, g.run(c.payload, c.shell, c.env...), c.payload)
			if t.Failed() {
				t.Fatalf("%s, run %d", c.what, i+1)
			}
		}
	}
	latch := filepath.Join(g.state, "nowhook", "compressions", "gemini-session-s1")
	for _, junk := range []string{"", "x", `"messages":[`} {
		if err := os.MkdirAll(filepath.Dir(latch), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(latch, []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		g.handed("a latch holding "+junk, g.run(after, "bash"), after)
	}
	if got := g.run(after, "bash"); got != "" {
		t.Errorf("the latch the gate rewrote did not pass the next request")
	}
	got := g.run(gatePayload(t, "s3", 0, "user", summary, "model", gateAck), "bash", "GEMINI_SESSION_ID=s3", "LC_ALL=C.UTF-8")
	if !strings.HasPrefix(got, "args: --timeout 5s --sources kanbus --gemini-turn --script "+filepath.Join(g.dir, "proj", GeminiTurnScript)+" LC_ALL=C.UTF-8\n") {
		t.Errorf("the user's LC_ALL did not reach the runtime: %.80q", got)
	}
}

// TestGeminiGateNoScript: in a clone without the script the command exits
// 0 and prints nothing, under bash as Gemini CLI runs it.
func TestGeminiGateNoScript(t *testing.T) {
	g := newGate(t)
	if err := os.Remove(filepath.Join(g.dir, "proj", GeminiTurnScript)); err != nil {
		t.Fatal(err)
	}
	if got := g.run(gatePayload(t, "s1", 0, "user", "<state_snapshot>S.</state_snapshot>", "model", gateAck), "bash"); got != "" {
		t.Errorf("without the script the runtime ran: %.80q", got)
	}
}
