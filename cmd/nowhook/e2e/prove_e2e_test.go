package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// proveCase is one client that nowhook doctor --prove runs: the agent,
// its client, and the ways to break its hook with what the row must say.
type proveCase struct {
	agent string
	setup []string // more flags for setup
	// broken edit the repository (after the commit), each with the words
	// the error row must carry.
	broken []proveBreak
}

type proveBreak struct {
	name string
	// edit breaks the hook; what it changes outside the repository it
	// restores with the function it returns, if any.
	edit func(t *testing.T, s *sandbox) (undo func())
	want string
}

// The Test<Client>DoctorProve tests: in a repository set up for the
// agent, with its real client on PATH, `nowhook doctor --prove` reports
// the reminder reaching the model after the compaction; after each way of
// breaking the hook, the error row names what it saw; and no run changes
// the repository (git status and a hash of every file, .git included, are
// the same).
func TestClaudeDoctorProve(t *testing.T) {
	t.Parallel()
	checkDoctorProve(t, findClient(t, "CLAUDE_BIN", "claude"), proveCases["claude"])
}

func TestCodexDoctorProve(t *testing.T) {
	t.Parallel()
	checkDoctorProve(t, findClient(t, "CODEX_BIN", "codex"), proveCases["codex"])
}

func TestQwenDoctorProve(t *testing.T) {
	t.Parallel()
	checkDoctorProve(t, findClient(t, "QWEN_BIN", "qwen"), proveCases["qwen"])
}

func TestOpencodeDoctorProve(t *testing.T) {
	t.Parallel()
	checkDoctorProve(t, findClient(t, "OPENCODE_BIN", "opencode"), proveCases["opencode"])
}

func checkDoctorProve(t *testing.T, bin string, c proveCase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	// Tests never depend on timing: the bound is generous here.
	env := s.env([]string{"PATH=" + s.bin + ":" + filepath.Dir(bin) + ":" + pathOf(s.env(nil)), "NOWHOOK_PROVE_LIMIT=10m"})
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), append([]string{"setup", "--yes", "--agents", c.agent}, c.setup...)...)
	if res.err != nil {
		t.Fatalf("nowhook setup: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	commitAll(t, ctx, s)
	f := proveRow(t, ctx, s, env, c.agent)
	if f.Severity != diag.OK || !strings.Contains(f.Message, "the reminder reached the first request after") {
		t.Fatalf("prove.%s = %s %s, want ok", c.agent, f.Severity, f.Message)
	}
	for _, b := range c.broken {
		undo := b.edit(t, s)
		f := proveRow(t, ctx, s, env, c.agent)
		if f.Severity != diag.Error || !strings.Contains(f.Message, b.want) {
			t.Errorf("%s: prove.%s = %s %s, want error with %q", b.name, c.agent, f.Severity, f.Message, b.want)
		}
		runCmd(t, ctx, env, s.repo, "", "git", "checkout", "-q", ".")
		if undo != nil {
			undo()
		}
	}
}

var proveCases = map[string]proveCase{
	"claude": {agent: "claude", broken: []proveBreak{
		{"matcher changed", func(t *testing.T, s *sandbox) func() {
			replaceIn(t, filepath.Join(s.repo, ".claude", "settings.json"), `"matcher": "compact"`, `"matcher": "startup"`)
			return nil
		}, "no hook ran after /compact"},
		{"script deleted", func(t *testing.T, s *sandbox) func() {
			removeFile(t, filepath.Join(s.repo, ".claude", "hooks", "kanbus-compaction-right-now.sh"))
			return nil
		}, "the hook ran and printed nothing, and never called kbs: its script is missing"},
		{"settings broken", func(t *testing.T, s *sandbox) func() {
			replaceIn(t, filepath.Join(s.repo, ".claude", "settings.json"), `"hooks": {`, `"hooks": {,`)
			return nil
		}, "the client refused the settings file"},
	}},
	"codex": {agent: "codex", setup: []string{"--trust-codex"}, broken: []proveBreak{
		{"trust forgotten", func(t *testing.T, s *sandbox) func() {
			config := filepath.Join(s.home, ".codex", "config.toml")
			b, err := os.ReadFile(config)
			if err != nil {
				t.Fatal(err)
			}
			state := strings.Index(string(b), "[hooks.state.")
			if state < 0 {
				t.Fatalf("setup --trust-codex recorded no hook trust:\n%s", b)
			}
			writeFile(t, config, string(b[:state]), 0o600)
			return func() { writeFile(t, config, string(b), 0o600) }
		}, "Codex skips the SessionStart hook: its trust is untrusted"},
		{"matcher changed", func(t *testing.T, s *sandbox) func() {
			replaceIn(t, filepath.Join(s.repo, ".codex", "hooks.json"), `"matcher": "compact"`, `"matcher": "startup"`)
			return nil
		}, "its trust is modified"},
		{"script deleted", func(t *testing.T, s *sandbox) func() {
			removeFile(t, filepath.Join(s.repo, ".codex", "hooks", "kanbus-compaction-right-now.sh"))
			return nil
		}, "never called kbs: its script is missing"},
	}},
	"opencode": {agent: "opencode", broken: []proveBreak{
		{"plugin deleted", func(t *testing.T, s *sandbox) func() {
			removeFile(t, filepath.Join(s.repo, opencodePluginFile))
			return nil
		}, "no hook ran after summarize"},
		{"script deleted", func(t *testing.T, s *sandbox) func() {
			removeFile(t, filepath.Join(s.repo, opencodeWrapperFile))
			return nil
		}, "no hook ran after summarize"},
	}},
	"qwen": {agent: "qwen", broken: []proveBreak{
		{"matcher changed", func(t *testing.T, s *sandbox) func() {
			replaceIn(t, filepath.Join(s.repo, ".qwen", "settings.json"), `"matcher": "compact"`, `"matcher": "startup"`)
			return nil
		}, "no hook ran after /compress"},
		{"script deleted", func(t *testing.T, s *sandbox) func() {
			removeFile(t, filepath.Join(s.repo, ".qwen", "hooks", "kanbus-compaction-right-now.sh"))
			return nil
		}, "no hook ran after /compress"},
	}},
}

// proveRow runs doctor --prove --json in the repository and returns the
// agent's prove row, checking that the run left the repository as it was.
func proveRow(t *testing.T, ctx context.Context, s *sandbox, env []string, agent string) diag.Finding {
	t.Helper()
	status, hash := repoState(t, ctx, s, env)
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), "doctor", "--prove", "--json")
	if after, h := repoState(t, ctx, s, env); after != status || h != hash {
		t.Errorf("doctor --prove changed the repository:\ngit status before:\n%s\nafter:\n%s", status, after)
	}
	var fs []diag.Finding
	if err := json.Unmarshal([]byte(res.stdout), &fs); err != nil {
		t.Fatalf("doctor --prove --json: %v\n%s%s", err, res.stdout, res.stderr)
	}
	for _, f := range fs {
		if f.Check == "prove."+agent {
			t.Logf("%s  %s  %s", f.Severity, f.Check, f.Message)
			return f
		}
	}
	t.Fatalf("no prove.%s row:\n%s", agent, res.stdout)
	return diag.Finding{}
}

