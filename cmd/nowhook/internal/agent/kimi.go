package agent

// Kimi Code CLI (docs/platforms.md#kimi-code-cli), from its vendor docs
// only: it is not on the registries this project installs from, so nothing
// here was run. It reads AGENTS.md from its working directory at session
// start into the system prompt (vendor docs), so the one shared kbs-now
// block in AGENTS.md teaches it.
//
// Its hooks ([[hooks]] tables in ~/.kimi-code/config.toml) include
// PreCompact and PostCompact, but a hook's output has no channel into the
// model's context there: the runner keeps only a message, a permission
// decision and its reason, and uses the decision alone (read in its source
// by a third-party adapter). Only UserPromptSubmit's message reaches the
// model, at every prompt.

const kimiReason = "Kimi Code CLI's PreCompact and PostCompact hooks have no channel into the model's context (their output is dropped); only UserPromptSubmit's message reaches the model, at every prompt, not after compaction"

var kimi = &Agent{
	Name:    "kimi",
	Title:   "Kimi Code CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Kimi Code CLI reads at session start, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "Kimi Code CLI cannot re-inject after compaction: " + kimiReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; Kimi Code CLI's PreCompact hook is not known to show one (not measured)",
	},
	Reinject: "no (vendor docs and a report on its source, not measured): " + kimiReason,
	// .kimi-code is where Kimi Code CLI keeps its configuration (in the
	// home folder; a project's .kimi-code/ is not documented to be read,
	// but shows the tool is used).
	Markers:  []string{".kimi-code"},
	Binaries: []string{"kimi"},
	Reads: Reads{
		Client: "Kimi Code CLI (vendor docs, moonshotai.github.io/kimi-cli read 2026-12-01; not run)",
		Walk:   StartOnly,
		Where:  "the working directory the session starts in",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "vendor docs and source: AGENTS.md (else agents.md) of the working directory, read at session start into the system prompt (KIMI_AGENTS_MD)"},
		},
	},
	// Kimi Code CLI's hooks are TOML ([[hooks]] in ~/.kimi-code/config.toml),
	// which doctor's hook reader does not parse; nowhook writes none.
}
