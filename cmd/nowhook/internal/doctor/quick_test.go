package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestQuickRunsProbeBudget: without --live doctor runs nowhook's own
// wrapper with NOWHOOK_PROBE_BUDGET set to its short probe budget (a
// nowhook-reminder on PATH records what each run was given), and says so
// in the row; with --live the runs get no probe budget, only the
// wrapper's own.
func TestQuickRunsProbeBudget(t *testing.T) {
	r := newRepo(t)
	r.install("claude", time.Second)
	record := filepath.Join(realTemp(t), "probe")
	r.write(filepath.Join(r.bin, "nowhook-reminder"), "#!/bin/sh\nprintf '%s\\n' \"${"+reminder.ProbeBudgetEnv+"-unset}\" >>"+record+"\nexit 0\n", 0o755)
	runs := func() []string {
		t.Helper()
		b, _ := os.ReadFile(record)
		os.Remove(record)
		return strings.Fields(string(b))
	}

	live := expectOne(t, r.run(), "live.claude", OK, "probe budget 500ms", "hanging kbs: exit 0 in", "(probe budget 500ms; the wrapper's own is 1s)")
	if live.Fix != "" {
		t.Errorf("live.claude: fix %q", live.Fix)
	}
	if got := strings.Join(runs(), " "); got != "0.5 0.5 0.5" {
		t.Errorf("the quick runs were given %s=%q, want 0.5 for each of the three", reminder.ProbeBudgetEnv, got)
	}

	live = expectOne(t, r.runLive(), "live.claude", OK, "hanging kbs: exit 0 in", "(budget 1s)")
	if strings.Contains(live.Message, "probe") {
		t.Errorf("--live: %s", live.Message)
	}
	if got := strings.Join(runs(), " "); got != "unset unset unset" {
		t.Errorf("the --live runs were given %s=%q, want it unset", reminder.ProbeBudgetEnv, got)
	}

	// The user's own setting never reaches a --live run.
	r.runLive(reminder.ProbeBudgetEnv + "=0.1")
	if got := strings.Join(runs(), " "); got != "unset unset unset" {
		t.Errorf("with %s=0.1 in doctor's environment, the --live runs were given %q", reminder.ProbeBudgetEnv, got)
	}
}

// TestQuickSkipsHandMadeScript: without --live a script that is not
// nowhook's is not run (its budget, or lack of one, is only proven by
// waiting it out): one info row says so, with doctor --live as its fix;
// doctor --live runs it three times.
func TestQuickSkipsHandMadeScript(t *testing.T) {
	r := newRepo(t)
	r.install("claude", time.Second)
	pidFile := filepath.Join(realTemp(t), "pids")
	r.write(agentpkg.ClaudeScript, "#!/bin/sh\necho $$ >>"+pidFile+"\nexit 0\n", 0o755)
	live := expectOne(t, r.run(), "live.claude", Info, "not run: .claude/hooks/kanbus-compaction-right-now.sh is not nowhook's wrapper", "nowhook doctor --live runs it")
	if live.Fix != "nowhook doctor --live" {
		t.Errorf("fix %q, want nowhook doctor --live", live.Fix)
	}
	if n := len(readPids(pidFile)); n != 0 {
		t.Errorf("the hand-made script ran %d times without --live", n)
	}
	r.runLive()
	if n := len(readPids(pidFile)); n != 3 {
		t.Errorf("the hand-made script ran %d times under --live, want 3", n)
	}
}

// TestQuickQueryHangingKbs: without --live doctor waits for kbs no longer
// than the probe budget: a kbs that hangs is an info row whose fix is
// doctor --live, which waits the hook's whole budget and calls it an error.
func TestQuickQueryHangingKbs(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs("exec sleep 30")
	r.install("claude", time.Second)
	q := expectOne(t, r.run(), "kanbus.query", Info, "did not answer within doctor's quick wait of 500ms (the hook gives it 1s)")
	if q.Fix != "nowhook doctor --live" {
		t.Errorf("fix %q", q.Fix)
	}
	expectOne(t, r.runLive(), "kanbus.query", Error, "did not answer within the hook's budget of 1s")
}

// TestLiveHonoursMatcher: a hook of ours whose matcher does not select
// compact is not run (the agent would not run it after a compaction):
// the live row says so and points at the hook row, which has the fix.
func TestLiveHonoursMatcher(t *testing.T) {
	r := newRepo(t)
	r.install("claude", time.Second)
	b := r.read(agentpkg.ClaudeSettings.Path)
	r.write(agentpkg.ClaudeSettings.Path, strings.Replace(string(b), `"compact"`, `"Compact"`, 1), 0o644)
	for _, fs := range [][]Finding{r.run(), r.runLive()} {
		expectOne(t, fs, "claude.hook", Error, `matcher "Compact" does not name compact`)
		live := expectOne(t, fs, "live.claude", Info, "not run: Claude Code does not run this hook after a compaction (claude.hook says why)")
		if live.Fix != "" {
			t.Errorf("live.claude: fix %q beside claude.hook's", live.Fix)
		}
	}
}

// TestOneProblemOneFix: a wrapper that is not executable, or missing, is
// the script row's to fix; the live row shows what its runs saw and
// names that row, with no fix of its own.
func TestOneProblemOneFix(t *testing.T) {
	for _, c := range []struct {
		name, scriptFix string
		break_          func(path string)
	}{
		{"not executable", "chmod +x .claude/hooks/kanbus-compaction-right-now.sh", func(p string) { os.Chmod(p, 0o644) }},
		{"missing", "nowhook setup --yes --agents claude=reinject", func(p string) { os.Remove(p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.install("claude", time.Second)
			c.break_(filepath.Join(r.root, agentpkg.ClaudeScript))
			fs := r.run()
			if s := expectOne(t, fs, "claude.script", Error); s.Fix != c.scriptFix {
				t.Errorf("claude.script: fix %q, want %q", s.Fix, c.scriptFix)
			}
			live := expectOne(t, fs, "live.claude", Error, "claude.script names the cause and its fix")
			if live.Fix != "" {
				t.Errorf("live.claude: a second fix %q", live.Fix)
			}
		})
	}
}
