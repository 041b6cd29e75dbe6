package agent

// Junie (docs/platforms.md#junie), from JetBrains' docs only: no Junie
// client is on the registries this project installs from, so nothing here
// was run. Junie adds its guidelines file to every task: .junie/guidelines.md
// at the project root by default, or the file the project settings'
// Guidelines path names, which may be an AGENTS.md
// (jetbrains.com/help/junie/customize-guidelines.html, 24 November 2025).
// So the kbs-now block goes into .junie/guidelines.md as well as AGENTS.md.
// Junie's docs describe no hooks and nothing about compaction.

// JunieGuidelines is the file Junie reads unless its Guidelines path names
// another.
const JunieGuidelines = ".junie/guidelines.md"

const junieReason = "Junie's documentation describes no hook and no event after a compaction"

// junieBlock is the on-demand kbs-now block, the same block as AGENTS.md's,
// in the file Junie reads by default.
var junieBlock = &Block{File: JunieGuidelines, Block: onDemand}

var junie = &Agent{
	Name:    "junie",
	Title:   "Junie",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: .junie/guidelines.md, which Junie reads, and AGENTS.md teach the agent to run kbs now",
			Artifacts: append([]Artifact{junieBlock}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Reinject: "Junie cannot re-inject after compaction: " + junieReason,
		Nudge:    "Junie has no compaction event to send a nudge from",
	},
	Reinject: "no (vendor docs, not measured): " + junieReason,
	Markers:  []string{".junie"},
	Binaries: []string{"junie"},
	Reads: Reads{
		Client: "Junie (vendor docs, jetbrains.com/help/junie of 24 November 2025; not run)",
		Walk:   RootOnly,
		Where:  "the project root",
		Files: []Instruction{
			{File: JunieGuidelines, Known: "vendor docs: the guidelines file by default, added to every task"},
			{File: "AGENTS.md", Setting: "Guidelines path (Settings | Tools | Junie | Project Settings)", Known: "vendor docs: read only where the Guidelines path names it"},
		},
	},
}
