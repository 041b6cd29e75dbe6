package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// GitHub Copilot CLI (npm @github/copilot 1.0.102), offline: its own
// "bring your own key" mode (COPILOT_OFFLINE=true, COPILOT_PROVIDER_BASE_URL
// at the chat mock, COPILOT_MODEL), so no GitHub sign-in; --trust-folder
// loads the repository's hooks for the one session. Copilot reads Claude
// Code's .claude/settings.json as repository configuration, so these tests
// set up Claude Code with nowhook and run Copilot in that repository: what
// nowhook's hooks printed there (a shim on PATH records each run of
// nowhook: its arguments, its stdin and its stdout) and what reached the
// model. Pinned in scripts/pins.tsv, so CI runs these. Run:
// eval "$(sh scripts/install-agents.sh copilot)"; go test ./cmd/nowhook/e2e/ -run '^TestCopilot' -v

// copilotCache is where Copilot unpacks its package at its first start
// (XDG_CACHE_HOME; 235 MB, some 6 s): the .cache of the client's own
// folder where it was installed by scripts/install-agents.sh (which puts
// it there too), else one folder for the test run.
func copilotCache(t *testing.T, bin string) string {
	t.Helper()
	if i := strings.Index(bin, "/node_modules/.bin/"); i > 0 {
		return bin[:i] + "/.cache"
	}
	copilotTmpOnce.Do(func() { copilotTmp, _ = os.MkdirTemp("", "nowhook-e2e-copilot-cache-") })
	if copilotTmp == "" {
		t.Fatal("no temporary folder for Copilot's cache")
	}
	return copilotTmp
}

var (
	copilotTmpOnce sync.Once
	copilotTmp     string
)

// copilotRun runs `copilot -p PROMPT` in dir against m and returns its
// output.
func copilotRun(t *testing.T, ctx context.Context, bin string, s *sandbox, m *chatMock, dir, prompt string, extra ...string) string {
	// extra: more of the client's environment.
	t.Helper()
	env := s.env([]string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + m.BaseURL(), "COPILOT_PROVIDER_API_KEY=dummy",
		"COPILOT_MODEL=mock-model", "COPILOT_AUTO_UPDATE=false", "XDG_CACHE_HOME=" + copilotCache(t, bin)})
	clientVersion(t, ctx, env, bin)
	env = append(env, extra...)
	args := []string{"-p", prompt, "--allow-all-tools", "--trust-folder", "--no-auto-update"}
	res := runCmd(t, ctx, env, dir, "", bin, args...)
	if res.err != nil {
		t.Fatalf("copilot %v: %v\n%.3000s%.3000s", args, res.err, res.stdout, res.stderr)
	}
	return res.stdout
}

// hookRun is one run of nowhook that a hook started.
type hookRun struct {
	args, stdin, stdout string
}

// shimNowhook replaces the sandbox's nowhook with a script that runs it
// and records each run; it returns a function that reads the runs.
func shimNowhook(t *testing.T, s *sandbox) func() []hookRun {
	t.Helper()
	real := filepath.Join(nowhookBinary(t), "nowhook")
	log := filepath.Join(s.root, "nowhook-runs.log")
	os.Remove(filepath.Join(s.bin, "nowhook"))
	writeFile(t, filepath.Join(s.bin, "nowhook"), "#!/bin/sh\n# records each run of nowhook: arguments, stdin, stdout (base64)\n"+
		"in=$(cat)\nout=$(printf '%s' \"$in\" | "+shQuote(real)+" \"$@\")\n"+
		"printf '%s\\t%s\\t%s\\n' \"$(printf '%s' \"$*\" | base64 -w0)\" \"$(printf '%s' \"$in\" | base64 -w0)\" \"$(printf '%s' \"$out\" | base64 -w0)\" >> "+shQuote(log)+"\n"+
		"printf '%s' \"$out\"\n", 0o755)
	return func() []hookRun {
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		var runs []hookRun
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				t.Fatalf("nowhook-runs.log: bad line %q", line)
			}
			var r [3]string
			for i := range f {
				d, err := base64.StdEncoding.DecodeString(f[i])
				if err != nil {
					t.Fatalf("nowhook-runs.log: %v", err)
				}
				r[i] = string(d)
			}
			runs = append(runs, hookRun{r[0], r[1], r[2]})
		}
		return runs
	}
}

// copilotSummaryPhrase starts the last user message of Copilot CLI's
// compaction (summary) request.
const copilotSummaryPhrase = "Please create a detailed summary of the conversation so far."

