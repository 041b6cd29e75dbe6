package agent

// Windsurf (docs/platforms.md#windsurf), from its vendor docs only: it is
// an IDE, not on the registries, so nothing here was run. Cascade takes a
// root AGENTS.md as an always-on rule, in its system prompt on every
// message (docs.windsurf.com/windsurf/cascade/agents-md, read 2026-12-01),
// so the one shared kbs-now block in AGENTS.md teaches it; a rule file of
// nowhook's own in .windsurf/rules/ would put the same block in its
// context twice.

const windsurfReason = "Windsurf's Cascade hooks run around reading and writing code, running commands, MCP tools, the user's prompt and Cascade's response; none runs after a compaction with output for the model"

var windsurf = &Agent{
	Name:    "windsurf",
	Title:   "Windsurf",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Windsurf reads as an always-on rule, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "Windsurf cannot re-inject after compaction: " + windsurfReason,
		Nudge:    "Windsurf has no compaction event to send a nudge from",
	},
	Reinject: "no (vendor docs, not measured): " + windsurfReason,
	Markers:  []string{".windsurf", ".windsurfrules"},
	Globs:    []Glob{{Pattern: ".windsurf/rules/*.md", Evidence: ".windsurf/rules/ has rules"}},
	Binaries: []string{"windsurf"},
	Reads: Reads{
		Client: "Windsurf (vendor docs, docs.windsurf.com read 2026-12-01; not run)",
		Where:  "the workspace and its folders (a sub-folder's AGENTS.md applies to files there), and the folders above it up to the git root",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "vendor docs: at the workspace root an always-on rule, in the system prompt of every message"},
		},
	},
	// Cascade's hook files: the workspace's and the user's (a system file,
	// /etc/windsurf/hooks.json on Linux, is merged too). Their shape is
	// {"hooks": {EVENT: [handler...]}}. nowhook writes none of them.
	Hooks: HookFormat{
		Files:  []string{".windsurf/hooks.json", "~/.codeium/windsurf/hooks.json"},
		Layout: LayoutFlat,
		WrongEvents: map[string]string{
			"pre_user_prompt": "Windsurf runs pre_user_prompt at every prompt, which would run kbs on every turn, not after compaction, and its docs do not say that the output reaches the model",
		},
	},
}
