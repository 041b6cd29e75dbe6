package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestKimiHooksCheck: doctor's kimi.hooks row on the user's config.toml:
// nowhook's three tables (the ones the e2e tests give the real client) are
// ok; a missing file, none of them, or PreCompact alone missing are info;
// a matcher on one of them, or PostCompact or UserPromptSubmit missing, a
// warning; a table Kimi Code rejects (which drops the whole hooks
// section) or a file that is not TOML, an error. KIMI_CODE_HOME moves the
// file.
func TestKimiHooksCheck(t *testing.T) {
	const models = "default_model = \"mock\"\n\n[models.mock]\nprovider = \"mock\"\nmodel = \"m\"\nmax_context_size = 1000\n\n"
	ours := KimiHooks(DefaultBudget)
	table := func(event string) string {
		return "[[hooks]]\nevent = \"" + event + "\"\ncommand = \"exec nowhook reminder --kimi\"\n"
	}
	team := "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Shell\"\ncommand = \"./check.sh\"\ntimeout = 5\n"
	for _, c := range []struct {
		name, config string // config "" for no file
		sev          diag.Severity
		says         string
	}{
		{"no file", "", diag.Info, "does not exist"},
		{"no hooks", models, diag.Info, "has no re-inject hook of nowhook's"},
		{"the team's hook only", models + team, diag.Info, "has no re-inject hook of nowhook's"},
		{"nowhook's", models + team + ours, diag.OK, "has nowhook's PreCompact, PostCompact and UserPromptSubmit hooks"},
		{"no PreCompact", models + table("PostCompact") + table("UserPromptSubmit"), diag.Info, "but not its PreCompact one"},
		{"no PostCompact", models + table("PreCompact") + table("UserPromptSubmit"), diag.Warn, "lacks nowhook's PostCompact hook"},
		{"a matcher", models + table("PreCompact") + table("PostCompact") + table("UserPromptSubmit") + "matcher = \"^go\"\n", diag.Warn, "has matcher \"^go\""},
		{"an unknown key", models + ours + team + "bogus = 1\n", diag.Error, "has the key \"bogus\""},
		{"an unknown event", models + ours + table("AfterCompact"), diag.Error, "has the event \"AfterCompact\""},
		{"a timeout over 600", models + ours + team + "timeout = 601\n", diag.Error, "timeout"},
		{"not TOML", models + ours + "[broken\n", diag.Error, "is not valid TOML"},
		{"hooks not tables", "hooks = \"x\"\n", diag.Error, "is not a list of [[hooks]] tables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			if c.config != "" {
				files["~/.kimi-code/config.toml"] = c.config
			}
			got := kimiHooksCheck.Run(newFakeView(t, kimi, OnDemand, files))
			if len(got) != 1 {
				t.Fatalf("%d findings: %+v", len(got), got)
			}
			if got[0].Severity != c.sev || !strings.Contains(got[0].Message, c.says) {
				t.Errorf("got %s %q, want %s and %q", got[0].Severity, got[0].Message, c.sev, c.says)
			}
			if c.sev != diag.OK && got[0].Fix == "" {
				t.Errorf("no fix: %+v", got[0])
			}
		})
	}
	t.Run("KIMI_CODE_HOME", func(t *testing.T) {
		v := newFakeView(t, kimi, OnDemand, map[string]string{"~/elsewhere/config.toml": models + ours})
		v.env = append(v.env, "KIMI_CODE_HOME="+v.home+"/elsewhere")
		if got := kimiHooksCheck.Run(v); len(got) != 1 || got[0].Severity != diag.OK {
			t.Errorf("with KIMI_CODE_HOME: %+v", got)
		}
	})
}

// TestKimiHooksInDocs: docs/platforms.md shows the tables KimiHooks
// renders with the default budget, which the e2e tests give the real
// client and doctor's kimi.hooks row recognises.
func TestKimiHooksInDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "platforms.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "```toml\n" + KimiHooks(DefaultBudget) + "```\n"; !strings.Contains(string(b), want) {
		t.Errorf("docs/platforms.md lacks the tables KimiHooks renders; put them in its \"Kimi Code CLI: re-inject in two steps\":\n%s", want)
	}
}
