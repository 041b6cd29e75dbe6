package install

import (
	"errors"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestScopesAreWhole: every scope the pipeline runs has each of the
// rules it reads, a scope outside a repository also where its files and
// its record live and the modes it installs; names are unique and
// LookupScope finds each, and refuses an unknown one as a usage error.
func TestScopesAreWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range Scopes {
		if sc.Name == "" || seen[sc.Name] {
			t.Errorf("scope %q: no name, or a name used twice", sc.Name)
		}
		seen[sc.Name] = true
		if sc.Serves == nil || sc.RefuseSetup == nil || sc.RefuseRemove == nil || sc.Reach == nil || sc.Where == nil || sc.Empty == nil {
			t.Errorf("scope %s lacks one of Serves, RefuseSetup, RefuseRemove, Reach, Where, Empty", sc.Name)
		}
		if !sc.Repository && (sc.Folder == nil || sc.Recorded == nil || sc.Record == nil || len(sc.Modes) == 0 || sc.ModeRefusal == nil || sc.Refusal == nil) {
			t.Errorf("scope %s lies outside a repository but lacks one of Folder, Recorded, Record, Modes, ModeRefusal, Refusal", sc.Name)
		}
		if got, err := LookupScope(sc.Name); err != nil || got != sc {
			t.Errorf("LookupScope(%q) = %v, %v", sc.Name, got, err)
		}
		if len(sc.Names()) == 0 {
			t.Errorf("scope %s serves no agent", sc.Name)
		}
	}
	var e *Error
	if _, err := LookupScope("nowhere"); !errors.As(err, &e) || e.Status != ExitUsage {
		t.Errorf("LookupScope(nowhere) = %v, want a usage error", err)
	}
	if got, want := len(Project.Names()), len(agent.All); got != want {
		t.Errorf("the project scope serves %d agents, want every agent (%d)", got, want)
	}
}
