package agent

// Continue CLI (docs/platforms.md#continue-cli), measured on 1.5.47
// against a mock model server: it reads the first of AGENTS.md, AGENT.md
// and CLAUDE.md that exists in the folder a session starts in (and
// .continue/rules/), nothing from a session started in a sub-folder. It
// loads Claude-style hooks from .continue/settings.json and
// .claude/settings.json but runs none of them, so it cannot re-inject; it
// gets the on-demand block in the file it reads.

const continueReason = "Continue CLI loads hooks from .continue/settings.json and .claude/settings.json but runs none of them (1.5.47: measured, and its hook dispatcher has no caller in the source)"

// continueReads, measured on 1.5.47 (cn -p against a mock; the system
// message's userRules).
var continueReads = Reads{
	Client: "Continue CLI 1.5.47",
	Walk:   StartOnly,
	Rules:  ".continue/rules", // measured: its Markdown files load beside AGENTS.md
	Where:  "the folder the session starts in only (a session started in a sub-folder reads no instruction file, not even the root's)",
	Files: []Instruction{
		{File: "AGENTS.md", Known: "measured: in the system message; the first of AGENTS.md, AGENT.md and CLAUDE.md wins",
			Caveat: "a session started in a sub-folder reads no instruction file (measured)"},
		{File: "AGENT.md", HiddenBy: []string{"AGENTS.md"}, Known: "measured: read only where there is no AGENTS.md",
			Keep: "move its text into AGENTS.md (Continue CLI reads only the first of AGENTS.md, AGENT.md and CLAUDE.md)"},
		{File: ClaudeContextFile, HiddenBy: []string{"AGENTS.md", "AGENT.md"}, Known: "measured: read only where there is neither AGENTS.md nor AGENT.md",
			Keep: "link CLAUDE.md and AGENTS.md (ln -s CLAUDE.md AGENTS.md) or move its text into AGENTS.md"},
	},
}

// continueTeachAgent and continueTeachClaude are the kbs-now block in the
// AGENT.md or CLAUDE.md Continue reads where there is no AGENTS.md (setup
// spares AGENTS.md where it would hide one of them).
var (
	continueTeachAgent  = &Unless{Block: &Block{File: "AGENT.md", Block: onDemand}, Reads: &continueReads, Loaded: OnDemandBlock.File}
	continueTeachClaude = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &continueReads, Loaded: OnDemandBlock.File}
)

var continueCLI = &Agent{
	Name:    "continue",
	Title:   "Continue CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or AGENT.md or CLAUDE.md, where Continue reads it instead) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, continueTeachAgent, continueTeachClaude, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "Continue CLI cannot re-inject after compaction: " + continueReason,
		Nudge:    "Continue CLI runs no hook, so it has nothing to send a nudge from",
	},
	Reinject: "no: " + continueReason,
	Markers:  []string{".continue"},
	Binaries: []string{"cn"},
	Reads:    continueReads,
	// The Claude-style {"hooks": ...} files Continue loads (its own; a
	// .claude/settings.json is Claude Code's row's): a hook there that
	// runs kbs now never runs.
	Hooks: HookFormat{
		Files:  []string{".continue/settings.local.json", ".continue/settings.json", "~/.continue/settings.json"},
		Layout: LayoutGrouped,
		WrongEvents: map[string]string{
			"SessionStart": continueReason,
			"PreCompact":   continueReason,
		},
	},
	Doctor: Doctor{Quirks: []Check{continueClaudeEntry}},
}

// continueClaudeEntry, measured on 1.5.47 (TestContinueClaudeEntry): it
// starts none of them.
var continueClaudeEntry = claudeEntryCheck("Continue CLI",
	"it starts none of them, so they do nothing there (measured on 1.5.47)")
