package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Kimi Code CLI (docs/platforms.md#kimi-code-cli), measured on 2.1.0 (npm
// @moonshot-ai/kimi-code, run under the Node.js 22 its pin names) against
// a mock model server. It puts AGENTS.md of each folder from the git root
// down to the session's folder into its first request, never CLAUDE.md,
// so the one shared kbs-now block in AGENTS.md teaches it, from a
// sub-folder too.
//
// It can re-inject in two steps (docs/platforms.md, "Kimi Code CLI:
// re-inject in two steps"): SessionStart's output is dropped and nothing
// after a compaction reaches the model, but PreCompact is awaited,
// PostCompact fires once a compaction was applied, and UserPromptSubmit's
// stdout joins the conversation before the prompt. `nowhook reminder
// --kimi`, run by all three, puts the reminder into the first request
// after a /compact, and after an automatic compaction (which runs after
// that turn's prompt) into the next prompt's (measured: TestKimiReinject*).
// But Kimi Code loads hooks only from the user's config.toml
// (${KIMI_CODE_HOME:-~/.kimi-code}/config.toml, [[hooks]] tables; no
// project file, no include) and from user-installed plugins, and a
// project install writes nothing outside the repository: so the re-inject
// is the user scope's (setup --scope user --agents kimi: the three tables
// merged into that file, running a wrapper beside it), for every Kimi
// Code session on the machine, and the project scope stays on demand.

const kimiReason = "re-inject is set up once per machine, not per repository: Kimi Code CLI loads hooks only from your own ${KIMI_CODE_HOME:-~/.kimi-code}/config.toml, which a project install never writes; nowhook setup --scope user --agents kimi puts them there, for every Kimi Code CLI session on this machine (this repository's included), and the repository keeps the on-demand AGENTS.md block beside it"

var kimi = &Agent{
	Name:    "kimi",
	Title:   "Kimi Code CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Kimi Code CLI reads at session start, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: kimiReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; Kimi Code CLI shows its PreCompact hook's output to no one (2.1.0 drops it)",
	},
	Reinject: "yes, per machine: nowhook setup --scope user --agents kimi merges three [[hooks]] tables (PreCompact, PostCompact, UserPromptSubmit) into your ~/.kimi-code/config.toml, the one file Kimi Code CLI 2.1.0 loads hooks from: the reminder is in the first request after /compact, and after an automatic compaction in the next prompt's (measured); a project install stays on demand",
	// .kimi-code/ holds a project's AGENTS.md, MCP servers and skills for
	// Kimi Code CLI (its hooks live in the user's folder of that name).
	Markers:  []string{".kimi-code"},
	Binaries: []string{"kimi"},
	Reads: Reads{
		Client: "Kimi Code CLI 2.1.0",
		Where:  "each folder from the git root down to the one the session starts in (a session started in a sub-folder reads the root's AGENTS.md too)",
		Files: []Instruction{
			{File: "AGENTS.md", Known: "measured: in the first request (with .kimi-code/AGENTS.md beside it where there is one), from the root and from a sub-folder; CLAUDE.md and GEMINI.md are not read"},
		},
	},
	Doctor: Doctor{Quirks: []Check{kimiHooksCheck}},
	Scope: Scope{User: &UserScope{
		Var: kimiVar, Default: kimiDefault,
		Settings: generate.HookFile{Path: "config.toml", Agent: "Kimi Code CLI", Event: "PreCompact, PostCompact and UserPromptSubmit"},
		Script:   kimiScript,
		Tables:   kimiTables,
		Wrapper:  kimiWrapper,
		Check:    &kimiHooksCheck,
	}},
}

// Kimi Code's user folder, the variable that moves it, and the wrapper's
// path there.
const (
	kimiVar     = "KIMI_CODE_HOME"
	kimiDefault = "~/.kimi-code"
	kimiScript  = "hooks/nowhook-kimi.sh"
)

// kimiUserOurs recognises the user-scope command (the wrapper in the user
// folder, however the command spells the way there).
func kimiUserOurs(command string) bool {
	u := UserScope{Var: kimiVar, Default: kimiDefault, Script: kimiScript}
	return u.Ours(command)
}

// kimiHookOurs recognises nowhook's tables: the user scope's, and the
// ones docs/platforms.md gave to write by hand (KimiHooks), which setup
// upgrades in place.
func kimiHookOurs(command string) bool { return kimiUserOurs(command) || kimiOurs(command) }

