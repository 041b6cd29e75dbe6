package prove

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestCopyTreeStaysInTheCopy: nothing in the copy leads back to the
// user's files: no .git at any depth (a worktree's .git file names the
// user's real repository), a link out of the repository becomes a copy
// of what it points at, a link inside it stays a link into the copy.
func TestCopyTreeStaysInTheCopy(t *testing.T) {
	base := t.TempDir()
	repo, outside, dst := filepath.Join(base, "repo"), filepath.Join(base, "dotfiles"), filepath.Join(base, "copy")
	for path, body := range map[string]string{
		"repo/.git":                     "gitdir: " + filepath.Join(base, "main", ".git", "worktrees", "wt") + "\n",
		"repo/sub/.git/HEAD":            "ref: refs/heads/main\n",
		"repo/node_modules/x/index.js":  "x\n",
		"repo/AGENTS.md":                "# Team\n",
		"dotfiles/claude/settings.json": "{}\n",
		"dotfiles/qwen-settings.json":   "{}\n",
	} {
		p := filepath.Join(base, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"repo/.claude":        filepath.Join(outside, "claude"),
		"repo/QWEN-link.json": "../dotfiles/qwen-settings.json",
		"repo/CLAUDE.md":      "AGENTS.md",
		"repo/abs-inside.md":  filepath.Join(repo, "AGENTS.md"),
		"repo/dangling.md":    filepath.Join(base, "nowhere"),
	}
	for from, to := range links {
		if err := os.Symlink(to, filepath.Join(base, filepath.FromSlash(from))); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyTree(repo, dst); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{".git", "sub/.git", "node_modules", "dangling.md"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s was copied", gone)
		}
	}
	for _, copied := range []string{".claude", ".claude/settings.json", "QWEN-link.json"} {
		info, err := os.Lstat(filepath.Join(dst, copied))
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s: %v, %v; want a copy of what the link outside the repository points at", copied, info, err)
		}
	}
	if got, err := os.Readlink(filepath.Join(dst, "CLAUDE.md")); err != nil || got != "AGENTS.md" {
		t.Errorf("CLAUDE.md links to %q (%v), want AGENTS.md", got, err)
	}
	if got, err := os.Readlink(filepath.Join(dst, "abs-inside.md")); err != nil || got != filepath.Join(dst, "AGENTS.md") {
		t.Errorf("abs-inside.md links to %q (%v), want the copy's AGENTS.md", got, err)
	}
	// A write through the copy's .claude lands in the copy only.
	if err := os.WriteFile(filepath.Join(dst, ".claude", "settings.json"), []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "claude", "settings.json")); string(b) != "{}\n" {
		t.Errorf("the user's dotfiles changed: %q", b)
	}
}

// TestUserViewFollowsConfigDir: with --scope user, a user folder that the
// user's environment moves (CLAUDE_CONFIG_DIR, QWEN_HOME) is copied to
// the same place in the temporary HOME, and the client is told so.
func TestUserViewFollowsConfigDir(t *testing.T) {
	for _, c := range []struct{ agent, env string }{{"claude", "CLAUDE_CONFIG_DIR"}, {"qwen", "QWEN_HOME"}} {
		home := t.TempDir()
		moved := filepath.Join(home, ".config", c.agent)
		if err := os.MkdirAll(moved, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(moved, "settings.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, _ := agentpkg.Lookup(c.agent)
		w, err := newWorld(Options{User: true, Env: []string{"HOME=" + home, c.env + "=" + moved, "PATH=/usr/bin:/bin"}}, a, "/bin/true", &offline{})
		if err != nil {
			t.Fatal(err)
		}
		want := c.env + "=" + filepath.Join(w.home, ".config", c.agent)
		if !slices.Contains(w.env(), want) {
			t.Errorf("%s: the client's environment %q lacks %s", c.agent, w.env(), want)
		}
		if _, err := os.Stat(filepath.Join(w.home, ".config", c.agent, "settings.json")); err != nil {
			t.Errorf("%s: the user's settings were not copied where %s points: %v", c.agent, c.env, err)
		}
		w.remove()
	}
}
