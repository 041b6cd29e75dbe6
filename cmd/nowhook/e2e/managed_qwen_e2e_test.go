package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// qwenSystemDir is Qwen Code's system folder on Linux (its code's
// getSystemSettingsPath: settings.json, and system-defaults.json beside
// it; QWEN_CODE_SYSTEM_SETTINGS_PATH moves it, which the tests leave unset).
const qwenSystemDir = "/etc/qwen-code"

// qwenManaged is a Qwen Code sandbox whose client sees a folder of the
// test's at /etc/qwen-code and another at /usr/local/libexec/nowhook.
type qwenManaged struct {
	s       *sandbox
	etc     string
	libexec string
	bin     string
}

func newQwenManaged(t *testing.T) *qwenManaged {
	t.Helper()
	bin := findClient(t, "QWEN_BIN", "qwen")
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	qwenHome(t, s)
	q := &qwenManaged{s: s, etc: filepath.Join(s.root, "etc-qwen-code"), libexec: filepath.Join(s.root, "libexec-nowhook")}
	v := newSysView(t, map[string]string{qwenSystemDir: q.etc, nowhookLibexec: q.libexec})
	q.bin = v.wrap(t, bin)
	return q
}

// compress runs hello, /compress and a follow-up in dir and returns the
// requests and the index of the first after the compression request.
func (q *qwenManaged) compress(t *testing.T, ctx context.Context, dir string) ([]recordedRequest, int) {
	t.Helper()
	m := newQwenMock(t, false, "")
	runQwenSession(t, ctx, q.bin, qwenEnv(q.s, m), dir, []string{"hello", "/compress", "What was I working on?"}, nil)
	reqs := m.Recorded()
	checkQwenRequests(t, reqs)
	return reqs, qwenSummaryIndex(t, reqs) + 1
}

// qwenSettingsWith is a Qwen settings document: "$version": 4 (so that
// Qwen leaves the file as it is), the keys of extra (JSON values), and a
// SessionStart compact group running the commands, if any.
func qwenSettingsWith(extra map[string]string, commands ...string) string {
	if extra == nil {
		extra = map[string]string{}
	}
	extra["$version"] = "4"
	return claudeHooks(extra, commands...)
}