// kimiTables are the user scope's tables, each running command (the
// wrapper); timeout is in seconds there (at most 600), the budget plus
// 5 s as everywhere.
func kimiTables(command string, o Options) generate.TOMLTables {
	t := generate.TOMLTables{Agent: "Kimi Code CLI", Array: "hooks", Comment: kimiComment, Ours: kimiHookOurs, Check: kimiLoadable}
	for _, e := range kimiEvents {
		t.Tables = append(t.Tables, generate.Ordered{{Key: "event", Value: e}, {Key: "command", Value: command}, {Key: "timeout", Value: generate.HookTimeout(o.Budget)}})
	}
	return t
}

// kimiComment is the line before nowhook's tables.
const kimiComment = "# nowhook: the Kanbus work in progress back at the first prompt after each compaction"

// kimiWrapper is the user scope's wrapper, which the three tables run: the
// runtime's --kimi, with the budget and the sources setup was given.
func kimiWrapper(o Options) string {
	sources := o.Sources
	if sources == "" {
		sources = templates.DefaultSources
	}
	return strings.NewReplacer("@TIMEOUT@", o.Budget.String(), "@SOURCES@", sources).Replace(kimiWrapperBody)
}

const kimiWrapperBody = `#!/bin/sh
# Kanbus work-in-progress reminder for Kimi Code CLI's PreCompact,
# PostCompact and UserPromptSubmit hooks, for every session on this
# machine, written by nowhook setup --scope user
# (https://github.com/nowhook/nowhook). PreCompact and PostCompact mark a
# compaction of the session; the next prompt's UserPromptSubmit takes the
# mark and prints the reminder, which Kimi Code CLI adds to that prompt's
# request. Every other prompt prints nothing and starts no kbs. It always
# exits 0. Without nowhook on PATH it prints nothing: it runs at every
# prompt, so it has no python3 fallback. The reminder's sources (nowhook
# setup --sources):
# @SOURCES@
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed.

# run COMMAND... runs the runtime as a child and exits 0 whatever becomes
# of it. Go gets one processor (GOMAXPROCS=1: it starts faster so), and
# kbs the agent's own setting.
run() {
	NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
	export NOWHOOK_GOMAXPROCS GOMAXPROCS
	"$@"
	exit 0
}
if command -v nowhook-reminder >/dev/null 2>&1; then
	run nowhook-reminder --timeout @TIMEOUT@ --sources @SOURCES@ --kimi
fi
if command -v nowhook >/dev/null 2>&1; then
	run nowhook reminder --timeout @TIMEOUT@ --sources @SOURCES@ --kimi
fi
exit 0
`

// kimiLoadable refuses a config.toml whose hooks section Kimi Code CLI
// ignores whole (one table of someone else's it rejects): nowhook's tables
// there would never run.
func kimiLoadable(doc map[string]any) *generate.FileError {
	tables, ok := kimiHookTables(doc)
	if !ok {
		return &generate.FileError{Problem: "hooks is not a list of [[hooks]] tables", Consequence: "Kimi Code CLI ignores the whole hooks section, so nowhook's tables there would never run; nothing was written", Fix: "correct hooks, then run nowhook setup --scope user --agents kimi again"}
	}
	for i, t := range tables {
		h, ok := t.(map[string]any)
		why := "is not a table"
		if ok {
			if cmd, _ := h["command"].(string); kimiHookOurs(cmd) {
				continue
			}
			why = kimiBadHook(h)
		}
		if why != "" {
			return &generate.FileError{Problem: fmt.Sprintf("[[hooks]] #%d %s", i+1, why),
				Consequence: "Kimi Code CLI then ignores the whole hooks section, every hook in it, so nowhook's tables there would never run; nothing was written",
				Fix:         "correct that table, then run nowhook setup --scope user --agents kimi again"}
		}
	}
	return nil
}

// kimiHookTables are the [[hooks]] tables of a decoded config.toml; false
// when hooks is something else.
func kimiHookTables(doc map[string]any) ([]any, bool) {
	switch h := doc["hooks"].(type) {
	case nil:
		return nil, true
	case []any:
		return h, true
	case []map[string]any:
		var tables []any
		for _, t := range h {
			tables = append(tables, t)
		}
		return tables, true
	}
	return nil, false
}

