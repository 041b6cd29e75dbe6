package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// geminiSystemDir is Gemini CLI's system folder on Linux: settings.json
// (overrides) and system-defaults.json (defaults). GEMINI_CLI_SYSTEM_SETTINGS_PATH
// moves the first; the tests leave it unset and use a sysView instead.
const geminiSystemDir = "/etc/gemini-cli"

// geminiManaged is a Gemini CLI sandbox whose client sees a folder of the
// test's at /etc/gemini-cli and another at /usr/local/libexec/nowhook.
type geminiManaged struct {
	s       *sandbox
	etc     string
	libexec string
	bin     string
}

func newGeminiManaged(t *testing.T, mode kbsMode) *geminiManaged {
	t.Helper()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	s := newSandbox(t, mode)
	g := &geminiManaged{s: s, etc: filepath.Join(s.root, "etc-gemini-cli"), libexec: filepath.Join(s.root, "libexec-nowhook")}
	v := newSysView(t, map[string]string{geminiSystemDir: g.etc, nowhookLibexec: g.libexec})
	g.bin = v.wrap(t, bin)
	return g
}

// geminiHooks is a settings document with the top-level keys of extra
// (JSON values), then groups (matcher "*") for event running the
// commands, each hook named after its command's file.
func geminiHooks(extra map[string]string, event string, commands ...string) string {
	doc := map[string]json.RawMessage{}
	for k, v := range extra {
		doc[k] = json.RawMessage(v)
	}
	if len(commands) > 0 {
		var hooks []map[string]any
		for _, c := range commands {
			hooks = append(hooks, map[string]any{"name": filepath.Base(c), "type": "command", "command": c, "timeout": 30000})
		}
		b, _ := json.Marshal(map[string]any{event: []any{map[string]any{"matcher": "*", "hooks": hooks}}})
		doc["hooks"] = b
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n"
}

// run runs `gemini -m MODEL -p hello` in the repository against m.
func (g *geminiManaged) run(t *testing.T, ctx context.Context, m *geminiMock) result {
	t.Helper()
	res := runCmd(t, ctx, geminiEnv(t, g.s, m), g.s.repo, "", g.bin, "-m", geminiModel, "-p", "hello")
	dumpRequests(t, m.Requests())
	if res.err != nil || !strings.Contains(res.stdout, "from the mock.") {
		t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	return res
}

// TestGeminiManagedReminder: with nowhook's BeforeModel script
// (templates/gemini-turn.sh) in /usr/local/libexec/nowhook and a group
// running it in /etc/gemini-cli/settings.json, and no project or user
// hook, Gemini CLI 0.61.0 puts the reminder into the first request after
// each of two compressions, once, and into no other request; kbs runs once
// per compression, and the CLI does not warn about the hook (it warns
// about project hooks only).
func TestGeminiManagedReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGeminiManaged(t, kbsFixture)
	script := filepath.Join(nowhookLibexec, "kanbus-gemini-turn.sh")
	writeFile(t, filepath.Join(g.libexec, filepath.Base(script)), templates.RenderGeminiTurn(5*time.Second, ""), 0o755)
	writeFile(t, filepath.Join(g.etc, "settings.json"), geminiHooks(nil, "BeforeModel", script), 0o644)
	m := newGeminiMultiMock(t, 2, 0)
	res := g.run(t, ctx, m)
	reqs := m.Requests()
	onceAfterEachCompression(t, reqs, expectedReminder(t))
	if k := g.s.kbsCalls(t); k != 2 {
		t.Errorf("kbs ran %d times, want 2 (once per compression)", k)
	}
	if strings.Contains(res.stderr, "kanbus-gemini-turn.sh") {
		t.Errorf("Gemini CLI warns about the system settings' hook:\n%s", grepLines(res.stderr, "kanbus-gemini-turn.sh"))
	}
}

// TestGeminiManagedLayers measures how Gemini CLI 0.61.0 joins the hooks
// of /etc/gemini-cli/settings.json (system overrides),
// /etc/gemini-cli/system-defaults.json, the user's and the project's
// settings, with a BeforeAgent probe (it runs once per prompt) in each:
//   - the hooks of all four layers run, together (each saw the others
//     started), each with GEMINI_PROJECT_DIR and GEMINI_SESSION_ID and one
//     payload (session_id, transcript_path, cwd, hook_event_name, prompt,
//     timestamp), and a command that the system's, the user's and the
//     project's settings all hold runs once;
//   - hooksConfig.enabled false in the project's settings stops every
//     hook, the system's too, unless the system settings set it true
//     (they override the others).
//
// Gemini CLI has no switch that keeps only the system's hooks.
func TestGeminiManagedLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	off := map[string]string{"hooksConfig": `{"enabled": false}`}
	for _, tc := range []struct {
		name         string
		layers       []string          // where a probe goes
		shared       bool              // one more command in system, user and project
		system, proj map[string]string // settings beyond the hooks
		want         []string          // the probes that run
	}{
		{name: "four-layers", layers: []string{"defaults", "project", "system", "user"}, shared: true,
			want: []string{"defaults", "project", "same", "system", "user"}},
		{name: "project-hooks-off", layers: []string{"project", "system", "user"}, proj: off},
		{name: "system-forces-hooks-on", layers: []string{"project", "system"}, system: map[string]string{"hooksConfig": `{"enabled": true}`},
			proj: off, want: []string{"project", "system"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGeminiManaged(t, kbsFixture)
			p := newLayerProbes(t, len(tc.want))
			m := newGeminiMock(t, false)
			env := geminiEnv(t, g.s, m)
			var us map[string]json.RawMessage
			if err := json.Unmarshal([]byte(geminiUserSettings), &us); err != nil {
				t.Fatal(err)
			}
			user := map[string]string{}
			for k, v := range us {
				user[k] = string(v)
			}
			files := map[string]string{
				"system":   filepath.Join(g.etc, "settings.json"),
				"defaults": filepath.Join(g.etc, "system-defaults.json"),
				"user":     filepath.Join(g.s.home, ".gemini", "settings.json"),
				"project":  filepath.Join(g.s.repo, ".gemini", "settings.json"),
			}
			extra := map[string]map[string]string{"system": tc.system, "user": user, "project": tc.proj}
			same := p.script(t, filepath.Join(g.libexec, "same.sh"), "same")
			for _, l := range tc.layers {
				cmds := []string{p.script(t, filepath.Join(g.libexec, l+".sh"), l)}
				if tc.shared && l != "defaults" {
					cmds = append(cmds, same)
				}
				writeFile(t, files[l], geminiHooks(extra[l], "BeforeAgent", cmds...), 0o644)
			}
			res := runCmd(t, ctx, env, g.s.repo, "", g.bin, "-m", geminiModel, "-p", "hello")
			if res.err != nil {
				t.Fatalf("gemini -p: %v\n%s", res.err, res.stderr)
			}
			runs := p.runs(t)
			checkSet(t, "probe runs", labels(runs), tc.want)
			for _, r := range runs {
				checkSet(t, r.label+" hook: the probes started while it ran", r.saw, tc.want)
				if r.env["GEMINI_PROJECT_DIR"] != g.s.repo || r.env["GEMINI_SESSION_ID"] == "" || r.env["GEMINI_SESSION_ID"] != r.payload["session_id"] {
					t.Errorf("%s hook: GEMINI_PROJECT_DIR=%q GEMINI_SESSION_ID=%q payload session_id %v; want the repository and the session's id",
						r.label, r.env["GEMINI_PROJECT_DIR"], r.env["GEMINI_SESSION_ID"], r.payload["session_id"])
				}
				if r.payload["hook_event_name"] != "BeforeAgent" || r.payload["cwd"] != g.s.repo || r.payload["transcript_path"] == nil {
					t.Errorf("%s hook: payload %v", r.label, r.payload)
				}
				t.Logf("%s hook: payload keys %v; env %v", r.label, payloadKeys(r.payload), envWith(r.env, "GEMINI_PROJECT", "GEMINI_SESSION", "GEMINI_CWD"))
			}
		})
	}
}

// TestGeminiManagedBrokenSystemSettings: an /etc/gemini-cli/settings.json
// that is not JSON stops Gemini CLI 0.61.0 before its first request (exit
// 52), naming the file: one bad system file takes every session down.
func TestGeminiManagedBrokenSystemSettings(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGeminiManaged(t, kbsFixture)
	writeFile(t, filepath.Join(g.etc, "settings.json"), "{ not valid,,\n", 0o644)
	m := newGeminiMock(t, false)
	res := runCmd(t, ctx, geminiEnv(t, g.s, m), g.s.repo, "", g.bin, "-m", geminiModel, "-p", "hello")
	const want = "Error in /etc/gemini-cli/settings.json"
	if res.err == nil || len(m.Requests()) != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("gemini -p with a broken system settings file: %v, %d requests, stderr:\n%s\nwant a failure before any request, saying %q", res.err, len(m.Requests()), res.stderr, want)
	}
}
