// Package templates holds every file nowhook writes, embedded in the binary.
//
// Version is the template version: every change to any template bumps it
// and adds an upgrade fixture under testdata/script (README, "How setup edits
// your files").
package templates

import (
	_ "embed"
	"strconv"
	"strings"
	"time"
)

// Version is the current template version. v2: the kbs-now block says
// how to checkpoint by hand; the checkpoint and summary-hint scripts. v3:
// no CLAUDE.md is created (v1 and v2 created one holding nothing but the
// Compact Instructions, which hid AGENTS.md from Claude Code; v3 deletes
// it), the Compact Instructions go into
// .claude/rules/kanbus-compact-instructions.md where the repository has no
// CLAUDE.md of its own, and the kbs-now block goes into a file each agent
// reads. v4: every hook command runs its script only where the script is
// executable, and otherwise exits 0 and prints nothing ([ ! -x S ] ||
// exec S), where v3's Claude Code, Qwen Code, Factory Droid, Gemini CLI and
// Cursor commands failed with "not found" (exit 127) in a clone without
// the hooks folder; Codex's and the user scope's already did so. v5: the
// reminder quotes the board's text as data (a line before, a line after);
// the wrapper passes its own path (--script "$0"), so that a NOWHOOK_DEFER
// exported in the agent's environment never silences the project's own
// hook, and its python3 fallback applies the defer rule, runs kbs under a
// shell that a kbs killing its parent kills instead of the hook, reaps what
// kbs moves out of its process group (Linux) and keeps the Go runtime's
// deadline under a coreutils timeout two seconds later; Gemini CLI's
// command reads "${GEMINI_PROJECT_DIR}" from its environment, which Gemini
// CLI does not rewrite (v4's $GEMINI_PROJECT_DIR, rewritten into a
// shell-quoted path, named no folder where the path holds a ' and a !).
// v6: the reminder's sources (setup --sources): the wrapper and Gemini
// CLI's turn script pass them on (--sources LIST), the python3 fallback
// prints nothing where kanbus is not among them, OpenCode's plugin hands
// the session's user messages to the wrapper (the rules source), and the
// kbs-now block also teaches samemind handoff where samemind is a source;
// Gemini CLI's command sources its turn script ([ ! -r S ] || . S) inside
// the bash -c that runs it, and the script's gate passes every request
// that follows no new compression in bash builtins alone (v5's command
// exec'd the script, which started sh and the runtime on every request).
const Version = 6

// Wrapper is the wrapper script that the agents' hooks run. Line 1 is
// "#!/bin/sh"; the generator inserts the signature line after it.
//
//go:embed wrapper.sh
var Wrapper string

// Nudge is Cursor's preCompact script.
//
//go:embed nudge.sh
var Nudge string

// CompactInstructions is the body of the managed CLAUDE.md block.
//
//go:embed compact-instructions.md
var CompactInstructions string

// OnDemand is the body of the managed AGENTS.md block.
//
//go:embed kbs-now.md
var OnDemand string

// OnDemandSamemind is what the kbs-now block adds where samemind is one
// of the reminder's sources: how to ask for the handoff on demand.
//
//go:embed kbs-now-samemind.md
var OnDemandSamemind string

// OnDemandBody is the kbs-now block's body for the reminder's sources.
func OnDemandBody(sources string) string {
	for _, s := range strings.Split(sources, ",") {
		if s = strings.TrimSpace(s); s == "samemind" || strings.HasPrefix(s, "samemind=") {
			return OnDemand + OnDemandSamemind
		}
	}
	return OnDemand
}

// OpenCodePlugin is OpenCode's plugin (.opencode/plugins/), JavaScript:
// line 1 is a comment, the generator inserts the signature line after it;
// @LIMIT_SECONDS@ is the time it gives the wrapper.
//
//go:embed opencode-plugin.js
var OpenCodePlugin string