// kimiEvents are the events of the two-step re-inject, each with its own
// [[hooks]] table running KimiCommand (docs/platforms.md#kimi-code-cli).
var kimiEvents = []string{"PreCompact", "PostCompact", "UserPromptSubmit"}

// KimiCommand is the command of the re-inject hooks: the lean hook binary,
// else nowhook, else nothing (exit 0), with the budget for kbs.
func KimiCommand(budget time.Duration) string {
	return "command -v nowhook-reminder >/dev/null 2>&1 && exec nowhook-reminder --timeout " + budget.String() + " --kimi; " +
		"command -v nowhook >/dev/null 2>&1 && exec nowhook reminder --timeout " + budget.String() + " --kimi; exit 0"
}

// KimiHooks are the [[hooks]] tables of the two-step re-inject, for the
// end of Kimi Code's config.toml; timeout is in seconds there (at most
// 600), the budget plus 5 s as everywhere.
func KimiHooks(budget time.Duration) string {
	var b strings.Builder
	b.WriteString("# nowhook: the Kanbus work in progress back at the first prompt after each compaction\n")
	for _, e := range kimiEvents {
		fmt.Fprintf(&b, "[[hooks]]\nevent = %q\ncommand = %q\ntimeout = %d\n", e, KimiCommand(budget), generate.HookTimeout(budget))
	}
	return b.String()
}

// kimiHookEvents are the events Kimi Code CLI 2.1.0 accepts in a
// [[hooks]] table (its HOOK_EVENT_TYPES); one table with another event, an
// unknown key or a value of the wrong type makes it ignore the whole hooks
// section, every hook in it (measured: "Ignored invalid config section
// 'hooks'").
var kimiHookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionResult",
	"UserPromptSubmit", "UserPromptQueued", "TurnStarted", "Stop", "StopFailure", "Interrupt", "SessionStart", "SessionEnd",
	"SessionHeartbeat", "SubagentStart", "SubagentStop", "TaskStarted", "PreCompact", "PostCompact", "Notification"}

