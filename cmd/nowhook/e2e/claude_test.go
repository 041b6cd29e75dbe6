package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeEnv is the whole environment Claude Code runs with (E2E.md): a
// throwaway HOME, the mock at url as the only endpoint, no telemetry or
// updates.
func claudeEnv(s *sandbox, url string) []string {
	return s.env([]string{
		"ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=dummy",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	})
}

// claudeSession is what one stream-json session printed.
type claudeSession struct {
	results     int              // "result" messages, one per finished turn
	errors      []string         // results with is_error or a non-success subtype
	hookEvents  []map[string]any // hook_* system messages (--include-hook-events)
	compactions []string         // compact_boundary triggers (manual, auto)
	stderr      string
}

// runClaudeSession runs one `claude -p` stream-json process in the repo
// and sends each prompt as a user message once the previous turn ended.
func runClaudeSession(t *testing.T, ctx context.Context, bin string, env []string, dir string, prompts []string) claudeSession {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, bin, "-p",
		"--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--include-hook-events")
	stdin, stdout, stderr := startPiped(t, cmd)
	send := func(p string) {
		b, _ := json.Marshal(map[string]any{"type": "user",
			"message": map[string]any{"role": "user", "content": p}})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Errorf("writing prompt %q: %v", p, err)
		}
	}
	var sess claudeSession
	next := 0
	send(prompts[next])
	next++
	scanErr := jsonLines(stdout, func(m map[string]any) {
		typ, _ := m["type"].(string)
		sub, _ := m["subtype"].(string)
		switch {
		case typ == "result":
			sess.results++
			if isErr, _ := m["is_error"].(bool); isErr || sub != "success" {
				sess.errors = append(sess.errors, fmt.Sprintf("%v", m))
			}
			if next < len(prompts) {
				send(prompts[next])
				next++
			} else {
				stdin.Close()
			}
		case typ == "system" && strings.HasPrefix(sub, "hook_"):
			sess.hookEvents = append(sess.hookEvents, m)
		case typ == "system" && sub == "compact_boundary":
			meta, _ := m["compact_metadata"].(map[string]any)
			trig, _ := meta["trigger"].(string)
			sess.compactions = append(sess.compactions, trig)
		}
	})
	io.Copy(io.Discard, stdout)
	err := cmd.Wait()
	killGroup(cmd)
	sess.stderr = stderr.String()
	if scanErr != nil {
		t.Errorf("reading claude output: %v", scanErr)
	}
	if ctx.Err() != nil {
		t.Fatalf("claude session did not finish in time: %v\nstderr:\n%s", ctx.Err(), sess.stderr)
	}
	if err != nil {
		t.Fatalf("claude session: %v\nstderr:\n%s", err, sess.stderr)
	}
	if sess.results != len(prompts) {
		t.Fatalf("claude finished %d of %d turns\nstderr:\n%s", sess.results, len(prompts), sess.stderr)
	}
	if len(sess.errors) > 0 {
		t.Fatalf("claude turns ended in error: %v", sess.errors)
	}
	return sess
}

// compactHookRuns returns the hook_response events of SessionStart hooks
// fired by a compaction.
func (s claudeSession) compactHookRuns() []map[string]any {
	var out []map[string]any
	for _, e := range s.hookEvents {
		if e["subtype"] == "hook_response" && e["hook_event"] == "SessionStart" {
			if name, _ := e["hook_name"].(string); strings.HasSuffix(name, ":compact") {
				out = append(out, e)
			}
		}
	}
	return out
}

// setupClaude runs `nowhook setup --yes --agents claude` in the repo.
func setupClaude(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"),
		"setup", "--yes", "--agents", "claude")
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents claude:\n%s", strings.TrimSpace(res.stdout))
	for _, f := range []string{".claude/settings.json", ".claude/hooks/kanbus-compaction-right-now.sh"} {
		if _, err := os.Stat(filepath.Join(s.repo, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
}

// summaryIndex returns the index of the only summary request.
func summaryIndex(t *testing.T, reqs []recordedRequest) int {
	t.Helper()
	return onlyRequest(t, reqs, "summary", "the session never compacted")
}

// checkReinjected asserts that the first request after the summary request
// carries the exact reminder, and that no request before it does (so the
// reminder came from the compact hook, not from anything else in context).
func checkReinjected(t *testing.T, reqs []recordedRequest, reminder string) {
	t.Helper()
	for i, r := range reqs {
		if r.Path != "/v1/messages" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
	idx := summaryIndex(t, reqs)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, reqs[i].Body, reminder) {
			t.Errorf("request %d (before or at the summary) already contains the reminder", i)
		}
	}
	after := reqs[idx+1]
	if !bodyContains(t, after.Body, reminder) {
		t.Errorf("the first request after the summary request (request %d of %d) lacks the reminder\nwant:\n%s\nbody:\n%.4000s",
			idx+1, len(reqs), reminder, after.Body)
	}
}

// checkNoReminder asserts that no request carries any part of a reminder.
func checkNoReminder(t *testing.T, reqs []recordedRequest, reminder string) {
	t.Helper()
	lines := strings.Split(reminder, "\n")
	for i, r := range reqs {
		for _, l := range lines {
			if l != "" && bodyContains(t, r.Body, l) {
				t.Errorf("request %d contains reminder line %q", i, l)
			}
		}
	}
}
