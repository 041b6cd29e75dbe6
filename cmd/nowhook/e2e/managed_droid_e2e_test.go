package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// factorySystemDir is Factory Droid's system folder on Linux: its code
// reads /etc/factory/settings.json as the organisation's settings
// ("system-managed"), before FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH, a
// settings URL or Factory's API.
const factorySystemDir = "/etc/factory"

// droidManaged is a Factory Droid sandbox whose client sees a folder of
// the test's at /etc/factory and another at /usr/local/libexec/nowhook,
// with a HOME whose settings point Droid at a mock.
type droidManaged struct {
	s       *sandbox
	m       *chatMock
	home    string
	etc     string
	libexec string
	bin     string
}

func newDroidManaged(t *testing.T) *droidManaged {
	t.Helper()
	bin := findClient(t, "DROID_BIN", "droid")
	s := newSandbox(t, kbsFixture)
	writeFile(t, filepath.Join(s.repo, filepath.FromSlash(probeSub), "main.go"), "package api\n", 0o644)
	d := &droidManaged{s: s, m: droidMock(t, &probeChat{}), etc: filepath.Join(s.root, "etc-factory"), libexec: filepath.Join(s.root, "libexec-nowhook")}
	d.home = droidHome(t, d.m, "")
	v := newSysView(t, map[string]string{factorySystemDir: d.etc, nowhookLibexec: d.libexec})
	d.bin = v.wrap(t, bin)
	return d
}

// env is the sandbox's environment (nowhook and the fake kbs on PATH)
// with the HOME that points Droid at the mock.
func (d *droidManaged) env() []string {
	return droidEnv(d.s, d.home)
}

// session runs hello, /compact (as the TUI does it) and a follow-up in dir
// and returns the mock's requests.
func (d *droidManaged) session(t *testing.T, ctx context.Context, dir string) []*chatRequest {
	t.Helper()
	env := d.env()
	clientVersion(t, ctx, env, d.bin)
	rpc := startDroidRPC(t, ctx, d.bin, env, dir)
	rpc.call(ctx, "droid.initialize_session", map[string]any{"machineId": "e2e", "cwd": dir, "modelId": "custom:mock-model"})
	rpc.say(ctx, "hello")
	rpc.compact(ctx)
	rpc.say(ctx, "What was I working on?")
	return d.m.Requests()
}

// TestDroidManagedReminder: with nowhook's wrapper in
// /usr/local/libexec/nowhook and a SessionStart compact group running it
// in /etc/factory/settings.json, and no project or user install, Factory
// Droid 0.225.2 gets the reminder once in the first request after /compact,
// kbs running once, in a session at the root and in one in a sub-folder.
func TestDroidManagedReminder(t *testing.T) {
	t.Parallel()
	for _, where := range []string{".", probeSub} {
		t.Run(strings.ReplaceAll(where, "/", "-"), func(t *testing.T) {
			ctx := probeCtx(t)
			d := newDroidManaged(t)
			managedWrapper(t, d.libexec)
			writeFile(t, filepath.Join(d.etc, "settings.json"), claudeHooks(nil, managedCommand), 0o644)
			reqs := d.session(t, ctx, filepath.Join(d.s.repo, filepath.FromSlash(where)))
			checkOnceAfter(t, reqs, expectedReminder(t))
			if n := d.s.kbsCalls(t); n != 1 {
				t.Errorf("kbs ran %d times, want once", n)
			}
		})
	}
}

// droidUserHooks is the HOME settings' extra member holding a SessionStart
// compact group that runs the commands.
func droidUserHooks(commands ...string) string {
	doc := claudeHooks(nil, commands...)
	return ", " + strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(doc), "{"), "}")
}

// TestDroidManagedHooksOnly: allowManagedHooksOnly true in
// /etc/factory/settings.json makes Factory Droid 0.225.2 drop the user's
// and the project's hooks and keep the file's own; with nowhook's own
// project install (setup --agents droid=reinject) and the switch there is
// no reminder and kbs never runs.
func TestDroidManagedHooksOnly(t *testing.T) {
	t.Parallel()
	only := map[string]string{"allowManagedHooksOnly": "true"}
	t.Run("probes", func(t *testing.T) {
		ctx := probeCtx(t)
		d := newDroidManaged(t)
		p := newLayerProbes(t, 1)
		writeFile(t, filepath.Join(d.etc, "settings.json"), claudeHooks(only, p.script(t, filepath.Join(d.libexec, "managed.sh"), "managed")), 0o644)
		d.home = droidHome(t, d.m, droidUserHooks(p.script(t, filepath.Join(d.libexec, "user.sh"), "user")))
		writeFile(t, filepath.Join(d.s.repo, ".factory", "settings.json"), claudeHooks(nil, p.script(t, filepath.Join(d.libexec, "project.sh"), "project")), 0o644)
		reqs := d.session(t, ctx, d.s.repo)
		idx := summaryAt(t, reqs)
		for l, want := range map[string]int{"managed": 1, "user": 0, "project": 0} {
			if n := countIn(t, reqs[idx+1].Body, layerMarker(l)); n != want {
				t.Errorf("with allowManagedHooksOnly, the %s hook's output is %d times in the request after the summary, want %d", l, n, want)
			}
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"managed"})
	})
	t.Run("nowhook-project-install", func(t *testing.T) {
		ctx := probeCtx(t)
		d := newDroidManaged(t)
		runNowhook(t, ctx, d.s, "setup", "--yes", "--agents", "droid=reinject")
		writeFile(t, filepath.Join(d.etc, "settings.json"), claudeHooks(only), 0o644)
		reqs := d.session(t, ctx, d.s.repo)
		summaryAt(t, reqs)
		checkNowhere(t, reqs, strings.Split(expectedReminder(t), "\n")[0])
		if n := d.s.kbsCalls(t); n != 0 {
			t.Errorf("with allowManagedHooksOnly, kbs ran %d times: Droid ran the project hook", n)
		}
	})
}

