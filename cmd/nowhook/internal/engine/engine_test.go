package engine

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// repo is a temporary repository (a .git folder, so the record has a
// home) holding files, slash-separated paths to content.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		mkfile(t, filepath.Join(root, filepath.FromSlash(rel)), content, 0o644)
	}
	return root
}

// tree is every file under root but .git, by slash path, with its mode.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = info.Mode().Perm().String() + "\n" + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lookup is the agent named name, which the table has.
func lookup(name string) *agent.Agent {
	a, _ := agent.Lookup(name)
	return a
}

func reconcileOK(t *testing.T, req Request) *Plan {
	t.Helper()
	pl, err := Reconcile(req)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestReconcileRoundTrip: for every agent in every mode, the engine plans
// without writing, writes what it planned, plans nothing more on a second
// run, and the state of nothing (remove) gives the repository back as it
// was, byte for byte and folder for folder; what is installed then reads
// as the mode set up, and afterwards as nothing.
func TestReconcileRoundTrip(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, a := range agent.All {
		for _, m := range a.ModeNames() {
			t.Run(a.Name+"="+string(m), func(t *testing.T) {
				root := repo(t, map[string]string{"README.md": "# A project\n"})
				before := tree(t, root)
				opts := agent.Options{Budget: agent.DefaultBudget}
				pl := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: a, Mode: m}}, Options: opts})
				if !pl.Changed() || len(pl.Changes()) == 0 {
					t.Fatalf("setup of %s=%s plans no change", a.Name, m)
				}
				if got := tree(t, root); !maps.Equal(got, before) {
					t.Fatalf("Reconcile wrote before Write: %v", slices.Sorted(maps.Keys(got)))
				}
				var diff bytes.Buffer
				if !pl.WriteDiff(&diff, true) || !strings.Contains(diff.String(), "+++ b/") {
					t.Errorf("the diff shows nothing:\n%s", diff.String())
				}
				if err := pl.Write(); err != nil {
					t.Fatal(err)
				}
				if got := a.InstalledIn(root, true).Mode; got != m {
					t.Errorf("after setup, InstalledIn says mode %q, want %q", got, m)
				}
				again := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: a, Mode: m}}, Options: opts})
				if again.Changed() {
					t.Errorf("a second setup changes %v", again.Changes())
				}
				gone := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: a}}, Options: opts})
				if err := gone.Write(); err != nil {
					t.Fatal(err)
				}
				if got := tree(t, root); !maps.Equal(got, before) {
					t.Errorf("remove did not give the repository back:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(got)))
				}
				if got := a.InstalledIn(root, true); got.Mode != "" || len(got.Present) != 0 {
					t.Errorf("after remove, InstalledIn says mode %q, present %d artifacts", got.Mode, len(got.Present))
				}
			})
		}
	}
}

// TestReconcileRefusalWritesNothing: a plan that cannot be written whole
// (a file named .claude where Claude Code's folder goes) is refused by
// Reconcile itself, before any write, and the repository is as it was.
func TestReconcileRefusalWritesNothing(t *testing.T) {
	root := repo(t, map[string]string{".claude": "not a folder\n"})
	before := tree(t, root)
	_, err := Reconcile(Request{Root: root, Targets: []Target{{Agent: lookup("claude"), Mode: agent.Reinject}}, Options: agent.Options{Budget: agent.DefaultBudget}})
	if err == nil || !strings.Contains(err.Error(), ".claude/") {
		t.Fatalf("Reconcile: %v, want a refusal naming .claude/", err)
	}
	if got := tree(t, root); !maps.Equal(got, before) {
		t.Errorf("a refused plan changed the repository: %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestReconcileKeepsWhatOthersUse: removing one agent keeps the block
// that a detected agent shares (AGENTS.md), and the summary says so.
func TestReconcileKeepsWhatOthersUse(t *testing.T) {
	root := repo(t, nil)
	claude, codex := lookup("claude"), lookup("codex")
	opts := agent.Options{Budget: agent.DefaultBudget}
	both := []Target{{Agent: claude, Mode: agent.OnDemand}, {Agent: codex, Mode: agent.OnDemand}}
	if err := reconcileOK(t, Request{Root: root, Targets: both, Options: opts}).Write(); err != nil {
		t.Fatal(err)
	}
	found := []agent.Found{{Agent: codex, Evidence: []string{"codex on PATH"}, Binaries: []string{"codex"}}}
	pl := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: claude}}, Found: found, Options: opts})
	var out bytes.Buffer
	pl.WriteSummary(&out, true, func(Target) string { return "" })
	if !strings.Contains(out.String(), "AGENTS.md (kept: codex uses it)") {
		t.Errorf("summary does not say AGENTS.md stays for codex:\n%s", out.String())
	}
	for _, c := range pl.Changes() {
		if c.Name == "AGENTS.md" {
			t.Errorf("AGENTS.md is planned %s while codex uses it", c.Status)
		}
	}
}
