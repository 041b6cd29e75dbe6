package codex

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHome(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/h", "CODEX_HOME=/c/x/.."}, "/c"},
		{[]string{"HOME=/h"}, "/h/.codex"},
		{[]string{"HOME=/h", "CODEX_HOME="}, "/h/.codex"},
		{[]string{"PATH=/bin"}, ""},
	} {
		if got := Home(c.env); got != c.want {
			t.Errorf("Home(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestReadConfig reads both layers: absent, parsing, broken (with line
// and column), unreadable, and too large.
func TestReadConfig(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home}
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	userPath := filepath.Join(home, ".codex", "config.toml")
	projectPath := filepath.Join(root, ".codex", "config.toml")

	c := ReadConfig(env, root)
	if c.User.Path != userPath || c.User.Exists || c.User.Err != nil || c.User.Doc != nil ||
		c.Project.Path != projectPath || c.Project.Exists || c.Project.Err != nil {
		t.Fatalf("absent layers: %+v %+v", c.User, c.Project)
	}
	if p := c.User.Problem("u"); p != "" {
		t.Errorf("absent layer has a problem: %s", p)
	}

	write(userPath, "[hooks.state.\"k\"]\ntrusted_hash = \"sha256:1\"\n[hooks.Stop]\n[hooks.PreToolUse]\n")
	write(projectPath, "a = 1\nb = \n")
	c = ReadConfig(env, root)
	if c.User.Err != nil || !c.User.Exists {
		t.Fatalf("user layer: %+v", c.User)
	}
	if state, ok := c.User.Table("hooks", "state"); !ok || state["k"] == nil {
		t.Errorf("Table(hooks, state) = %v, %v", state, ok)
	}
	if got := c.User.InlineHooks(); !reflect.DeepEqual(got, []string{"PreToolUse", "Stop"}) {
		t.Errorf("InlineHooks = %q", got)
	}
	if c.Project.Doc != nil || !strings.HasPrefix(c.Project.Problem("p"), "p:2:5: is not valid TOML (") {
		t.Errorf("broken project layer: %q, doc %v", c.Project.Problem("p"), c.Project.Doc)
	}

	write(projectPath, "hooks = 5\n")
	c = ReadConfig(env, root)
	if _, ok := c.Project.Table("hooks"); ok {
		t.Error("Table(hooks) of hooks = 5 is ok")
	}
	if _, ok := c.Project.Table("features"); !ok {
		t.Error("Table of an absent table is not ok")
	}
	if got := c.Project.InlineHooks(); got != nil {
		t.Errorf("InlineHooks of hooks = 5: %q", got)
	}

	if err := os.Remove(projectPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(projectPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if p := ReadConfig(env, root).Project.Problem("p"); p != "p is a directory, not a regular file" {
		t.Errorf("a directory: %q", p)
	}

	write(userPath, strings.Repeat("#\n", maxConfig/2+1))
	if p := ReadConfig(env, root).User.Problem("u"); p != "u is 8388610 bytes, larger than the 8 MiB nowhook reads of a file" {
		t.Errorf("too large: %q", p)
	}

	if c := ReadConfig([]string{"PATH=/bin"}, root); c.User.Path != "" || c.User.Exists {
		t.Errorf("without HOME: %+v", c.User)
	}
}
