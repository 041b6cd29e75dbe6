package agent

// Gemini CLI (docs/platforms.md#gemini-cli) cannot re-inject: it has no
// event after a compression, and its PreCompress hook fires on every turn,
// its output shown to the user only. Gemini CLI reads GEMINI.md, not AGENTS.md
// (unless context.fileName lists it), and a project GEMINI.md goes into
// the session context that the CLI rebuilds after each compression (both
// measured on 0.61.0), so the on-demand kbs-now block goes into GEMINI.md
// as well as AGENTS.md.

const geminiReason = "Gemini CLI has no event after a compression (SessionStart's sources are startup, resume and clear), and its PreCompress hook fires on every turn, compressing or not, and what it prints never reaches the model"

// GeminiContextFile is the file Gemini CLI reads as the project's context
// unless the settings' context.fileName names others.
const GeminiContextFile = "GEMINI.md"

// GeminiSettings are the settings files Gemini CLI reads hooks and
// context.fileName from: the project's, then the user's (the project's
// wins). They take comments (Gemini strips them before JSON.parse).
var GeminiSettings = []string{".gemini/settings.json", "~/.gemini/settings.json"}

// geminiBlock is the on-demand kbs-now block, the same block as AGENTS.md's,
// in the file Gemini CLI reads by default.
var geminiBlock = &Block{File: GeminiContextFile, Block: onDemand}

var gemini = &Agent{
	Name:    "gemini",
	Title:   "Gemini CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: GEMINI.md, which Gemini CLI reads, and AGENTS.md teach the agent to run kbs now",
			Artifacts: append([]Artifact{geminiBlock}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Reinject: "Gemini CLI cannot re-inject after compaction: " + geminiReason,
		Nudge:    "Gemini CLI's PreCompress hook fires on every turn, compressing or not, so its message would come at every turn, not before a compression",
	},
	Reinject: "no: " + geminiReason,
	Markers:  []string{".gemini", GeminiContextFile},
	Binaries: []string{"gemini"},
	Reads: Reads{
		Client: "Gemini CLI 0.61.0",
		Where:  "the session's folder and each folder above it up to the git root, and folders below it",
		Files: []Instruction{
			{File: GeminiContextFile, Known: "measured: in the first request's session context, and again after a compression"},
			{File: "AGENTS.md", Setting: "context.fileName", Known: "measured: absent unless context.fileName lists it"},
		},
	},
	Hooks: HookFormat{
		Files:         GeminiSettings,
		Layout:        LayoutGrouped,
		ProjectDirEnv: "GEMINI_PROJECT_DIR",
		WrongEvents: map[string]string{
			"PreCompress": "Gemini CLI fires PreCompress on every turn, compressing or not, and shows what it prints to the user only, never to the model",
			"BeforeAgent": "BeforeAgent fires at every prompt, which would inject on every turn, not after compaction",
			"BeforeModel": "BeforeModel fires before every model call, which would inject on every turn, not after compaction",
		},
	},
	Checks: []string{"mode", "reach", "hooks-file", "inject-event", "migrated-hooks", "context-file"},
}
