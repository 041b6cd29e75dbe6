package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// claudeManaged is a Claude Code sandbox whose client sees a folder of the
// test's at /etc/claude-code (its managed settings, Linux) and another at
// /usr/local/libexec/nowhook (where a managed install keeps its wrapper).
type claudeManaged struct {
	s       *sandbox
	etc     string // shown at /etc/claude-code
	libexec string // shown at /usr/local/libexec/nowhook
	bin     string // claude, run in the view
	real    string // claude itself
}

// Where the client sees the test's folders.
const (
	claudeManagedDir = "/etc/claude-code"
	nowhookLibexec   = "/usr/local/libexec/nowhook"
)

func newClaudeManaged(t *testing.T, mode kbsMode) *claudeManaged {
	t.Helper()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	s := newSandbox(t, mode)
	c := &claudeManaged{s: s, etc: filepath.Join(s.root, "etc-claude-code"), libexec: filepath.Join(s.root, "libexec-nowhook"), real: bin}
	v := newSysView(t, map[string]string{claudeManagedDir: c.etc, nowhookLibexec: c.libexec})
	c.bin = v.wrap(t, bin)
	return c
}

// file writes a managed settings file, relative to /etc/claude-code.
func (c *claudeManaged) file(t *testing.T, rel, content string) {
	t.Helper()
	writeFile(t, filepath.Join(c.etc, filepath.FromSlash(rel)), content, 0o644)
}

// compact runs hello, /compact and a follow-up in dir against a new mock
// and returns the session, the requests and the index of the first
// request after the summary.
func (c *claudeManaged) compact(t *testing.T, ctx context.Context, dir string) (claudeSession, []recordedRequest, int) {
	t.Helper()
	m := newAnthropicMock(t)
	sess := runClaudeSession(t, ctx, c.bin, claudeEnv(c.s, m.URL), dir, []string{"hello", "/compact", "What was I working on?"})
	reqs := m.Requests()
	return sess, reqs, summaryIndex(t, reqs) + 1
}

// markersAfter returns, for each label, how many times its probe's marker
// is in the request after the summary, and fails if one is in a request
// before it.
func markersAfter(t *testing.T, reqs []recordedRequest, after int, labels ...string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, l := range labels {
		for i := 0; i < after; i++ {
			if bodyContains(t, reqs[i].Body, layerMarker(l)) {
				t.Errorf("request %d (before the first after the summary) already has %s", i, layerMarker(l))
			}
		}
		got[l] = countInBody(t, reqs[after].Body, layerMarker(l))
	}
	return got
}

