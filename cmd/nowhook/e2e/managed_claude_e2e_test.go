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
//   - a SessionStart compact hook in /etc/claude-code/managed-settings.json
//     runs after /compact, and its output reaches the next request once;
//   - so does one in a drop-in, managed-settings.d/50-probe.json, with no
//     managed-settings.json beside it;
//   - with the base file and two drop-ins, the hooks of all three run
//     (hook lists are joined), and for a key they all set, the drop-in
//     last in name order wins over the earlier one and over the base
//     file (env, deep-merged: the keys set only once are all there);
//   - a drop-in whose name starts with a dot, or does not end in .json, is
//     not read;
//   - a drop-in that is not JSON stops claude -p before its first request,
//     naming the file: one bad managed file takes every session down;
//   - a drop-in of mode 0666 is read like any other (run as root).
func TestClaudeManagedChannels(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()

	t.Run("base-file", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 1)
		c.file(t, "managed-settings.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "base.sh"), "base")))
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if got := markersAfter(t, reqs, after, "base"); got["base"] != 1 {
			t.Errorf("managed-settings.json's hook: its output is %d times in the request after the summary, want once", got["base"])
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"base"})
	})

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
		t.Logf("managed: base file and drop-ins 10-first, 20-second: hooks run %v; env %v", labels(runs), envWith(runs[0].env, "PROBE_"))
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

	t.Run("world-writable-drop-in", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 1)
		c.file(t, "managed-settings.d/50-probe.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "dropin.sh"), "dropin")))
		if err := os.Chmod(filepath.Join(c.etc, "managed-settings.d", "50-probe.json"), 0o666); err != nil {
			t.Fatal(err)
		}
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if got := markersAfter(t, reqs, after, "dropin"); got["dropin"] != 1 {
			t.Errorf("a drop-in of mode 0666 (owned by root): its hook's output is %d times in the request after the summary, want once", got["dropin"])
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
	writeFile(t, filepath.Join(libexec, filepath.Base(managedScript)), templates.RenderWrapper(5*time.Second), 0o755)
}

// TestClaudeManagedReminder: with nowhook's wrapper in
// /usr/local/libexec/nowhook and a drop-in
// /etc/claude-code/managed-settings.d/ that runs it after a compaction, and
// no project or user install at all, Claude Code 2.1.332 gets the reminder
// once after /compact in a session started at the repository root and in
// one started in a sub-folder (managed settings do not depend on the start
// folder), kbs running once each; in a git repository without .kanbus.yml
// it gets nothing and kbs does not run.
func TestClaudeManagedReminder(t *testing.T) {
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
	other := filepath.Join(c.s.root, "other")
	writeFile(t, filepath.Join(other, "README.md"), "not a Kanbus project\n", 0o644)
	if res := runCmd(t, ctx, c.s.env(nil), other, "", "git", "init", "-q"); res.err != nil {
		t.Fatalf("git init: %v\n%s", res.err, res.stderr)
	}
	reminder := expectedReminder(t)
	for _, tc := range []struct {
		name, dir string
		want      int
	}{
		{"root", c.s.repo, 1},
		{"sub-folder", c.s.startIn(t, startSub), 1},
		{"outside-kanbus", other, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kbs := c.s.kbsCalls(t)
			sess, reqs, after := c.compact(t, ctx, tc.dir)
			for i := 0; i < after; i++ {
				if bodyContains(t, reqs[i].Body, reminder) {
					t.Errorf("request %d (before the first after the summary) already has the reminder", i)
				}
			}
			if n := countInBody(t, reqs[after].Body, reminder); n != tc.want {
				t.Errorf("the first request after the summary has the reminder %d times, want %d", n, tc.want)
			}
			if k := c.s.kbsCalls(t) - kbs; k != tc.want {
				t.Errorf("kbs ran %d times, want %d", k, tc.want)
			}
			t.Logf("managed drop-in only, session in %s: compact hooks %d, reminder %d, kbs %d",
				tc.name, len(sess.compactHookRuns()), countInBody(t, reqs[after].Body, reminder), c.s.kbsCalls(t)-kbs)
		})
	}
}

