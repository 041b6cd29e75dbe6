package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nowhook/nowhook/generate"
)

// TestInstalledOnDemandInOwnFile: an on-demand agent whose kbs-now block
// is only in a file of its own (Junie's .junie/guidelines.md; no
// AGENTS.md) is installed on demand where it is in use, and not where it
// is not, nor where the file lacks the block.
func TestInstalledOnDemandInOwnFile(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".junie", "guidelines.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# Team guidelines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := junie.InstalledIn(root, true).Mode; got != "" {
		t.Fatalf("without the block: mode %q, want none", got)
	}
	md, err := generate.MergeBlock(path, []byte("# Team guidelines\n"), onDemand)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, md, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, OnDemandBlock.File)); !os.IsNotExist(err) {
		t.Fatalf("AGENTS.md exists (%v); the test wants the block only in Junie's file", err)
	}
	if got := junie.InstalledIn(root, true).Mode; got != OnDemand {
		t.Errorf("block in .junie/guidelines.md, Junie in use: mode %q, want %q", got, OnDemand)
	}
	if got := junie.InstalledIn(root, false).Mode; got != "" {
		t.Errorf("block in .junie/guidelines.md, Junie not in use: mode %q, want none", got)
	}
}

// TestUserInstalled: the user-scope hook is in place only with its entry
// in the user settings and its wrapper there and executable. A wrapper
// that is missing, not executable or not a file runs nothing (the
// command's guard skips it), so setup must not tell a user that it covers
// sessions started in a sub-folder.
func TestUserInstalled(t *testing.T) {
	none := func(string) string { return "" }
	tested := 0
	for _, a := range All {
		if a.Scope.User == nil {
			continue
		}
		tested++
		home := t.TempDir()
		dir, err := a.Scope.User.Folder(none, home)
		if err != nil {
			t.Fatal(err)
		}
		h := a.UserHook(dir)
		e, err := h.Apply(nil, Options{Budget: DefaultBudget})
		if err != nil {
			t.Fatal(err)
		}
		settings := e.Next
		write := func(path string, b []byte, mode os.FileMode) {
			t.Helper()
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
		}
		check := func(state string, want bool) {
			t.Helper()
			file, got := a.UserInstalled(none, home)
			if got != want || file != h.File.Path {
				t.Errorf("%s, %s: UserInstalled = %q, %v; want %q, %v", a.Name, state, file, got, h.File.Path, want)
			}
		}
		check("nothing there", false)
		write(h.File.Path, settings, 0o644)
		check("the entry without its wrapper", false)
		write(h.Script, []byte("#!/bin/sh\nexit 0\n"), 0o644)
		check("the wrapper not executable", false)
		write(h.Script, []byte("#!/bin/sh\nexit 0\n"), 0o755)
		check("entry and executable wrapper", true)
		write(h.File.Path, []byte("{}\n"), 0o644)
		check("the wrapper without its entry", false)
		write(h.File.Path, settings, 0o644)
		if err := os.Remove(h.Script); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(h.Script, 0o755); err != nil {
			t.Fatal(err)
		}
		check("a folder where the wrapper goes", false)
	}
	if tested == 0 {
		t.Fatal("no agent has a user scope")
	}
}
