package agent

import (
	"strings"
	"testing"
)

// TestClaudeEntryElsewhere: Copilot CLI's and Continue CLI's rows say, in a
// repository whose .claude/settings.json holds nowhook's Claude Code hooks,
// which of them the client loads and what it does with them; nothing
// where the file holds none of nowhook's (a team's own hook aside).
func TestClaudeEntryElsewhere(t *testing.T) {
	var settings []byte
	for _, art := range claude.Owned() {
		if h, ok := art.(*HookEntry); ok && h.File.Path == ClaudeSettings.Path {
			e, err := h.Apply(settings, Options{Budget: DefaultBudget, CheckpointAt: DefaultCheckpointAt})
			if err != nil {
				t.Fatal(err)
			}
			settings = e.Next
		}
	}
	own := `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "./scripts/hello.sh"}]}]}}`
	for _, c := range []struct {
		agent *Agent
		does  string
	}{
		{copilot, "whatever its matcher"},
		{continueCLI, "starts none of them"},
	} {
		check := c.agent.Doctor.Quirks[len(c.agent.Doctor.Quirks)-1]
		if check.Name != "claude-entry" {
			t.Fatalf("%s: last quirk %q", c.agent.Name, check.Name)
		}
		got := check.Run(newFakeView(t, c.agent, OnDemand, map[string]string{ClaudeSettings.Path: string(settings)}))
		if len(got) != 1 {
			t.Fatalf("%s: %d findings, want 1: %+v", c.agent.Name, len(got), got)
		}
		msg := got[0].Message
		for _, want := range []string{c.agent.Title + " loads .claude/settings.json", "the compact hook, the checkpoint, the summary hint", c.does} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the row %q lacks %q", c.agent.Name, msg, want)
			}
		}
		if got[0].Path != ClaudeSettings.Path {
			t.Errorf("%s: path %q", c.agent.Name, got[0].Path)
		}
		if got := check.Run(newFakeView(t, c.agent, OnDemand, map[string]string{ClaudeSettings.Path: own})); len(got) != 0 {
			t.Errorf("%s: a row where the file holds no hook of nowhook's: %+v", c.agent.Name, got)
		}
		if got := check.Run(newFakeView(t, c.agent, OnDemand, nil)); len(got) != 0 {
			t.Errorf("%s: a row without .claude/settings.json: %+v", c.agent.Name, got)
		}
	}
}
