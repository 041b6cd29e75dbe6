package agent

// Auggie (docs/platforms.md#auggie), 0.36.0, from its npm package's
// source: it cannot run here (it needs an Augment login, and its model
// calls go through Augment's service, which no local mock stands in for).
// Its hooks have no compaction event, so it cannot re-inject; it loads
// AGENTS.md and CLAUDE.md both as shared rules, so it gets the on-demand
// block in AGENTS.md.

const auggieReason = "Auggie has no compaction event: its hooks are PreToolUse, PostToolUse, Stop, SessionStart, SessionEnd, Notification and PromptSubmit (source of 0.36.0; not run: it needs an Augment login)"

// auggieReads, read in the source of 0.36.0 (the rules service loads
// AGENTS.md and CLAUDE.md from the workspace root, each on its own).
var auggieReads = Reads{
	Client: "Auggie 0.36.0 (source; not run: it needs an Augment login)",
	Walk:   RootOnly,
	Where:  "the workspace root (source; sessions started in a sub-folder not known)",
	Files: []Instruction{
		{File: ".augment-guidelines", Known: "source: the workspace guidelines"},
		{File: "AGENTS.md", Known: "source: a shared rule file, loaded beside CLAUDE.md"},
		{File: ClaudeContextFile, Known: "source: a shared rule file, loaded beside AGENTS.md"},
	},
}

// auggieTeach is the kbs-now block in the CLAUDE.md Auggie reads where
// there is no AGENTS.md (setup spares AGENTS.md where it would hide
// CLAUDE.md from another agent).
var auggieTeach = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &auggieReads, Loaded: OnDemandBlock.File}

var auggie = &Agent{
	Name:    "auggie",
	Title:   "Auggie",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, auggieTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "Auggie cannot re-inject after compaction: " + auggieReason,
		Nudge:    "Auggie has no compaction event to send a nudge from",
	},
	Reinject: "no: " + auggieReason,
	Markers:  []string{".augment", ".augment-guidelines"},
	Binaries: []string{"auggie"},
	Reads:    auggieReads,
	// Auggie's hook files (source of 0.36.0): the project's
	// .augment/settings.local.json and .augment/settings.json and the
	// user's ~/.augment/settings.json, in Claude Code's grouped layout.
	// nowhook writes none; doctor reads them.
	Hooks: HookFormat{
		Files:  []string{".augment/settings.local.json", ".augment/settings.json", "~/.augment/settings.json"},
		Layout: LayoutGrouped,
	},
}
