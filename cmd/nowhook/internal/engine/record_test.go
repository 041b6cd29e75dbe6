package engine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRecordOneKindOfPath: whatever an older record held (paths relative
// to the root, absolute ones, a folder named through a link), every line
// is read as an absolute path with its links resolved, and written so.
func TestRecordOneKindOfPath(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "repo")
	dotfiles := filepath.Join(base, "dotfiles", "claude")
	for _, d := range []string{filepath.Join(root, ".git", "nowhook"), filepath.Join(dotfiles, "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../dotfiles/claude", filepath.Join(root, ".claude")); err != nil {
		t.Fatal(err)
	}
	r := loadRecord(root)
	old := strings.Join([]string{
		"# an older nowhook's record",
		"d .claude/hooks",
		"f .claude/hooks/kanbus-compaction-right-now.sh",
		"f CLAUDE.md",
		"k " + filepath.Join(dotfiles, "settings.json"),
		"c " + filepath.Join(root, ".claude", "settings.json") + "#hooks.SessionStart",
		"x not a line of ours",
		"",
	}, "\n")
	if err := os.WriteFile(r.path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r = loadRecord(root)
	var got []string
	for l := range r.lines {
		got = append(got, l)
	}
	sort.Strings(got)
	want := []string{
		"c " + filepath.Join(dotfiles, "settings.json") + "#hooks.SessionStart",
		"d " + filepath.Join(dotfiles, "hooks"),
		"f " + filepath.Join(dotfiles, "hooks", "kanbus-compaction-right-now.sh"),
		"f " + filepath.Join(root, "CLAUDE.md"),
		"k " + filepath.Join(dotfiles, "settings.json"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every way of naming a file finds the same line.
	for _, name := range []string{".claude/hooks/kanbus-compaction-right-now.sh", filepath.Join(root, ".claude", "hooks", "kanbus-compaction-right-now.sh"), filepath.Join(dotfiles, "hooks", "kanbus-compaction-right-now.sh")} {
		if !r.createdFile(name) || !r.knows(name) {
			t.Errorf("%s: not known as created", name)
		}
	}
	if !r.createdDir(".claude/hooks") || r.createdDir(".claude") {
		t.Errorf("createdDir: .claude/hooks %v (want true), .claude %v (want false)", r.createdDir(".claude/hooks"), r.createdDir(".claude"))
	}
	if r.dropContainer(".claude/settings.json", "hooks") || !r.dropContainer(".claude/settings.json", "hooks.SessionStart") {
		t.Errorf("dropContainer: hooks must stay (it existed), hooks.SessionStart goes (ours)")
	}
	r.save()
	b, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if _, path, _ := strings.Cut(line, " "); !filepath.IsAbs(path) {
			t.Errorf("saved line %q: path is not absolute", line)
		}
	}
}
