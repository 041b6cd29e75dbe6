package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vendorDocsRows are the rows known from their vendors' docs alone (no
// client of theirs runs here). Kimi Code CLI was one until its 2.1.0 ran
// here (kimi.go).
var vendorDocsRows = []string{"kiro", "windsurf", "goose", "junie"}

// TestVendorDocsRowsSayHowKnown: each such row is on demand only, refuses
// reinject and nudge with a reason, and says in the matrix and in Reads
// that nothing was measured; Kiro's refusal names what Kiro documents.
func TestVendorDocsRowsSayHowKnown(t *testing.T) {
	for _, name := range vendorDocsRows {
		a, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s is not in the table", name)
		}
		if a.Default != OnDemand || len(a.Modes) != 1 {
			t.Errorf("%s: want on demand only, got default %s and %d modes", name, a.Default, len(a.Modes))
		}
		if !strings.HasPrefix(a.Reinject, "no (") || !strings.Contains(a.Reinject, "not measured") {
			t.Errorf("%s: the matrix cell does not say it is not measured: %q", name, a.Reinject)
		}
		if !strings.Contains(a.Reads.Client, "not run") {
			t.Errorf("%s: Reads.Client does not say the client was not run: %q", name, a.Reads.Client)
		}
		for _, m := range []Mode{Reinject, Nudge} {
			if _, err := a.Choose(m, true); err == nil {
				t.Errorf("%s=%s is allowed", name, m)
			}
		}
	}
	_, err := kiro.Choose(Reinject, true)
	for _, want := range []string{"kiro=reinject is refused", "PostCompact hook (CLI 3.1)", "Post Compaction trigger (IDE 1.4.121)", "no Kiro client runs here"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("kiro=reinject: %v, want it to say %q", err, want)
		}
	}
}

// TestVendorDocsDetect: each row's marks are found, with their evidence.
func TestVendorDocsDetect(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".kiro/steering/product.md", ".windsurf/rules/style.md", ".goosehints", ".kimi-code/config.toml", ".junie/guidelines.md"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	got := map[string]string{}
	for _, f := range Detect(root) {
		got[f.Agent.Name] = strings.Join(f.Evidence, ", ")
	}
	for name, want := range map[string]string{
		"kiro":     ".kiro/ exists, .kiro/steering/ has steering files",
		"windsurf": ".windsurf/ exists, .windsurf/rules/ has rules",
		"goose":    ".goosehints exists",
		"kimi":     ".kimi-code/ exists",
		"junie":    ".junie/ exists",
	} {
		if got[name] != want {
			t.Errorf("%s: evidence %q, want %q", name, got[name], want)
		}
	}
}

// TestJunieLoads: Junie loads .junie/guidelines.md and, without a
// Guidelines path naming it, not AGENTS.md, so its block goes there.
func TestJunieLoads(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".junie"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JunieGuidelines, "AGENTS.md"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(junie.Loads(DirFiles(root)), ","); got != JunieGuidelines {
		t.Errorf("Junie loads %q, want %q", got, JunieGuidelines)
	}
	if !junie.Wants(OnDemand, junieBlock) {
		t.Error("Junie's on-demand mode does not own the block in .junie/guidelines.md")
	}
}