// repoState is git status --porcelain and a hash of every file.
func repoState(t *testing.T, ctx context.Context, s *sandbox, env []string) (string, string) {
	t.Helper()
	st := runCmd(t, ctx, env, s.repo, "", "git", "status", "--porcelain", "--ignored")
	h := runCmd(t, ctx, env, s.repo, "", "sh", "-c", "find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum")
	if st.err != nil || h.err != nil {
		t.Fatalf("git status: %v %s; hash: %v %s", st.err, st.stderr, h.err, h.stderr)
	}
	return st.stdout, h.stdout
}

func commitAll(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "setup"}} {
		if res := runCmd(t, ctx, s.env(nil), s.repo, "", "git", args...); res.err != nil {
			t.Fatalf("git %v: %v\n%s", args, res.err, res.stderr)
		}
	}
}

func pathOf(env []string) string {
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			return p
		}
	}
	return ""
}

func replaceIn(t *testing.T, path, old, repl string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q:\n%s", path, old, b)
	}
	writeFile(t, path, strings.Replace(string(b), old, repl, 1), 0o644)
}

func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeDoctorProveUserScope: after setup --scope user, `nowhook doctor
// --scope user --prove` proves Claude Code's user hook from a copy of the
// user's settings, in an empty throw-away Kanbus project; with the user
// wrapper deleted, the row says the hook ran and never called kbs (the
// user-scope command exits 0 without its wrapper). The user's folder is
// left as it was.
func TestClaudeDoctorProveUserScope(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	env := s.env([]string{"PATH=" + s.bin + ":" + filepath.Dir(bin) + ":" + pathOf(s.env(nil)), "NOWHOOK_PROVE_LIMIT=10m"})
	nowhook := filepath.Join(s.bin, "nowhook")
	if res := runCmd(t, ctx, env, s.root, "", nowhook, "setup", "--scope", "user", "--yes", "--agents", "claude"); res.err != nil {
		t.Fatalf("nowhook setup --scope user: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	home := func() string {
		res := runCmd(t, ctx, env, s.home, "", "sh", "-c", "find . -type f | LC_ALL=C sort | xargs sha256sum")
		return res.stdout
	}
	for _, c := range []struct{ name, want string }{
		{"set up", "the reminder reached the first request after /compact"},
		{"wrapper deleted", "the hook ran and printed nothing, and never called kbs"},
	} {
		if c.name == "wrapper deleted" {
			removeFile(t, filepath.Join(s.home, ".claude", "hooks", "kanbus-compaction-right-now.sh"))
		}
		before := home()
		res := runCmd(t, ctx, env, s.root, "", nowhook, "doctor", "--scope", "user", "--prove")
		if after := home(); after != before {
			t.Errorf("%s: doctor --prove changed the files under HOME:\nbefore:\n%s\nafter:\n%s", c.name, before, after)
		}
		var row string
		for line := range strings.SplitSeq(res.stdout, "\n") {
			if strings.Contains(line, "prove.claude") {
				row = line
			}
		}
		t.Logf("%s: %s", c.name, row)
		if !strings.Contains(row, c.want) {
			t.Errorf("%s: prove.claude row %q, want %q\n%s%s", c.name, row, c.want, res.stdout, res.stderr)
		}
	}
}
