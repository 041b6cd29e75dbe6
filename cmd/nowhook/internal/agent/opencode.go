package agent

import (
	"strconv"
	"strings"

	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// OpenCode (docs/platforms.md#opencode) has no shell hooks and no
// SessionStart; it loads JavaScript plugins from .opencode/plugins/ and
// tells them about compactions: session.compacted after every one,
// experimental.compaction.autocontinue after an automatic one, right before
// the request that continues. Our plugin then runs the same wrapper as the
// other agents' hooks and adds its output once to the next request's
// system prompt (experimental.chat.system.transform). OpenCode reads
// AGENTS.md on every request.
//
// At start-up OpenCode itself writes .opencode/.gitignore,
// .opencode/package.json, .opencode/package-lock.json and
// .opencode/node_modules/ (it installs @opencode-ai/plugin there). None of
// them is ours: remove leaves them, and with them the .opencode/ folder.

// OpenCodePlugin is the plugin nowhook owns whole.
const OpenCodePlugin = ".opencode/plugins/kanbus-compaction-right-now.js"

// OpenCodeScript is the wrapper the plugin runs; the plugin finds it
// beside its own folder (../hooks/ from .opencode/plugins/).
const OpenCodeScript = ".opencode/hooks/kanbus-compaction-right-now.sh"

var (
	opencodePlugin = &Script{
		File:    OpenCodePlugin,
		Body:    renderOpenCodePlugin,
		Comment: "//",
		NotExec: true,
	}
	opencodeWrapper = wrapper(OpenCodeScript)
	// opencodeTeach is the kbs-now block in a CLAUDE.md that OpenCode reads
	// because there is no AGENTS.md (setup spares AGENTS.md there, as it
	// would hide CLAUDE.md).
	opencodeTeach = &Unless{Block: &Block{File: "CLAUDE.md", Block: onDemand}, Reads: &opencodeReads, Loaded: OnDemandBlock.File}
)

// opencodeReads, measured on OpenCode 1.18.33 (opencode serve, the first
// request's system prompt): the first of AGENTS.md and CLAUDE.md found
// from the session's folder up to the git root is read, not both.
var opencodeReads = Reads{
	Client: "OpenCode 1.18.33",
	Where:  "the session's folder and each folder above it up to the git root (or the worktree's root); the first of its file names found wins",
	Files: []Instruction{
		{File: "AGENTS.md", Known: "measured: in every request's system prompt"},
		{File: "CLAUDE.md", HiddenBy: []string{"AGENTS.md"}, Known: "measured: in the first request where there is no AGENTS.md, absent beside one",
			Keep: `list it in opencode.json: "instructions": ["CLAUDE.md"]`},
	},
}

// renderOpenCodePlugin fills in the time the plugin gives the wrapper: the
// hook budget plus the margin the other agents' hook timeouts have.
func renderOpenCodePlugin(o Options) string {
	return strings.ReplaceAll(templates.OpenCodePlugin, "@LIMIT_SECONDS@", strconv.Itoa(generate.HookTimeout(o.Budget)))
}

var opencode = &Agent{
	Name:    "opencode",
	Title:   "OpenCode",
	Default: Reinject,
	Modes: []ModeSpec{
		{Mode: Reinject, Words: "re-inject: a plugin puts the work in progress back right after every compaction",
			Artifacts: []Artifact{opencodeWrapper, opencodePlugin, OnDemandBlock, opencodeTeach, KanbusAgentsBlock}},
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where OpenCode reads it instead) teaches the agent to run kbs now; no plugin",
			Artifacts: []Artifact{OnDemandBlock, opencodeTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Nudge: "nudge is Cursor's pre-compaction message to the user; OpenCode re-injects the reminder itself through a plugin (use reinject or ondemand)",
	},
	Reinject: "yes: a plugin in .opencode/plugins runs the wrapper after each compaction and adds its output once to the next request's system prompt",
	Markers:  []string{".opencode", "opencode.json", "opencode.jsonc"},
	Binaries: []string{"opencode"},
	Reads:    opencodeReads,
	Checks:   []string{"mode", "reach", "plugin"},
	Scope:    opencodeScope,
}

// opencodeScope (measured on 1.18.33): started in a sub-folder, OpenCode
// loads the repository's .opencode/plugins and the plugin re-injects.
var opencodeScope = Scope{
	SubFolders: true,
	Loads:      "from the directory it starts in and the folders above it",
	Refused:    "OpenCode already runs the project's plugin in sessions started in a sub-folder (it looks for .opencode/ in the folders above the session's directory)",
}
