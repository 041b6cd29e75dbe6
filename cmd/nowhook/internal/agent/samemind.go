package agent

import (
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// samemind's pre-compact note (setup --sources samemind=note; README,
// "Sources"): Claude Code's PreCompact hook, which runs before every
// compaction, manual or automatic, and whose output goes to the
// summariser, runs a script that appends the note to samemind's inbox
// and prints nothing (nowhook reminder --samemind-note). It gets the
// summary hint's budget: a PreCompact hook delays the compaction.
const ClaudeNoteScript = ".claude/hooks/samemind-pre-compact-note.sh"

var claudeNote = []Artifact{
	&HookEntry{File: claudeEvent("PreCompact"), Script: ClaudeNoteScript, Hook: func(Options) generate.Hook {
		return generate.Group("", claudeRun(ClaudeNoteScript), ClaudeNoteScript, generate.HookTimeout(HintBudget))
	}},
	&Script{File: ClaudeNoteScript, Body: func(Options) string { return templates.RenderSamemindNote(HintBudget) }},
}
