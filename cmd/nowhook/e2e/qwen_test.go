package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Qwen Code, headless, against chatMock (docs/platforms.md#qwen-code):
// `qwen --input-format stream-json -o stream-json` in the repository, one
// user message written after each turn's result (written all at once,
// /compress overtakes the first prompt). The throwaway HOME's settings
// pick the OpenAI-compatible provider (OPENAI_BASE_URL is the mock), turn
// off the background memory agent and the other helpers that would send
// requests of their own, and turn folder trust on with the repository
// trusted, so the project's hooks run the way they do for a user who
// trusts the folder.

// qwenModel is the model the settings name; the mock answers for any.
const qwenModel = "mock-model"

// qwenSummaryMarker is in the system prompt of every compression request
// of Qwen Code 0.24.4, manual and automatic.
const qwenSummaryMarker = "summarizes a conversation when its context window is about to overflow"

// qwenHighPrompt is the prompt size a reply reports to make Qwen compress
// before its next request: above the 177,000-token limit Qwen gives an
// unknown model.
const qwenHighPrompt = 990000

// qwenMock answers Qwen Code like a model that says little: compression
// requests get a summary, every other request a short reply.
type qwenMock struct {
	*chatMock
	// highUsage: the first ordinary reply reports qwenHighPrompt, so the
	// next request compresses first (an automatic compression).
	highUsage bool
	// gate, when set, is a file the mock creates when it receives the
	// first ordinary request after a summary request.
	gate string

	mu         sync.Mutex
	highDone   bool
	lastPrompt int
	summaries  int
}

func newQwenMock(t *testing.T, highUsage bool, gate string) *qwenMock {
	t.Helper()
	m := &qwenMock{highUsage: highUsage, gate: gate}
	m.chatMock = newChatMock(t, m.reply)
	return m
}

func (m *qwenMock) reply(r *chatRequest) chatReply {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.AnyMessageContains(qwenSummaryMarker) {
		m.summaries++
		// The summary's usage keeps Qwen's token arithmetic from calling
		// the compression inflated: the history it replaces was as large
		// as the last prompt reported.
		return chatReply{Kind: "summary", PromptTokens: max(m.lastPrompt, 100), CompletionTokens: 50,
			Text: "<analysis>The user greeted the assistant.</analysis>\n<state_snapshot>\nSummary from the mock: the user said hello.\n</state_snapshot>"}
	}
	if m.gate != "" && m.summaries > 0 {
		if err := os.WriteFile(m.gate, nil, 0o644); err != nil {
			return chatReply{Kind: "turn", Status: 500, Text: "mock: " + err.Error()}
		}
		m.gate = ""
	}
	prompt := 100
	if m.highUsage && !m.highDone {
		m.highDone = true
		prompt = qwenHighPrompt
	}
	m.lastPrompt = prompt
	return chatReply{Kind: "turn", PromptTokens: prompt, CompletionTokens: 5,
		Text: fmt.Sprintf("Reply %d from the mock.", r.Index)}
}

// qwenHome writes the throwaway HOME's Qwen settings and trusts the repo.
func qwenHome(t *testing.T, s *sandbox) {
	t.Helper()
	settings := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "openai"},
			"folderTrust": map[string]any{"enabled": true},
		},
		"model":   map[string]any{"name": qwenModel},
		"memory":  map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false},
		"privacy": map[string]any{"usageStatisticsEnabled": false},
		"general": map[string]any{"enableAutoUpdate": false},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.home, ".qwen", "settings.json"), string(b)+"\n", 0o644)
	trusted, err := json.Marshal(map[string]string{s.repo: "TRUST_FOLDER"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.home, ".qwen", "trustedFolders.json"), string(trusted)+"\n", 0o644)
}

// qwenEnv is the whole environment Qwen Code runs with.
func qwenEnv(s *sandbox, m *qwenMock) []string {
	return s.env([]string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + m.BaseURL()})
}

// qwenKbs replaces the sandbox's fake kbs with one that also records the
// process group of its parent, the hook's `nowhook reminder` (which the
// wrapper execs): Qwen starts each hook command in a process group of its
// own, led by the process it spawned. When gate is set the fake answers
// only once that file exists, so that the hook cannot finish before the
// mock has the request that follows the compression.
func qwenKbs(t *testing.T, s *sandbox, mode kbsMode, gate string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# fake kbs for the Qwen Code tests\necho \"$*\" >> %s\nsed 's/.*) //' /proc/$PPID/stat | cut -d' ' -f3 >> %s\n", shQuote(s.kbsLog), shQuote(s.hookGroups()))
	if gate != "" {
		// Bounded: the hook's own budget would stop it anyway.
		fmt.Fprintf(&b, "i=0\nwhile [ ! -e %s ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n", shQuote(gate))
	}
	switch mode {
	case kbsFixture:
		fmt.Fprintf(&b, "case \"$*\" in\n*now*--json*) exec cat %s ;;\nesac\necho \"fake kbs: unsupported: $*\" >&2\nexit 1\n", shQuote(fixture(t, "basic.json")))
	case kbsFailing:
		b.WriteString("echo 'Right-now summary generation requires ai.provider litellm in .kanbus.yml' >&2\nexit 1\n")
	}
	writeFile(t, filepath.Join(s.bin, "kbs"), b.String(), 0o755)
}

