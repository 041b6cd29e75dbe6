//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestWriteTempBesideTheFile: the atomic write's temporary file is made
// in the folder of the file it replaces, never in $TMPDIR. With TMPDIR
// missing, or on another file system than the repository (where a rename
// from it fails: EXDEV), setup writes every file all the same, and no
// temporary file is left.
func TestWriteTempBesideTheFile(t *testing.T) {
	for _, c := range []struct {
		name string
		tmp  func(t *testing.T, root string) string
	}{
		{"TMPDIR missing", func(t *testing.T, _ string) string { return filepath.Join(t.TempDir(), "missing") }},
		{"TMPDIR on another file system", otherFileSystem},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir()) // the engine's record of what it created
			root := repo(t, map[string]string{".kanbus.yml": "project_key: kbs\n", "CLAUDE.md": "# Team\n", ".claude/settings.json": "{}\n"})
			t.Setenv("TMPDIR", c.tmp(t, root))
			pl := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: lookup("claude"), Mode: agent.Reinject}}, Options: agent.Options{Budget: agent.DefaultBudget}})
			if err := pl.Write(); err != nil {
				t.Fatalf("setup with %s: %v", c.name, err)
			}
			if got := readFile(t, filepath.Join(root, ".claude", "settings.json")); !strings.Contains(got, "kanbus-compaction-right-now.sh") {
				t.Errorf(".claude/settings.json was not written:\n%s", got)
			}
			for path := range tree(t, root) {
				if strings.Contains(path, ".nowhook-") {
					t.Errorf("temporary file left: %s", path)
				}
			}
		})
	}
}

// otherFileSystem is a new folder on a file system other than root's
// (tmpfs /dev/shm on Linux), for TMPDIR; it skips the test where there is
// none to write to.
func otherFileSystem(t *testing.T, root string) string {
	t.Helper()
	dev := func(p string) (uint64, bool) {
		info, err := os.Stat(p)
		if err != nil {
			return 0, false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		return uint64(st.Dev), ok
	}
	mine, ok := dev(root)
	if !ok {
		t.Skipf("cannot tell the file system of %s", root)
	}
	for _, cand := range []string{"/dev/shm", "/run/user/" + strconv.Itoa(os.Getuid()), "/run", "/var/tmp", "/tmp"} {
		if d, ok := dev(cand); ok && d != mine {
			if dir, err := os.MkdirTemp(cand, "nowhook-engine-test-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(dir) })
				return dir
			}
		}
	}
	t.Skip("no writable folder on another file system than the repository's here (tried /dev/shm, /run, /var/tmp, /tmp)")
	return ""
}
