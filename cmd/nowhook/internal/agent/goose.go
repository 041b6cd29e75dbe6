package agent

// Goose (docs/platforms.md#goose), from its docs and source only: no Goose
// client is on the registries this project installs from, so nothing here
// was run. Goose loads .goosehints (vendor docs) and, by default, AGENTS.md
// too (its source: CONTEXT_FILE_NAMES defaults to .goosehints and
// AGENTS.md) once at session start, so the one shared kbs-now block in
// AGENTS.md teaches it.
//
// Goose has no hook after compaction. Its persistent instructions
// (GOOSE_MOIM_MESSAGE_FILE) are read again and injected at every turn: an
// every-turn injection, which the Kanbus guidance rules out.

const gooseReason = "Goose has no hook after compaction; its persistent instructions are injected at every turn, not after a compaction"

var goose = &Agent{
	Name:    "goose",
	Title:   "Goose",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Goose loads beside .goosehints, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "Goose cannot re-inject after compaction: " + gooseReason,
		Nudge:    "Goose has no compaction event to send a nudge from",
	},
	Reinject: "no (vendor docs and source, not measured): " + gooseReason,
	Markers:  []string{".goosehints", ".goosehints.local"},
	// No binary: "goose" on PATH is as often pressly/goose, the database
	// migration tool, as Block's agent, so it shows nothing.
	Reads: Reads{
		Client: "Goose (vendor docs, goose-docs.ai read 2026-12-01, and source; not run)",
		Where:  "the session's folder and each folder above it up to the git root",
		Files: []Instruction{
			{File: ".goosehints", Known: "vendor docs: loaded at session start"},
			{File: "AGENTS.md", Known: "source: CONTEXT_FILE_NAMES defaults to .goosehints and AGENTS.md (crates/goose/src/hints/load_hints.rs)"},
		},
	},
}
