package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestCodexFallbackTrustedByNowhook (shapes seeds 5 and 84): the project's
// .codex/config.toml names TEAM.md in project_doc_fallback_filenames,
// which counts only while Codex trusts the project. Where the trust is
// nowhook's own (setup --trust-codex, in nowhook's record), Codex did not
// read TEAM.md before nowhook, so the AGENTS.md of nowhook's beside it
// takes nothing of the team's out of what Codex reads: ok. Where the user
// trusted the project themselves, that AGENTS.md hides TEAM.md, which
// Codex read without it: an error.
func TestCodexFallbackTrustedByNowhook(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	block, err := OnDemandBlock.Apply(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		".codex/config.toml": "project_doc_fallback_filenames = [\"TEAM.md\"]\n",
		"TEAM.md":            "# Team rules\n\nRun make test before every commit.\n",
		"AGENTS.md":          string(block.Next),
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	trust := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", real)
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(trust), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex")}
	for _, c := range []struct {
		name     string
		recorded string // the project nowhook's record says it trusted
		want     diag.Severity
		msg      string
	}{
		{"trusted by nowhook", real, diag.OK, "AGENTS.md hides TEAM.md from it"},
		{"trusted by the user", "", diag.Error, "Codex CLI no longer reads TEAM.md (49 bytes of the team's text): AGENTS.md, which holds nothing but nowhook's blocks, hides it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := WithRecordedTrust(DirFilesFrom(root, nil, env, nil), func(agent string) string {
				if agent == codexName {
					return c.recorded
				}
				return ""
			})
			r := row(t, codex.Verdict(f, OnDemand, ".", fixFor), ReachRow)
			if r.Severity != c.want || !strings.Contains(r.Message, c.msg) {
				t.Errorf("reach row %v %q, want %v containing %q", r.Severity, r.Message, c.want, c.msg)
			}
			// The judgement with nowhook's blocks is the same either way:
			// Codex trusts the project now, and AGENTS.md hides TEAM.md.
			if h, ok := codex.Judge(f, ".").HiddenBy("TEAM.md"); !ok || h.By != "AGENTS.md" {
				t.Errorf("TEAM.md hidden by %q (%v), want AGENTS.md", h.By, ok)
			}
		})
	}
}
