package agent

import (
	"fmt"

	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Claude Code (docs/platforms.md#claude-code): a SessionStart hook with
// matcher compact in .claude/settings.json; its plain stdout is added to
// the next model request after a manual or automatic compaction.

// ClaudeScript is the wrapper our Claude Code hook runs.
const ClaudeScript = ".claude/hooks/kanbus-compaction-right-now.sh"

// ClaudeCommand is our hook's command. Quoted, so that a project path with
// spaces works; Claude Code runs it with /bin/sh -c. Where the wrapper is
// missing (a clone without .claude/hooks/) it exits 0 and prints nothing.
var ClaudeCommand = claudeRun(ClaudeScript)

// claudeRun is the command that runs script, a path from the project
// root, as Claude Code's hooks run ours.
func claudeRun(script string) string {
	return generate.RunIfPresent(`"$CLAUDE_PROJECT_DIR"/` + script)
}

// ClaudeSettings is the schema of .claude/settings.json: strict JSON (a
// comment or trailing comma makes Claude Code ignore the whole file).
var ClaudeSettings = generate.HookFile{
	Path:    ".claude/settings.json",
	Agent:   "Claude Code",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
}

var (
	claudeHook = &HookEntry{
		File:   ClaudeSettings,
		Hook:   func(o Options) generate.Hook { return generate.CompactGroup(ClaudeCommand, ClaudeScript, o.Budget) },
		Script: ClaudeScript,
	}
	claudeWrapper = wrapper(ClaudeScript)
	// Claude Code's Compact Instructions steer what its summary keeps: the
	// text is in every request, the summary request too, and back after a
	// compaction. They go under a "Compact Instructions" heading in a
	// CLAUDE.md of the user's. Where there is none, setup does not create
	// one, since a CLAUDE.md hides AGENTS.md from Claude Code, and an
	// @AGENTS.md line in it does not reach sessions started in a sub-folder
	// (docs/platforms.md, "Instruction files"): they go into a file of their
	// own in .claude/rules/, which Claude Code loads beside AGENTS.md from
	// the root and from every sub-folder (measured on 2.1.332). A CLAUDE.md
	// that holds nothing but nowhook's blocks (nowhook v1 and v2 created it
	// so, and hid AGENTS.md) is nowhook's: its block moves to .claude/rules/
	// and the file goes.
	claudeCompactBlock = generate.Block{Name: "compact-instructions", Version: templates.Version, Body: templates.CompactInstructions, Heading: "Compact Instructions"}
	claudeCompact      = &OnlyIf{Block: &Block{File: ClaudeContextFile, Block: claudeCompactBlock}, When: userClaudeMD, Where: "the Compact Instructions, where the repository has a `CLAUDE.md` of its own"}
	claudeRules        = &OnlyIf{Block: &Block{File: ClaudeRulesFile, Block: claudeCompactBlock}, When: noUserClaudeMD, Where: "the Compact Instructions, where it has none; no `CLAUDE.md` is created"}
	// claudeTeach is the kbs-now block in a CLAUDE.md that neither imports
	// AGENTS.md nor is AGENTS.md through a link: Claude Code never sees
	// AGENTS.md's block there.
	claudeTeach = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &claudeReads, Loaded: OnDemandBlock.File}
	// claudeEverywhere is the kbs-now block in a file of its own in
	// .claude/rules/, which Claude Code loads from every start folder
	// whatever CLAUDE.md says (measured on 2.1.332), where a session
	// started in some start folder would otherwise not be taught: a
	// package folder with a CLAUDE.md of its own hides the root's
	// AGENTS.md there, and the root's @AGENTS.md is not taken there.
	claudeEverywhere = &OnlyIf{Block: &Block{File: ClaudeTeachRulesFile, Block: onDemand}, When: untaughtSomewhere(&claudeReads, ClaudeTeachRulesFile),
		Where: "the kbs-now block, where a session started in a folder below the root would not load it otherwise (a `CLAUDE.md` of that folder hides `AGENTS.md`)"}
)

// ClaudeTeachRulesFile holds Claude Code's kbs-now block where a session
// started in a start folder would not be taught otherwise.
const ClaudeTeachRulesFile = ".claude/rules/kanbus-kbs-now.md"

// ClaudeRulesFile holds Claude Code's Compact Instructions where the
// repository has no CLAUDE.md of its own.
const ClaudeRulesFile = ".claude/rules/kanbus-compact-instructions.md"

// userClaudeMD reports whether the repository had a CLAUDE.md of its own
// before the plan: one that holds more than nowhook's blocks (an empty one
// too: the user made it, and it already hides AGENTS.md), or one that
// nowhook's record says was there before nowhook first wrote into it (the
// user's empty CLAUDE.md, once setup filled it, holds nothing but
// nowhook's blocks and stays the user's).
func userClaudeMD(before, _ Files) bool {
	b, ok := before.Read(ClaudeContextFile)
	if !ok {
		return false
	}
	if k, ok := before.(Kept); ok && k.Kept(ClaudeContextFile) {
		return true
	}
	return len(b) == 0 || !onlyBlocks(ClaudeContextFile, b, &Block{Block: claudeCompactBlock}, &Block{Block: onDemand})
}

func noUserClaudeMD(before, after Files) bool { return !userClaudeMD(before, after) }

// claudeImportCaveat: measured on 2.1.332, an @AGENTS.md in the root's
// CLAUDE.md is an import from outside the folder a sub-folder session
// starts in, which Claude Code takes only once approved.
const claudeImportCaveat = "takes it only once the import is approved (an interactive session asks, offering \"No\" first; claude -p skips it without a word)"

// ClaudeContextFile is the instruction file Claude Code loads.
const ClaudeContextFile = "CLAUDE.md"

// claudeReads, measured on Claude Code 2.1.332 against a mock Messages API
// (claude -p --input-format stream-json; the first request's text), in
// repositories with nested instruction files (TestReadsFoldersProbe):
// CLAUDE.md and .claude/CLAUDE.md of every folder from the start up to the
// root; AGENTS.md of those folders only where none of them has a CLAUDE.md
// (one anywhere on the walk hides every AGENTS.md on it); the Markdown
// files of .claude/rules/ of each of those folders, whatever else is
// there; and what their @path lines import from inside the start folder.
var claudeReads = Reads{
	Client:     "Claude Code 2.1.332",
	Where:      "the session's folder and each folder above it; a CLAUDE.md anywhere on that walk hides every AGENTS.md on it",
	HideOnWalk: true,
	Rules:      ".claude/rules",
	Imports:    true,
	Files: []Instruction{
		{File: ClaudeContextFile, Known: "measured: its text is in the first request, from the start folder and every folder above it"},
		{File: ".claude/CLAUDE.md", Known: "measured: in the first request, and it hides AGENTS.md as a CLAUDE.md does"},
		{File: "CLAUDE.local.md", Known: "measured: in the first request, from the start folder and every folder above it, and it hides AGENTS.md as a CLAUDE.md does"},
		{File: "AGENTS.md", HiddenBy: []string{ClaudeContextFile, ".claude/CLAUDE.md", "CLAUDE.local.md"}, ImportedBy: ClaudeContextFile,
			Known:  "measured: in the first request where no folder from the start up to the root has a CLAUDE.md, absent beside one without an import, and in it again through @AGENTS.md in a CLAUDE.md inside the start folder",
			Caveat: "a session started in a sub-folder " + claudeImportCaveat},
	},
}

// The checkpoint (setup --checkpoint), as measured on 2.1.332: JSON
// additionalContext from a PostToolUse hook reaches the very next request
// of the turn, plain stdout of a UserPromptSubmit hook the request of that
// prompt; both run one script, which fires once per climb (its latch is
// per session). PreCompact's stdout is added to the summariser's
// instructions: the summary hint (docs/platforms.md#checkpoint-and-summary-hint).
const (
	ClaudeCheckpointScript = ".claude/hooks/kanbus-checkpoint.sh"
	ClaudeHintScript       = ".claude/hooks/kanbus-summary-hint.sh"
)

// claudeEvent is .claude/settings.json with our entry under event.
func claudeEvent(event string) generate.HookFile {
	f := ClaudeSettings
	f.Event = event
	return f
}

var (
	claudeCheckpointCommand = claudeRun(ClaudeCheckpointScript)
	claudeCheckpoint        = []Artifact{
		&HookEntry{File: claudeEvent("PostToolUse"), Script: ClaudeCheckpointScript, Hook: func(o Options) generate.Hook {
			return generate.Group("*", claudeCheckpointCommand, ClaudeCheckpointScript, generate.HookTimeout(o.Budget))
		}},
		&HookEntry{File: claudeEvent("UserPromptSubmit"), Script: ClaudeCheckpointScript, Hook: func(o Options) generate.Hook {
			return generate.Group("", claudeCheckpointCommand, ClaudeCheckpointScript, generate.HookTimeout(o.Budget))
		}},
		checkpointScript(ClaudeCheckpointScript),
		&HookEntry{File: claudeEvent("PreCompact"), Script: ClaudeHintScript, Hook: func(Options) generate.Hook {
			return generate.Group("", claudeRun(ClaudeHintScript), ClaudeHintScript, generate.HookTimeout(HintBudget))
		}},
		hintScript(ClaudeHintScript),
	}
)

var claude = &Agent{
	Name:     "claude",
	Title:    "Claude Code",
	Default:  Reinject,
	Fallback: true,
	Modes: []ModeSpec{
		{Mode: Reinject, Words: "re-inject: a hook puts the work in progress back right after every compaction",
			Artifacts: []Artifact{claudeHook, claudeWrapper, claudeTeach, claudeEverywhere, claudeCompact, claudeRules, OnDemandBlock, KanbusAgentsBlock}},
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where it hides AGENTS.md) teaches the agent to run kbs now; no hook",
			Artifacts: append([]Artifact{claudeTeach, claudeEverywhere}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Nudge: "nudge is Cursor's pre-compaction message to the user; Claude Code re-injects the reminder itself (use reinject or ondemand)",
	},
	Reinject: "yes: SessionStart hook with matcher compact; its stdout is added to the next model request",
	Markers:  []string{".claude", ClaudeContextFile},
	Reads:    claudeReads,
	Binaries: []string{"claude"},
	Hooks: HookFormat{
		Files:         []string{".claude/settings.local.json", ".claude/settings.json", "${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json"},
		Layout:        LayoutGrouped,
		Strict:        true,
		Shell:         "/bin/sh",
		ProjectDirEnv: "CLAUDE_PROJECT_DIR",
		DisableKey:    "disableAllHooks",
		OnceByCommand: true,
		BlockingEvent: "PreCompact",
		WrongEvents: map[string]string{
			"PreCompact":  "Claude Code gives PreCompact output to the summariser as extra instructions, not to the model after compaction; use SessionStart with matcher compact",
			"PostCompact": "Claude Code shows PostCompact output to the user only; use SessionStart with matcher compact",
		},
	},
	Doctor: Doctor{
		BlockMisses: map[string]string{
			claudeCompactBlock.Name: "the compaction summary is not told to keep the Kanbus issue ids",
		},
		Transcript: claudeTranscript,
		Proved:     true,
	},
	Checkpoint: claudeCheckpoint,
	Note:       claudeNote,
	Scope:      claudeScope,
}

// claudeTranscript is a Claude Code transcript for the checkpoint's live
// runs (docs/platforms.md, "Checkpoint: reading the context use"): a
// prompt, then the assistant record of the reply that asked for the tool
// call, whose usage sums to the context use. Claude Code 2.1.332 gives
// claude-sonnet-4-5 a 200,000-token window.
var claudeTranscript = &Transcript{
	About:  "a synthetic Claude Code transcript of claude-sonnet-4-5 with its 200000-token window",
	Window: 200_000,
	ToolID: "toolu_nowhook_doctor",
	Write: func(used int64) []byte {
		return fmt.Appendf(nil, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"nowhook doctor"},"uuid":"nowhook-doctor-u"}
{"parentUuid":"nowhook-doctor-u","isSidechain":false,"message":{"id":"msg_nowhook_doctor","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_nowhook_doctor","name":"Bash","input":{"command":"true"}}],"stop_reason":"tool_use","usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":8}},"requestedModel":"claude-sonnet-4-5","type":"assistant","uuid":"nowhook-doctor-a"}
`, used-8)
	},
}

// claudeScope (measured on 2.1.332): Claude Code loads .claude/settings.json
// only from the directory it starts in, so a session started in a
// sub-folder runs no project hook; there CLAUDE_PROJECT_DIR and the
// payload's cwd are that sub-folder. The user's settings load in every
// session: the user-scope hook goes there, and defers to the project's
// hook where that one runs too (a session at the root of a repository set
// up in project scope), since the two commands differ and both would run.
var claudeScope = Scope{
	Loads: "only from the directory it starts in",
	User: &UserScope{
		Var: "CLAUDE_CONFIG_DIR", Default: "~/.claude",
		Settings: userSettings(ClaudeSettings),
		Script:   "hooks/kanbus-compaction-right-now.sh",
		Defer:    []string{ClaudeScript, ClaudeSettings.Path, ".claude/settings.local.json"},
	},
	Managed: &ManagedScope{
		Folder:   "/etc/claude-code",
		Settings: claudeManagedDropIn,
		Script:   "claude.sh",
	},
	ManagedOnly: claudeManagedOnly,
}

// claudeManagedOnly: Claude Code 2.1.332 with allowManagedHooksOnly: true
// in managed-settings.json or in a drop-in runs the managed files' hooks
// alone; nowhook's project and user installs then bring nothing back, and
// the key in the user's settings does nothing (TestClaudeManagedHooksOnly).
// A managed file it cannot parse stops claude -p before its first request
// (TestClaudeManagedChannels).
var claudeManagedOnly = &ManagedOnly{
	Files:   []string{"/etc/claude-code/managed-settings.json", "/etc/claude-code/managed-settings.d/*.json"},
	Key:     "allowManagedHooksOnly",
	Strict:  true,
	Broken:  `claude -p exits 1 before its first request ("Managed settings document could not be parsed as a JSON object; none of its settings are in effect. Fix or remove it."), so every Claude Code session on this machine fails, measured on Claude Code 2.1.332`,
	Ignored: "in the user's and the project's settings it does nothing",
	Known:   "measured on Claude Code 2.1.332",
}

// claudeManagedDropIn is nowhook's own drop-in in Claude Code's managed
// folder: Claude Code 2.1.332 reads managed-settings.json, then every
// managed-settings.d/*.json not starting with a dot in name order, and
// joins their hook lists (measured: TestClaudeManagedChannels), so an
// organisation's own managed file is never touched. Strict JSON: a file
// it cannot parse stops claude -p before its first request.
var claudeManagedDropIn = generate.HookFile{
	Path:    "managed-settings.d/50-nowhook.json",
	Agent:   "Claude Code",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
}
