package detect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootAndKanbus(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "sub/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".kanbus.yml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	got, err := Root(filepath.Join(root, "sub", "dir"))
	if err != nil || got != root {
		t.Fatalf("Root = %q, %v; want %q", got, err, root)
	}
	if k := DetectKanbus(root); k.Config != filepath.Join(root, ".kanbus.yml") {
		t.Errorf("Kanbus config = %q", k.Config)
	}
	if _, ok := FindKanbusConfig(filepath.Join(root, "sub", "dir")); !ok {
		t.Errorf("FindKanbusConfig from a subdirectory failed")
	}
}

// TestKanbusProjects: the bounded search finds the projects below the
// root, in order, with evidence, and skips what a session there would not
// reach or what is not the team's: .git, node_modules, hidden folders,
// other repositories, links, and folders deeper than the bound.
func TestKanbusProjects(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{
		"b/.kanbus.yml", "a/.kanbus.yml", "a/inner/.kanbus.yml", "svc/api/.kanbus.yml",
		"node_modules/x/.kanbus.yml", ".claude/worktrees/w/.kanbus.yml", ".git/x/.kanbus.yml",
		"nested/.git", "nested/p/.kanbus.yml", "d1/d2/d3/d4/.kanbus.yml", "d1/d2/d3/d4/d5/.kanbus.yml",
	} {
		write(rel)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	got, s := KanbusProjects(root)
	var dirs []string
	for _, p := range got {
		dirs = append(dirs, p.Dir)
		if p.Config != filepath.Join(root, filepath.FromSlash(p.Dir), ".kanbus.yml") || !strings.HasPrefix(p.Evidence, p.Dir+"/.kanbus.yml found below "+root+" (searched ") {
			t.Errorf("%s: config %q, evidence %q", p.Dir, p.Config, p.Evidence)
		}
	}
	if want := "a b d1/d2/d3/d4 svc/api"; strings.Join(dirs, " ") != want {
		t.Errorf("projects %q, want %q", strings.Join(dirs, " "), want)
	}
	if !s.Complete {
		t.Errorf("search incomplete: %s", s)
	}
	// A root with a project of its own is not searched by DetectKanbusFrom.
	write(".kanbus.yml")
	if k := DetectKanbusFrom(root, root); len(k.Projects) != 0 {
		t.Errorf("DetectKanbusFrom with a root project searched below it: %v", k.Projects)
	}
}

// TestWorktree: a linked worktree's .git file leads to its main checkout,
// as git lays it out (absolute or relative gitdir); a submodule's or a
// separate git dir does not, nor does a plain checkout.
func TestWorktree(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel, content string) {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if content != "" {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("main/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n")
	mk("wt/.git", "gitdir: "+filepath.Join(base, "main/.git/worktrees/wt")+"\n")
	mk("wt/sub/x", "")
	mk("rel/.git", "gitdir: ../main/.git/worktrees/wt\n")
	mk("main/.git/modules/sm/HEAD", "x")
	mk("main/sm/.git", "gitdir: ../.git/modules/sm\n")
	for _, tc := range []struct {
		dir, top, main string
	}{
		{"wt", "wt", "main"},
		{"wt/sub", "wt", "main"},
		{"rel", "rel", "main"},
		{"main", "", ""},
		{"main/sm", "", ""},
	} {
		top, main, evidence, ok := Worktree(filepath.Join(base, tc.dir))
		if tc.main == "" {
			if ok {
				t.Errorf("%s: a worktree of %s (%s), want none", tc.dir, main, evidence)
			}
			continue
		}
		if !ok || top != filepath.Join(base, tc.top) || main != filepath.Join(base, tc.main) || evidence == "" {
			t.Errorf("%s: Worktree = %q, %q, %q, %v; want %s of %s", tc.dir, top, main, evidence, ok, tc.top, tc.main)
		}
	}
}
