package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
	"github.com/rogpeppe/go-internal/txtar"
)

// tableBlocks are the managed blocks of every agent, one per name and body.
func tableBlocks() []*Block {
	var out []*Block
	for _, a := range All {
		for _, art := range a.Owned() {
			if b, ok := art.(*Block); ok && !slices.ContainsFunc(out, func(x *Block) bool { return x.Block == b.Block }) {
				out = append(out, b)
			}
		}
	}
	return out
}

// TestReleasedBlocks fails when a block's template body changes without
// its text being listed in templates.ReleasedBlocks: the current body must
// be listed, so that the one before it was listed too when it was current,
// and every older one stays nowhook's (not the user's) after an upgrade.
func TestReleasedBlocks(t *testing.T) {
	for _, b := range tableBlocks() {
		sum := sha256.Sum256([]byte(b.Block.Body))
		if !slices.Contains(templates.ReleasedBlocks[b.Block.Name], hex.EncodeToString(sum[:])) {
			t.Errorf("%s: the body of the %s block (templates) is not in templates.ReleasedBlocks: add %q there, keeping the sums already listed",
				b.File, b.Block.Name, hex.EncodeToString(sum[:]))
		}
	}
}

// TestUpgradeFixturesBlocks checks that every block in the upgrade
// fixtures (each released version's output, exactly as setup wrote it) is
// nowhook's, not taken for a hand-edited one.
func TestUpgradeFixturesBlocks(t *testing.T) {
	files, err := filepath.Glob("../../../../testdata/script/upgrade_v*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no upgrade fixtures: %v", err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, ".md") {
				continue
			}
			for _, b := range tableBlocks() {
				span, found, err := generate.FindBlock(f.Data, b.Block.Name)
				if err != nil || !found {
					continue
				}
				seen[b.Block.Name] = true
				if !b.Block.Wrote(span.Body) {
					t.Errorf("%s: %s:%d: the %s block (v%d) is taken for one edited by hand; list its sum in templates.ReleasedBlocks",
						filepath.Base(file), f.Name, span.Line, b.Block.Name, span.Version)
				}
				crlf := []byte(strings.ReplaceAll(string(f.Data), "\n", "\r\n"))
				if e, err := b.Apply(crlf, Options{Budget: DefaultBudget}); err != nil || e.Note != "" {
					t.Errorf("%s: %s with CRLF line endings: %v %s", filepath.Base(file), f.Name, err, e.Note)
				}
			}
		}
	}
	for _, b := range tableBlocks() {
		if !seen[b.Block.Name] {
			t.Errorf("no upgrade fixture holds the %s block", b.Block.Name)
		}
	}
}

// TestEditedBlockArtifact checks what setup and remove get for a block
// edited by hand: kept with a note naming the file and line, and with
// --force replaced, the old file kept as a backup.
func TestEditedBlockArtifact(t *testing.T) {
	orig, err := OnDemandBlock.Apply([]byte("# Rules\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	edited := []byte(strings.Replace(string(orig.Next), "If `kbs`", "My own line.\nIf `kbs`", 1))

	e, err := OnDemandBlock.Apply(edited, Options{})
	if err != nil || string(e.Next) != string(edited) || e.Backup {
		t.Fatalf("apply changed an edited block (%v, backup %v):\n%s", err, e.Backup, e.Next)
	}
	for _, want := range []string{"AGENTS.md:3:", "edited by hand", "left it alone", "nowhook setup --force", "AGENTS.md.bak"} {
		if !strings.Contains(e.Note, want) {
			t.Errorf("setup's note %q lacks %q", e.Note, want)
		}
	}

	e, err = OnDemandBlock.Apply(edited, Options{Force: true})
	if err != nil || string(e.Next) != string(orig.Next) || !e.Backup || !strings.Contains(e.Note, "AGENTS.md.bak") {
		t.Errorf("apply --force: %v, backup %v, note %q:\n%s", err, e.Backup, e.Note, e.Next)
	}
	if e, err := OnDemandBlock.Apply(orig.Next, Options{Force: true}); err != nil || e.Backup || e.Note != "" {
		t.Errorf("apply --force on nowhook's own block: %v, backup %v, note %q", err, e.Backup, e.Note)
	}

	r, err := OnDemandBlock.Remove(edited, nil)
	if err != nil || string(r.Next) != string(edited) || r.Done != "" || r.Empty {
		t.Fatalf("remove changed an edited block (%v):\n%s", err, r.Next)
	}
	for _, want := range []string{"AGENTS.md:3:", "edited by hand", "kept it", "delete it yourself"} {
		if !strings.Contains(r.Note, want) {
			t.Errorf("remove's note %q lacks %q", r.Note, want)
		}
	}
}
