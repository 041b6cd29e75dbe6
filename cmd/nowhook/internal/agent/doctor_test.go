package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// fakeView is doctor's run as an agent's own checks see it, made by hand:
// the agent's hook files read from a scratch repository and home.
type fakeView struct {
	a    *Agent
	mode Mode
	root string
	home string
	env  []string
}

func newFakeView(t *testing.T, a *Agent, mode Mode, files map[string]string) *fakeView {
	t.Helper()
	v := &fakeView{a: a, mode: mode, root: t.TempDir(), home: t.TempDir()}
	v.env = []string{"HOME=" + v.home, "PATH=/usr/bin:/bin"}
	for rel, content := range files {
		p := filepath.Join(v.root, rel)
		if strings.HasPrefix(rel, "~/") {
			p = filepath.Join(v.home, rel[2:])
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *fakeView) Agent() *Agent { return v.a }
func (v *fakeView) Mode() Mode    { return v.mode }
func (v *fakeView) Root() string  { return v.root }
func (v *fakeView) Env() []string { return v.env }
func (v *fakeView) Home() string  { return v.home }
func (v *fakeView) Live() bool    { return false }
func (v *fakeView) Getenv(k string) string {
	for _, kv := range v.env {
		if name, val, _ := strings.Cut(kv, "="); name == k {
			return val
		}
	}
	return ""
}

func (v *fakeView) HookFiles() []*diag.HookFile {
	var out []*diag.HookFile
	for _, rel := range v.a.Hooks.Files {
		abs, user := filepath.Join(v.root, rel), false
		if strings.HasPrefix(rel, "~/") || strings.HasPrefix(rel, "${") {
			_, tail, _ := strings.Cut(rel, "/")
			abs, user = filepath.Join(v.home, "."+v.a.Name, filepath.Base(tail)), true
		}
		if f := diag.ReadHookFile(abs, v.Show(abs), user, diag.Format{Title: v.a.Title, Strict: v.a.Hooks.Strict, Layout: v.a.Hooks.Layout}); f != nil {
			out = append(out, f)
		}
	}
	return out
}

func (v *fakeView) RunsReminder(h diag.Handler) bool {
	return strings.Contains(h.Command, "kanbus-compaction-right-now") || strings.Contains(h.Command, "kbs now")
}
func (v *fakeView) Budget() time.Duration { return DefaultBudget }
func (v *fakeView) Show(abs string) string {
	if rel, err := filepath.Rel(v.root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}
func (v *fakeView) ShowFix(abs string) string { return v.Show(abs) }
func (v *fakeView) SetupFix(agents string, extra ...string) string {
	return strings.Join(append([]string{"nowhook setup --yes --agents " + agents}, extra...), " ")
}

func (v *fakeView) span(file, name string) (generate.BlockSpan, bool, bool) {
	b, err := os.ReadFile(filepath.Join(v.root, file))
	if err != nil {
		return generate.BlockSpan{}, false, false
	}
	span, found, err := generate.FindBlock(b, name)
	return span, found, err == nil
}

func (v *fakeView) Block(file, name, purpose, fix string) (diag.Finding, bool) {
	if _, found, _ := v.span(file, name); found {
		return diag.Finding{Path: file, Message: file + " has the " + name + " block"}, true
	}
	return diag.Finding{Severity: diag.Warn, Path: file, Message: file + " has no " + name + " block, so " + purpose, Fix: fix}, false
}
func (v *fakeView) HasBlock(file, name string) bool { _, found, _ := v.span(file, name); return found }
func (v *fakeView) BlockSpan(file, name string) (generate.BlockSpan, bool) {
	span, found, sound := v.span(file, name)
	return span, found && sound
}
func (v *fakeView) Go(f func()) func() { f(); return func() {} }

// quirk returns the agent's own check named name.
func quirk(t *testing.T, a *Agent, name string) Check {
	t.Helper()
	for _, q := range a.Doctor.Quirks {
		if q.Name == name {
			return q
		}
	}
	t.Fatalf("%s has no check of its own named %s", a.Name, name)
	return Check{}
}

// expectRow asserts one row of severity sev whose message holds want.
func expectRow(t *testing.T, rows []diag.Finding, sev diag.Severity, want string) {
	t.Helper()
	if len(rows) != 1 || rows[0].Severity != sev || !strings.Contains(rows[0].Message, want) {
		t.Errorf("want one %s row with %q, got %+v", sev, want, rows)
	}
}

const qwenHookJSON = `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "\"$QWEN_PROJECT_DIR\"/.qwen/hooks/kanbus-compaction-right-now.sh", "timeout": %s}]}]}}`

// TestQuirksSeeTheView: each agent's own checks, run on a view made by
// hand, find what they are there to find, without doctor.
func TestQuirksSeeTheView(t *testing.T) {
	v := newFakeView(t, qwen, Reinject, map[string]string{".qwen/settings.json": "{\n  \"a\": 1,\n}\n"})
	expectRow(t, quirk(t, qwen, "loadable").Run(v), diag.Error, "trailing comma")

	v = newFakeView(t, qwen, Reinject, map[string]string{".qwen/settings.json": strings.Replace(qwenHookJSON, "%s", "3000", 1)})
	expectRow(t, quirk(t, qwen, "ms-timeout").Run(v), diag.Warn, `"timeout": 3000 is 3s to Qwen Code`)

	v = newFakeView(t, qwen, Reinject, map[string]string{"~/.qwen/settings.json": `{"security": {"folderTrust": {"enabled": true}}}`})
	expectRow(t, quirk(t, qwen, "folder-trust").Run(v), diag.Warn, "no rule in")

	v = newFakeView(t, gemini, OnDemand, map[string]string{".gemini/settings.json": `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "kbs now"}]}]}}`})
	expectRow(t, quirk(t, gemini, "migrated-hooks").Run(v), diag.Error, `"PreCompact" is Claude Code's name`)

	v = newFakeView(t, gemini, OnDemand, map[string]string{".gemini/settings.json": `{"context": {"fileName": ["AGENTS.md", "CONTEXT.md"]}}`})
	if names, source := geminiContextFiles(v.HookFiles()); strings.Join(names, ",") != "GEMINI.md,AGENTS.md,CONTEXT.md" || source != "context.fileName in .gemini/settings.json" {
		t.Errorf("Gemini CLI's context files: %q from %q (it reads GEMINI.md whatever context.fileName says)", names, source)
	}

	v = newFakeView(t, opencode, Reinject, nil)
	rows := quirk(t, opencode, "plugin").Run(v)
	if len(rows) != 2 || rows[0].Severity != diag.Error || !strings.Contains(rows[1].Message, "is missing") {
		t.Errorf("OpenCode set up without its wrapper and plugin: %+v", rows)
	}

	v = newFakeView(t, codex, Reinject, map[string]string{".codex/config.toml": "[features]\nhooks = false\n"})
	expectRow(t, quirk(t, codex, "features").Run(v), diag.Error, "sets [features] hooks = false")
	if rows := quirk(t, codex, "trust").Run(v); rows != nil {
		t.Errorf("Codex's trust without a hook of ours: %+v", rows)
	}
}
