package generate

import "time"

// A Claude-Code-like schema and hook for the editor's tests; the real ones
// live with their agents (cmd/nowhook/internal/agent).
var testSettings = HookFile{
	Path:    ".claude/settings.json",
	Agent:   "Claude Code",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
}

const testScript = ".claude/hooks/kanbus-compaction-right-now.sh"

func testHook(budget time.Duration) Hook {
	return CompactGroup(`"$CLAUDE_PROJECT_DIR"/`+testScript, testScript, budget)
}

// A Cursor-like flat schema (JSONC allowed) for the editor's tests.
var testFlat = HookFile{
	Path:    ".cursor/hooks.json",
	Agent:   "Cursor",
	Event:   "preCompact",
	NewFile: []Member{{"version", 1}},
}

func testFlatHook() Hook {
	return Hook{
		Entry: Ordered{{"command", ".cursor/hooks/kanbus-precompact-nudge.sh"}, {"timeout", 10}},
		Ours:  RunsScript(".cursor/hooks/kanbus-precompact-nudge.sh"),
	}
}