// TestDroidManagedThreeLayers measures what Factory Droid 0.225.2 does
// with a SessionStart compact hook in /etc/factory/settings.json, the
// user's and the project's settings, and one more command that all three
// hold byte for byte:
//   - the shared command is not merged: it runs three times, its output
//     three times in the next request;
//   - all run together (each saw the others started), each with
//     CLAUDE_PROJECT_DIR and FACTORY_PROJECT_DIR (the session's folder)
//     and one payload (session_id, previous_session_id, transcript_path,
//     cwd, source compact).
func TestDroidManagedThreeLayers(t *testing.T) {
	t.Parallel()
	ctx := probeCtx(t)
	d := newDroidManaged(t)
	p := newLayerProbes(t, 6)
	same := p.script(t, filepath.Join(d.libexec, "same.sh"), "same")
	writeFile(t, filepath.Join(d.etc, "settings.json"), claudeHooks(nil, p.script(t, filepath.Join(d.libexec, "managed.sh"), "managed"), same), 0o644)
	d.home = droidHome(t, d.m, droidUserHooks(p.script(t, filepath.Join(d.libexec, "user.sh"), "user"), same))
	writeFile(t, filepath.Join(d.s.repo, ".factory", "settings.json"), claudeHooks(nil, p.script(t, filepath.Join(d.libexec, "project.sh"), "project"), same), 0o644)
	reqs := d.session(t, ctx, d.s.repo)
	idx := summaryAt(t, reqs)
	for l, want := range map[string]int{"managed": 1, "user": 1, "project": 1, "same": 3} {
		if n := countIn(t, reqs[idx+1].Body, layerMarker(l)); n != want {
			t.Errorf("%s hook: its output is %d times in the request after the summary, want %d", l, n, want)
		}
	}
	all := []string{"managed", "project", "same", "same", "same", "user"}
	runs := p.runs(t)
	checkSet(t, "probe runs", labels(runs), all)
	for _, r := range runs {
		checkSet(t, r.label+" hook: the probes started while it ran", r.saw, all)
		if r.env["CLAUDE_PROJECT_DIR"] != d.s.repo || r.env["FACTORY_PROJECT_DIR"] != d.s.repo || r.payload["source"] != "compact" || r.payload["cwd"] != d.s.repo {
			t.Errorf("%s hook: CLAUDE_PROJECT_DIR=%q FACTORY_PROJECT_DIR=%q payload %v", r.label, r.env["CLAUDE_PROJECT_DIR"], r.env["FACTORY_PROJECT_DIR"], r.payload)
		}
		for _, k := range []string{"session_id", "previous_session_id", "transcript_path"} {
			if r.payload[k] == nil || r.payload[k] != runs[0].payload[k] {
				t.Errorf("%s hook: payload %s = %v, %s hook's %v: the layers do not share it", r.label, k, r.payload[k], runs[0].label, runs[0].payload[k])
			}
		}
		t.Logf("%s hook: payload keys %v; env %v", r.label, payloadKeys(r.payload), envWith(r.env, "FACTORY_PROJECT", "CLAUDE_PROJECT", "DROID_PROJECT"))
	}
}

// TestDroidManagedBrokenSystemSettings: an /etc/factory/settings.json that
// is not JSON is skipped without a word by Factory Droid 0.225.2 (its code
// logs "Malformed system-managed settings file" and goes on with no
// organisation settings): droid exec answers as if it were absent.
func TestDroidManagedBrokenSystemSettings(t *testing.T) {
	t.Parallel()
	ctx := probeCtx(t)
	d := newDroidManaged(t)
	writeFile(t, filepath.Join(d.etc, "settings.json"), "{ not valid,,\n", 0o644)
	res := runCmd(t, ctx, d.env(), d.s.repo, "", d.bin, "exec", "-m", "custom:mock-model", "hello")
	if res.err != nil || len(d.m.Requests()) != 1 || strings.TrimSpace(res.stderr) != "" {
		t.Errorf("droid exec with a broken /etc/factory/settings.json: %v, %d requests, stderr %q; want it to run as without the file, silent", res.err, len(d.m.Requests()), res.stderr)
	}
}
