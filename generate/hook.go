package generate

import (
	"strings"
	"time"
)

// HookTimeout is the agent-side timeout of our hook entries, in seconds:
// the budget the hook gives kbs plus 5 s, so the agent never cancels a hook
// that is still inside its own budget.
func HookTimeout(budget time.Duration) int {
	return int((budget+time.Second-1)/time.Second) + 5
}

// CompactGroup is a SessionStart matcher group, matcher compact, with one
// command handler that runs command (which runs script, a path relative to
// the repository root): the shape of Claude Code's and Codex's hook files.
func CompactGroup(command, script string, budget time.Duration) Hook {
	return Hook{
		Entry: Ordered{
			{"matcher", "compact"},
			{"hooks", []Ordered{{
				{"type", "command"},
				{"command", command},
				{"timeout", HookTimeout(budget)},
			}}},
		},
		Ours: RunsScript(script),
	}
}

// RunsScript returns a recogniser for commands that run script (a path
// relative to the repository root), however they spell the way there:
// "$CLAUDE_PROJECT_DIR"/x, ./x, bash x, or Kanbus's hand-copied x.
func RunsScript(script string) func(command string) bool {
	return func(command string) bool {
		c := strings.TrimSpace(strings.NewReplacer(`"`, "", `'`, "").Replace(command))
		for _, field := range strings.Fields(c) {
			field = strings.TrimRight(strings.TrimPrefix(field, "./"), ";&|)")
			if field == script || strings.HasSuffix(field, "/"+script) {
				return true
			}
		}
		return false
	}
}

// Group is a matcher group with one command handler that runs command
// (which runs script) with timeout seconds; an empty matcher is left out
// (events without matchers, such as UserPromptSubmit and PreCompact).
func Group(matcher, command, script string, timeout int) Hook {
	var entry Ordered
	if matcher != "" {
		entry = append(entry, Member{"matcher", matcher})
	}
	entry = append(entry, Member{"hooks", []Ordered{{
		{"type", "command"},
		{"command", command},
		{"timeout", timeout},
	}}})
	return Hook{Entry: entry, Ours: RunsScript(script)}
}
