package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestKimiUserScopeCheck: doctor's kimi.hooks row on what setup --scope
// user writes: ok with the tables and the executable wrapper beside them;
// an error when the wrapper is missing or not executable (the tables then
// exit 0 and print nothing); the fix is the user-scope setup.
func TestKimiUserScopeCheck(t *testing.T) {
	h := kimi.UserHook("/k")
	e, err := h.Apply([]byte("default_model = \"k2\"\n"), Options{Budget: DefaultBudget})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		wrapper os.FileMode // 0: none
		sev     diag.Severity
		says    string
	}{
		{"with the wrapper", 0o755, diag.OK, "has nowhook's PreCompact, PostCompact and UserPromptSubmit hooks"},
		{"without the wrapper", 0, diag.Error, "is missing or not executable"},
		{"a wrapper not executable", 0o644, diag.Error, "is missing or not executable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := newFakeView(t, kimi, OnDemand, map[string]string{"~/.kimi-code/config.toml": string(e.Next)})
			if c.wrapper != 0 {
				w := filepath.Join(v.home, ".kimi-code", "hooks", "nowhook-kimi.sh")
				if err := os.MkdirAll(filepath.Dir(w), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(w, []byte(kimiWrapper(Options{Budget: DefaultBudget})), c.wrapper); err != nil {
					t.Fatal(err)
				}
			}
			got := kimiHooksCheck.Run(v)
			if len(got) != 1 || got[0].Severity != c.sev || !strings.Contains(got[0].Message, c.says) {
				t.Fatalf("got %+v, want %s and %q", got, c.sev, c.says)
			}
			if c.sev != diag.OK && got[0].Fix != "nowhook setup --scope user --agents kimi" {
				t.Errorf("fix %q", got[0].Fix)
			}
		})
	}
}

// TestKimiUserScopeTables: the three tables run the user-scope command and
// nothing else; the hand-written tables (KimiHooks) are recognised as
// nowhook's, so setup upgrades them, and a command of the user's that runs
// a script of the same name elsewhere is not.
func TestKimiUserScopeTables(t *testing.T) {
	u := kimi.Scope.User
	tabs := kimiTables(u.Command(), Options{Budget: DefaultBudget})
	if len(tabs.Tables) != len(kimiEvents) {
		t.Fatalf("%d tables, want %d", len(tabs.Tables), len(kimiEvents))
	}
	for i, tab := range tabs.Tables {
		got := map[string]any{}
		for _, m := range tab {
			got[m.Key] = m.Value
		}
		if got["event"] != kimiEvents[i] || got["command"] != u.Command() || got["timeout"] != 10 || len(got) != 3 {
			t.Errorf("table %d: %v", i, got)
		}
		if why := kimiBadHook(map[string]any{"event": got["event"], "command": got["command"], "timeout": int64(10)}); why != "" {
			t.Errorf("Kimi Code would reject table %d: %s", i, why)
		}
	}
	if !kimiHookOurs(KimiCommand(DefaultBudget)) || !kimiHookOurs(u.Command()) {
		t.Error("nowhook's own commands are not recognised")
	}
	for _, other := range []string{"exec ~/bin/nowhook-kimi.sh", `exec "$HOME"/hooks/nowhook-kimi.sh`, "nowhook reminder --checkpoint"} {
		if kimiHookOurs(other) {
			t.Errorf("the user's %q is taken for nowhook's", other)
		}
	}
	if w := kimiWrapper(Options{Budget: DefaultBudget, Sources: "kanbus,rules"}); !strings.Contains(w, "--timeout 5s --sources kanbus,rules --kimi") {
		t.Errorf("the wrapper does not run --kimi with the sources:\n%s", w)
	}
}

// TestParseUserAgents: at the user scope an agent named without a mode,
// or with reinject, is its user-scope hook whatever its project default;
// another mode is kept for the caller to refuse, and an unknown agent is
// an error as in ParseAgents.
func TestParseUserAgents(t *testing.T) {
	for _, c := range []struct{ list, want string }{
		{"kimi", "kimi=reinject"},
		{"kimi=reinject", "kimi=reinject"},
		{"claude, kimi", "claude=reinject,kimi=reinject"},
		{"kimi=ondemand", "kimi=ondemand"},
		{"cursor", "cursor=ondemand"},
	} {
		choices, err := ParseUserAgents(c.list)
		if err != nil {
			t.Errorf("%q: %v", c.list, err)
			continue
		}
		var got []string
		for _, ch := range choices {
			got = append(got, ch.Agent.Name+"="+string(ch.Mode))
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%q: %v, want %s", c.list, got, c.want)
		}
	}
	if _, err := ParseUserAgents("kimi,vim"); err == nil {
		t.Error("an unknown agent was accepted")
	}
}
