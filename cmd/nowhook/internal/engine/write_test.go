package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The writer's promises, each tested by making it fail: a file is
// replaced, never rewritten in place; no temporary file is left; a failure
// after the checks pass undoes every earlier write and delete, and removes
// the folders the run created.

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// planned plans content for rel (nil: delete rel).
func planned(t *testing.T, p *plan, rel string, content *string) *change {
	t.Helper()
	c, err := p.file(rel)
	if err != nil {
		t.Fatal(err)
	}
	if content == nil {
		c.remove = true
	} else {
		c.next, c.touched = []byte(*content), true
	}
	return c
}

func ptr(s string) *string { return &s }

// noTemps fails if a temporary file of the writer is left under root.
func noTemps(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".nowhook-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestWriteReplacesNeverInPlace(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a.json")
	link := filepath.Join(root, "hardlink")
	writeFile(t, file, "old\n", 0o640)
	if err := os.Link(file, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	p := newPlan(root)
	planned(t, p, "a.json", ptr("new\n"))
	if err := p.write(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, file); got != "new\n" {
		t.Errorf("a.json = %q, want the new content", got)
	}
	if got := readFile(t, link); got != "old\n" {
		t.Errorf("a hard link to the old file reads %q: the file was rewritten in place, not replaced", got)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640 kept", info.Mode().Perm())
	}
	noTemps(t, root)
}

// failLater makes the plan's last step fail after the checks have passed,
// by putting a non-empty folder where the step writes or deletes a file.
func failLater(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "in-the-way"), "x", 0o644)
}

func TestWriteRollsBackWhenALaterWriteFails(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "kept.json"), "before\n", 0o600)
	writeFile(t, filepath.Join(root, "gone.md"), "delete me\n", 0o644)
	writeFile(t, filepath.Join(root, "late.txt"), "late\n", 0o644)
	p := newPlan(root)
	planned(t, p, "kept.json", ptr("after\n"))
	planned(t, p, "new/deep/file.sh", ptr("#!/bin/sh\n"))
	planned(t, p, "gone.md", nil)
	planned(t, p, "late.txt", ptr("never\n"))
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	failLater(t, filepath.Join(root, "late.txt"))
	err := p.write()
	if err == nil {
		t.Fatal("write succeeded although late.txt is a folder")
	}
	if !strings.Contains(err.Error(), "late.txt") || !strings.Contains(err.Error(), "restored") {
		t.Errorf("error does not name the file and say what was restored: %v", err)
	}
	if got := readFile(t, filepath.Join(root, "kept.json")); got != "before\n" {
		t.Errorf("kept.json = %q, want its old bytes back", got)
	}
	if info, _ := os.Stat(filepath.Join(root, "kept.json")); info.Mode().Perm() != 0o600 {
		t.Errorf("kept.json mode %v, want 0600 back", info.Mode().Perm())
	}
	if got := readFile(t, filepath.Join(root, "gone.md")); got != "delete me\n" {
		t.Errorf("gone.md = %q, want it back", got)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("the folder new/ that the run created is still there (%v)", err)
	}
	noTemps(t, root)
}

func TestWriteRollsBackWhenALaterDeleteFails(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "first.json"), "one\n", 0o644)
	writeFile(t, filepath.Join(root, "a", "script.sh"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(root, "second.md"), "two\n", 0o644)
	p := newPlan(root)
	planned(t, p, "first.json", ptr("changed\n"))
	planned(t, p, "a/script.sh", nil)
	planned(t, p, "second.md", nil)
	p.rmdirs = []string{filepath.Join(root, "a")}
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	failLater(t, filepath.Join(root, "second.md"))
	if err := p.write(); err == nil {
		t.Fatal("write succeeded although second.md is a non-empty folder")
	}
	if got := readFile(t, filepath.Join(root, "first.json")); got != "one\n" {
		t.Errorf("first.json = %q, want its old bytes back", got)
	}
	if got := readFile(t, filepath.Join(root, "a", "script.sh")); got != "#!/bin/sh\n" {
		t.Errorf("a/script.sh = %q, want it back", got)
	}
	if info, _ := os.Stat(filepath.Join(root, "a", "script.sh")); info.Mode().Perm() != 0o755 {
		t.Errorf("a/script.sh mode %v, want 0755 back", info.Mode().Perm())
	}
	noTemps(t, root)
}

func TestWriteRollsBackWhenAFolderCannotGo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "x.json"), "x\n", 0o644)
	writeFile(t, filepath.Join(root, "d", "ours.sh"), "#!/bin/sh\n", 0o755)
	p := newPlan(root)
	planned(t, p, "x.json", ptr("y\n"))
	planned(t, p, "d/ours.sh", nil)
	p.rmdirs = []string{filepath.Join(root, "d")}
	if err := p.check(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "d", "someone-elses"), "z", 0o644) // arrives after planning
	if err := p.write(); err == nil {
		t.Fatal("write removed a folder that is not empty")
	}
	if got := readFile(t, filepath.Join(root, "x.json")); got != "x\n" {
		t.Errorf("x.json = %q, want x", got)
	}
	if got := readFile(t, filepath.Join(root, "d", "ours.sh")); got != "#!/bin/sh\n" {
		t.Errorf("d/ours.sh = %q, want it back", got)
	}
	if got := readFile(t, filepath.Join(root, "d", "someone-elses")); got != "z" {
		t.Errorf("someone else's file changed: %q", got)
	}
}
