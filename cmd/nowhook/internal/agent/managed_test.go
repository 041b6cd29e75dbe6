package agent

import (
	"path"
	"slices"
	"testing"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
)

// TestManagedPathsMatchRuntime: for every agent with a managed install,
// the hook runtime looks for the wrapper where setup --scope managed puts
// it and reads the file setup writes the hook into (the runtime keeps its
// own copy of the paths, since the hook binary imports nothing of the
// installer's); otherwise a project or user hook would never step aside
// for the managed one, and the session would get two reminders.
func TestManagedPathsMatchRuntime(t *testing.T) {
	n := 0
	for _, a := range All {
		m := a.Scope.Managed
		if m == nil {
			continue
		}
		n++
		dir, files := reminder.ManagedFiles(m.Script)
		if dir == "" {
			t.Errorf("%s: the runtime knows no managed wrapper %s", a.Name, m.Script)
			continue
		}
		if dir != ManagedDir {
			t.Errorf("%s: the runtime looks for its wrapper in %s, setup writes it into %s", a.Name, dir, ManagedDir)
		}
		read := slices.ContainsFunc(files, func(f string) bool {
			ok, _ := path.Match(f, m.File())
			return ok
		})
		if !read {
			t.Errorf("%s: setup writes the hook into %s, and the runtime reads %v", a.Name, m.File(), files)
		}
	}
	if n == 0 {
		t.Fatal("no agent has a managed install")
	}
}
