package prove

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestProveUserScopeFixes: a failed proof of the user-scope hook names
// --scope user in its fix, for setup and for the proof run again, and so
// does the fix of a settings file the client refused: plain doctor
// --prove would prove the repository's hooks instead.
func TestProveUserScopeFixes(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, home := t.TempDir(), t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	a, _ := agentpkg.Lookup("claude")
	dir, err := a.Scope.User.Folder(func(string) string { return "" }, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, art := range a.Scope.User.Artifacts(dir) {
		p := art.Path()
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		cur, _ := os.ReadFile(p)
		e, err := art.Apply(cur, agentpkg.Options{Budget: agentpkg.DefaultBudget})
		if err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if e.Exec {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, e.Next, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ mode, fix string }{
		{"nohook", "nowhook setup --scope user --yes --agents claude (then nowhook doctor --prove --scope user)"},
		{"refused", "correct the settings file as claude.hooks-file says, then run nowhook doctor --prove --scope user"},
	} {
		if err := os.WriteFile(filepath.Join(bin, "fake-mode"), []byte(c.mode), 0o644); err != nil {
			t.Fatal(err)
		}
		var row *diag.Finding
		fs := Run(context.Background(), Options{User: true, Env: []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home}})
		for i := range fs {
			if fs[i].Check == "prove.claude" {
				row = &fs[i]
			}
		}
		if row == nil {
			t.Fatalf("%s: no prove.claude row in %v (is the user hook set up?)", c.mode, fs)
		}
		t.Logf("%s: %s %s\n  fix: %s", c.mode, row.Severity, row.Message, row.Fix)
		if row.Severity != diag.Error || row.Fix != c.fix {
			t.Errorf("%s: %s, fix %q, want error with fix %q", c.mode, row.Severity, row.Fix, c.fix)
		}
	}
}
