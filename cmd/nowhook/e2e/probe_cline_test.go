package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Cline CLI (npm cline 3.0.65), offline: `cline auth` points the
// openai-compatible provider at the chat mock, and `cline --json PROMPT`
// runs one task. Hooks are executables named after their event in
// .clinerules/hooks/; they print JSON whose contextModification is meant
// for the model. Pinned in scripts/pins.tsv, so CI runs these. Run:
// eval "$(sh scripts/install-agents.sh cline)"; go test ./cmd/nowhook/e2e/ -run '^Test(Reads)?Cline' -v
// Every client process runs in a process group of its own that the test
// kills (runCmd); the hub daemon `cline PROMPT` starts is in a session of
// its own, out of that group's reach, so clineHome's cleanup kills it too.

// clineSummaryPhrase starts Cline's compaction (summary) request.
const clineSummaryPhrase = "Summarize this session for continuation"

// clineHome configures a throwaway HOME for the mock and returns it; when
// the test ends, what Cline left running with that HOME is killed.
func clineHome(t *testing.T, ctx context.Context, bin string, m *chatMock) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() { killByHome(t, home) })
	res := runCmd(t, ctx, probeEnv(home), home, "", bin, "auth", "-p", "openai-compatible", "-k", "dummy",
		"-m", "mock-model", "-b", m.BaseURL())
	if res.err != nil {
		t.Fatalf("cline auth: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	return home
}

// clineRun runs one `cline --json PROMPT` task in dir.
func clineRun(t *testing.T, ctx context.Context, bin, home, dir, prompt string) {
	t.Helper()
	env := probeEnv(home)
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, dir, "", bin, "--json", prompt)
	if res.err != nil {
		t.Fatalf("cline --json: %v\n%.3000s%.3000s", res.err, res.stdout, res.stderr)
	}
}

// killByHome kills every process whose environment holds HOME=home. Cline
// 3.0.65's `cline PROMPT` starts a hub daemon (`cline --cline-hub-daemon
// --cwd DIR ...`) with setsid: its process group and session are its own
// (measured: pgid = sid = its pid), so killing the client's group misses
// it, and started from a shell it was still running 39 minutes later
// (docs/platforms.md). It inherits the client's HOME, which is the test's
// own. Linux only (it reads /proc); elsewhere it does nothing.
func killByHome(t *testing.T, home string) {
	t.Helper()
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	want := []byte("HOME=" + home)
	for _, e := range environs {
		b, err := os.ReadFile(e)
		if err != nil || !slices.ContainsFunc(bytes.Split(b, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, want) }) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		if err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
			t.Logf("killed process %d, which Cline left running with HOME=%s", pid, home)
		}
	}
}

func clineHookOut(marker string) string {
	b, _ := json.Marshal(map[string]string{"contextModification": marker})
	return string(b)
}

// TestReadsCline: which instruction files reach the first request,
// started at the root and in a sub-folder (where nothing arrives, while
// the root's hooks still run).
func TestReadsCline(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLINE_BIN", "cline")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{".", []string{"AGENTS.md", ".clinerules/rules.md"}},
		{probeSub, nil},
	} {
		t.Run(strings.ReplaceAll(c.where, "/", "-"), func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			repo := probeRepo(t, ctx)
			h := writeProbeHook(t, filepath.Join(repo, ".clinerules", "hooks", "TaskStart"), clineHookOut("PROBE-CLINE-TASKSTART"), 0)
			m := newChatMock(t, (&probeChat{summaryPhrases: []string{clineSummaryPhrase}}).reply)
			dir := filepath.Join(repo, filepath.FromSlash(c.where))
			clineRun(t, ctx, bin, clineHome(t, ctx, bin, m), dir, "say hello")
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkProbeFound(t, "cline started in "+c.where, reqs[0].Body, c.want...)
			runs := h.runs(t)
			if len(runs) != 1 || !strings.Contains(runs[0], "\t"+dir+"\t") {
				t.Errorf("TaskStart runs %q, want one with cwd %s", runs, dir)
			}
			checkNowhere(t, reqs, "PROBE-CLINE-TASKSTART")
		})
	}
}

// TestClinePreCompactNeverRuns: a task whose one tool call returns
// about 220 KB compacts before its next request (the summary request), and
// the PreCompact hook does not run, so its contextModification reaches
// nothing; PreToolUse's does reach the model.
func TestClinePreCompactNeverRuns(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLINE_BIN", "cline")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	pre := writeProbeHook(t, filepath.Join(repo, ".clinerules", "hooks", "PreCompact"), clineHookOut("PROBE-CLINE-PRECOMPACT"), 0)
	tool := writeProbeHook(t, filepath.Join(repo, ".clinerules", "hooks", "PreToolUse"), clineHookOut("PROBE-CLINE-PRETOOLUSE"), 0)
	var cmds []string
	for i := 1; i <= 24; i++ {
		cmds = append(cmds, fmt.Sprintf("seq %d %d", i*100000, i*100000+2500))
	}
	args, _ := json.Marshal(map[string]any{"commands": cmds})
	p := &probeChat{summaryPhrases: []string{clineSummaryPhrase}, highFirst: true,
		tool: &chatToolCall{ID: "call_1", Name: "run_commands", Arguments: string(args)}}
	m := newChatMock(t, p.reply)
	clineRun(t, ctx, bin, clineHome(t, ctx, bin, m), repo, "say hello")
	reqs := m.Requests()
	idx := summaryAt(t, reqs)
	if n := len(pre.runs(t)); n != 0 {
		t.Errorf("PreCompact ran %d times, want 0", n)
	}
	checkNowhere(t, reqs, "PROBE-CLINE-PRECOMPACT")
	if n := len(tool.runs(t)); n != 1 {
		t.Errorf("PreToolUse ran %d times, want 1", n)
	}
	if !bodyContains(t, reqs[idx+1].Body, "PROBE-CLINE-PRETOOLUSE") {
		t.Errorf("the request after the summary lacks PreToolUse's contextModification")
	}
}
