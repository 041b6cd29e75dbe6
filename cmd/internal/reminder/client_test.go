package reminder

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Payloads as GitHub Copilot CLI 1.0.102 hands them to the hooks of
// .claude/settings.json (measured: TestCopilotClaudeEntry), and as Claude
// Code 2.1.332 does; {cwd} is the project.
const (
	copilotSessionStart = `{"hook_event_name":"SessionStart","session_id":"d5198137-6719-46ba-9ebc-97d8d08a3f98","timestamp":"2026-12-01T21:48:05.375Z","cwd":{cwd},"source":"new","initial_prompt":"say hello"}`
	copilotPreCompact   = `{"hook_event_name":"PreCompact","session_id":"6acfca9a-185d-4496-9e56-4fadde740337","timestamp":"2026-12-01T21:50:09.427Z","cwd":{cwd},"transcript_path":"/home/u/.copilot/session-state/6acfca9a/events.jsonl","trigger":"auto","custom_instructions":""}`
	copilotPrompt       = `{"hook_event_name":"UserPromptSubmit","session_id":"d5198137-6719-46ba-9ebc-97d8d08a3f98","timestamp":"2026-12-01T21:48:05.467Z","cwd":{cwd},"prompt":"say hello"}`
	claudePreCompact    = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":{cwd},"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`
	claudeCompact       = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":{cwd},"hook_event_name":"SessionStart","source":"compact"}`
)

// clientRun runs mode on the payload (with {cwd} the fake's project) with
// COPILOT_CLI set or not, and returns what it printed, the debug log and
// how many times kbs ran.
func clientRun(t *testing.T, mode func(options) []byte, pl string, copilotEnv bool) (out, log string, kbs int) {
	t.Helper()
	g := newGem(t, "")
	getenv := g.getenv
	if copilotEnv {
		getenv = func(k string) string {
			if k == "COPILOT_CLI" {
				return "1"
			}
			return g.getenv(k)
		}
	}
	var debug bytes.Buffer
	b := mode(options{budget: 5 * time.Second, stdin: strings.NewReader(strings.ReplaceAll(pl, "{cwd}", jsonString(g.proj))),
		getenv: getenv, wd: t.TempDir(), log: logger{w: &debug, on: true}})
	return string(b), debug.String(), g.kbsCalls()
}

// TestCopilotRunsNothing: where GitHub Copilot CLI starts nowhook's Claude
// Code hooks, the summary hint, the reminder (even for a source of
// compact, which Copilot does not send today) and the checkpoint print
// nothing and start no kbs, and the debug log names Copilot.
func TestCopilotRunsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		mode func(options) []byte
		pl   string
		why  string // what the debug log says
	}{
		{"hint at PreCompact", hint, copilotPreCompact, "GitHub Copilot CLI started this hook"},
		{"reminder at SessionStart", remind, copilotSessionStart, `payload source is "new", not compact`},
		{"reminder at a compact SessionStart", remind, strings.Replace(copilotSessionStart, `"new"`, `"compact"`, 1), "GitHub Copilot CLI started this hook"},
		{"checkpoint at UserPromptSubmit", checkpoint, copilotPrompt, "GitHub Copilot CLI started this hook"},
	} {
		out, log, kbs := clientRun(t, c.mode, c.pl, true)
		if out != "" || kbs != 0 {
			t.Errorf("%s: printed %q, kbs ran %d times\n%s", c.name, out, kbs, log)
		}
		if !strings.Contains(log, c.why) {
			t.Errorf("%s: the debug log does not say why: %s", c.name, log)
		}
	}
}

// TestClaudeUnderCopilotShell: a Claude Code session started from a shell
// inside Copilot CLI inherits COPILOT_CLI=1, but its payloads carry no
// timestamp: the hint and the reminder still print. A payload with a
// timestamp and no COPILOT_CLI is not taken for Copilot's either.
func TestClaudeUnderCopilotShell(t *testing.T) {
	const hinted = "Kanbus work in progress: keep"
	if out, log, _ := clientRun(t, hint, claudePreCompact, true); !strings.Contains(out, hinted) {
		t.Errorf("the hint in a Claude Code session with COPILOT_CLI inherited printed %q\n%s", out, log)
	}
	if out, log, _ := clientRun(t, remind, claudeCompact, true); !strings.Contains(out, "kbs-abc") {
		t.Errorf("the reminder in a Claude Code session with COPILOT_CLI inherited printed %q\n%s", out, log)
	}
	if out, log, _ := clientRun(t, hint, copilotPreCompact, false); !strings.Contains(out, hinted) {
		t.Errorf("a payload with a timestamp, without COPILOT_CLI: printed %q\n%s", out, log)
	}
}

// TestForeignClient: the names; a payload with a timestamp from a client
// that sets its own project variable (Qwen Code started inside a Copilot
// session's shell) is not taken for Copilot's.
func TestForeignClient(t *testing.T) {
	t.Parallel()
	copilot := func(k string) string {
		if k == "COPILOT_CLI" {
			return "1"
		}
		return ""
	}
	none := func(string) string { return "" }
	qwenUnderCopilot := func(k string) string {
		switch k {
		case "COPILOT_CLI":
			return "1"
		case "QWEN_PROJECT_DIR":
			return "/repo"
		}
		return ""
	}
	for _, c := range []struct {
		pl     payload
		getenv func(string) string
		want   string
	}{
		{payload{cursorVersion: true}, none, "Cursor"},
		{payload{timestamp: true}, copilot, "GitHub Copilot CLI"},
		{payload{timestamp: true}, none, ""},
		{payload{timestamp: true}, qwenUnderCopilot, ""},
		{payload{}, copilot, ""},
		{payload{}, none, ""},
	} {
		if got, _ := foreignClient(c.pl, c.getenv); got != c.want {
			t.Errorf("foreignClient(%+v) = %q, want %q", c.pl, got, c.want)
		}
	}
}
