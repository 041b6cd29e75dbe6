package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// The writer's promises, each tested by making it fail: a file is
// replaced through a temporary file beside it, never rewritten in place,
// unless it has other hard links (then it is rewritten in place, so that
// they stay one file); its mode, owner and group stay; no temporary file
// is left, and one a stopped run left is deleted by the next; a failure
// after the checks pass undoes every earlier write and delete, removes
// the folders the run created, and says file by file what it undid.

func mkfile(t *testing.T, path, content string, mode os.FileMode) {
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
	mkfile(t, file, "old\n", 0o640)
	before, _ := os.Stat(file)
	p := newPlan(root)
	planned(t, p, "a.json", ptr("new\n"))
	if err := p.write(nil, ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, file); got != "new\n" {
		t.Errorf("a.json = %q, want the new content", got)
	}
	after, _ := os.Stat(file)
	if os.SameFile(before, after) {
		t.Errorf("a.json was rewritten in place, not replaced: a kill mid-write would have left it half written")
	}
	if after.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640 kept", after.Mode().Perm())
	}
	noTemps(t, root)
}

// TestWriteKeepsHardLinks: a file with a second hard link is rewritten in
// place, so both names read the new content and stay one file.
func TestWriteKeepsHardLinks(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a.json")
	link := filepath.Join(root, "hardlink")
	mkfile(t, file, "old content, longer than the new\n", 0o640)
	if err := os.Link(file, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	p := newPlan(root)
	planned(t, p, "a.json", ptr("new\n"))
	if err := p.write(nil, ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, link); got != "new\n" {
		t.Errorf("the other hard link reads %q: the link was split from the file", got)
	}
	a, _ := os.Stat(file)
	b, _ := os.Stat(link)
	if !os.SameFile(a, b) || a.Mode().Perm() != 0o640 {
		t.Errorf("a.json and its hard link are no longer one file with mode 0640 (%v, %v)", a.Mode(), b.Mode())
	}
	noTemps(t, root)
}

// TestWriteKeepsOwner: a file of another user, rewritten by root, still
// belongs to that user and group (an atomic rename would hand it to root).
func TestWriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	root := t.TempDir()
	file := filepath.Join(root, "a.json")
	mkfile(t, file, "old\n", 0o640)
	if err := os.Chown(file, 1000, 1001); err != nil {
		t.Skipf("chown: %v", err)
	}
	p := newPlan(root)
	planned(t, p, "a.json", ptr("new\n"))
	if err := p.write(nil, ""); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(file)
	if uid, gid, _ := osutil.Owner(info); uid != 1000 || gid != 1001 || info.Mode().Perm() != 0o640 {
		t.Errorf("after the write a.json is %d:%d mode %v, want 1000:1001 0640", uid, gid, info.Mode().Perm())
	}
}

// TestWriteTempBesideTarget: the temporary file lies in the target's own
// folder, so the rename never crosses file systems, whatever $TMPDIR says
// (here a folder that does not exist).
func TestWriteTempBesideTarget(t *testing.T) {
	root := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(root, "no-such-tmp"))
	mkfile(t, filepath.Join(root, "sub", "a.json"), "old\n", 0o644)
	var temps []string
	testHookRename = func(tmp, target string) error {
		temps = append(temps, tmp)
		if filepath.Dir(tmp) != filepath.Dir(target) || !strings.HasPrefix(filepath.Base(tmp), "."+filepath.Base(target)+".nowhook-") {
			t.Errorf("temporary file %s is not beside %s", tmp, target)
		}
		return nil
	}
	defer func() { testHookRename = nil }()
	p := newPlan(root)
	planned(t, p, "sub/a.json", ptr("new\n"))
	planned(t, p, "sub/new.md", ptr("created\n"))
	if err := p.write(nil, ""); err != nil {
		t.Fatalf("write with TMPDIR pointing nowhere: %v", err)
	}
	if len(temps) != 2 {
		t.Errorf("%d writes went through a temporary file, want 2", len(temps))
	}
	noTemps(t, root)
}

// TestWriteClearsLeftovers: a run killed between writing its temporary
// file and renaming it leaves .FILE.nowhook-N beside the file; the next
// run deletes it and says so. A hard-linked file's old content left by a
// run stopped while it wrote in place is named, not deleted; files that
// merely look alike stay.
func TestWriteClearsLeftovers(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "a.json"), "old\n", 0o644)
	left := filepath.Join(root, ".a.json.nowhook-123456")
	undo := filepath.Join(root, ".a.json.nowhook-undo-42")
	mine := filepath.Join(root, ".a.json.nowhook-mine")
	other := filepath.Join(root, ".b.json.nowhook-7")
	for _, f := range []string{left, undo, mine, other} {
		mkfile(t, f, "x", 0o600)
	}
	p := newPlan(root)
	planned(t, p, "a.json", ptr("new\n"))
	if err := p.write(nil, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the leftover %s is still there", left)
	}
	for _, f := range []string{undo, mine, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	notes := strings.Join(p.notes, "\n")
	if !strings.Contains(notes, ".a.json.nowhook-123456") || !strings.Contains(notes, ".a.json.nowhook-undo-42") {
		t.Errorf("the notes do not name the leftovers:\n%s", notes)
	}
}