// TestClaudeManagedHooksOnly measures allowManagedHooksOnly in Claude Code
// 2.1.332, the switch doctor will report on:
//   - in managed-settings.json, with nowhook's project install (setup
//     --yes) and nothing managed: no reminder, kbs never runs; likewise
//     with nowhook's user-scope install;
//   - with the switch in the base file, a hook in a drop-in still runs (a
//     drop-in is managed), and a project hook does not;
//   - the switch in a drop-in works as in the base file;
//   - in the user's own settings the switch is ignored: the project hook
//     runs;
//   - disableAllHooks in the user's settings does not stop a managed hook;
//     in the project's it does not either.
func TestClaudeManagedHooksOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	only := map[string]string{"allowManagedHooksOnly": "true"}
	reminder := expectedReminder(t)

	for _, scope := range []string{"project", "user"} {
		t.Run(scope+"-install", func(t *testing.T) {
			c := newClaudeManaged(t, kbsFixture)
			c.file(t, "managed-settings.json", claudeHooks(only))
			runNowhook(t, ctx, c.s, "setup", "--scope", scope, "--yes", "--agents", "claude")
			_, reqs, after := c.compact(t, ctx, c.s.repo)
			if n := countInBody(t, reqs[after].Body, reminder); n != 0 {
				t.Errorf("with allowManagedHooksOnly, nowhook's %s install put the reminder %d times into the request after the summary, want none", scope, n)
			}
			if k := c.s.kbsCalls(t); k != 0 {
				t.Errorf("with allowManagedHooksOnly, kbs ran %d times: Claude Code ran the %s hook", k, scope)
			}
		})
	}

	for _, tc := range []struct {
		name              string
		base, dropIn      map[string]string // managed settings beyond the hooks
		user, project     map[string]string
		managedIn         string // "base" or "drop-in": where the managed probe goes
		wantMgd, wantProj int
	}{
		{name: "switch-in-base", base: only, managedIn: "drop-in", wantMgd: 1, wantProj: 0},
		{name: "switch-in-drop-in", dropIn: only, managedIn: "base", wantMgd: 1, wantProj: 0},
		{name: "switch-in-user-settings", user: only, managedIn: "base", wantMgd: 1, wantProj: 1},
		{name: "user-disableAllHooks", user: map[string]string{"disableAllHooks": "true"}, managedIn: "base", wantMgd: 1, wantProj: 0},
		{name: "project-disableAllHooks", project: map[string]string{"disableAllHooks": "true"}, managedIn: "base", wantMgd: 1, wantProj: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClaudeManaged(t, kbsFixture)
			p := newLayerProbes(t, 1)
			mgd := p.script(t, filepath.Join(c.libexec, "managed.sh"), "managed")
			proj := p.script(t, filepath.Join(c.s.repo, ".claude", "hooks", "project.sh"), "project")
			if tc.managedIn == "base" {
				c.file(t, "managed-settings.json", claudeHooks(tc.base, mgd))
				c.file(t, "managed-settings.d/50-other.json", claudeHooks(tc.dropIn))
			} else {
				c.file(t, "managed-settings.json", claudeHooks(tc.base))
				c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(tc.dropIn, mgd))
			}
			if tc.user != nil {
				writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"), claudeHooks(tc.user), 0o644)
			}
			writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"), claudeHooks(tc.project, proj), 0o644)
			_, reqs, after := c.compact(t, ctx, c.s.repo)
			got := markersAfter(t, reqs, after, "managed", "project")
			if got["managed"] != tc.wantMgd || got["project"] != tc.wantProj {
				t.Errorf("the request after the summary has the managed hook's output %d times and the project hook's %d times, want %d and %d",
					got["managed"], got["project"], tc.wantMgd, tc.wantProj)
			}
			t.Logf("%s: probe runs %v", tc.name, labels(p.runs(t)))
		})
	}
}

// TestClaudeManagedThreeLayers measures what Claude Code 2.1.332 does with
// a SessionStart compact hook in each of the three layers (a managed
// drop-in, the user's settings, the project's), which the one-reminder
// rule for three layers rests on:
//   - byte-identical commands run once;
//   - different commands all run, the managed hook first and alone (the
//     other two start after it ended), then the user's and the project's
//     together (each saw the other started); each gets the same payload
//     (session_id, transcript_path, prompt_id, cwd, hook_event_name
//     SessionStart, source compact) and CLAUDE_PROJECT_DIR, the session's
//     start folder.
func TestClaudeManagedThreeLayers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()

	t.Run("identical-commands", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 1)
		cmd := p.script(t, filepath.Join(c.libexec, "same.sh"), "same")
		c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, cmd))
		writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"), claudeHooks(nil, cmd), 0o644)
		writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"), claudeHooks(nil, cmd), 0o644)
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		if got := markersAfter(t, reqs, after, "same"); got["same"] != 1 {
			t.Errorf("one command in three layers: its output is %d times in the request after the summary, want once", got["same"])
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"same"})
	})

	t.Run("different-commands", func(t *testing.T) {
		c := newClaudeManaged(t, kbsFixture)
		p := newLayerProbes(t, 3)
		c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, p.script(t, filepath.Join(c.libexec, "managed.sh"), "managed")))
		writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"),
			claudeHooks(nil, p.script(t, filepath.Join(c.s.home, ".claude", "hooks", "user.sh"), "user")), 0o644)
		writeFile(t, filepath.Join(c.s.repo, ".claude", "settings.json"),
			claudeHooks(nil, p.script(t, filepath.Join(c.s.repo, ".claude", "hooks", "project.sh"), "project")), 0o644)
		_, reqs, after := c.compact(t, ctx, c.s.repo)
		got := markersAfter(t, reqs, after, "managed", "user", "project")
		for l, n := range got {
			if n != 1 {
				t.Errorf("%s hook: its output is %d times in the request after the summary, want once", l, n)
			}
		}
		runs := p.runs(t)
		checkSet(t, "probe runs", labels(runs), []string{"managed", "project", "user"})
		for _, r := range runs {
			// The managed hook ran alone: the other two started after it
			// ended; those two ran together.
			saw := []string{"managed", "project", "user"}
			if r.label == "managed" {
				saw = []string{"managed"}
			}
			checkSet(t, r.label+" hook: the probes started while it ran", r.saw, saw)
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
			t.Logf("%s hook: saw %v payload %v; env %v", r.label, r.saw, r.payload, envWith(r.env, "CLAUDE"))
		}
	})
}
