package generate

import (
	"strings"
	"time"
)

// Paths of the files nowhook owns whole, relative to the repository root.
const (
	ClaudeScript = ".claude/hooks/kanbus-compaction-right-now.sh"
	CodexScript  = ".codex/hooks/kanbus-compaction-right-now.sh"
	CursorScript = ".cursor/hooks/kanbus-precompact-nudge.sh"
)

// ClaudeSettings is the schema of .claude/settings.json.
var ClaudeSettings = HookFile{
	Path:    ".claude/settings.json",
	Agent:   "Claude Code",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
}

// ClaudeCommand is the command our Claude Code hook runs. Quoted, so that
// a project path with spaces works (PLATFORMS.md).
const ClaudeCommand = `"$CLAUDE_PROJECT_DIR"/` + ClaudeScript

// HookTimeout is the agent-side timeout of our hook entries, in seconds:
// the budget the hook gives kbs plus 5 s, so the agent never cancels a hook
// that is still inside its own budget.
func HookTimeout(budget time.Duration) int {
	return int((budget+time.Second-1)/time.Second) + 5
}

// ClaudeHook is our SessionStart group for Claude Code.
func ClaudeHook(budget time.Duration) Hook {
	return compactHook(ClaudeCommand, ClaudeScript, budget)
}

// compactHook is a SessionStart group, matcher compact, running command,
// which runs script; the shape Claude Code and Codex share.
func compactHook(command, script string, budget time.Duration) Hook {
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