// TestQwenManagedReminder: with nowhook's wrapper in
// /usr/local/libexec/nowhook and a SessionStart compact group running it
// in /etc/qwen-code/settings.json, and no project or user hook, Qwen Code
// 0.24.4 gets the reminder once in the request after /compress, kbs
// running once, in the trusted repository and in a folder Qwen does not
// trust (system hooks load whatever the folder's trust; project hooks do
// not). Run as root, Qwen leaves settings.json, which starts with
// "$version": 4, as it was, and rewrites system-defaults.json, which lacks
// it, as it does a project's settings: re-indented, "$version": 4 added
// last.
func TestQwenManagedReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	q := newQwenManaged(t)
	managedWrapper(t, q.libexec)
	sys := qwenSettingsWith(nil, managedCommand)
	writeFile(t, filepath.Join(q.etc, "settings.json"), sys, 0o644)
	const defaults = `{"model": {"name": "mock-model"}}` + "\n"
	writeFile(t, filepath.Join(q.etc, "system-defaults.json"), defaults, 0o644)
	untrusted := filepath.Join(q.s.root, "untrusted")
	writeFile(t, filepath.Join(untrusted, ".kanbus.yml"), "project_directory: project\nproject_key: kbs\n", 0o644)
	reminder := expectedReminder(t)
	kbs := 0
	for _, tc := range []struct{ name, dir string }{{"trusted-root", q.s.repo}, {"untrusted-folder", untrusted}} {
		t.Run(tc.name, func(t *testing.T) {
			reqs, after := q.compress(t, ctx, tc.dir)
			checkNotBefore(t, reqs, after-1, reminder)
			if n := countIn(t, reqs[after].Body, reminder); n != 1 {
				t.Errorf("the first request after the compression has the reminder %d times, want once", n)
			}
			kbs++
			if first, _ := q.s.kbsRuns(t); first != kbs {
				t.Errorf("kbs ran %d times in all, want %d", first, kbs)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(q.etc, "settings.json")); err != nil || string(b) != sys {
		t.Errorf("Qwen Code changed /etc/qwen-code/settings.json, which has \"$version\": 4 (%v):\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(q.etc, "system-defaults.json"))
	if err != nil {
		t.Fatal(err)
	}
	if after := string(b); after == defaults || !strings.HasSuffix(strings.TrimSpace(after), "\"$version\": 4\n}") {
		t.Errorf("/etc/qwen-code/system-defaults.json without \"$version\": want it rewritten with \"$version\": 4 last, got:\n%s", after)
	}
}

// TestQwenManagedLayers measures how Qwen Code 0.24.4 joins the
// SessionStart compact hooks of /etc/qwen-code/settings.json,
// /etc/qwen-code/system-defaults.json, the user's and the (trusted)
// project's settings:
//   - all four run, together (each saw the others started), each output
//     once in the request after /compress, each hook with
//     QWEN_PROJECT_DIR (the session's folder) and one payload
//     (session_id, prompt_id, transcript_path, cwd, source compact); a
//     command that the system's, the user's and the project's settings all
//     hold runs once;
//   - disableAllHooks true in the project's settings does not stop the
//     system's or the project's hooks where the system settings set it
//     false (they override the others; without that, the project's true
//     stopped every hook, the system's too: measured once by hand, not
//     kept, for the suite's time).
//
// Qwen Code has no switch that keeps only the system's hooks.
func TestQwenManagedLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	off := map[string]string{"disableAllHooks": "true"}
	for _, tc := range []struct {
		name         string
		layers       []string
		shared       bool
		system, proj map[string]string
		want         []string
	}{
		{name: "four-layers", layers: []string{"defaults", "project", "system", "user"}, shared: true,
			want: []string{"defaults", "project", "same", "system", "user"}},
		{name: "system-forces-hooks-on", layers: []string{"project", "system"}, system: map[string]string{"disableAllHooks": "false"},
			proj: off, want: []string{"project", "system"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQwenManaged(t)
			p := newLayerProbes(t, len(tc.want))
			userFile := filepath.Join(q.s.home, ".qwen", "settings.json")
			var us map[string]json.RawMessage
			b, err := os.ReadFile(userFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &us); err != nil {
				t.Fatal(err)
			}
			user := map[string]string{}
			for k, v := range us {
				user[k] = string(v)
			}
			files := map[string]string{
				"system":   filepath.Join(q.etc, "settings.json"),
				"defaults": filepath.Join(q.etc, "system-defaults.json"),
				"user":     userFile,
				"project":  filepath.Join(q.s.repo, ".qwen", "settings.json"),
			}
			extra := map[string]map[string]string{"system": tc.system, "user": user, "project": tc.proj}
			same := p.script(t, filepath.Join(q.libexec, "same.sh"), "same")
			for _, l := range tc.layers {
				cmds := []string{p.script(t, filepath.Join(q.libexec, l+".sh"), l)}
				if tc.shared && l != "defaults" {
					cmds = append(cmds, same)
				}
				writeFile(t, files[l], qwenSettingsWith(extra[l], cmds...), 0o644)
			}
			reqs, after := q.compress(t, ctx, q.s.repo)
			runs := p.runs(t)
			checkSet(t, "probe runs", labels(runs), tc.want)
			for _, r := range runs {
				checkSet(t, r.label+" hook: the probes started while it ran", r.saw, tc.want)
				if n := countIn(t, reqs[after].Body, layerMarker(r.label)); n != 1 {
					t.Errorf("%s hook: its output is %d times in the request after /compress, want once", r.label, n)
				}
				if r.env["QWEN_PROJECT_DIR"] != q.s.repo || r.payload["source"] != "compact" || r.payload["cwd"] != q.s.repo {
					t.Errorf("%s hook: QWEN_PROJECT_DIR=%q payload %v", r.label, r.env["QWEN_PROJECT_DIR"], r.payload)
				}
				for _, k := range []string{"session_id", "prompt_id", "transcript_path"} {
					if r.payload[k] == nil || r.payload[k] != runs[0].payload[k] {
						t.Errorf("%s hook: payload %s = %v, %s hook's %v: the layers do not share it", r.label, k, r.payload[k], runs[0].label, runs[0].payload[k])
					}
				}
				t.Logf("%s hook: payload keys %v; env %v", r.label, payloadKeys(r.payload), envWith(r.env, "QWEN_PROJECT", "QWEN_CODE_SESSION", "QWEN_CODE_PROMPT"))
			}
		})
	}
}

// TestQwenManagedBrokenSystemSettings: an /etc/qwen-code/settings.json that
// is not JSON stops Qwen Code 0.24.4 before its first request (exit 1, "An
// unexpected critical error occurred" and a stack trace naming the file).
func TestQwenManagedBrokenSystemSettings(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	q := newQwenManaged(t)
	writeFile(t, filepath.Join(q.etc, "settings.json"), "{ not valid,,\n", 0o644)
	m := newQwenMock(t, false, "")
	res := runCmd(t, ctx, qwenEnv(q.s, m), q.s.repo, "", q.bin, "-p", "hello")
	const want = "/etc/qwen-code/settings.json: SyntaxError"
	if res.err == nil || len(m.Recorded()) != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("qwen -p with a broken system settings file: %v, %d requests, stderr:\n%.1500s\nwant a failure before any request, saying %q", res.err, len(m.Recorded()), res.stderr, want)
	}
}
