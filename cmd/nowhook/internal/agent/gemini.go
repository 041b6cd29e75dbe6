package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/internal/osutil"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Gemini CLI (docs/platforms.md#gemini-cli) has no event after a
// compression, and its PreCompress hook fires on every turn, its output
// shown to the user only. But its BeforeModel hook runs before every
// request with the request's history, and after a compression that
// history starts from the summary: gemini=reinject (the default) runs a
// gate there, in the hook's own bash, that hands only the first request
// after each compression to `nowhook reminder --gemini-turn`, which adds
// the reminder to it; every other request costs bash alone (measured on
// 0.61.0; templates/gemini-turn.sh). Gemini CLI reads GEMINI.md, not AGENTS.md (unless
// context.fileName lists it), and a project GEMINI.md goes into the
// session context that the CLI rebuilds after each compression (both
// measured on 0.61.0), so the on-demand kbs-now block goes into GEMINI.md
// as well as AGENTS.md, in both modes.

const geminiNoEvent = "Gemini CLI has no event after a compression (SessionStart's sources are startup, resume and clear), and its PreCompress hook fires on every turn, compressing or not, and what it prints never reaches the model"

// GeminiContextFile is the file Gemini CLI reads as the project's context
// unless the settings' context.fileName names others.
const GeminiContextFile = "GEMINI.md"

// GeminiSettings are the settings files Gemini CLI reads hooks and
// context.fileName from: the project's, then the user's (the project's
// wins). They take comments (Gemini strips them before JSON.parse).
var GeminiSettings = []string{".gemini/settings.json", "~/.gemini/settings.json"}

// GeminiTurnScript is the script of the BeforeModel hook (gemini=reinject).
const GeminiTurnScript = ".gemini/hooks/kanbus-gemini-turn.sh"

// GeminiTurnCommand is that hook's command. Gemini CLI replaces every
// $GEMINI_PROJECT_DIR in a command by the session's directory, quoted by
// shell-quote, before bash runs it (0.61.0's hook runner); a path holding
// a ' or a space and a ! comes out in double quotes with the ! as \!, and
// bash keeps that backslash, so the command named a folder that does not
// exist and the hook never ran (v4). The braced "${GEMINI_PROJECT_DIR}" is
// not replaced: bash reads it from the hook's environment, where Gemini
// CLI sets it to the same directory. Gemini CLI runs the command with
// `bash -c`, and the command sources the script (v6; v5 exec'd it), so that
// the script's gate decides in that bash, with builtins only, that a request
// follows no new compression, and no program starts on it
// (templates/gemini-turn.sh). Where the script is missing it exits 0 and
// prints nothing.
var GeminiTurnCommand = geminiSource(`"${GEMINI_PROJECT_DIR}"/` + GeminiTurnScript)

// geminiSource is the command that sources the script at path (spelled as
// the shell reads it) where it is readable, and otherwise exits 0.
func geminiSource(path string) string { return "[ ! -r " + path + " ] || . " + path }

// GeminiTurnSettings is the schema of .gemini/settings.json for that hook:
// a matcher group under hooks.BeforeModel. Not Strict: Gemini CLI strips
// comments before it parses the file.
var GeminiTurnSettings = generate.HookFile{
	Path:    GeminiSettings[0],
	Agent:   "Gemini CLI",
	Event:   "BeforeModel",
	Grouped: true,
}

// geminiTimeout is the hook's timeout for a budget, in milliseconds, the
// unit Gemini CLI counts in: the budget plus 5 s, as for every agent.
func geminiTimeout(o Options) int { return generate.HookTimeout(o.Budget) * 1000 }

var (
	// geminiBlock is the on-demand kbs-now block, the same block as
	// AGENTS.md's, in the file Gemini CLI reads by default.
	geminiBlock = &Block{File: GeminiContextFile, Block: onDemand}
	// geminiTurnHook runs before every request (matcher "*": BeforeModel
	// has no trigger to match); the script prints only after a
	// compression.
	geminiTurnHook = &HookEntry{
		File:   GeminiTurnSettings,
		Script: GeminiTurnScript,
		Hook: func(o Options) generate.Hook {
			return generate.Group("*", GeminiTurnCommand, GeminiTurnScript, geminiTimeout(o))
		},
	}
	geminiTurn = &Script{File: GeminiTurnScript, Reminder: true,
		Body: func(o Options) string { return templates.RenderGeminiTurn(o.Budget, o.Sources) }}
)