// TestWriteSaysWhatItCouldNotUndo: when the rollback itself fails (here
// the restore of the first file is stopped as a full disk would), the
// error says file by file what was undone and what was not, and the old
// bytes that could not be put back are saved where it says.
func TestWriteSaysWhatItCouldNotUndo(t *testing.T) {
	root := t.TempDir()
	rescue := t.TempDir()
	mkfile(t, filepath.Join(root, "first.json"), "first before\n", 0o644)
	mkfile(t, filepath.Join(root, "second.md"), "second before\n", 0o644)
	mkfile(t, filepath.Join(root, "third.md"), "third before\n", 0o644)
	writes := map[string]int{}
	testHookRename = func(tmp, target string) error {
		writes[filepath.Base(target)]++
		switch {
		case filepath.Base(target) == "third.md":
			return errors.New("no space left on device")
		case filepath.Base(target) == "first.json" && writes["first.json"] == 2:
			return errors.New("input/output error")
		}
		return nil
	}
	defer func() { testHookRename = nil }()
	p := newPlan(root)
	planned(t, p, "first.json", ptr("first after\n"))
	planned(t, p, "second.md", ptr("second after\n"))
	planned(t, p, "third.md", ptr("third after\n"))
	err := p.write(nil, rescue)
	var we *WriteError
	if !errors.As(err, &we) {
		t.Fatalf("write: %v, want a WriteError", err)
	}
	msg := err.Error()
	for _, want := range []string{"third.md: no space left on device", "1 of the 2 earlier steps could not be undone", "second.md: restored", "first.json: NOT restored (input/output error); its old content is saved in "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "every file") {
		t.Errorf("the error claims every file was restored:\n%s", msg)
	}
	if got := readFile(t, filepath.Join(root, "second.md")); got != "second before\n" {
		t.Errorf("second.md = %q, want it restored", got)
	}
	saved := we.Undo[len(we.Undo)-1].Saved
	if we.Undo[len(we.Undo)-1].Name != "first.json" || saved == "" || readFile(t, saved) != "first before\n" {
		t.Errorf("first.json's old bytes are not saved: %+v", we.Undo)
	}
	if !strings.HasPrefix(saved, rescue) {
		t.Errorf("the old bytes are saved in %s, outside the rescue folder %s", saved, rescue)
	}
}

// failLater makes the plan's last step fail after the checks have passed,
// by putting a non-empty folder where the step writes or deletes a file.
func failLater(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(path, "in-the-way"), "x", 0o644)
}

func TestWriteRollsBackWhenALaterWriteFails(t *testing.T) {
	root := t.TempDir()
	mkfile(t, filepath.Join(root, "kept.json"), "before\n", 0o600)
	mkfile(t, filepath.Join(root, "gone.md"), "delete me\n", 0o644)
	mkfile(t, filepath.Join(root, "late.txt"), "late\n", 0o644)
	p := newPlan(root)
	planned(t, p, "kept.json", ptr("after\n"))
	planned(t, p, "new/deep/file.sh", ptr("#!/bin/sh\n"))
	planned(t, p, "gone.md", nil)
	planned(t, p, "late.txt", ptr("never\n"))
	if err := p.check(nil); err != nil {
		t.Fatal(err)
	}
	failLater(t, filepath.Join(root, "late.txt"))
	err := p.write(nil, "")
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
	mkfile(t, filepath.Join(root, "first.json"), "one\n", 0o644)
	mkfile(t, filepath.Join(root, "a", "script.sh"), "#!/bin/sh\n", 0o755)
	mkfile(t, filepath.Join(root, "second.md"), "two\n", 0o644)
	p := newPlan(root)
	planned(t, p, "first.json", ptr("changed\n"))
	planned(t, p, "a/script.sh", nil)
	planned(t, p, "second.md", nil)
	p.rmdirs = []string{filepath.Join(root, "a")}
	if err := p.check(nil); err != nil {
		t.Fatal(err)
	}
	failLater(t, filepath.Join(root, "second.md"))
	if err := p.write(nil, ""); err == nil {
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
	mkfile(t, filepath.Join(root, "x.json"), "x\n", 0o644)
	mkfile(t, filepath.Join(root, "d", "ours.sh"), "#!/bin/sh\n", 0o755)
	p := newPlan(root)
	planned(t, p, "x.json", ptr("y\n"))
	planned(t, p, "d/ours.sh", nil)
	p.rmdirs = []string{filepath.Join(root, "d")}
	if err := p.check(nil); err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(root, "d", "someone-elses"), "z", 0o644) // arrives after planning
	if err := p.write(nil, ""); err == nil {
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
