package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeNpmInstalledNowhook: nowhook installed with npm install -g
// from the release's tarballs (offline, into a fresh prefix) sets up the
// repository, and in a Claude Code session against the mock model, whose
// PATH holds the npm prefix's bin and no other nowhook, the compaction
// hook runs that install: the first request after /compact's summary
// carries the exact reminder, and the fake kbs was started by the
// nowhook-reminder of the npm platform package (not by the wrappers'
// python3 fallback).
func TestClaudeNpmInstalledNowhook(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	dir := releaseArtifacts(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	tmp := t.TempDir()
	kbsDir := fakeKbsDir(t, tmp)
	w := npmGlobal(t, ctx, dir, tmp)

	s := &sandbox{
		root:   tmp,
		home:   filepath.Join(tmp, "home"),
		bin:    kbsDir,
		repo:   newRepo(t, ctx, filepath.Join(tmp, "repo")),
		kbsLog: filepath.Join(kbsDir, "kbs.log"),
	}
	if err := os.MkdirAll(s.home, 0o755); err != nil {
		t.Fatal(err)
	}
	// Only the npm prefix's bin, the fake kbs, node's folder and the
	// system folders: no ~/.local/bin, no build of this checkout.
	path := w.pathVar(kbsDir)
	for _, d := range strings.Split(path, ":") {
		for _, name := range []string{"nowhook", "nowhook-reminder"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil && d != w.bin {
				t.Fatalf("%s is on the session's PATH in %s too; this test needs the npm prefix's to be the only one", name, d)
			}
		}
	}
	kbsEnv := append(w.env(tmp, kbsDir), "PATH="+path)
	res := runCmd(t, ctx, kbsEnv, s.repo, "", filepath.Join(w.bin, "nowhook"), "setup", "--yes", "--agents", "claude")
	if res.err != nil {
		t.Fatalf("nowhook setup --yes --agents claude (npm's): %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents claude, the npm install's:\n%s", strings.TrimSpace(res.stdout))
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "setup"}} {
		if r := runCmd(t, ctx, kbsEnv, s.repo, "", "git", args...); r.err != nil {
			t.Fatalf("git %v: %v\n%s", args, r.err, r.stderr)
		}
	}

	m := newAnthropicMock(t)
	// claudeEnv's PATH (the sandbox's bin, node's folder, the system's)
	// gives way to this one, and the fake kbs's variables join it: exec
	// keeps the last value of a variable.
	env := claudeEnv(s, m.URL)
	for _, e := range kbsEnv {
		if !strings.HasPrefix(e, "HOME=") {
			env = append(env, e)
		}
	}
	clientVersion(t, ctx, env, bin)
	if p, err := lookPathIn(path, "nowhook-reminder"); err != nil || filepath.Dir(p) != w.bin {
		t.Fatalf("nowhook-reminder on the session's PATH is %q (%v), want the npm prefix's", p, err)
	}
	sess := runClaudeSession(t, ctx, bin, env, s.repo, []string{"hello", "/compact", "What was I working on?"})
	reqs := m.Requests()
	dumpRequests(t, reqs)
	checkReinjected(t, reqs, expectedReminder(t))
	if n := len(sess.compactHookRuns()); n != 1 {
		t.Errorf("SessionStart:compact hook ran %d times, want 1", n)
	}
	if n := s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1", n)
	}
	b, err := os.ReadFile(filepath.Join(kbsDir, "parents-"+w.way))
	if err != nil {
		t.Fatalf("no record of kbs's parent: %v", err)
	}
	want, err := filepath.EvalSymlinks(filepath.Join(w.root, "lib", "node_modules", npmPlatform(), "bin", "nowhook-reminder"))
	if err != nil {
		t.Fatal(err)
	}
	for _, exe := range strings.Fields(string(b)) {
		if exe != want {
			t.Errorf("kbs was started by %s, want the npm platform package's %s", exe, want)
		}
	}
	t.Logf("the compact hook ran %s (kbs's parent), installed by npm", strings.TrimSpace(string(b)))
}

// lookPathIn finds a command in the folders of path, as the shell would.
func lookPathIn(path, name string) (string, error) {
	for _, d := range strings.Split(path, ":") {
		p := filepath.Join(d, name)
		if info, err := os.Stat(p); err == nil && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
