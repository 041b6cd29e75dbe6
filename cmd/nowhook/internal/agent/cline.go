package agent

// Cline CLI (docs/platforms.md#cline), measured on 3.0.65 against a mock
// model server: it reads AGENTS.md and every file in .clinerules/ from
// the folder a session starts in, and nothing from a session started in a
// sub-folder. Its PreCompact hook is found and never started (3.0.65 maps
// it to no runtime event), so it cannot re-inject; it gets the on-demand
// block in AGENTS.md. A two-step route (a mark at compaction, the reminder
// with the next prompt, as Kimi Code's) fails at both steps: besides
// PreCompact, its UserPromptSubmit hook did not start in a `cline --json`
// task, and its code runs prompt_submit hooks detached and drops their
// output (measured: TestClineUserPromptSubmitReachesNothing).

const clineReason = "Cline CLI never runs its PreCompact hook (3.0.65 finds .clinerules/hooks/PreCompact and starts it on no event, manual or automatic compaction alike; measured), and it has no event after compaction"

var cline = &Agent{
	Name:    "cline",
	Title:   "Cline",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "Cline cannot re-inject after compaction: " + clineReason,
		Nudge:    "Cline's PreCompact hook never runs, so it has no compaction event to send a nudge from",
	},
	Reinject: "no: " + clineReason,
	Markers:  []string{".clinerules", ".cline"},
	Binaries: []string{"cline"},
	// Measured on 3.0.65 (cline --json against a mock; the system
	// prompt's "# Rules"). .clinerules/ files are read too, but nowhook
	// writes none (AGENTS.md serves Cline and the others at once).
	Reads: Reads{
		Client: "Cline CLI 3.0.65",
		Walk:   StartOnly,
		Rules:  ".clinerules", // measured: its Markdown files load beside AGENTS.md
		Where:  "the folder the session starts in only (a session started in a sub-folder reads no instruction file, not even the root's)",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "measured: in the system prompt (\"Workspace AGENTS.md\"), and again after a compaction",
				Caveat: "a session started in a sub-folder reads no instruction file (measured)"},
		},
	},
	// Cline's hooks are executables named after their event in
	// .clinerules/hooks/ or .cline/hooks/, not JSON files: nothing for
	// doctor to parse.
}