// TestCopilotClaudeEntry: after `nowhook setup --yes --agents claude
// --checkpoint`, a Copilot CLI session in the repository whose three tool
// calls report 95% of the window (COPILOT_PROVIDER_MAX_PROMPT_TOKENS), so
// that Copilot compacts. Copilot runs every nowhook entry of
// .claude/settings.json: the compact hook at session start (it ignores the
// matcher compact; source new), the checkpoint at the prompt and after each
// tool call, and the summary hint before its compaction. Each prints
// nothing and no kbs starts (the hint steps aside for Copilot, whose
// preCompact output would reach nothing: before it did, it printed the ids
// and ran kbs), and no request holds the reminder, a checkpoint or the hint.
func TestCopilotClaudeEntry(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "COPILOT_BIN", "copilot")
	ctx := probeCtx(t)
	s := newSandbox(t, kbsFixture)
	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude", "--checkpoint")
	runs := shimNowhook(t, s)
	var mu sync.Mutex
	n := 0
	m := newChatMock(t, func(r *chatRequest) chatReply {
		if strings.HasPrefix(r.LastUserText(), copilotSummaryPhrase) {
			return chatReply{Kind: "summary", Text: "The user greeted the assistant; a command ran.", PromptTokens: 100, CompletionTokens: 8}
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k <= 3 {
			return chatReply{Kind: "turn", ToolCalls: []chatToolCall{{ID: fmt.Sprintf("call_%d", k), Name: "bash", Arguments: `{"command":"echo hi","description":"say hi"}`}},
				PromptTokens: 95000, CompletionTokens: 8}
		}
		return chatReply{Kind: "turn", Text: fmt.Sprintf("Reply %d from the mock.", k), PromptTokens: 100, CompletionTokens: 8}
	})
	copilotRun(t, ctx, bin, s, m, s.repo, "say hello", "COPILOT_PROVIDER_MAX_PROMPT_TOKENS=100000")
	reqs := m.Requests()
	t.Logf("requests: %s", kinds(reqs))
	if !strings.Contains(kinds(reqs), "summary") {
		t.Fatalf("Copilot did not compact (requests: %s)", kinds(reqs))
	}
	seen := map[string]int{}
	for _, r := range runs() {
		var what string
		switch {
		case strings.Contains(r.args, "--hint"):
			what = "hint"
		case strings.Contains(r.args, "--checkpoint"):
			what = "checkpoint"
		default:
			what = "reminder"
		}
		event := regexp.MustCompile(`"hook_event_name":"([A-Za-z]+)"`).FindStringSubmatch(r.stdin)
		if event != nil {
			what += " at " + event[1]
		}
		seen[what]++
		t.Logf("nowhook %s (%s) printed %d bytes; stdin %.300s", r.args, what, len(r.stdout), r.stdin)
		if r.stdout != "" {
			t.Errorf("nowhook %s (%s) printed %q in Copilot CLI", r.args, what, r.stdout)
		}
	}
	t.Logf("nowhook's runs in Copilot CLI: %v", seen)
	for _, want := range []string{"reminder at SessionStart", "checkpoint at UserPromptSubmit", "checkpoint at PostToolUse", "hint at PreCompact"} {
		if seen[want] == 0 {
			t.Errorf("no run of the %s: Copilot did not start that entry of .claude/settings.json (runs: %v)", want, seen)
		}
	}
	if n := s.kbsCalls(t); n != 0 {
		t.Errorf("kbs ran %d times in Copilot CLI, want 0", n)
	}
	for _, r := range reqs {
		for _, text := range []string{"Kanbus WIP", checkpointMarker, "Kanbus work in progress: keep"} {
			if bodyContains(t, r.Body, text) {
				t.Errorf("request %d (%s) holds %q", r.Index, r.Kind, text)
			}
		}
	}
}

// TestReadsCopilot (GitHub Copilot CLI 1.0.102, `copilot -p`): which of the
// probe repository's instruction files reach the first request, started at
// the root and in a sub-folder.
func TestReadsCopilot(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "COPILOT_BIN", "copilot")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{".", []string{".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}},
		{probeSub, []string{".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "svc/AGENTS.md"}},
	} {
		t.Run(strings.ReplaceAll(c.where, "/", "-"), func(t *testing.T) {
			ctx := probeCtx(t)
			s := newSandbox(t, kbsFixture)
			repo := probeRepo(t, ctx)
			m := newChatMock(t, (&probeChat{summaryPhrases: []string{copilotSummaryPhrase}}).reply)
			copilotRun(t, ctx, bin, s, m, filepath.Join(repo, filepath.FromSlash(c.where)), "say hello")
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkProbeFound(t, "copilot started in "+c.where, reqs[0].Body, c.want...)
		})
	}
}
