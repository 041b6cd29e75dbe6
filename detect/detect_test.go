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

// TestFindKanbusConfigLinks: the lookup the hook runtime and setup and
// doctor share. A session started in a link into a repository's
// sub-folder finds the repository's project, as the agent, which works in
// the real path, does (the hook found it and doctor, walking only the
// path as given, did not); a link that leads out of the repository keeps
// the project found on the way up as given; a .kanbus.yml must be a
// regular file, a link to one counts.
func TestFindKanbusConfigLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	for _, d := range []string{"repo/.git", "repo/sub/deeper", "outside/plain", "other/.git", "dirconf/.git", "dirconf/.kanbus.yml"} {
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"repo/.kanbus.yml", "conf.yml"} {
		if err := os.WriteFile(at(f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link":              "repo/sub/deeper", // outside any repository, into one
		"repo/out":          "outside/plain",   // inside the repository, out of it
		"other/.kanbus.yml": "conf.yml",        // the configuration itself a link
	} {
		if err := os.Symlink(at(target), at(link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ start, want string }{
		{"link", "repo/.kanbus.yml"},
		{"repo/sub/deeper", "repo/.kanbus.yml"},
		{"repo/out", "repo/.kanbus.yml"},
		{"other", "other/.kanbus.yml"},
		{"dirconf", ""},
	} {
		got, ok := FindKanbusConfig(at(tc.start))
		want := ""
		if tc.want != "" {
			want = at(tc.want)
		}
		if got != want || ok != (want != "") {
			t.Errorf("FindKanbusConfig(%s) = %q, %v; want %q", tc.start, got, ok, want)
		}
	}
}

// TestLook: the marks given as data come back as what was seen, with
// evidence, in the order given.
func TestLook(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".tool", "rules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"TOOL.md", ".tool/rules/a.mdc"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	seen := Look(root, []Marks{
		{Paths: []string{".tool", "TOOL.md", "missing"}, Globs: []Glob{{".tool/rules/*.mdc", "rules in .tool/rules"}, {"*.none", "never"}}, Binaries: []string{"tool", "nottool"}},
		{},
	})
	if len(seen) != 2 {
		t.Fatalf("Look gave %d results for 2 marks", len(seen))
	}
	want := Seen{
		Evidence: []string{".tool/ exists", "TOOL.md exists", "rules in .tool/rules", "tool on PATH"},
		Paths:    []string{".tool", "TOOL.md", ".tool/rules/*.mdc"},
		Binaries: []string{"tool"},
	}
	if got := seen[0]; strings.Join(got.Evidence, "|") != strings.Join(want.Evidence, "|") || strings.Join(got.Paths, "|") != strings.Join(want.Paths, "|") || strings.Join(got.Binaries, "|") != strings.Join(want.Binaries, "|") {
		t.Errorf("Look = %+v, want %+v", got, want)
	}
	if s := seen[1]; len(s.Evidence)+len(s.Paths)+len(s.Binaries) != 0 {
		t.Errorf("empty marks: %+v", s)
	}
}