// Checkpoint is the checkpoint script that PostToolUse and
// UserPromptSubmit hooks run (setup --checkpoint).
//
//go:embed checkpoint.sh
var Checkpoint string

// QwenCheckpoint is the checkpoint script of Qwen Code's Stop hook
// (setup --checkpoint), sourced by the hook's bash: its gate exits in
// bash builtins where the payload's context use is below the threshold.
// Line 1 is "#!/bin/sh".
//
//go:embed qwen-checkpoint.sh
var QwenCheckpoint string

// RenderQwenCheckpoint returns Qwen Code's checkpoint script with its
// threshold and refire margin (percentages of the context window) and
// budget filled in.
func RenderQwenCheckpoint(at, refire int, budget time.Duration) string {
	return strings.NewReplacer("@AT@", strconv.Itoa(at), "@REFIRE@", strconv.Itoa(refire), "@TIMEOUT@", budget.String()).Replace(QwenCheckpoint)
}

// SummaryHint is the script of Claude Code's PreCompact hook that gives the
// summariser the in-progress issues (setup --checkpoint).
//
//go:embed summary-hint.sh
var SummaryHint string

// GeminiTurn is the script of Gemini CLI's BeforeModel hook
// (gemini=reinject): it runs before every model request and adds the
// reminder to the first one after each compression. Line 1 is
// "#!/bin/sh"; @TIMEOUT@ is the budget.
//
//go:embed gemini-turn.sh
var GeminiTurn string

// RenderGeminiTurn returns the Gemini CLI turn script with its budget
// and the reminder's sources (a comma-separated list; "" for the
// default).
func RenderGeminiTurn(budget time.Duration, sources string) string {
	return strings.NewReplacer("@TIMEOUT@", budget.String(), "@SOURCES@", orDefaultSources(sources)).Replace(GeminiTurn)
}

// DefaultSources is the reminder's sources where setup was given none:
// the Kanbus board alone.
const DefaultSources = "kanbus"

func orDefaultSources(s string) string {
	if s == "" {
		return DefaultSources
	}
	return s
}

// RenderCheckpoint returns the checkpoint script with its threshold (a
// percentage of the context window) and budget filled in.
func RenderCheckpoint(at int, budget time.Duration) string {
	return strings.NewReplacer("@AT@", strconv.Itoa(at), "@TIMEOUT@", budget.String()).Replace(Checkpoint)
}

// SamemindNote is the script of Claude Code's PreCompact hook that appends
// samemind's pre-compact note to its inbox (setup --sources samemind=note).
//
//go:embed samemind-note.sh
var SamemindNote string

// RenderSamemindNote returns the samemind-note script with its budget.
func RenderSamemindNote(budget time.Duration) string {
	return strings.NewReplacer("@TIMEOUT@", budget.String()).Replace(SamemindNote)
}

// RenderSummaryHint returns the summary-hint script with its budget.
func RenderSummaryHint(budget time.Duration) string {
	return strings.NewReplacer("@TIMEOUT@", budget.String()).Replace(SummaryHint)
}

// RenderWrapper returns the wrapper with the hook budget and the
// reminder's sources (a comma-separated list; "" for the default) filled
// in, and
// its backstop: coreutils timeout around the python3 fallback, two
// seconds after the budget (the agents wait five).
func RenderWrapper(budget time.Duration, sources string) string {
	return strings.NewReplacer(
		"@TIMEOUT@", budget.String(),
		"@SOURCES@", orDefaultSources(sources),
		"@TIMEOUT_SECONDS@", strconv.FormatFloat(budget.Seconds(), 'f', -1, 64),
		"@BACKSTOP_SECONDS@", strconv.FormatFloat((budget+wrapperBackstop).Seconds(), 'f', -1, 64),
	).Replace(Wrapper)
}

// wrapperBackstop is how long after the budget the wrapper's coreutils
// timeout stops the python3 fallback, which keeps to the budget itself.
const wrapperBackstop = 2 * time.Second