var gemini = &Agent{
	Name:    "gemini",
	Title:   "Gemini CLI",
	Default: Reinject,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: GEMINI.md, which Gemini CLI reads, and AGENTS.md teach the agent to run kbs now",
			Artifacts: append([]Artifact{geminiBlock}, onDemandOnly()...)},
		{Mode: Reinject, Words: "re-inject: a BeforeModel hook adds the work in progress to the first request after each compression, once, and exits in bash on every other request; GEMINI.md and AGENTS.md teach kbs now as well",
			Artifacts: append([]Artifact{geminiTurnHook, geminiTurn, geminiBlock}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Nudge: "Gemini CLI's PreCompress hook fires on every turn, compressing or not, so its message would come at every turn, not before a compression",
	},
	Reinject: "yes: a BeforeModel hook runs before every request and adds the reminder to the first request after each compression, once, which it knows by the summary the history then starts from, since " + geminiNoEvent + "; its gate passes every other request in bash alone, at about the cost of a /bin/true hook (proven on Gemini CLI 0.61.0 in the e2e tests, measured by scripts/bench-gemini.sh)",
	Markers:  []string{".gemini", GeminiContextFile},
	Binaries: []string{"gemini"},
	Reads: Reads{
		Client: "Gemini CLI 0.61.0",
		Where:  "the session's folder and each folder above it up to the git root",
		Named:  geminiNamed,
		Files: []Instruction{
			{File: GeminiContextFile, Known: "measured: in the first request's session context, and again after a compression; also where context.fileName names other files"},
			{File: "AGENTS.md", Setting: "context.fileName", Known: "measured: absent unless context.fileName lists it"},
		},
	},
	Hooks: HookFormat{
		Files:         GeminiSettings,
		Layout:        LayoutGrouped,
		ProjectDirEnv: "GEMINI_PROJECT_DIR",
		TimeoutMillis: true,
		WrongEvents: map[string]string{
			"PreCompress": "Gemini CLI fires PreCompress on every turn, compressing or not, and shows what it prints to the user only, never to the model",
			"BeforeAgent": "BeforeAgent fires at every prompt, which would inject on every turn, not after compaction",
			"BeforeModel": "BeforeModel fires before every model call, so a hook there that prints the reminder injects it on every turn, not after compaction (nowhook's own BeforeModel hook, " + GeminiTurnScript + ", prints only in the first request after a compression: gemini=reinject)",
		},
	},
	Doctor: Doctor{
		Quirks: []Check{geminiMigratedCheck, geminiContextCheck, geminiGateCheck},
	},
	// Measured on 0.61.0: started in sub/deeper of a repository whose root
	// has the hook, Gemini CLI listed no project hook and the hook never
	// ran (TestGeminiReinjectSubfolder).
	Scope: Scope{
		Loads:   "only from the directory it starts in",
		Refused: "nowhook has no user-scope hook for Gemini CLI yet (its BeforeModel hook would go into ~/.gemini/settings.json)",
		// Gemini CLI 0.61.0 runs the system settings' hooks without the
		// project-hook warning (TestGeminiManagedReminder): the same
		// per-request gate as the project's, its script in the managed
		// folder, sourced by absolute path.
		Managed: &ManagedScope{
			Folder:   "/etc/gemini-cli",
			Settings: geminiManagedSettings,
			Script:   "gemini-turn.sh",
			Command:  geminiSource,
			Group: func(command string, o Options) generate.Hook {
				return generate.Group("*", command, "gemini-turn.sh", geminiTimeout(o))
			},
			Wrapper: func(o Options) string { return templates.RenderGeminiTurn(o.Budget, o.Sources) },
		},
	},
}