// TestClaudeManagedChannels measures how Claude Code 2.1.332 reads its
// managed settings on Linux, with no project or user settings at all:
//   - a SessionStart compact hook in a drop-in,
//     /etc/claude-code/managed-settings.d/50-probe.json, with no
//     managed-settings.json beside it, runs after /compact, and its output
//     reaches the next request once;
//   - with the base file and two drop-ins, the hooks of all three run
//     (hook lists are joined), and for a key they all set, the drop-in
//     last in name order wins over the earlier one and over the base
//     file (env, deep-merged: the keys set only once are all there); a
//     drop-in of mode 0666 is read like the others (run as root);
//   - a drop-in whose name starts with a dot, or does not end in .json, is
//     not read;
//   - a drop-in that is not JSON stops claude -p before its first request,
//     naming the file: one bad managed file takes every session down.
func TestClaudeManagedChannels(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()

	t.Run("drop-in-only", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 1)
		c.file(t, "managed-settings.d/50-probe.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "dropin.sh"), "dropin")))
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if got := markersAfter(t, reqs, after, "dropin"); got["dropin"] != 1 {
			t.Errorf("a drop-in's hook, with no managed-settings.json: its output is %d times in the request after the summary, want once", got["dropin"])
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"dropin"})
	})

	t.Run("base-and-drop-ins", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 3)
		c.file(t, "managed-settings.json", claudeHooks(map[string]string{"env": `{"PROBE_ORDER": "base", "PROBE_BASE": "1"}`},
			p.script(t, filepath.Join(c.libexec, "base.sh"), "base")))
		// Written in the reverse of name order, so that file times do not
		// stand in for names.
		c.file(t, "managed-settings.d/20-second.json", claudeHooks(map[string]string{"env": `{"PROBE_ORDER": "second"}`},
			p.script(t, filepath.Join(c.libexec, "second.sh"), "second")))
		if err := os.Chmod(filepath.Join(c.etc, "managed-settings.d", "20-second.json"), 0o666); err != nil {
			t.Fatal(err)
		}
		c.file(t, "managed-settings.d/10-first.json", claudeHooks(map[string]string{"env": `{"PROBE_ORDER": "first", "PROBE_FIRST": "1"}`},
			p.script(t, filepath.Join(c.libexec, "first.sh"), "first")))
		c.file(t, "managed-settings.d/.hidden.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "hidden.sh"), "hidden")))
		c.file(t, "managed-settings.d/30-notes.txt", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "txt.sh"), "txt")))
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		got := markersAfter(t, reqs, after, "base", "first", "second", "hidden", "txt")
		for l, want := range map[string]int{"base": 1, "first": 1, "second": 1, "hidden": 0, "txt": 0} {
			if got[l] != want {
				t.Errorf("%s's output is %d times in the request after the summary, want %d", l, got[l], want)
			}
		}
		runs := p.runs(t)
		checkSet(t, "probe runs", labels(runs), []string{"base", "first", "second"})
		for _, r := range runs {
			env := strings.Join(envWith(r.env, "PROBE_"), " ")
			if env != "PROBE_BASE=1 PROBE_FIRST=1 PROBE_ORDER=second" {
				t.Errorf("probe %s: the managed env is %q, want PROBE_BASE=1 PROBE_FIRST=1 PROBE_ORDER=second (drop-ins over the base file, in name order, objects merged)", r.label, env)
			}
		}
		t.Logf("managed: base file and drop-ins 10-first, 20-second (mode 0666): hooks run %v; env %v", labels(runs), envWith(runs[0].env, "PROBE_"))
	})

	t.Run("broken-drop-in", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		c.file(t, "managed-settings.d/10-broken.json", "{\"env\": {\"A\": \"1\"},}\n")
		c.file(t, "managed-settings.d/50-probe.json", claudeHooks(nil, "true"))
		m := newAnthropicMock(t)
		res := runCmd(t, ctx, claudeEnv(c.s, m.URL), c.s.repo, "", c.bin, "-p", "hello")
		const want = "/etc/claude-code/managed-settings.d/10-broken.json: Managed settings document could not be parsed as a JSON object; none of its settings are in effect. Fix or remove it."
		if res.err == nil || !strings.Contains(res.stderr, want) || len(m.Requests()) != 0 {
			t.Errorf("with a drop-in that is not JSON, claude -p: %v, %d requests, stderr:\n%s\nwant a failure before any request, saying %q", res.err, len(m.Requests()), res.stderr, want)
		}
	})
}

// managedScript is where the measurements put nowhook's wrapper for a
// managed install: the system folder a package would own.
const managedScript = nowhookLibexec + "/kanbus-compaction-right-now.sh"

// managedCommand runs the managed wrapper where it is executable and exits
// 0 where it is not, like the project and user commands.
const managedCommand = `s=` + managedScript + `; [ ! -x "$s" ] || exec "$s"`

// managedWrapper writes nowhook's own wrapper (the template setup writes,
// with the default budget) into the test folder shown at
// /usr/local/libexec/nowhook, as a managed install would place it.
func managedWrapper(t *testing.T, libexec string) {
	t.Helper()
	writeFile(t, filepath.Join(libexec, filepath.Base(managedScript)), templates.RenderWrapper(5*time.Second, ""), 0o755)
}

