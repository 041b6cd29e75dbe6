package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// managedRecordDir is where the managed scope keeps its record on the
// machine (agent.ManagedRecord's folder).
const managedRecordDir = "/var/lib/nowhook"

// exitOf is the exit status of a run (0 where it succeeded, -1 where it
// did not start or was killed).
func exitOf(res result) int {
	var exit *exec.ExitError
	switch {
	case res.err == nil:
		return 0
	case errors.As(res.err, &exit):
		return exit.ExitCode()
	}
	return -1
}

// rowsOf are the lines of a doctor table whose CHECK is check.
func rowsOf(table, check string) []string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == check {
			out = append(out, line)
		}
	}
	return out
}

// TestClaudeManagedHooksOnlyDoctor: allowManagedHooksOnly in
// /etc/claude-code/managed-settings.json with nowhook's project install
// only. In one private view of the system folders (sysView), nowhook's own
// doctor and setup and the real Claude Code 2.1.332 see the same managed
// layer:
//   - doctor (no --root: the system paths) calls claude.managed an error
//     naming the switch's file, with the fix sudo nowhook setup --scope
//     managed, and exits 1; doctor --root on a tree whose etc/claude-code
//     is the same folder says the same of the tree;
//   - setup in the repository does not claim success: it writes what is
//     right for every other machine, then names the error and exits 1;
//   - the real client puts no reminder into the request after /compact,
//     and kbs never runs: doctor's error is what the client does;
//   - after setup --scope managed in the view, doctor calls the switch
//     fine (no error in claude.managed, doctor --scope managed all ok but
//     its record), and the real client gets the reminder once, kbs once.
func TestClaudeManagedHooksOnlyDoctor(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	claude := findClient(t, "CLAUDE_BIN", "claude")
	s := newSandbox(t, kbsFixture)
	etc := filepath.Join(s.root, "etc-claude-code")
	libexec := filepath.Join(s.root, "libexec-nowhook")
	state := filepath.Join(s.root, "var-lib-nowhook")
	v := newSysView(t, map[string]string{claudeManagedDir: etc, nowhookLibexec: libexec, managedRecordDir: state})
	client := v.wrap(t, claude)
	nowhook := filepath.Join(s.bin, "nowhook")
	inView := v.wrap(t, nowhook)
	run := func(bin string, args ...string) result {
		t.Helper()
		res := runCmd(t, ctx, s.env(nil), s.repo, "", bin, args...)
		t.Logf("nowhook %s (exit %d):\n%s%s", strings.Join(args, " "), exitOf(res), res.stdout, res.stderr)
		return res
	}
	compact := func() (int, int) {
		t.Helper()
		m := newAnthropicMock(t)
		kbs := s.kbsCalls(t)
		runClaudeSession(t, ctx, client, claudeEnv(s, m.URL), s.repo, []string{"hello", "/compact", "What was I working on?"})
		reqs := m.Requests()
		return countInBody(t, reqs[summaryIndex(t, reqs)+1].Body, expectedReminder(t)), s.kbsCalls(t) - kbs
	}

	writeFile(t, filepath.Join(etc, "managed-settings.json"), claudeHooks(map[string]string{"allowManagedHooksOnly": "true"}), 0o644)
	// The project install, outside the view: the machine has no switch.
	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude")

	// doctor in the view, on the system paths.
	res := run(inView, "doctor")
	rows := rowsOf(res.stdout, "claude.managed")
	const wantMsg = "allowManagedHooksOnly: true in /etc/claude-code/managed-settings.json: Claude Code runs the managed layer's hooks alone (measured on Claude Code 2.1.332), so the project's hook in .claude/settings.json never runs"
	const wantFix = "fix: sudo nowhook setup --scope managed --yes --agents claude (or ask the organisation that manages this machine to install nowhook's managed hook)"
	if exitOf(res) != 1 || len(rows) != 1 || !strings.HasPrefix(rows[0], "error ") || !strings.Contains(rows[0], wantMsg) || !strings.Contains(res.stdout, wantFix) {
		t.Errorf("doctor in the view: exit %d, claude.managed rows %q; want exit 1 and one error saying %q, with %q", exitOf(res), rows, wantMsg, wantFix)
	}

	// doctor --root on a tree of the same folders, outside the view.
	tree := filepath.Join(s.root, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(etc, filepath.Join(tree, "etc", "claude-code")); err != nil {
		t.Fatal(err)
	}
	res = run(nowhook, "doctor", "--root", tree)
	rows = rowsOf(res.stdout, "claude.managed")
	if want := "allowManagedHooksOnly: true in " + tree + "/etc/claude-code/managed-settings.json"; exitOf(res) != 1 || len(rows) != 1 || !strings.HasPrefix(rows[0], "error ") || !strings.Contains(rows[0], want) {
		t.Errorf("doctor --root %s: exit %d, claude.managed rows %q; want exit 1 and one error saying %q", tree, exitOf(res), rows, want)
	}
	// doctor without --root outside the view: the machine's /etc has no
	// switch, so no managed row at all.
	if _, err := os.Stat("/etc/claude-code"); errors.Is(err, os.ErrNotExist) {
		res = run(nowhook, "doctor")
		if rows := rowsOf(res.stdout, "claude.managed"); len(rows) != 0 {
			t.Errorf("doctor outside the view, on a machine without /etc/claude-code: claude.managed rows %q, want none", rows)
		}
	}

	// setup in the view, in a repository of its own: it writes, then
	// names the switch and exits 1.
	fresh := filepath.Join(s.root, "fresh")
	writeFile(t, filepath.Join(fresh, ".kanbus.yml"), "project_key: kbs\n", 0o644)
	if err := os.Mkdir(filepath.Join(fresh, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	res = runCmd(t, ctx, s.env(nil), fresh, "", inView, "setup", "--yes", "--agents", "claude")
	t.Logf("nowhook setup in a fresh repository, in the view (exit %d):\n%s%s", exitOf(res), res.stdout, res.stderr)
	if exitOf(res) != 1 || !strings.Contains(res.stderr, "(claude.managed): allowManagedHooksOnly: true in /etc/claude-code/managed-settings.json") || !strings.Contains(res.stderr, "The files were written") {
		t.Errorf("setup in the view: exit %d, stderr %q; want exit 1, the files written, naming claude.managed's allowManagedHooksOnly", exitOf(res), res.stderr)
	}
	if _, err := os.Stat(filepath.Join(fresh, ".claude", "settings.json")); err != nil {
		t.Errorf("setup in the view did not write the project's hook: %v", err)
	}

	// The real client agrees: nothing comes back.
	n, k := compact()
	if n != 0 || k != 0 {
		t.Errorf("with allowManagedHooksOnly and the project install only, Claude Code has the reminder %d times after /compact and kbs ran %d times; want 0 and 0", n, k)
	}
	t.Logf("switch, project install only: reminder %d, kbs %d", n, k)

	// The managed install, in the view (as root on the machine).
	if res := run(inView, "setup", "--scope", "managed", "--yes", "--agents", "claude"); res.err != nil {
		t.Fatalf("setup --scope managed in the view: %v", res.err)
	}
	for _, f := range []string{filepath.Join(etc, "managed-settings.d", "50-nowhook.json"), filepath.Join(libexec, "claude.sh"), filepath.Join(state, "managed-scope")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("setup --scope managed in the view did not write %s: %v", f, err)
		}
	}
	res = run(inView, "doctor")
	rows = rowsOf(res.stdout, "claude.managed")
	const okMsg = "allowManagedHooksOnly: true in /etc/claude-code/managed-settings.json: Claude Code runs the managed layer's hooks alone (measured on Claude Code 2.1.332); nowhook's managed hook in /etc/claude-code/managed-settings.d/50-nowhook.json is one of them and prints the reminder"
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "ok ") || !strings.Contains(rows[0], okMsg) {
		t.Errorf("doctor in the view with the managed hook: claude.managed rows %q, want one ok saying %q", rows, okMsg)
	}
	res = run(inView, "doctor", "--scope", "managed")
	for _, check := range []string{"managed.claude.layer", "managed.claude.hooks-file", "managed.claude.hook", "managed.claude.script", "managed.claude.record"} {
		if rows := rowsOf(res.stdout, check); len(rows) != 1 || !strings.HasPrefix(rows[0], "ok ") {
			t.Errorf("doctor --scope managed in the view: %s rows %q, want one ok", check, rows)
		}
	}

	n, k = compact()
	if n != 1 || k != 1 {
		t.Errorf("with allowManagedHooksOnly and nowhook's managed hook, Claude Code has the reminder %d times after /compact and kbs ran %d times; want once each", n, k)
	}
	t.Logf("switch, managed install: reminder %d, kbs %d", n, k)
}

// TestCodexManagedHooksOnlyDoctor: allow_managed_hooks_only = true at the
// top of /etc/codex/requirements.toml with nowhook's trusted project
// install only. In one private view of /etc/codex,
// /usr/local/libexec/nowhook and /var/lib/nowhook:
//   - doctor (no --root) calls codex.managed an error naming
//     requirements.toml, with the fix sudo nowhook setup --scope managed,
//     and exits 1; setup in the repository writes, names it and exits 1;
//   - the real Codex CLI 0.171.0 puts no reminder into the request after
//     the compaction and never runs kbs;
//   - after setup --scope managed in the view (/etc/codex/hooks.json),
//     doctor calls the switch fine and Codex gets the reminder once.
func TestCodexManagedHooksOnlyDoctor(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	codexBin := findClient(t, "CODEX_BIN", "codex")
	s := newSandbox(t, kbsFixture)
	m := newResponsesMock(t)
	env := codexEnv(s, codexHome(t, s, m))
	etc := filepath.Join(s.root, "etc-codex")
	libexec := filepath.Join(s.root, "libexec-nowhook")
	state := filepath.Join(s.root, "var-lib-nowhook")
	v := newSysView(t, map[string]string{codexManagedDir: etc, nowhookLibexec: libexec, managedRecordDir: state})
	client := v.wrap(t, codexBin)
	clientVersion(t, ctx, env, client)
	inView := v.wrap(t, filepath.Join(s.bin, "nowhook"))
	run := func(args ...string) result {
		t.Helper()
		res := runCmd(t, ctx, env, s.repo, "", inView, args...)
		t.Logf("nowhook %s (exit %d):\n%s%s", strings.Join(args, " "), exitOf(res), res.stdout, res.stderr)
		return res
	}
	// exec is one codex exec whose turn compacts, against a new mock (the
	// user config's provider moved to it, its trust kept): the reminders
	// in the request after the compaction, and the kbs runs.
	config := filepath.Join(s.root, "codex-home", "config.toml")
	exec := func() (int, int) {
		t.Helper()
		b, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		fresh := newResponsesMock(t)
		writeFile(t, config, strings.Replace(string(b), m.URL+"/v1", fresh.URL+"/v1", 1), 0o644)
		m = fresh
		kbs := s.kbsCalls(t)
		r := codexExecIn(t, ctx, s, m, client, env, s.repo)
		dev := strings.Join(developerTexts(t, r.reqs[compactionIndex(t, r.reqs)+1].Body), "\n")
		return strings.Count(dev, expectedReminder(t)), s.kbsCalls(t) - kbs
	}

	setupCodex(t, ctx, s, client, env)
	checkCodexTrustedIn(t, ctx, client, env, s.repo)
	writeFile(t, filepath.Join(etc, "requirements.toml"), "allow_managed_hooks_only = true\n", 0o644)

	res := run("doctor")
	rows := rowsOf(res.stdout, "codex.managed")
	const wantMsg = "allow_managed_hooks_only: true in /etc/codex/requirements.toml: Codex CLI runs the managed layer's hooks alone (measured on Codex CLI 0.171.0), so the project's hook in .codex/hooks.json never runs"
	const wantFix = "fix: sudo nowhook setup --scope managed --yes --agents codex (or ask the organisation that manages this machine to install nowhook's managed hook)"
	if exitOf(res) != 1 || len(rows) != 1 || !strings.HasPrefix(rows[0], "error ") || !strings.Contains(rows[0], wantMsg) || !strings.Contains(res.stdout, wantFix) {
		t.Errorf("doctor in the view: exit %d, codex.managed rows %q; want exit 1 and one error saying %q, with %q", exitOf(res), rows, wantMsg, wantFix)
	}
	res = run("setup", "--yes", "--agents", "codex")
	if exitOf(res) != 1 || !strings.Contains(res.stderr, "(codex.managed): allow_managed_hooks_only: true in /etc/codex/requirements.toml") {
		t.Errorf("setup in the view: exit %d, stderr %q; want exit 1 naming codex.managed's allow_managed_hooks_only", exitOf(res), res.stderr)
	}

	n, k := exec()
	if n != 0 || k != 0 {
		t.Errorf("with allow_managed_hooks_only and the trusted project install only, Codex has the reminder %d times after the compaction and kbs ran %d times; want 0 and 0", n, k)
	}
	t.Logf("switch, project install only: reminder %d, kbs %d", n, k)

	if res := run("setup", "--scope", "managed", "--yes", "--agents", "codex"); res.err != nil {
		t.Fatalf("setup --scope managed in the view: %v", res.err)
	}
	res = run("doctor")
	rows = rowsOf(res.stdout, "codex.managed")
	const okMsg = "allow_managed_hooks_only: true in /etc/codex/requirements.toml: Codex CLI runs the managed layer's hooks alone (measured on Codex CLI 0.171.0); nowhook's managed hook in /etc/codex/hooks.json is one of them and prints the reminder"
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "ok ") || !strings.Contains(rows[0], okMsg) {
		t.Errorf("doctor in the view with the managed hook: codex.managed rows %q, want one ok saying %q", rows, okMsg)
	}
	n, k = exec()
	if n != 1 || k != 1 {
		t.Errorf("with allow_managed_hooks_only and nowhook's managed hook, Codex has the reminder %d times after the compaction and kbs ran %d times; want once each", n, k)
	}
	t.Logf("switch, managed install: reminder %d, kbs %d", n, k)
}
