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
