package agent

// Kiro (docs/platforms.md#kiro), from its vendor docs only: no Kiro client
// is on the registries this project installs from, so nothing here was
// run. Kiro includes a root AGENTS.md in every interaction, as steering
// without inclusion modes (kiro.dev/docs/steering, read 2026-12-01), so
// the one shared kbs-now block in AGENTS.md teaches it; a steering file of
// nowhook's own in .kiro/steering/ would put the same block in its context
// twice.
//
// Kiro documents a route after compaction: Kiro CLI 3.1 added a
// PostCompact hook that runs after a manual or automatic compaction and
// receives the summary, and Kiro IDE 1.4.121 a Post Compaction trigger
// whose output is added to the conversation after the summary replaces
// the history (both changelogs, read 2026-12-01). Whether that output
// reaches the model's next request, once, is not measured, so the row
// refuses reinject and says so rather than claiming it.

const kiroReason = "Kiro documents a PostCompact hook (CLI 3.1) and a Post Compaction trigger (IDE 1.4.121) whose output is added to the conversation after the summary, but no Kiro client runs here to prove that it reaches the model once after a compaction"

var kiro = &Agent{
	Name:    "kiro",
	Title:   "Kiro",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Kiro always includes as steering, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "nowhook does not re-inject into Kiro yet: " + kiroReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; Kiro's PreCompact hook can refuse a compaction (vendor docs) and is not known to show a message to the user (not measured)",
	},
	Reinject: "no (vendor docs, not measured): " + kiroReason,
	Markers:  []string{".kiro"},
	Globs:    []Glob{{Pattern: ".kiro/steering/*.md", Evidence: ".kiro/steering/ has steering files"}},
	Binaries: []string{"kiro-cli", "kiro"},
	Reads: Reads{
		Client: "Kiro (vendor docs, kiro.dev/docs/steering read 2026-12-01; not run)",
		Walk:   RootOnly,
		Where:  "the workspace root, beside the steering files of .kiro/steering/ and ~/.kiro/steering/",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "vendor docs: a root AGENTS.md is always included, as steering without inclusion modes"},
		},
	},
	// Kiro's hooks are files of any name (IDE: .kiro/hooks/; CLI: inside
	// the agent configuration files), so there is no fixed hook file for
	// doctor to read, and nowhook writes none.
}
