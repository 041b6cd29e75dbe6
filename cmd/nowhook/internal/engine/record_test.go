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

// TestRecordAnyByte: a path holding a newline, a leading or trailing
// space, a quote, a '#', a tab or bytes that are not UTF-8 reads back as it
// was written, in every kind of line; a line it cannot read is skipped,
// never taken for another path.
func TestRecordAnyByte(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "re\npo")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := loadRecord(root)
	odd := []string{"a\nb", " lead", "trail ", `"quoted"`, "x#y", "tab\tz", "bad\xffutf8", "plain"}
	for _, name := range odd {
		p := filepath.Join(root, name)
		r.lines["f "+p] = true
		r.lines["c "+p+"#hooks.SessionStart"] = true
		r.lines["o "+p] = true
	}
	r.keepBlank(filepath.Join(root, "blank\n.json"), []byte("\n \t\n"))
	r.userFolder("claude", filepath.Join(root, "cfg\ndir"), true)
	r.rememberTrust("codex", root, true)
	if err := r.save(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 1+3*len(odd)+3 {
		t.Errorf("the record has %d lines, want %d: a path broke a line\n%s", n, 1+3*len(odd)+3, b)
	}
	back := loadRecord(root)
	for l := range r.lines {
		if !back.lines[l] {
			t.Errorf("line %q did not read back", l)
		}
	}
	if len(back.lines) != len(r.lines) {
		t.Errorf("read back %d lines, wrote %d", len(back.lines), len(r.lines))
	}
	if blank, ok := back.wasBlank(filepath.Join(root, "blank\n.json")); !ok || blank != "\n \t\n" {
		t.Errorf("the blank file's white space read back as %q, %v", blank, ok)
	}
	if got := back.userFolders("claude"); len(got) != 1 || got[0] != filepath.Join(root, "cfg\ndir") {
		t.Errorf("user folders %q", got)
	}
	if got := back.trustedProject("codex"); got != root {
		t.Errorf("trusted project %q, want %q", got, root)
	}
	// A broken line is skipped, and the rest is read.
	if err := os.WriteFile(r.path, append([]byte("f \"unterminated\nk /x/y\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := loadRecord(root); len(again.lines) != len(r.lines)+1 || !again.lines["k /x/y"] {
		t.Errorf("a broken line changed what else was read: %d lines", len(again.lines))
	}
}