// kimiConfig is where Kimi Code CLI reads its hooks from.
func kimiConfig(v View) string {
	if d := v.Getenv("KIMI_CODE_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(v.Home(), ".kimi-code", "config.toml")
}

// kimiOurs recognises the command of nowhook's re-inject hooks, in any
// spelling that runs the reminder with --kimi.
func kimiOurs(command string) bool {
	return strings.Contains(command, "--kimi") && (strings.Contains(command, "nowhook reminder") || strings.Contains(command, "nowhook-reminder"))
}

// kimiHooksCheck is doctor's kimi.hooks row (and doctor --scope user's
// row for Kimi Code CLI): whether the user's config.toml holds the
// re-inject tables, whole and loadable, and the wrapper the user scope's
// tables run.
var kimiHooksCheck = Check{Name: "hooks", Run: func(v View) []diag.Finding {
	file := kimiConfig(v)
	show := v.Show(file)
	fix := "nowhook setup --scope user --agents kimi"
	b, err := diag.ReadBounded(file)
	switch {
	case os.IsNotExist(err):
		return []diag.Finding{{Severity: diag.Info, Path: show,
			Message: show + " does not exist, so Kimi Code CLI runs no hook of nowhook's and the work comes back only on demand (AGENTS.md); it re-injects with three [[hooks]] tables there, which the user scope's setup writes",
			Fix:     fix}}
	case err != nil:
		return []diag.Finding{{Severity: diag.Warn, Path: show,
			Message: show + " cannot be read (" + err.Error() + "), so whether Kimi Code CLI runs nowhook's re-inject hooks is unknown"}}
	}
	var doc map[string]any
	if err := toml.Unmarshal(b, &doc); err != nil {
		return []diag.Finding{{Severity: diag.Error, Path: show,
			Message: show + " is not valid TOML (" + oneLineErr(err) + "): Kimi Code CLI ignores the whole file, its models and hooks included",
			Fix:     "correct " + show}}
	}
	tables, ok := kimiHookTables(doc)
	if !ok {
		return []diag.Finding{{Severity: diag.Error, Path: show,
			Message: show + ": hooks is not a list of [[hooks]] tables: Kimi Code CLI ignores the whole hooks section",
			Fix:     "correct " + show}}
	}
	var ours, invalid, narrowed []string
	wrapped := false // a table of the user scope's runs the wrapper
	for i, t := range tables {
		h, ok := t.(map[string]any)
		why := "is not a table"
		if ok {
			why = kimiBadHook(h)
		}
		if why != "" {
			invalid = append(invalid, fmt.Sprintf("[[hooks]] #%d %s", i+1, why))
			continue
		}
		if cmd, _ := h["command"].(string); kimiHookOurs(cmd) {
			if m, _ := h["matcher"].(string); m != "" {
				narrowed = append(narrowed, fmt.Sprintf("nowhook's %s hook (#%d) has matcher %q, so it runs only where that pattern matches", h["event"], i+1, m))
			}
			ours = append(ours, h["event"].(string))
			wrapped = wrapped || kimiUserOurs(cmd)
		}
	}
	if len(invalid) > 0 {
		return []diag.Finding{{Severity: diag.Error, Path: show,
			Message: show + ": " + strings.Join(invalid, "; ") + ": Kimi Code CLI then ignores the whole hooks section, every hook in it, nowhook's included",
			Fix:     "correct those tables in " + show}}
	}
	var missing []string
	for _, e := range kimiEvents {
		if !slices.Contains(ours, e) {
			missing = append(missing, e)
		}
	}
	switch {
	case len(ours) == 0:
		return []diag.Finding{{Severity: diag.Info, Path: show,
			Message: show + " has no re-inject hook of nowhook's, so the work comes back only on demand (AGENTS.md); Kimi Code CLI re-injects with three [[hooks]] tables there, which the user scope's setup writes",
			Fix:     fix}}
	case len(narrowed) > 0:
		return []diag.Finding{{Severity: diag.Warn, Path: show, Message: show + ": " + strings.Join(narrowed, "; "),
			Fix: fix + " (it drops the matcher from nowhook's tables)"}}
	case slices.Contains(missing, "PostCompact") || slices.Contains(missing, "UserPromptSubmit"):
		return []diag.Finding{{Severity: diag.Warn, Path: show,
			Message: show + " lacks nowhook's " + strings.Join(missing, " and ") + " hook, so the reminder never comes: PostCompact marks a compaction applied and UserPromptSubmit delivers it",
			Fix:     fix}}
	}
	if wrapped {
		script := filepath.Join(filepath.Dir(file), filepath.FromSlash(kimiScript))
		if info, err := os.Stat(script); err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			return []diag.Finding{{Severity: diag.Error, Path: v.Show(script),
				Message: v.Show(script) + " is missing or not executable: nowhook's tables in " + show + " run it and exit 0 without it, so Kimi Code CLI gets no reminder",
				Fix:     fix}}
		}
	}
	if len(missing) > 0 {
		return []diag.Finding{{Severity: diag.Info, Path: show,
			Message: show + " has nowhook's PostCompact and UserPromptSubmit hooks but not its PreCompact one; they re-inject without it, whose mark only tells a compaction still under way from none (NOWHOOK_DEBUG)",
			Fix:     fix}}
	}
	return []diag.Finding{{Path: show,
		Message: show + " has nowhook's PreCompact, PostCompact and UserPromptSubmit hooks: the reminder comes in the first request after a /compact, and after an automatic compaction with the next prompt (measured on 2.1.0), in every Kimi Code CLI session on this machine"}}
}}

// kimiBadHook says why Kimi Code CLI 2.1.0 rejects a [[hooks]] table, or
// "" when it takes it: event one of its events, command a non-empty
// string, matcher a string, timeout a whole number of seconds from 1 to
// 600, and no other key.
func kimiBadHook(h map[string]any) string {
	for k := range h {
		if k != "event" && k != "command" && k != "matcher" && k != "timeout" {
			return fmt.Sprintf("has the key %q, which Kimi Code CLI does not know", k)
		}
	}
	e, _ := h["event"].(string)
	if !slices.Contains(kimiHookEvents, e) {
		return fmt.Sprintf("has the event %q, which Kimi Code CLI does not know", fmt.Sprint(h["event"]))
	}
	if c, ok := h["command"].(string); !ok || c == "" {
		return "has no command"
	}
	if m, has := h["matcher"]; has {
		if _, ok := m.(string); !ok {
			return "has a matcher that is not a string"
		}
	}
	if t, has := h["timeout"]; has {
		n, ok := t.(int64)
		if !ok || n < 1 || n > 600 {
			return "has a timeout that is not a whole number of seconds from 1 to 600"
		}
	}
	return ""
}

// oneLineErr is an error's text on one line.
func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
