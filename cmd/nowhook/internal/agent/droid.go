package agent

import (
	"encoding/json"
	"path/filepath"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// Factory Droid (docs/platforms.md#factory-droid), measured on 0.225.2
// against a mock model server: it reads both AGENTS.md and CLAUDE.md (a
// CLAUDE.md does not hide AGENTS.md), from the session's folder and each
// folder above it, and rebuilds them into every request, also after a
// compaction, so on demand is its default. A SessionStart group with
// matcher compact runs after a manual /compact, and its stdout reaches the
// first request after the summary once; an automatic compaction runs no
// hook at all. So re-injection is opt-in (droid=reinject) and the matrix
// says it works after /compact only.
//
// The hook goes into .factory/settings.json ({"hooks": ...}, Claude Code's
// layout), not .factory/hooks.json (the bare event map): Droid runs, per
// event, only hooks.json's groups where hooks.json has that event, so a
// SessionStart group that nowhook put into hooks.json would switch off the
// team's SessionStart groups in settings.json, while one in settings.json
// switches off nothing (measured). Where hooks.json has SessionStart
// groups, ours does not run: doctor's droid.hooks-json row says so.
// Droid hands hooks the folder the session started in (FACTORY_PROJECT_DIR
// and the cwd), not the repository root, so the command finds the root
// with git itself and works from a sub-folder too (measured).

const droidAuto = "after /compact only; automatic compaction runs no hook (measured 0.225.2)"

// DroidScript is the wrapper our Factory Droid hook runs.
const DroidScript = ".factory/hooks/kanbus-compaction-right-now.sh"

// droidCommand finds the repository root from the session's folder (git's
// complaint outside a repository goes nowhere) and exits 0, silent, where
// the wrapper is missing there.
var droidCommand = `d=$(git rev-parse --show-toplevel 2>/dev/null); ` + generate.RunIfPresent(`"$d"/`+DroidScript)

// DroidSettings is .factory/settings.json, where our SessionStart group goes.
var DroidSettings = generate.HookFile{
	Path:    ".factory/settings.json",
	Agent:   "Factory Droid",
	Event:   "SessionStart",
	Grouped: true,
}

// droidHooksJSON is Droid's own hook file, a bare event map.
const droidHooksJSON = ".factory/hooks.json"

var (
	droidHook = &HookEntry{
		File:   DroidSettings,
		Hook:   func(o Options) generate.Hook { return generate.CompactGroup(droidCommand, DroidScript, o.Budget) },
		Script: DroidScript,
	}
	droidWrapper = wrapper(DroidScript)
)

// droidReads, measured on 0.225.2 (droid exec against a mock; the first
// request's "Project Instructions").
var droidReads = Reads{
	Client:       "Factory Droid 0.225.2",
	ClosestFirst: true,
	// Measured (TestReadsDroidLinksProbe): AGENTS.md or CLAUDE.md as a
	// symbolic link (to docs/agent-rules.md, to TEAM.md beside it) did not
	// reach the first request.
	NoLinks: true,
	Where:   "the session's folder and each folder above it (a session started in a sub-folder reads the root's files too, closest first)",
	Files: []Instruction{
		{File: ClaudeContextFile, Known: "measured: in the first request, before AGENTS.md, and again after a compaction"},
		{File: "AGENTS.md", Known: "measured: in the first request beside CLAUDE.md, and again after a compaction; not where it is a symbolic link",
			Keep: "make AGENTS.md a file of its own rather than a symbolic link (Factory Droid 0.225.2 reads no linked instruction file): for example turn the link around, moving the text into AGENTS.md and linking the other name to it"},
	},
}

// droidTeach is the kbs-now block in the CLAUDE.md Droid reads where
// there is no AGENTS.md (setup spares AGENTS.md where it would hide
// CLAUDE.md from another agent).
var droidTeach = &Unless{Block: &Block{File: ClaudeContextFile, Block: onDemand}, Reads: &droidReads, Loaded: OnDemandBlock.File}

var droid = &Agent{
	Name:    "droid",
	Title:   "Factory Droid",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, droidTeach, KanbusAgentsBlock}},
		{Mode: Reinject, Words: "re-inject: a hook puts the work in progress back " + droidAuto,
			Artifacts: []Artifact{droidHook, droidWrapper, OnDemandBlock, droidTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Nudge: "nudge is Cursor's pre-compaction message to the user; Factory Droid's PreCompact hook is not known to show one (not measured)",
	},
	Reinject: "yes, " + droidAuto + ": a SessionStart hook with matcher compact in .factory/settings.json (opt-in: droid=reinject), whose stdout reaches the first request after the summary",
	Markers:  []string{".factory"},
	Binaries: []string{"droid"},
	Reads:    droidReads,
	Hooks: HookFormat{
		Files:         []string{".factory/settings.json", "~/.factory/settings.json"},
		Layout:        LayoutGrouped,
		Shell:         "/bin/sh",
		ProjectDirEnv: "FACTORY_PROJECT_DIR",
		WrongEvents: map[string]string{
			"UserPromptSubmit": "Factory Droid runs UserPromptSubmit at every prompt and adds its output to that request, which would inject on every turn, not after compaction",
		},
	},
	Doctor: Doctor{Quirks: []Check{droidHooksJSONCheck}},
	// Measured: started in a sub-folder, Droid loads the root's hooks.
	Scope: Scope{SubFolders: true, Loads: "from the directory it starts in and the folders above it", Managed: droidManaged, ManagedOnly: droidManagedOnly},
}

// droidHooksJSONCheck: where .factory/hooks.json has SessionStart groups,
// Droid runs none of settings.json's, ours included (measured 0.225.2).
var droidHooksJSONCheck = Check{Name: "hooks-json", Run: func(v View) []diag.Finding {
	if v.Mode() != Reinject {
		return nil
	}
	b, err := diag.ReadBounded(filepath.Join(v.Root(), filepath.FromSlash(droidHooksJSON)))
	if err != nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(b, &doc) != nil || doc["SessionStart"] == nil {
		return nil
	}
	return []diag.Finding{{Severity: diag.Error, Path: droidHooksJSON,
		Message: droidHooksJSON + " has SessionStart groups, so Factory Droid runs none of .factory/settings.json's, and nowhook's compact hook there never runs",
		Fix:     "move the SessionStart groups of " + droidHooksJSON + " into .factory/settings.json under \"hooks\", then run " + v.SetupFix("droid=reinject")}}
}}

// droidManaged: Factory Droid 0.225.2 runs the SessionStart compact group
// of /etc/factory/settings.json (TestDroidManagedReminder). Where that
// file exists it is the organisation's settings, ahead of those from
// Factory's service, so creating it would switch that policy off: nowhook
// merges into it only where it exists.
var droidManaged = &ManagedScope{
	Folder:   "/etc/factory",
	Settings: userSettings(DroidSettings),
	Script:   "droid.sh",
	Existing: "where /etc/factory/settings.json exists it replaces the organisation's settings from Factory's service, so nowhook never creates it; Factory Droid's managed hook goes into the organisation's Hooks Policy there, or into that file where the organisation keeps one",
}

// droidManagedOnly: Factory Droid 0.225.2 with allowManagedHooksOnly: true
// in /etc/factory/settings.json drops the user's and the project's hooks
// (TestDroidManagedHooksOnly). A file it cannot parse it passes by
// without a word, the switch with it.
var droidManagedOnly = &ManagedOnly{
	Files: []string{"/etc/factory/settings.json"},
	Key:   "allowManagedHooksOnly",
	Known: "measured on Factory Droid 0.225.2",
}
