package agent

// GitHub Copilot CLI (docs/platforms.md#github-copilot-cli) cannot
// re-inject: its hooks include preCompact but nothing after compaction,
// and sessionStart's sources are startup, resume and new. It reads
// AGENTS.md, so it gets the on-demand block only.
//
// Copilot CLI also reads .claude/settings.json (since 1.0.12) and may start
// our Claude hook at session start; the hook's matcher is compact, and the
// reminder runtime prints nothing for a payload whose source is not
// compact, so it stays silent there.

const copilotReason = "GitHub Copilot CLI has no event after compaction: its preCompact hook runs before it, and sessionStart's sources are startup, resume and new, never compact"

// copilotReads, from GitHub's docs for Copilot CLI (no client measured).
var copilotReads = Reads{
	Client: "GitHub Copilot CLI (vendor docs; not run)",
	Where:  "the repository root, the session's folder and the folders between them",
	Files: []Instruction{
		{File: ".github/copilot-instructions.md", Known: "vendor docs"},
		{File: "AGENTS.md", Known: "vendor docs"},
		{File: "CLAUDE.md", Known: "vendor docs"},
		{File: "GEMINI.md", Known: "vendor docs"},
	},
}

// copilotTeach is the kbs-now block in CLAUDE.md where there is no
// AGENTS.md (setup spares AGENTS.md where it would hide CLAUDE.md from
// another agent).
var copilotTeach = &Unless{Block: &Block{File: "CLAUDE.md", Block: onDemand}, Reads: &copilotReads, Loaded: OnDemandBlock.File}

var copilot = &Agent{
	Name:    "copilot",
	Title:   "GitHub Copilot CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, copilotTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "GitHub Copilot CLI cannot re-inject after compaction: " + copilotReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; GitHub Copilot CLI's preCompact hook is not known to show one (not measured)",
	},
	Reinject: "no: " + copilotReason,
	Markers:  []string{".github/copilot-instructions.md", ".github/hooks"},
	Binaries: []string{"copilot"},
	Reads:    copilotReads,
	// Copilot's own hook files are .github/hooks/*.json (any name) and
	// ~/.copilot/hooks/*.json, whose handlers run "bash" or "powershell"
	// rather than "command"; hooks may also sit inline in its settings
	// files, listed here. nowhook writes none of them, so doctor checks no
	// more than the mode.
	Hooks: HookFormat{
		Files:  []string{".github/copilot/settings.json", ".github/copilot/settings.local.json", "~/.copilot/settings.json"},
		Layout: LayoutFlat,
	},
}
