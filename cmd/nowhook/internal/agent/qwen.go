package agent

import (
	"bytes"

	"github.com/nowhook/nowhook/generate"
)

// Qwen Code (docs/platforms.md#qwen-code): a SessionStart hook with
// matcher compact in .qwen/settings.json, Claude Code's shape. Its plain
// stdout joins the system prompt of the next request after a manual
// /compress (Qwen awaits the hook there). After an automatic compression
// Qwen starts the hook without waiting for it, so the reminder arrives one
// request later: with the next tool result of the same turn, or with the
// next prompt. No other hook of 0.24.4 can do better: the hooks that add
// context (UserPromptSubmit, PreToolUse, PostToolUse) all run before the
// request that compresses, PreCompact's output goes to the summariser and
// PostCompact's is dropped (measured).
//
// Qwen reads its settings as JSON with comments but without trailing
// commas, and rewrites the project's settings.json when it starts: it
// adds "$version": 4 where that key is missing (and resets a file it
// cannot parse). A file setup creates therefore starts with "$version": 4,
// so that Qwen leaves it alone and remove can delete it again.

// QwenScript is the wrapper our Qwen Code hook runs.
const QwenScript = ".qwen/hooks/kanbus-compaction-right-now.sh"

// QwenCommand is our hook's command. Qwen runs it with bash -c and sets
// QWEN_PROJECT_DIR to the session's directory, the one whose
// .qwen/settings.json it read; quoted, so that a path with spaces works.
const QwenCommand = `"$QWEN_PROJECT_DIR"/` + QwenScript

// QwenContextFile is the instruction file Qwen Code is named after; it
// reads AGENTS.md as well by default (measured on 0.24.4), but not when
// the settings' context.fileName names QWEN.md alone.
const QwenContextFile = "QWEN.md"

// qwenSettingsVersion is the "$version" Qwen Code 0.24.4 writes into
// every settings file it loads.
const qwenSettingsVersion = 4

// QwenSettings is the schema of .qwen/settings.json. Not Strict: Qwen
// strips comments before JSON.parse. Trailing commas it does not take;
// qwenLoadable refuses those.
var QwenSettings = generate.HookFile{
	Path:    ".qwen/settings.json",
	Agent:   "Qwen Code",
	Event:   "SessionStart",
	Grouped: true,
	NewFile: []generate.Member{{Key: "$version", Value: qwenSettingsVersion}},
}

var (
	qwenHook = &HookEntry{
		File:   QwenSettings,
		Hook:   func(o Options) generate.Hook { return generate.CompactGroup(QwenCommand, QwenScript, o.Budget) },
		Script: QwenScript,
	}
	qwenWrapper = wrapper(QwenScript)
	// qwenBlock is the on-demand kbs-now block, the same block as
	// AGENTS.md's, in the file Qwen Code always reads.
	qwenBlock = &Block{File: QwenContextFile, Block: onDemand}
	// qwenGuard refuses a settings file Qwen Code cannot load.
	qwenGuard = &qwenLoadable{file: QwenSettings.Path}
)

const qwenNudge = "nudge is Cursor's pre-compaction message to the user; Qwen Code re-injects the reminder itself (use reinject or ondemand)"

