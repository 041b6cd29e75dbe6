package agent

// Amp (docs/platforms.md#amp) cannot re-inject: its plugins see
// session.start, tool.call, tool.result, agent.start and agent.end, none of
// them about compaction. It reads AGENTS.md, so it gets the on-demand block
// only.

const ampReason = "Amp has no compaction event: its plugins see session.start, tool.call, tool.result, agent.start and agent.end, none of them about compaction"

// ampReads, as third-party summaries of Amp's manual report it (no
// client measured): AGENTS.md, and CLAUDE.md only where there is no
// AGENTS.md.
var ampReads = Reads{
	Client: "Amp (reported)",
	Where:  "the session's folder and each folder above it",
	Files: []Instruction{
		{File: "AGENTS.md", Known: "reported"},
		{File: "CLAUDE.md", HiddenBy: []string{"AGENTS.md"}, Known: "reported: read only where there is no AGENTS.md",
			Keep: "link CLAUDE.md and AGENTS.md (ln -s CLAUDE.md AGENTS.md) or move its text into AGENTS.md"},
	},
}

// ampTeach is the kbs-now block in a CLAUDE.md that Amp reads because
// there is no AGENTS.md.
var ampTeach = &Unless{Block: &Block{File: "CLAUDE.md", Block: onDemand}, Reads: &ampReads, Loaded: OnDemandBlock.File}

var amp = &Agent{
	Name:    "amp",
	Title:   "Amp",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where Amp reads it instead) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, ampTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "Amp cannot re-inject after compaction: " + ampReason,
		Nudge:    "Amp has no compaction event to send a nudge from",
	},
	Reinject: "no: " + ampReason,
	Markers:  []string{".amp"},
	Binaries: []string{"amp"},
	Reads:    ampReads,
	// Amp has no hook files (its plugins are TypeScript, in .amp/plugins);
	// its settings files, whose keys are "amp.*", are listed so that doctor
	// knows where Amp's configuration is, and hold no "hooks".
	Hooks: HookFormat{
		Files:  []string{".amp/settings.json", "~/.config/amp/settings.json"},
		Layout: LayoutFlat,
	},
}
