//go:build unix

package reminder

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// The files of the defer rule as Claude Code's user-scope hook names them.
const (
	deferScript = ".claude/hooks/kanbus-compaction-right-now.sh"
	deferRuns   = `"$CLAUDE_PROJECT_DIR"/` + deferScript
)

// deferCase is one session in which the user-scope hook or the project's
// runs: what NOWHOOK_DEFER says, where the project directory comes from,
// what the project holds, and which wrapper runs.
type deferCase struct {
	name     string
	spec     string // NOWHOOK_DEFER; "" unset
	from     string // claude, qwen, both (CLAUDE_PROJECT_DIR another project), cwd, cwd-surrogate, cwd-nul, wd
	wrapper  string // the project's wrapper: exe, link, noexec, dir, fifo, dangling, absent
	settings string // what mentions it: json, local, link, abs, dotdot, other, late, fifo, dir, absent
	self     string // the wrapper that runs: user (in HOME), project, project-link, project-relative, managed, managed-link
	// The managed layer: which client runs the hook (clientEnv; "" gives
	// only what from says) and what its system folders hold
	// (managedLayout). A case with a layout runs in a private view of the
	// system folders (managedView).
	client, managed string
	deferred        bool   // the hook steps aside: nothing printed, kbs never started
	says            string // what NOWHOOK_DEFER=1 has both runtimes say on stderr; "" not checked
}