// geminiManagedSettings is /etc/gemini-cli/settings.json (the system
// settings, which override the user's and the project's).
var geminiManagedSettings = func() generate.HookFile {
	f := GeminiTurnSettings
	f.Path = "settings.json"
	return f
}()

// Doctor's checks of Gemini CLI alone: hooks that carry Claude Code's
// matchers and units into Gemini CLI (what `gemini hooks migrate
// --from-claude` makes of them), and the context file that teaches `kbs
// now`, as context.fileName names it (which reach reads too: Loads).

// geminiTriggers are, for the events that have one, the values Gemini CLI
// 0.61.0 compares a group's matcher with: exactly, after trimming, with ""
// and "*" matching all (no regex, no "a|b").
var geminiTriggers = map[string][]string{
	"SessionStart": {"startup", "resume", "clear"},
	"SessionEnd":   {"exit", "clear", "logout", "prompt_input_exit", "other"},
	"PreCompress":  {"manual", "auto"},
}

// geminiEvents are the hook events Gemini CLI 0.61.0 knows; it skips any
// other ("Invalid hook event name"). For Claude Code's names, the event
// gemini hooks migrate --from-claude maps them to.
var geminiEvents = map[string]bool{
	"SessionStart": true, "SessionEnd": true, "PreCompress": true, "BeforeAgent": true, "AfterAgent": true,
	"BeforeModel": true, "AfterModel": true, "BeforeTool": true, "AfterTool": true, "BeforeToolSelection": true, "Notification": true,
}

var claudeToGemini = map[string]string{
	"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "UserPromptSubmit": "BeforeAgent",
	"Stop": "AfterAgent", "SubagentStop": "AfterAgent", "PreCompact": "PreCompress",
}

// geminiMinTimeout: Gemini CLI counts hook timeouts in milliseconds, so a
// timeout under a second is almost surely Claude Code's seconds.
const geminiMinTimeout = 1000

const geminiMigrate = "gemini hooks migrate --from-claude copies Claude Code's matchers and timeouts as they are"

