package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
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
	Client:       "OpenCode 1.18.33",
	ClosestFirst: true,
	// Measured (TestReadsFoldersProbe): AGENTS.md + pkg/CLAUDE.md from pkg
	// loads AGENTS.md alone; CLAUDE.md + pkg/AGENTS.md, pkg/AGENTS.md alone.
	HideOnWalk: true,
	Where:      "the session's folder and each folder above it up to the git root (or the worktree's root); the first of its file names found wins",
	// Measured (TestReadsOpencodeBesideCodex): "instructions": ["CLAUDE.md"]
	// in the project's opencode.json brings CLAUDE.md back beside AGENTS.md
	// at the root (sub-folder sessions not measured: not counted there).
	Listed: opencodeInstructions,
	Files: []Instruction{
		{File: "AGENTS.md", Known: "measured: in every request's system prompt"},
		{File: "CLAUDE.md", HiddenBy: []string{"AGENTS.md"}, Known: "measured: in the first request where there is no AGENTS.md, absent beside one",
			Keep: `list it in opencode.json: "instructions": ["CLAUDE.md"]`},
	},
}

// opencodeInstructions is Reads.Listed: the plain file paths (no glob,
// no URL) that "instructions" lists in the project's opencode.json or
// opencode.jsonc.
func opencodeInstructions(f Files) []string {
	var out []string
	for _, name := range []string{"opencode.json", "opencode.jsonc"} {
		b, ok := f.Read(name)
		if !ok {
			continue
		}
		std, err := hujson.Standardize(bytes.Clone(b))
		if err != nil {
			continue
		}
		var doc struct {
			Instructions []any `json:"instructions"`
		}
		if json.Unmarshal(std, &doc) != nil {
			continue
		}
		for _, x := range doc.Instructions {
			if p, ok := x.(string); ok && p != "" && !strings.ContainsAny(p, "*?[{") && !strings.Contains(p, "://") && !path.IsAbs(p) {
				out = append(out, path.Clean(strings.TrimPrefix(p, "./")))
			}
		}
	}
	return out
}

// renderOpenCodePlugin fills in the time the plugin gives the wrapper (the
// hook budget plus the margin the other agents' hook timeouts have), and
// whether it hands the user's messages over (rules among the sources).
func renderOpenCodePlugin(o Options) string {
	rules := "false"
	if slices.Contains(strings.Split(o.Sources, ","), "rules") {
		rules = "true"
	}
	return strings.NewReplacer("@LIMIT_SECONDS@", strconv.Itoa(generate.HookTimeout(o.Budget)), "@RULES@", rules).Replace(templates.OpenCodePlugin)
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
	Doctor:   Doctor{Quirks: []Check{opencodePluginCheck}, Proved: true},
	Scope:    opencodeScope,
}

// opencodeScope (measured on 1.18.33): started in a sub-folder, OpenCode
// loads the repository's .opencode/plugins and the plugin re-injects.
var opencodeScope = Scope{
	SubFolders: true,
	Loads:      "from the directory it starts in and the folders above it",
	Refused:    "OpenCode already runs the project's plugin in sessions started in a sub-folder (it looks for .opencode/ in the folders above the session's directory)",
}

// opencodePluginCheck: the files OpenCode's re-inject mode owns whole
// (the plugin and the wrapper it runs) are present, nowhook's current
// templates and unchanged, and the wrapper is executable. OpenCode
// re-injects through a plugin that runs the wrapper, not through a hook
// entry in a JSON file, so the hook checks find nothing of it.
var opencodePluginCheck = Check{Name: "plugin", Run: func(v View) []diag.Finding {
	var out []diag.Finding
	for _, s := range ownedWhole(v.Agent()) {
		path := filepath.Join(v.Root(), filepath.FromSlash(s.File))
		if _, err := os.Lstat(path); v.Mode() != Reinject && err != nil {
			continue
		}
		out = append(out, opencodeOwnedFinding(v, s, path))
	}
	return out
}}

// ownedWhole lists the files the agent's re-inject mode owns whole.
func ownedWhole(a *Agent) []*Script {
	spec, ok := a.Spec(Reinject)
	if !ok {
		return nil
	}
	var out []*Script
	for _, art := range spec.Artifacts {
		if s, ok := art.(*Script); ok {
			out = append(out, s)
		}
	}
	return out
}

// pluginLimitRE finds the time the plugin gives the wrapper.
var pluginLimitRE = regexp.MustCompile(`(?m)^const limitMs = (\d+) \* 1000$`)

// ownedFinding reports one file the agent's re-inject mode owns whole.
func opencodeOwnedFinding(v View, s *Script, path string) diag.Finding {
	a := v.Agent()
	f := diag.Finding{Path: s.File, Severity: diag.Error}
	setup := v.SetupFix(a.Name + "=" + string(Reinject))
	what := "the plugin"
	if !s.NotExec {
		what = "the wrapper the plugin runs"
	}
	info, err := os.Stat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		f.Message = fmt.Sprintf("%s (%s) is missing, so %s gets no reminder after compaction", s.File, what, a.Title)
		f.Fix = setup
		return f
	case err != nil:
		f.Message = fmt.Sprintf("%s cannot be read: %v", s.File, err)
		return f
	case !info.Mode().IsRegular():
		f.Message = fmt.Sprintf("%s is not a regular file, so %s gets no reminder after compaction", s.File, a.Title)
		f.Fix = "move " + s.File + " away, then run " + setup
		return f
	case !s.NotExec && info.Mode()&0o111 == 0:
		f.Message = fmt.Sprintf("%s is not executable (mode %04o): the plugin cannot run it, so %s gets no reminder", s.File, info.Mode().Perm(), a.Title)
		f.Fix = "chmod +x " + diag.ShellQuote(v.ShowFix(path))
		return f
	}
	b, err := diag.ReadBounded(path)
	if err != nil {
		f.Message = fmt.Sprintf("%s cannot be read: %v", s.File, err)
		return f
	}
	state, version := generate.InspectScript(b)
	f.Severity = diag.Warn
	switch {
	case state == generate.ScriptOurs && version == templates.Version:
		f.Severity = diag.OK
		f.Message = fmt.Sprintf("%s (%s) is nowhook's current template (v%d), unchanged", s.File, what, version)
		if budget, ok := diag.ScriptBudget(path); ok {
			f.Message += fmt.Sprintf(", gives kbs %s", budget)
		}
		if m := pluginLimitRE.FindSubmatch(b); m != nil {
			f.Message += fmt.Sprintf(", gives the wrapper %ss", m[1])
		}
	case state == generate.ScriptOurs && version < templates.Version:
		f.Message = fmt.Sprintf("%s is template v%d, older than this nowhook's v%d", s.File, version, templates.Version)
		f.Fix = setup
	case state == generate.ScriptOurs:
		f.Message = fmt.Sprintf("%s is template v%d, newer than this nowhook's v%d", s.File, version, templates.Version)
		f.Fix = "upgrade nowhook (./install.sh in a current nowhook checkout)"
	case state == generate.ScriptModified:
		f.Message = fmt.Sprintf("%s was changed by hand since nowhook wrote it (template v%d): doctor cannot vouch for it, and setup leaves it alone", s.File, version)
		f.Fix = v.SetupFix(a.Name+"="+string(Reinject), "--force")
	default:
		f.Message = fmt.Sprintf("%s has no nowhook signature line, so it is yours: doctor cannot tell whether %s puts the reminder back", s.File, a.Title)
		f.Fix = v.SetupFix(a.Name+"="+string(Reinject), "--force")
	}
	return f
}