// TestClaudeManagedReminder: with nowhook's wrapper in
// /usr/local/libexec/nowhook and a drop-in
// /etc/claude-code/managed-settings.d/ that runs it after a compaction, and
// no project or user install at all, Claude Code 2.1.332 gets the reminder
// once after /compact in a session started at the repository root and in
// one started in a sub-folder (managed settings do not depend on the start
// folder), kbs running once each.
func TestClaudeManagedReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c := newClaudeManaged(t, kbsFixture)
	c.s.applyShape(t, shapeAgentsOnly)
	managedWrapper(t, c.libexec)
	c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, managedCommand))
	for _, f := range []string{filepath.Join(c.s.repo, ".claude"), filepath.Join(c.s.home, ".claude")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s exists: this measurement is of the managed layer alone", f)
		}
	}
	reminder := expectedReminder(t)
	for _, tc := range []struct{ name, dir string }{{"root", c.s.repo}, {"sub-folder", c.s.startIn(t, startSub)}} {
		t.Run(tc.name, func(t *testing.T) {
			kbs := c.s.kbsCalls(t)
			sess, reqs, after := c.compact(t, ctx, tc.dir)
			for i := 0; i < after; i++ {
				if bodyContains(t, reqs[i].Body, reminder) {
					t.Errorf("request %d (before the first after the summary) already has the reminder", i)
				}
			}
			n := countInBody(t, reqs[after].Body, reminder)
			if n != 1 {
				t.Errorf("the first request after the summary has the reminder %d times, want once", n)
			}
			if k := c.s.kbsCalls(t) - kbs; k != 1 {
				t.Errorf("kbs ran %d times, want once", k)
			}
			t.Logf("managed drop-in only, session in %s: compact hooks %d, reminder %d", tc.name, len(sess.compactHookRuns()), n)
		})
	}
}

// TestClaudeManagedHooksOnly measures allowManagedHooksOnly in Claude Code
// 2.1.332, the switch doctor will report on:
//   - in managed-settings.json, with nowhook's project install (setup
//     --yes) and its user-scope install, and nothing managed: no reminder,
//     kbs never runs;
//   - in a drop-in it works as in the base file, and the hooks of the base
//     file and of a drop-in still run (both are managed), a project hook
//     does not;
//   - in the user's own settings the switch is ignored: the project hook
//     runs;
//   - disableAllHooks in the user's settings stops the project's hook but
//     not a managed one.
func TestClaudeManagedHooksOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	only := map[string]string{"allowManagedHooksOnly": "true"}

	t.Run("nowhook-project-and-user-installs", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		c.file(t, "managed-settings.json", claudeHooks(only))
		runNowhook(t, ctx, c.s, "setup", "--scope", "user", "--yes", "--agents", "claude")
		runNowhook(t, ctx, c.s, "setup", "--yes", "--agents", "claude")
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if n := countInBody(t, reqs[after].Body, expectedReminder(t)); n != 0 {
			t.Errorf("with allowManagedHooksOnly, nowhook's project and user installs put the reminder %d times into the request after the summary, want none", n)
		}
		if k := c.s.kbsCalls(t); k != 0 {
			t.Errorf("with allowManagedHooksOnly, kbs ran %d times: Claude Code ran a project or user hook", k)
		}
	})

	for _, tc := range []struct {
		name               string
		dropIn, user       map[string]string // settings beyond the hooks
		wantBase, wantProj int
	}{
		{name: "switch-in-drop-in", dropIn: only, wantBase: 1, wantProj: 0},
		{name: "switch-in-user-settings", user: only, wantBase: 1, wantProj: 1},
		{name: "user-disableAllHooks", user: map[string]string{"disableAllHooks": "true"}, wantBase: 1, wantProj: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClaudeManaged(t, kbsFixture)
			p := newLayerProbes(t, 1)
			c.file(t, "managed-settings.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "base.sh"), "base")))
			c.file(t, "managed-settings.d/50-probe.json", claudeHooks(tc.dropIn, p.script(t, filepath.Join(c.libexec, "dropin.sh"), "dropin")))
			if tc.user != nil {
				writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"), claudeHooks(tc.user), 0o644)
			}
			writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"),
				claudeHooks(nil, p.script(t, filepath.Join(c.s.repo, ".claude", "hooks", "project.sh"), "project")), 0o644)
			_, reqs, after := c.compact(t, ctx, c.s.repo)
			got := markersAfter(t, reqs, after, "base", "dropin", "project")
			if got["base"] != tc.wantBase || got["dropin"] != tc.wantBase || got["project"] != tc.wantProj {
				t.Errorf("the request after the summary has the base file's hook output %d times, the drop-in's %d, the project's %d; want %d, %d, %d",
					got["base"], got["dropin"], got["project"], tc.wantBase, tc.wantBase, tc.wantProj)
			}
			t.Logf("%s: probe runs %v", tc.name, labels(p.runs(t)))
		})
	}
}