var qwen = &Agent{
	Name:    "qwen",
	Title:   "Qwen Code",
	Default: Reinject,
	Modes: []ModeSpec{
		{Mode: Reinject, Words: "re-inject: a hook puts the work in progress back after every compaction (one request late after an automatic one)",
			Artifacts: []Artifact{qwenGuard, qwenHook, qwenWrapper, qwenBlock, OnDemandBlock, KanbusAgentsBlock}},
		{Mode: OnDemand, Words: "on demand: QWEN.md and AGENTS.md teach the agent to run kbs now; no hook",
			Artifacts: append([]Artifact{qwenBlock}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Nudge: qwenNudge,
	},
	Reinject: "yes: SessionStart hook with matcher compact; its stdout joins the system prompt of the next request after /compress, but after an automatic compression only of the request after that, since Qwen Code does not wait for the hook there",
	Markers:  []string{".qwen"},
	Binaries: []string{"qwen"},
	Reads: Reads{
		Client: "Qwen Code 0.24.4",
		Where:  "the session's folder and each folder above it up to the git root",
		Files: []Instruction{
			{File: QwenContextFile, Known: "measured: in the first request's system prompt"},
			{File: "AGENTS.md", Known: "measured: in the first request's system prompt beside QWEN.md (not when context.fileName names QWEN.md alone)"},
		},
	},
	// The project settings file is read only in the directory qwen starts in (measured, 0.24.4).
	StartDirOnly: true,
	Hooks: HookFormat{
		Files:         []string{".qwen/settings.json", "${QWEN_HOME:-~/.qwen}/settings.json"},
		Layout:        LayoutGrouped,
		Shell:         "/bin/bash",
		ProjectDirEnv: "QWEN_PROJECT_DIR",
		JSONOutput:    true,
		WrongEvents: map[string]string{
			"PreCompact":       "Qwen Code gives PreCompact output to the summariser as extra instructions, not to the model after compaction; use SessionStart with matcher compact",
			"PostCompact":      "Qwen Code discards PostCompact output; use SessionStart with matcher compact",
			"UserPromptSubmit": "UserPromptSubmit fires at every prompt, which would inject on every turn, not after compaction (and before an automatic compression, not after it)",
		},
	},
	Checks: []string{"mode", "reach", "hooks-file", "loadable", "disabled", "folder-trust", "hook", "ms-timeout", "script", "inject-event", "qwen-md"},
	Scope:  qwenScope,
}

// qwenScope (measured on 0.24.4): like Claude Code, Qwen Code loads
// .qwen/settings.json only from the directory it starts in, and the user's
// ${QWEN_HOME:-~/.qwen}/settings.json in every session; at the root both
// files' hooks run, the project's first.
var qwenScope = Scope{
	Loads: "only from the directory it starts in",
	User: &UserScope{
		Var: "QWEN_HOME", Default: "~/.qwen",
		Settings: userSettings(QwenSettings),
		Script:   "hooks/kanbus-compaction-right-now.sh",
		Defer:    []string{QwenScript, QwenSettings.Path},
		Guard:    func(path string) Artifact { return &qwenLoadable{file: path, user: true} },
	},
}

// qwenLoadable guards .qwen/settings.json: it writes nothing, and refuses
// a file that Qwen Code cannot load (see QwenLoadError), before the hook
// entry is merged into it.
type qwenLoadable struct {
	file string
	user bool // the user's own settings, which Qwen does not reset but fails on
}

func (g *qwenLoadable) Path() string { return g.file }

func (g *qwenLoadable) Apply(cur []byte, _ Options) (Edit, error) {
	if err := QwenLoadError(g.file, cur); err != nil {
		if g.user {
			err.Consequence = "Qwen Code does not start while its user settings have one"
		}
		return Edit{}, err
	}
	return Edit{Next: cur}, nil
}

func (g *qwenLoadable) Remove(cur []byte, _ func(string) bool) (Edit, error) {
	return Edit{Next: cur, Empty: len(bytes.TrimSpace(cur)) == 0}, nil
}

// Present reports whether Qwen Code can load cur: the guard holds nothing
// of its own.
func (g *qwenLoadable) Present(cur []byte) bool { return QwenLoadError(g.file, cur) == nil }

// QwenLoadError reports what in a settings file Qwen Code cannot load,
// as Qwen 0.24.4 reads it (JSON.parse after removing comments and a
// byte order mark): a trailing comma, which hujson, and so nowhook's
// editor, accepts. Other syntax errors are left to the editor, which
// refuses them itself. Nil when Qwen loads the file (or it is empty).
func QwenLoadError(path string, b []byte) *generate.FileError {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	commas := generate.TrailingCommas(b)
	if len(commas) == 0 {
		return nil
	}
	line, col := generate.LineCol(b, commas[0])
	what := "a trailing comma"
	if len(commas) > 1 {
		what = "trailing commas"
	}
	return &generate.FileError{Path: path, Line: line, Col: col,
		Problem:     "has " + what + ", which Qwen Code cannot parse (it takes comments, not trailing commas)",
		Consequence: "at its next start Qwen Code copies the file to " + path + ".corrupted and replaces it with an empty one, so none of its hooks or settings apply",
		Fix:         "remove " + map[bool]string{true: "the trailing comma", false: "every trailing comma"}[len(commas) == 1] + " from " + path + ", then run nowhook setup again"}
}