// deferCases are the named cases, then every project wrapper against
// every settings file.
func deferCases() []deferCase {
	cases := []deferCase{
		{name: "unset", spec: "", from: "claude", wrapper: "exe", settings: "json", self: "user"},
		{name: "claude", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "user", deferred: true},
		{name: "qwen's files", spec: ".qwen/hooks/kanbus-compaction-right-now.sh:.qwen/settings.json", from: "claude", wrapper: "exe", settings: "json", self: "user"},
		{name: "wrapper only", spec: deferScript, from: "claude", wrapper: "exe", settings: "json", self: "user"},
		{name: "no wrapper", spec: ":.claude/settings.json", from: "claude", wrapper: "exe", settings: "json", self: "user"},
		{name: "empty settings entry", spec: deferScript + "::.claude/settings.json", from: "claude", wrapper: "exe", settings: "json", self: "user", deferred: true},
		{name: "absolute wrapper path", spec: "@ROOT@/" + deferScript + ":.claude/settings.json", from: "claude", wrapper: "exe", settings: "abs", self: "user"},
		{name: "dot-dot through a link, cleaned first", spec: "sub/../" + deferScript + ":.claude/settings.json", from: "claude", wrapper: "exe", settings: "dotdot", self: "user", deferred: true},
		{name: "from QWEN_PROJECT_DIR", spec: claudeDefer, from: "qwen", wrapper: "exe", settings: "json", self: "user", deferred: true},
		{name: "CLAUDE_PROJECT_DIR first", spec: claudeDefer, from: "both", wrapper: "exe", settings: "json", self: "user"},
		{name: "from the payload's cwd", spec: claudeDefer, from: "cwd", wrapper: "exe", settings: "json", self: "user", deferred: true},
		{name: "cwd with a lone surrogate", spec: claudeDefer, from: "cwd-surrogate", wrapper: "exe", settings: "json", self: "user", deferred: true},
		{name: "cwd with a NUL", spec: claudeDefer, from: "cwd-nul", wrapper: "exe", settings: "json", self: "user"},
		{name: "from the working directory", spec: claudeDefer, from: "wd", wrapper: "exe", settings: "json", self: "user", deferred: true},
		// An exported NOWHOOK_DEFER reaches the project's own hook too: it
		// must not defer to itself, however its path is spelled.
		{name: "exported, the project's own hook", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "project"},
		{name: "exported, the project's hook through a link", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "project-link"},
		{name: "exported, the project's hook by a relative path", spec: claudeDefer, from: "wd", wrapper: "exe", settings: "json", self: "project-relative"},
	}
	// The managed layer: the managed hook prints, a project or user hook
	// of the same client steps aside for it, and nothing else does.
	cases = append(cases,
		deferCase{name: "managed drop-in, the user's hook", spec: claudeDefer, from: "claude", wrapper: "absent", settings: "absent", self: "user", client: "claude", managed: "claude-dropin", deferred: true,
			says: "Claude Code's managed hook runs here (/etc/claude-code/managed-settings.d/50-nowhook.json runs /usr/local/libexec/nowhook/claude.sh; CLAUDE_PROJECT_DIR and CLAUDE_CODE_SESSION_ID are set): printing nothing"},
		deferCase{name: "managed drop-in, the project's hook", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-dropin", deferred: true},
		deferCase{name: "managed base file, the project's hook", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-base", deferred: true},
		deferCase{name: "the managed hook, NOWHOOK_DEFER exported, the project's hook there", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "managed", client: "claude", managed: "claude-dropin",
			says: "this is Claude Code's managed hook (/usr/local/libexec/nowhook/claude.sh), which prints the reminder"},
		deferCase{name: "the managed hook through a link", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "managed-link", client: "claude", managed: "claude-dropin"},
		deferCase{name: "managed drop-in starting with a dot", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-dot"},
		deferCase{name: "managed drop-in not .json", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-txt"},
		deferCase{name: "managed drop-in a FIFO", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-fifo"},
		deferCase{name: "managed wrapper named past the read bound", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-late"},
		deferCase{name: "managed wrapper not executable", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-noexec",
			says: "Claude Code's managed wrapper /usr/local/libexec/nowhook/claude.sh is not an executable file: not stepping aside for it"},
		deferCase{name: "managed wrapper absent", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude", managed: "claude-nowrapper"},
		deferCase{name: "managed wrapper named by no managed file, the project rule", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "user", client: "claude", managed: "claude-unnamed", deferred: true,
			says: "Claude Code's managed wrapper /usr/local/libexec/nowhook/claude.sh is there, but no managed file of Claude Code names it: not stepping aside"},
		deferCase{name: "managed layer, no client named", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "claude-nosession", managed: "claude-dropin",
			says: "the client that runs this hook is not one whose managed layer is known"},
		deferCase{name: "another client's managed layer", from: "qwen", wrapper: "exe", settings: "json", self: "project", client: "qwen", managed: "claude-dropin"},
		deferCase{name: "codex requirements.toml", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "codex", managed: "codex-requirements", deferred: true,
			says: "Codex CLI's managed hook runs here (/etc/codex/requirements.toml runs /usr/local/libexec/nowhook/codex.sh; no project variable, and the payload has permission_mode and no prompt_id): printing nothing"},
		deferCase{name: "codex hooks.json", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "codex", managed: "codex-hooks", deferred: true},
		deferCase{name: "codex config.toml", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "codex", managed: "codex-config", deferred: true},
		deferCase{name: "codex, the managed hook", from: "cwd", wrapper: "exe", settings: "json", self: "managed", client: "codex", managed: "codex-hooks"},
		deferCase{name: "a payload with prompt_id is not Codex's", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "codex-prompt", managed: "codex-hooks"},
		deferCase{name: "qwen", from: "qwen", wrapper: "exe", settings: "json", self: "project", client: "qwen", managed: "qwen-settings", deferred: true},
		deferCase{name: "qwen, the file moved", from: "qwen", wrapper: "exe", settings: "json", self: "project", client: "qwen", managed: "qwen-moved", deferred: true},
		deferCase{name: "qwen, moved away from the file that names it", from: "qwen", wrapper: "exe", settings: "json", self: "project", client: "qwen", managed: "qwen-movedaway"},
		deferCase{name: "gemini", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "gemini", managed: "gemini-settings", deferred: true},
		deferCase{name: "gemini, the file moved", from: "cwd", wrapper: "exe", settings: "json", self: "project", client: "gemini", managed: "gemini-moved", deferred: true},
		deferCase{name: "droid", from: "claude", wrapper: "exe", settings: "json", self: "project", client: "droid", managed: "droid-settings", deferred: true},
		deferCase{name: "droid, the managed hook", spec: claudeDefer, from: "claude", wrapper: "exe", settings: "json", self: "managed", client: "droid", managed: "droid-settings"},
	)
	for _, w := range []string{"exe", "link", "noexec", "dir", "fifo", "dangling", "absent"} {
		for _, s := range []string{"json", "local", "link", "other", "late", "fifo", "dir", "absent"} {
			cases = append(cases, deferCase{
				name: "wrapper " + w + ", settings " + s, spec: claudeDefer, from: "claude", wrapper: w, settings: s, self: "user",
				deferred: (w == "exe" || w == "link") && (s == "json" || s == "local" || s == "link"),
			})
		}
	}
	return cases
}

// TestDeferGoMatchesPython runs the user-scope hook (and, where NOWHOOK_DEFER
// is exported, the project's own) through the wrapper on the Go path and on
// the python3 fallback over the same sessions: the same bytes printed and
// the same kbs calls, and the decision each case names. The cases with a
// managed layer run the project's, the user's or the managed hook in a
// private view of the system folders (managedView; they skip, saying why,
// where none can be made), and where a case names it, both runtimes
// explain the decision in the same words.
func TestDeferGoMatchesPython(t *testing.T) {
	t.Parallel()
	payload := abs(t, filepath.Join(fixtures, "basic.json"))
	want := expected(t, "basic.expected.txt")
	paths := map[string]string{
		"go":      toolDir(t, "nowhook-reminder", "kbs"),
		"python3": toolDir(t, "python3", "timeout", "kbs"),
	}
	for _, c := range deferCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.managed != "" {
				canView(t)
			}
			s := newDeferSession(t, c)
			var outs []string
			for _, rt := range []string{"go", "python3"} {
				out, stderr, calls := s.run(t, paths[rt], payload)
				if python := strings.Contains(stderr, "(python3): "); python != (rt == "python3") {
					t.Fatalf("%s: the wrong runtime ran; stderr:\n%s", rt, stderr)
				}
				wantOut, wantCalls := want, 1
				if c.deferred {
					wantOut, wantCalls = "", 0
				}
				if c.says != "" && !strings.Contains(stderr, c.says) {
					t.Errorf("%s: stderr does not say %q:\n%s", rt, c.says, stderr)
				}
				if out != wantOut || calls != wantCalls {
					t.Errorf("%s: printed %d bytes, kbs ran %d times; want %d bytes, %d calls (deferred %v)\nstderr:\n%s",
						rt, len(out), calls, len(wantOut), wantCalls, c.deferred, stderr)
				}
				outs = append(outs, out)
			}
			if outs[0] != outs[1] {
				t.Errorf("the python3 fallback printed\n%q\nthe Go path\n%q", outs[1], outs[0])
			}
		})
	}
}

// deferSession is one case's world.
type deferSession struct {
	c                  deferCase
	root, home, script string // the project, HOME, the wrapper that runs
	dir                string // the working directory
	env                []string
	stdin              string
	sys                string // the system root of the managed layer; "" none
}

func newDeferSession(t *testing.T, c deferCase) *deferSession {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	if c.from == "cwd-surrogate" {
		root = filepath.Join(base, "repo\uFFFD")
	}
	mkdir(t, filepath.Join(root, ".git"))
	mkdir(t, filepath.Join(root, ".claude", "hooks"))
	writeFile(t, filepath.Join(root, ".kanbus.yml"), "project_key: kbs\n")
	wrapper := []byte(templates.RenderWrapper(5*time.Second, ""))
	elsewhere := filepath.Join(base, "elsewhere") // a Kanbus project without hooks
	mkdir(t, filepath.Join(elsewhere, ".git"))
	writeFile(t, filepath.Join(elsewhere, ".kanbus.yml"), "project_key: kbs\n")
	target := filepath.Join(root, deferScript)
	switch c.wrapper {
	case "exe":
		writeMode(t, target, wrapper, 0o755)
	case "link":
		writeMode(t, filepath.Join(elsewhere, "w.sh"), wrapper, 0o755)
		symlink(t, filepath.Join(elsewhere, "w.sh"), target)
	case "noexec":
		writeMode(t, target, wrapper, 0o644)
	case "dir":
		mkdir(t, target)
	case "fifo":
		mkfifo(t, target)
	case "dangling":
		symlink(t, filepath.Join(base, "nowhere"), target)
	}
	runs := []byte(`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"` +
		strings.ReplaceAll(deferRuns, `"`, `\"`) + `","timeout":10}]}]}}`)
	settings := filepath.Join(root, ".claude", "settings.json")
	switch c.settings {
	case "json":
		writeMode(t, settings, runs, 0o644)
	case "local":
		writeMode(t, filepath.Join(root, ".claude", "settings.local.json"), runs, 0o644)
	case "link":
		writeMode(t, filepath.Join(elsewhere, "s.json"), runs, 0o644)
		symlink(t, filepath.Join(elsewhere, "s.json"), settings)
	case "abs":
		writeMode(t, settings, []byte(`{"command": "`+target+`"}`), 0o644)
	case "dotdot":
		writeMode(t, settings, []byte(`{"command": "sub/../`+deferScript+`"}`), 0o644)
	case "other":
		writeMode(t, settings, []byte(`{"hooks":{}}`), 0o644)
	case "late":
		writeMode(t, settings, append(bytes.Repeat([]byte(" "), maxDeferRead), runs...), 0o644)
	case "fifo":
		mkfifo(t, settings)
	case "dir":
		mkdir(t, settings)
	}
	// sub: a link whose parent is elsewhere, so that sub/.. read by the
	// system is not the root.
	mkdir(t, filepath.Join(base, "a", "b"))
	symlink(t, filepath.Join(base, "a", "b"), filepath.Join(root, "sub"))

	s := &deferSession{c: c, root: root, home: filepath.Join(base, "home"), dir: elsewhere}
	switch c.self {
	case "user":
		s.script = filepath.Join(s.home, deferScript)
		writeMode(t, s.script, wrapper, 0o755)
	case "project":
		s.script = target
	case "project-link":
		s.script = filepath.Join(elsewhere, "link.sh")
		symlink(t, target, s.script)
	case "project-relative":
		s.script = deferScript
	case "managed", "managed-link":
		// The path of the managed wrapper in the view of the system folders.
		client, _, _ := strings.Cut(c.managed, "-")
		s.script = "/" + managedDir + "/" + map[string]string{"claude": "claude.sh", "codex": "codex.sh", "gemini": "gemini-turn.sh", "qwen": "qwen.sh", "droid": "droid.sh"}[client]
		if c.self == "managed-link" {
			link := filepath.Join(elsewhere, "managed.sh")
			symlink(t, s.script, link)
			s.script = link
		}
	}
	permissionMode, promptID := false, false
	if c.managed != "" {
		s.sys = filepath.Join(base, "sys")
		s.env = append(s.env, managedLayout(t, s.sys, c.managed)...)
		var vars []string
		vars, permissionMode, promptID = clientEnv(c.client, root)
		for _, v := range vars {
			// The project directory comes from what from says.
			if !strings.HasPrefix(v, "CLAUDE_PROJECT_DIR=") && !strings.HasPrefix(v, "QWEN_PROJECT_DIR=") {
				s.env = append(s.env, v)
			}
		}
	}
	if c.spec != "" {
		s.env = append(s.env, "NOWHOOK_DEFER="+strings.ReplaceAll(c.spec, "@ROOT@", root))
	}
	cwd := ""
	switch c.from {
	case "claude":
		s.env = append(s.env, "CLAUDE_PROJECT_DIR="+root)
	case "qwen":
		s.env = append(s.env, "QWEN_PROJECT_DIR="+root)
	case "both":
		s.env = append(s.env, "CLAUDE_PROJECT_DIR="+elsewhere, "QWEN_PROJECT_DIR="+root)
	case "cwd":
		cwd = jsonInner(root)
	case "cwd-surrogate":
		cwd = jsonInner(strings.TrimSuffix(root, "\uFFFD")) + `\ud800`
	case "cwd-nul":
		cwd = jsonInner(root) + `\u0000`
		s.dir = root // the project is found from the working directory
	case "wd":
		s.dir = root
	}
	fields := ""
	if cwd != "" {
		fields += `"cwd":"` + cwd + `",`
	}
	if permissionMode {
		fields += `"permission_mode":"default",`
	}
	if promptID {
		fields += `"prompt_id":"p1",`
	}
	s.stdin = `{"session_id":"s1",` + fields + `"hook_event_name":"SessionStart","source":"compact"}`
	return s
}

// run runs the session's wrapper with sh, as an agent's command does, on
// PATH; it returns what it printed and how often kbs ran. The wrapper
// must exit 0.
func (s *deferSession) run(t *testing.T, path, payload string) (out, stderr string, calls int) {
	t.Helper()
	callLog := filepath.Join(t.TempDir(), "calls")
	cmd := exec.Command("/bin/sh", s.script)
	if s.sys != "" {
		view := managedView(t, s.sys)
		cmd = exec.Command(view[0], append(view[1:], "/bin/sh", s.script)...)
	}
	cmd.Dir = s.dir
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + s.home, "NOWHOOK_DEBUG=1",
		"FAKE_KBS_PAYLOAD=" + payload, "FAKE_KBS_LOG=" + callLog}, s.env...)
	cmd.Stdin = strings.NewReader(s.stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("wrapper: %v\nstderr:\n%s", err, e.String())
	}
	return o.String(), e.String(), len(readLines(callLog))
}

// jsonInner is s as the inside of a JSON string (no quotes).
func jsonInner(s string) string {
	var b []byte
	b = appendJSONString(b, s)
	return string(b[1 : len(b)-1])
}

func writeMode(t *testing.T, path string, b []byte, mode os.FileMode) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	mkdir(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

// TestCheckpointTranscriptFIFO: a transcript_path that names a FIFO is
// refused, never read: the checkpoint prints nothing and returns, where
// opening it waited for a writer forever.
func TestCheckpointTranscriptFIFO(t *testing.T) {
	c := newCkpt(t, "")
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	mkfifo(t, fifo)
	payload := `{"session_id":"s","transcript_path":"` + fifo + `","cwd":"` + c.proj + `","hook_event_name":"PostToolUse","tool_use_id":"toolu_1"}`
	done := make(chan string, 1)
	var debug bytes.Buffer
	go func() {
		done <- string(checkpoint(options{budget: time.Second, stdin: strings.NewReader(payload), getenv: c.getenv,
			wd: t.TempDir(), log: logger{w: &debug, on: true}, at: DefaultAt, refire: DefaultRefire}))
	}()
	select {
	case out := <-done:
		if out != "" || !strings.Contains(debug.String(), "not a regular file") {
			t.Errorf("printed %q; log:\n%s", out, debug.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still reading the FIFO 30s on")
	}
}