// geminiMigratedCheck: hooks written for Claude Code that Gemini CLI does
// not run as written (measured on 0.61.0): an event it does not know
// (Claude's PreCompact, Stop...), a handler outside a {"matcher", "hooks"}
// group (it discards it), a group whose matcher it never matches (Claude
// Code's "compact", or "startup|resume"), and a timeout under 1000, which
// it reads as milliseconds (Claude Code's 10 seconds become 10 ms). A hook
// that runs the reminder is an error; others a warning.
var geminiMigratedCheck = Check{Name: "migrated-hooks", Run: func(v View) []diag.Finding {
	a := v.Agent()
	var out []diag.Finding
	for _, f := range v.HookFiles() {
		if f.ReadErr != nil || f.ParseErr != nil || len(f.Handlers) == 0 {
			continue
		}
		var found []diag.Finding
		deadGroup := map[string]bool{} // one row per group for its matcher
		for _, h := range f.Handlers {
			sev, reminder := diag.Warn, v.RunsReminder(h)
			if reminder {
				sev = diag.Error
			}
			groupAt := strings.TrimSuffix(h.At, fmt.Sprintf(".hooks[%d]", h.Index))
			if !geminiEvents[h.Event] {
				msg := fmt.Sprintf("%s: %s has no hook event %q and skips it, so this hook never runs", h.Where(), a.Title, h.Event)
				fix := fmt.Sprintf("move the entry at %s under one of %s's events, or delete it", h.Where(), a.Title)
				if to, ok := claudeToGemini[h.Event]; ok {
					msg += fmt.Sprintf(" (%q is Claude Code's name; Gemini CLI's nearest is %q)", h.Event, to)
					fix = fmt.Sprintf("rename %q to %q at %s, or delete the entry", h.Event, to, h.Where())
				}
				found = append(found, diag.Finding{Severity: sev, Path: f.Show, Message: msg, Fix: fix})
				continue
			}
			if !h.Wrapped {
				found = append(found, diag.Finding{Severity: sev, Path: f.Show,
					Message: fmt.Sprintf("%s: this handler is not inside a group's \"hooks\" list; %s discards it (\"Discarding invalid hook definition\"), so it never runs", h.Where(), a.Title),
					Fix:     fmt.Sprintf("wrap the handler at %s in {\"hooks\": [...]} (with a \"matcher\" if it needs one)", h.Where())})
				continue
			}
			if values, ok := geminiTriggers[h.Event]; ok && h.Matcher != nil && !deadGroup[groupAt] {
				m := strings.TrimSpace(*h.Matcher)
				if m != "" && m != "*" && !contains(values, m) {
					deadGroup[groupAt] = true
					msg := fmt.Sprintf("%s: the %s group's matcher %q never matches in %s, which compares it exactly with the %s (%s), so this hook never runs",
						h.Where(), h.Event, *h.Matcher, a.Title, triggerWord(h.Event), strings.Join(values, ", "))
					fix := fmt.Sprintf("set the matcher at %s to one of %s (or \"*\"), or delete the group", h.Where(), strings.Join(values, ", "))
					if m == "compact" || reminder {
						msg += "; " + geminiMigrate + ", and " + a.Title + " has no event after a compression"
					}
					if reminder {
						fix = fmt.Sprintf("delete the %s entry at %s; %s teaches `kbs now` in %s instead", h.Event, h.Where(), v.SetupFix(a.Name), GeminiContextFile)
					}
					found = append(found, diag.Finding{Severity: sev, Path: f.Show, Message: msg, Fix: fix})
				}
			}
			if n, ok := h.Obj["timeout"].(json.Number); ok {
				ms, err := strconv.ParseFloat(n.String(), 64)
				if err == nil && ms > 0 && ms < geminiMinTimeout {
					found = append(found, diag.Finding{Severity: sev, Path: f.Show,
						Message: fmt.Sprintf("%s: \"timeout\": %s is %s milliseconds: %s counts hook timeouts in milliseconds (Claude Code in seconds) and kills this hook after %s ms; %s",
							h.Where(), n, n, a.Title, n, geminiMigrate),
						Fix: fmt.Sprintf("write \"timeout\": %s (%s seconds) at %s, or delete it for the default of 60000 ms", strconv.FormatFloat(ms*1000, 'f', -1, 64), n, h.Where())})
				}
			}
		}
		if len(found) == 0 {
			found = append(found, diag.Finding{Path: f.Show,
				Message: fmt.Sprintf("%s: %s, each in a group under an event %s knows, none with a matcher it never matches or a timeout under %d ms (it counts milliseconds)",
					f.Show, diag.Plural(len(f.Handlers), "hook handler"), a.Title, geminiMinTimeout)})
		}
		out = append(out, found...)
	}
	return out
}}

func triggerWord(event string) string {
	switch event {
	case "SessionStart":
		return "session's source"
	case "SessionEnd":
		return "session's end reason"
	}
	return "compression's trigger"
}

// geminiContextCheck: Gemini CLI reads GEMINI.md, and besides it the files
// context.fileName names (the project's settings win over the user's), and
// AGENTS.md only when it is one of them: one of those files must hold the
// kbs-now block. Measured on 0.61.0 (TestReadsGeminiFileNameProbe): with
// context.fileName "CONTEXT.md" it loads GEMINI.md and CONTEXT.md.
var geminiContextCheck = Check{Name: "context-file", Run: func(v View) []diag.Finding {
	a := v.Agent()
	names, source := geminiContextFiles(v.HookFiles())
	name := OnDemandBlock.Block.Name
	var fallback *diag.Finding
	for _, file := range names {
		f, has := v.Block(file, name, "Gemini CLI never learns to run `kbs now`", v.SetupFix(a.Name))
		if !has {
			continue
		}
		if f.Severity == diag.OK {
			f.Message += fmt.Sprintf(", and %s reads %s (%s)", a.Title, file, geminiWhy(file, source))
			return []diag.Finding{f}
		}
		if fallback == nil {
			fallback = &f
		}
	}
	if fallback != nil {
		return []diag.Finding{*fallback}
	}
	others := false
	for _, art := range a.Owned() {
		if b, ok := art.(*Block); ok && v.HasBlock(b.File, name) {
			others = true
		}
	}
	if v.Mode() == "" && !others {
		return nil // the mode row says that nowhook has not set it up
	}
	which := "which has no"
	if len(names) > 1 {
		which = "none of which has the"
	}
	f := diag.Finding{Severity: diag.Warn, Path: names[0],
		Message: fmt.Sprintf("%s reads %s (%s), %s nowhook kbs-now block, so %s never learns to run `kbs now`",
			a.Title, joinNames(names), source, which, a.Title),
		Fix: v.SetupFix(a.Name)}
	if !contains(names, OnDemandBlock.File) && v.HasBlock(OnDemandBlock.File, name) {
		f.Message += fmt.Sprintf(" (%s has it, but %s reads %s only when context.fileName lists it)", OnDemandBlock.File, a.Title, OnDemandBlock.File)
	}
	return []diag.Finding{f}
}}