// hookGroups is the file where qwenKbs records the hooks' process groups.
func (s *sandbox) hookGroups() string { return filepath.Join(s.root, "hook.groups") }

// kbsRuns returns the fake kbs's calls: the first tries, and the --raw
// retries nowhook makes after a failure.
func (s *sandbox) kbsRuns(t *testing.T) (first, raw int) {
	t.Helper()
	b, err := os.ReadFile(s.kbsLog)
	if os.IsNotExist(err) {
		return 0, 0
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		switch {
		case line == "":
		case strings.Contains(line, "--raw"):
			raw++
		default:
			first++
		}
	}
	return first, raw
}

// waitHooks waits until want hooks have called the fake kbs and Qwen Code
// has reaped the process it started for each (the leader of the hook's
// process group), so that Qwen has the hooks' output before the next
// prompt: after an automatic compression Qwen does not wait for the hook.
func waitHooks(t *testing.T, ctx context.Context, s *sandbox, want int) {
	t.Helper()
	for {
		b, _ := os.ReadFile(s.hookGroups())
		groups := strings.Fields(string(b))
		running := 0
		for _, g := range groups {
			if pgid, err := strconv.Atoi(g); err == nil && pgid > 1 {
				if _, err := os.Stat(fmt.Sprintf("/proc/%d", pgid)); err == nil {
					running++ // alive, or exited and not yet reaped by Qwen
				}
			}
		}
		if len(groups) >= want && running == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %d compact hook(s) to end (%d started, %d not reaped): %v", want, len(groups), running, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// qwenSession is what one stream-json session printed.
type qwenSession struct {
	results []string // the text of each turn's result, in order
	errors  []string // results that are errors
	stderr  string
}

// runQwenSession runs one headless Qwen Code process in dir and sends each
// prompt once the previous turn's result is out; before prompt i (i > 0)
// it calls before(i), when set.
func runQwenSession(t *testing.T, ctx context.Context, bin string, env []string, dir string, prompts []string, before func(i int)) qwenSession {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, bin, "--input-format", "stream-json", "--output-format", "stream-json")
	stdin, stdout, stderr := startPiped(t, cmd)
	send := func(p string) {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Errorf("writing prompt %q: %v", p, err)
		}
	}
	var sess qwenSession
	next := 0
	send(prompts[next])
	next++
	scanErr := jsonLines(stdout, func(m map[string]any) {
		if m["type"] != "result" {
			return
		}
		text, _ := m["result"].(string)
		sess.results = append(sess.results, text)
		if isErr, _ := m["is_error"].(bool); isErr {
			sess.errors = append(sess.errors, fmt.Sprintf("%v", m))
		}
		if next < len(prompts) {
			if before != nil {
				before(next)
			}
			send(prompts[next])
			next++
		} else {
			stdin.Close()
		}
	})
	io.Copy(io.Discard, stdout)
	err := cmd.Wait()
	killGroup(cmd)
	sess.stderr = stderr.String()
	if scanErr != nil {
		t.Errorf("reading qwen output: %v", scanErr)
	}
	if ctx.Err() != nil {
		t.Fatalf("qwen session did not finish in time: %v\nstderr:\n%s", ctx.Err(), sess.stderr)
	}
	if err != nil {
		t.Fatalf("qwen session: %v\nstderr:\n%s", err, sess.stderr)
	}
	if len(sess.results) != len(prompts) {
		t.Fatalf("qwen finished %d of %d turns\nstderr:\n%s", len(sess.results), len(prompts), sess.stderr)
	}
	if len(sess.errors) > 0 {
		t.Fatalf("qwen turns ended in error: %v", sess.errors)
	}
	return sess
}

// setupQwen runs `nowhook setup --yes --agents qwen` in dir.
func setupQwen(t *testing.T, ctx context.Context, s *sandbox, dir string) string {
	t.Helper()
	res := runCmd(t, ctx, s.env(nil), dir, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "qwen")
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents qwen:\n%s", strings.TrimSpace(res.stdout))
	for _, f := range []string{".qwen/settings.json", ".qwen/hooks/kanbus-compaction-right-now.sh", "QWEN.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
	return res.stdout
}

// qwenSummaryIndex returns the index of the only compression request.
func qwenSummaryIndex(t *testing.T, reqs []recordedRequest) int {
	t.Helper()
	return onlyRequest(t, reqs, "summary", "the session never compressed")
}

// checkNotBefore asserts that no request up to and including index last
// carries the reminder: so what carries it later came from the compact
// hook (Qwen keeps a startup hook's output through a compression).
func checkNotBefore(t *testing.T, reqs []recordedRequest, last int, reminder string) {
	t.Helper()
	for i := 0; i <= last && i < len(reqs); i++ {
		if bodyContains(t, reqs[i].Body, reminder) {
			t.Errorf("request %d (%s) already contains the reminder", i, reqs[i].Kind)
		}
	}
}

// checkQwenRequests asserts that every request went to the chat API.
func checkQwenRequests(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	for i, r := range reqs {
		t.Logf("request %d: %s %s kind=%s %d bytes", i, r.Method, r.Path, r.Kind, len(r.Body))
		if r.Method != "POST" || r.Path != "/v1/chat/completions" {
			t.Errorf("request %d: unexpected %s %s", i, r.Method, r.Path)
		}
	}
}
