package agent

// Crush (docs/platforms.md#crush), measured on a build of its public
// source (commit 37f36e9, v0.90.0 and five commits; the npm package
// 0.96.1 cannot fetch its binary here) against a mock model server: it
// reads AGENTS.md, CLAUDE.md, CRUSH.md and more, all at once, from the
// folder a session starts in. Its only hook event is PreToolUse, so it
// cannot re-inject; it gets the on-demand block in AGENTS.md.

const crushReason = "Crush has no compaction event: its only hook is PreToolUse, which runs before a tool call (source of v0.90.0; measured on that build)"

// crushReads, measured on the source build (crush run against a mock; the
// turn request).
var crushReads = Reads{
	Client: "Crush (source build v0.90.0+37f36e9; not the npm pin 0.96.1)",
	Walk:   StartOnly,
	Where:  "the folder the session starts in only (a session started in a sub-folder reads none of them)",
	Files: []Instruction{
		{File: "AGENTS.md", Known: "measured on the source build: in the turn request",
			Caveat: "a session started in a sub-folder reads none of the root's files (measured on the source build)"},
		{File: ClaudeContextFile, Known: "measured on the source build: in the turn request beside AGENTS.md"},
		{File: "CRUSH.md", Known: "measured on the source build: in the turn request beside AGENTS.md"},
	},
}

// crushTeach is the kbs-now block in the CLAUDE.md Crush reads where
// there is no AGENTS.md (setup spares AGENTS.md where it would hide
// CLAUDE.md from another agent).
var crushTeach = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &crushReads, Loaded: OnDemandBlock.File}

var crush = &Agent{
	Name:    "crush",
	Title:   "Crush",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, crushTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "Crush cannot re-inject after compaction: " + crushReason,
		Nudge:    "Crush has no compaction event to send a nudge from (its only hook is PreToolUse)",
	},
	Reinject: "no: " + crushReason,
	Markers:  []string{"crush.json", ".crush.json", "CRUSH.md", ".crush"},
	Binaries: []string{"crush"},
	Reads:    crushReads,
	// Crush's PreToolUse hooks sit in crush.json under "hooks", in a
	// shape of its own; nowhook writes none and doctor reads none.
}
