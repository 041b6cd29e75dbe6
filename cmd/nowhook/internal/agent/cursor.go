package agent

import (
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Cursor (docs/platforms.md#cursor) cannot re-inject: its preCompact hook
// only observes, and nothing runs after compaction. Its nudge mode adds a
// preCompact message to the user.

const cursorReason = "Cursor's preCompact hook only observes (its user_message goes to the user, not the agent) and Cursor has no post-compact event"

// CursorScript is the nudge script.
const CursorScript = ".cursor/hooks/kanbus-precompact-nudge.sh"

// CursorCommand runs it from the project root, where Cursor runs project
// hooks (vendor docs), and exits 0, silent, where it is missing.
var CursorCommand = generate.RunIfPresent(CursorScript)

// CursorHooks is the schema of .cursor/hooks.json: flat handler arrays, a
// new file starts with "version": 1.
var CursorHooks = generate.HookFile{
	Path:    ".cursor/hooks.json",
	Agent:   "Cursor",
	Event:   "preCompact",
	NewFile: []generate.Member{{Key: "version", Value: 1}},
}

var (
	cursorNudge = &HookEntry{
		File: CursorHooks,
		Hook: func(Options) generate.Hook {
			return generate.Hook{
				Entry: generate.Ordered{{Key: "command", Value: CursorCommand}, {Key: "timeout", Value: 10}},
				Ours:  generate.RunsScript(CursorScript),
			}
		},
		Script: CursorScript,
	}
	cursorNudgeScript = &Script{File: CursorScript, Body: func(Options) string { return templates.Nudge }}
)

var cursor = &Agent{
	Name:    "cursor",
	Title:   "Cursor",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
		{Mode: Nudge, Words: "nudge: on demand, plus a message to you before each compaction to have the agent run kbs now",
			Artifacts: append(onDemandOnly(), cursorNudge, cursorNudgeScript)},
	},
	Refused: map[Mode]string{
		Reinject: "Cursor cannot re-inject after compaction: " + cursorReason,
	},
	Reinject: "no: " + cursorReason,
	Markers:  []string{".cursor", ".cursorrules"},
	Globs:    []Glob{{Pattern: ".cursor/rules/*.md*", Evidence: ".cursor/rules/ has rules"}},
	Binaries: []string{"cursor-agent"},
	Reads: Reads{
		Client: "Cursor (vendor docs; not run)",
		Walk:   RootOnly,
		Where:  "the repository root and nested folders",
		Files:  []Instruction{{File: "AGENTS.md", Known: "vendor docs"}},
	},
	Hooks: HookFormat{
		Files:  []string{".cursor/hooks.json", "~/.cursor/hooks.json"},
		Layout: LayoutFlat,
		WrongEvents: map[string]string{
			"sessionStart": "Cursor's sessionStart fires at every new conversation, not after compaction, and " + cursorReason,
		},
	},
}