// TestClaudeManagedThreeLayers measures what Claude Code 2.1.332 does with
// a SessionStart compact hook in each of the three layers (a managed
// drop-in, the user's settings, the project's), which the one-reminder
// rule for three layers rests on:
//   - three byte-identical groups (one command each) run once;
//   - groups that differ all run, the managed layer's first and alone (the
//     user's and the project's start after it ended), then the user's and
//     the project's together (each saw the other started); a command that
//     all three groups hold as well runs twice: with the managed hooks,
//     and once more with the others (merged between those two only);
//   - each run gets the same payload (session_id, transcript_path,
//     prompt_id, cwd, hook_event_name SessionStart, source compact) and
//     CLAUDE_PROJECT_DIR, the session's start folder.
func TestClaudeManagedThreeLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()

	t.Run("identical-groups", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 1)
		same := p.script(t, filepath.Join(c.libexec, "same.sh"), "same")
		c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, same))
		writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"), claudeHooks(nil, same), 0o644)
		writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"), claudeHooks(nil, same), 0o644)
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if got := markersAfter(t, reqs, after, "same"); got["same"] != 1 {
			t.Errorf("one group in three layers: its output is %d times in the request after the summary, want once", got["same"])
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"same"})
	})

	t.Run("different-groups", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		// The probes wait for all five runs: the managed batch's two never
		// see the other three, and each of those sees all five.
		p := newLayerProbes(t, 5)
		same := p.script(t, filepath.Join(c.libexec, "same.sh"), "same")
		c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "managed.sh"), "managed"), same))
		writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"),
			claudeHooks(nil, p.script(t, filepath.Join(c.s.home, ".claude", "hooks", "user.sh"), "user"), same), 0o644)
		writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"),
			claudeHooks(nil, p.script(t, filepath.Join(c.s.repo, ".claude", "hooks", "project.sh"), "project"), same), 0o644)
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		for l, want := range map[string]int{"managed": 1, "user": 1, "project": 1, "same": 2} {
			if n := markersAfter(t, reqs, after, l)[l]; n != want {
				t.Errorf("%s hook: its output is %d times in the request after the summary, want %d", l, n, want)
			}
		}
		runs := p.runs(t)
		checkSet(t, "probe runs", labels(runs), []string{"managed", "project", "same", "same", "user"})
		managedBatch, rest := []string{"managed", "same"}, []string{"managed", "project", "same", "same", "user"}
		batches := map[string]int{}
		for _, r := range runs {
			switch {
			case sameSet(r.saw, managedBatch) && (r.label == "managed" || r.label == "same"):
				batches[r.label+" with the managed hooks"]++
			case sameSet(r.saw, rest) && r.label != "managed":
				batches[r.label+" after them"]++
			default:
				t.Errorf("%s hook: saw %v started, neither the managed batch %v nor the one after it %v", r.label, r.saw, managedBatch, rest)
			}
			if r.env["CLAUDE_PROJECT_DIR"] != c.s.repo {
				t.Errorf("%s hook: CLAUDE_PROJECT_DIR=%q, want the start folder %s", r.label, r.env["CLAUDE_PROJECT_DIR"], c.s.repo)
			}
			for k, want := range map[string]string{"hook_event_name": "SessionStart", "source": "compact", "cwd": c.s.repo} {
				if r.payload[k] != want {
					t.Errorf("%s hook: payload %s = %v, want %q", r.label, k, r.payload[k], want)
				}
			}
			for _, k := range []string{"session_id", "transcript_path", "prompt_id"} {
				if r.payload[k] != runs[0].payload[k] || r.payload[k] == nil {
					t.Errorf("%s hook: payload %s = %v, %s hook's %v: the layers do not share it", r.label, k, r.payload[k], runs[0].label, runs[0].payload[k])
				}
			}
			t.Logf("%s hook: saw %v; payload keys %v; env %v", r.label, r.saw, payloadKeys(r.payload), envWith(r.env, "CLAUDE_PROJECT", "CLAUDE_CODE_SESSION"))
		}
		if batches["same with the managed hooks"] != 1 || batches["same after them"] != 1 {
			t.Errorf("the shared command ran %v, want once with the managed hooks and once after them", batches)
		}
	})
}
