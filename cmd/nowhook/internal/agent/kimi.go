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
// project install writes nothing outside the repository, so setup cannot
// install them: the user adds KimiHooks to that file, and doctor's
// kimi.hooks row checks it.

const kimiReason = "Kimi Code CLI loads hooks only from your own ${KIMI_CODE_HOME:-~/.kimi-code}/config.toml, never from the repository, and a project install writes nothing outside the repository; the re-inject hooks nowhook's runtime has for it (reminder --kimi: measured on 2.1.0) go into that file by hand (docs/platforms.md#kimi-code-cli-re-inject-in-two-steps), and doctor's kimi.hooks row checks them"

var kimi = &Agent{
	Name:    "kimi",
	Title:   "Kimi Code CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md, which Kimi Code CLI reads at session start, teaches the agent to run kbs now",
			Artifacts: onDemandOnly()},
	},
	Refused: map[Mode]string{
		Reinject: "setup cannot install Kimi Code CLI's re-inject: " + kimiReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; Kimi Code CLI shows its PreCompact hook's output to no one (2.1.0 drops it)",
	},
	Reinject: "not by setup: Kimi Code CLI 2.1.0 re-injects with three [[hooks]] tables (PreCompact, PostCompact, UserPromptSubmit, each running nowhook reminder --kimi) in your ~/.kimi-code/config.toml, the one file it loads hooks from: the reminder is in the first request after /compact, and after an automatic compaction in the next prompt's (measured); setup does not write that file",
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

// kimiHooksCheck is doctor's kimi.hooks row: whether the user's
// config.toml holds the re-inject hooks, whole and loadable.
var kimiHooksCheck = Check{Name: "hooks", Run: func(v View) []diag.Finding {
	file := kimiConfig(v)
	show := v.Show(file)
	fix := "append the [[hooks]] tables of docs/platforms.md#kimi-code-cli-re-inject-in-two-steps to " + show
	b, err := diag.ReadBounded(file)
	switch {
	case os.IsNotExist(err):
		return []diag.Finding{{Severity: diag.Info, Path: show,
			Message: show + " does not exist, so Kimi Code CLI runs no hook of nowhook's and the work comes back only on demand (AGENTS.md); it re-injects with three [[hooks]] tables there, which setup does not write",
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
	var tables []any
	switch h := doc["hooks"].(type) {
	case nil:
	case []any:
		tables = h
	case []map[string]any:
		for _, t := range h {
			tables = append(tables, t)
		}
	default:
		return []diag.Finding{{Severity: diag.Error, Path: show,
			Message: show + ": hooks is not a list of [[hooks]] tables: Kimi Code CLI ignores the whole hooks section",
			Fix:     "correct " + show}}
	}
	var ours, invalid, narrowed []string
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
		if cmd, _ := h["command"].(string); kimiOurs(cmd) {
			if m, _ := h["matcher"].(string); m != "" {
				narrowed = append(narrowed, fmt.Sprintf("nowhook's %s hook (#%d) has matcher %q, so it runs only where that pattern matches", h["event"], i+1, m))
			}
			ours = append(ours, h["event"].(string))
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
			Message: show + " has no re-inject hook of nowhook's, so the work comes back only on demand (AGENTS.md); Kimi Code CLI re-injects with three [[hooks]] tables there, which setup does not write",
			Fix:     fix}}
	case len(narrowed) > 0:
		return []diag.Finding{{Severity: diag.Warn, Path: show, Message: show + ": " + strings.Join(narrowed, "; "),
			Fix: "drop the matcher from nowhook's tables in " + show}}
	case slices.Contains(missing, "PostCompact") || slices.Contains(missing, "UserPromptSubmit"):
		return []diag.Finding{{Severity: diag.Warn, Path: show,
			Message: show + " lacks nowhook's " + strings.Join(missing, " and ") + " hook, so the reminder never comes: PostCompact marks a compaction applied and UserPromptSubmit delivers it",
			Fix:     fix}}
	case len(missing) > 0:
		return []diag.Finding{{Severity: diag.Info, Path: show,
			Message: show + " has nowhook's PostCompact and UserPromptSubmit hooks but not its PreCompact one; they re-inject without it, whose mark only tells a compaction still under way from none (NOWHOOK_DEBUG)",
			Fix:     fix}}
	}
	return []diag.Finding{{Path: show,
		Message: show + " has nowhook's PreCompact, PostCompact and UserPromptSubmit hooks: the reminder comes in the first request after a /compact, and after an automatic compaction with the next prompt (measured on 2.1.0)"}}
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
