package agent

// Antigravity (docs/platforms.md#antigravity) has no compaction event; it
// reads AGENTS.md, so it gets the on-demand block only.

const antigravityReason = "Antigravity has no compaction event; its PreInvocation hook fires before every model call, which would inject on every turn, not after compaction"

var antigravity = &Agent{
	Name:    "antigravity",
	Title:   "Antigravity",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "Antigravity cannot re-inject after compaction: " + antigravityReason,
		Nudge:    "Antigravity has no compaction event to send a nudge from",
	},
	Reinject: "no: " + antigravityReason,
	Markers:  []string{".agents/rules", ".agents/workflows", ".agents/hooks.json", ".agent", "GEMINI.md"},
	Reads: Reads{
		Client: "Antigravity (vendor docs; not run)",
		Walk:   RootOnly,
		Where:  "the workspace root",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "vendor docs"},
			{File: "GEMINI.md", Known: "vendor docs"},
		},
	},
	Hooks: HookFormat{
		Files:  []string{".agents/hooks.json", ".agent/hooks.json", "~/.gemini/config/hooks.json"},
		Layout: LayoutNamed,
		Strict: true,
		WrongEvents: map[string]string{
			"PreInvocation": antigravityReason,
		},
	},
}
