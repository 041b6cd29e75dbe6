package agent

// Factory Droid (docs/platforms.md#factory-droid), measured on 0.225.2
// against a mock model server: it reads both AGENTS.md and CLAUDE.md (a
// CLAUDE.md does not hide AGENTS.md), from the session's folder and each
// folder above it, and rebuilds them into every request, also after a
// compaction. A SessionStart group with matcher compact runs after a
// manual /compact and its stdout reaches the first request after the
// summary once, but an automatic compaction runs no hook, and the hook
// would live in .factory/hooks.json, a bare event map that no hook-file
// layout here writes yet: so Droid is on demand only for now.

const droidReason = "nowhook does not re-inject for Factory Droid yet: its SessionStart hook with matcher compact runs after /compact only, automatic compaction runs no hook (measured 0.225.2), and nowhook does not write its .factory/hooks.json yet"

// droidReads, measured on 0.225.2 (droid exec against a mock; the first
// request's "Project Instructions").
var droidReads = Reads{
	Client: "Factory Droid 0.225.2",
	Where:  "the session's folder and each folder above it (a session started in a sub-folder reads the root's files too, closest first)",
	Files: []Instruction{
		{File: ClaudeContextFile, Known: "measured: in the first request, before AGENTS.md, and again after a compaction"},
		{File: "AGENTS.md", Known: "measured: in the first request beside CLAUDE.md, and again after a compaction"},
	},
}

// droidTeach is the kbs-now block in the CLAUDE.md Droid reads where
// there is no AGENTS.md (setup spares AGENTS.md where it would hide
// CLAUDE.md from another agent).
var droidTeach = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &droidReads, Loaded: OnDemandBlock.File}

var droid = &Agent{
	Name:    "droid",
	Title:   "Factory Droid",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, droidTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: droidReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; Factory Droid's PreCompact hook is not known to show one (not measured)",
	},
	Reinject: "no: " + droidReason,
	Markers:  []string{".factory"},
	Binaries: []string{"droid"},
	Reads:    droidReads,
	// Droid's own hook file is .factory/hooks.json, the event map itself
	// (no "hooks" key; wrapped in one it is ignored), which wins per event
	// over .factory/settings.json's {"hooks": ...}. nowhook writes neither;
	// doctor reads the settings files, whose layout is Claude Code's.
	Hooks: HookFormat{
		Files:         []string{".factory/settings.json", "~/.factory/settings.json"},
		Layout:        LayoutGrouped,
		Shell:         "/bin/sh",
		ProjectDirEnv: "FACTORY_PROJECT_DIR",
		WrongEvents: map[string]string{
			"UserPromptSubmit": "Factory Droid runs UserPromptSubmit at every prompt and adds its output to that request, which would inject on every turn, not after compaction",
		},
	},
}
