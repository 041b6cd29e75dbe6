package prove

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// Claude Code (measured on 2.1.332, docs/platforms.md#claude-code): one
// `claude -p` process over stream-json in the view, with the Messages API
// mock as its only endpoint; the prompts hello, /compact and a follow-up,
// each sent once the previous turn's result arrived. --include-hook-events
// makes it report each hook's run (hook_response, with its output and
// exit code); in -p mode it skips a settings file it cannot parse without
// a word there, and `claude doctor` then says "Invalid settings".
var claudeDriver = &driver{agent: "claude", compaction: "/compact", run: runClaude}

func runClaude(ctx context.Context, w *world) seen {
	m, err := inNet(w, func() (*mockmodel.Anthropic, error) { return mockmodel.NewAnthropic(false) })
	if err != nil {
		return seen{err: err}
	}
	defer m.Close()
	env := w.env("ANTHROPIC_BASE_URL="+m.URL, "ANTHROPIC_API_KEY=dummy", "DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	var s seen
	s.hookReported = true
	s.stderr, s.err = streamSession(ctx, w, env, []string{"-p", "--input-format", "stream-json",
		"--output-format", "stream-json", "--verbose", "--include-hook-events"},
		[]string{"hello", "/compact", "What was I working on?"}, s.claudeEvent)
	s.compacted, s.reached = afterKind(m.Requests(), "summary")
	if !s.reached && s.hookRuns == 0 {
		s.refused = claudeRefusal(ctx, w, env)
	}
	return s
}

// claudeEvent reads one stream-json line: the compact SessionStart hook's
// runs, their output and failures.
func (s *seen) claudeEvent(m map[string]any) {
	if m["type"] != "system" || m["subtype"] != "hook_response" || m["hook_event"] != "SessionStart" {
		return
	}
	if name, _ := m["hook_name"].(string); !strings.HasSuffix(name, ":compact") {
		return
	}
	s.hookRuns++
	out, _ := m["stdout"].(string)
	if out == "" {
		out, _ = m["output"].(string)
	}
	s.hookOutput += out
	if code, ok := m["exit_code"].(float64); ok && code != 0 {
		stderr, _ := m["stderr"].(string)
		s.hookFailed = fmt.Sprintf("exit status %d: %s", int(code), strings.TrimSpace(stderr))
	}
}

// claudeRefusal runs `claude doctor` in the view and returns what it
// lists under "Invalid settings" (its exit status is always 0), or "".
func claudeRefusal(ctx context.Context, w *world, env []string) string {
	cmd := command(ctx, w.client, "doctor")
	cmd.Dir, cmd.Env = w.view, env
	var b strings.Builder
	cmd.Stdout = &limited{b: &b, n: 1 << 20}
	cmd.Stderr = cmd.Stdout
	if w.start(cmd) == nil {
		cmd.Wait()
	}
	killGroup(cmd)
	out := b.String()
	var items []string
	in := false
	for line := range strings.SplitSeq(out, "\n") {
		switch {
		case strings.TrimSpace(line) == "Invalid settings":
			in = true
		case in && strings.HasPrefix(line, "- "):
			items = append(items, strings.TrimPrefix(line, "- "))
		default:
			in = false
		}
	}
	return strings.Join(items, "; ")
}

// streamSession runs the client with args in the view, writes each
// prompt as a stream-json user message once the previous turn's result
// arrived (all at once, a command such as /compact overtakes the turn
// before it), and hands every JSON line it prints to event. It returns
// the run's error and the end of its stderr.
func streamSession(ctx context.Context, w *world, env, args, prompts []string, event func(map[string]any)) (string, error) {
	cmd := command(ctx, w.client, args...)
	cmd.Dir, cmd.Env = w.view, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	cmd.Stderr = &limited{b: &stderr, n: 64 << 10}
	if err := w.start(cmd); err != nil {
		return "", err
	}
	defer killGroup(cmd)
	send := func(p string) {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		stdin.Write(append(b, '\n'))
	}
	send(prompts[0])
	next := 1
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		event(m)
		if m["type"] != "result" {
			continue
		}
		if next == len(prompts) {
			stdin.Close()
			continue
		}
		send(prompts[next])
		next++
	}
	err = cmd.Wait()
	if next < len(prompts) && err == nil {
		err = fmt.Errorf("the client ended after %d of %d prompts", next, len(prompts))
	}
	return stderr.String(), err
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *strings.Builder
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// afterKind reports whether a request of kind was followed by another,
// and whether the first request after it carries the reminder.
func afterKind(reqs []mockmodel.Request, kind string) (compacted, reached bool) {
	for i, r := range reqs {
		if r.Kind == kind && i+1 < len(reqs) {
			return true, carries(reqs[i+1].Body)
		}
	}
	return false, false
}

// carries reports whether a request body holds the reminder in one of
// its JSON strings (after decoding, so escapes do not matter).
func carries(body []byte) bool {
	strs, err := mockmodel.Strings(body)
	if err != nil {
		return strings.Contains(string(body), Reminder)
	}
	for _, s := range strs {
		if strings.Contains(s, Reminder) {
			return true
		}
	}
	return false
}