// geminiWhy says why Gemini CLI reads file: GEMINI.md always, the others
// because source names them.
func geminiWhy(file, source string) string {
	if file == GeminiContextFile {
		if source == geminiDefaultSource {
			return source
		}
		return "it reads GEMINI.md also where " + source + " names other files"
	}
	return source
}

const geminiDefaultSource = "its default context file"

func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// geminiContextFiles returns the context files Gemini CLI reads, from its
// settings files as doctor parsed them: GEMINI.md, then the files
// context.fileName names; and where that list comes from.
func geminiContextFiles(files []*diag.HookFile) ([]string, string) {
	for _, user := range []bool{false, true} {
		for _, f := range files {
			if f.User != user || f.Doc == nil {
				continue
			}
			if names := geminiFileNames(f.Doc); len(names) > 0 {
				return withGeminiMD(names), "context.fileName in " + f.Show
			}
		}
	}
	return []string{GeminiContextFile}, geminiDefaultSource
}

// withGeminiMD puts GEMINI.md first, which Gemini CLI 0.61.0 reads
// whatever context.fileName says.
func withGeminiMD(names []string) []string {
	out := []string{GeminiContextFile}
	for _, n := range names {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// geminiFileNames are the names context.fileName lists in a settings
// document.
func geminiFileNames(doc map[string]any) []string {
	ctx, _ := doc["context"].(map[string]any)
	switch v := ctx["fileName"].(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var names []string
		for _, x := range v {
			if s, ok := x.(string); ok && s != "" {
				names = append(names, s)
			}
		}
		return names
	}
	return nil
}

// geminiNamed is Reads.Named: the files context.fileName names for a
// session started in from, in the settings Gemini CLI reads there (the
// start folder's .gemini/settings.json, which a session started in a
// sub-folder does not take from the root, measured; else the user's
// ~/.gemini/settings.json).
func geminiNamed(f Files, from string) ([]string, string) {
	rel := path.Join(from, GeminiSettings[0])
	if b, ok := f.Read(rel); ok {
		if names := geminiSettingsNames(b); len(names) > 0 {
			return withGeminiMD(names), "context.fileName in " + rel
		}
	}
	if s, ok := f.(Sited); ok {
		if _, env := s.Site(); osutil.Getenv(env, "HOME") != "" {
			user := filepath.Join(osutil.Getenv(env, "HOME"), ".gemini", "settings.json")
			if b, err := os.ReadFile(user); err == nil {
				if names := geminiSettingsNames(b); len(names) > 0 {
					return withGeminiMD(names), "context.fileName in ~/.gemini/settings.json"
				}
			}
		}
	}
	return []string{GeminiContextFile}, geminiDefaultSource
}

// geminiSettingsNames parses a settings file as Gemini CLI does (comments
// allowed) and returns what context.fileName lists.
func geminiSettingsNames(b []byte) []string {
	std, err := hujson.Standardize(bytes.Clone(b)) // it works in place, and b may be a plan's

	if err != nil {
		return nil
	}
	var doc map[string]any
	if json.Unmarshal(std, &doc) != nil {
		return nil
	}
	return geminiFileNames(doc)
}
