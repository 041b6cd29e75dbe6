package generate

import (
	"regexp"
	"strings"
	"time"
)

// HookTimeout is the agent-side timeout of our hook entries, in seconds:
// the budget the hook gives kbs plus 5 s, so the agent never cancels a hook
// that is still inside its own budget.
func HookTimeout(budget time.Duration) int {
	return int((budget+time.Second-1)/time.Second) + 5
}

// CompactGroup is a SessionStart matcher group, matcher compact, with one
// command handler that runs command (which runs script, a path relative to
// the repository root): the shape of Claude Code's and Codex's hook files.
func CompactGroup(command, script string, budget time.Duration) Hook {
	return Hook{
		Entry: Ordered{
			{"matcher", "compact"},
			{"hooks", []Ordered{{
				{"type", "command"},
				{"command", command},
				{"timeout", HookTimeout(budget)},
			}}},
		},
		Ours: RunsScript(script),
	}
}

// RunIfPresent is the command that runs the script at path (spelled as
// the shell reads it, e.g. "$CLAUDE_PROJECT_DIR"/x) where it is
// executable, and otherwise exits 0 and prints nothing: in a clone that
// lacks the script (its hooks folder not committed) the agent would
// otherwise report a failing hook (sh: not found, exit 127) at every
// event. It is POSIX sh, for /bin/sh -c and bash -c alike.
func RunIfPresent(path string) string { return "[ ! -x " + path + " ] || exec " + path }

// RunsScript returns a recogniser for commands that run script (a path
// relative to the repository root), however they spell the way there:
// "$CLAUDE_PROJECT_DIR"/x (or another agent's project variable, braced,
// with a default), ./x, bash x, Kanbus's hand-copied x, $PWD/x,
// $(git rev-parse --show-toplevel)/x, or a variable the command sets
// itself (lower case: Codex's walk-up "$d/x"), and RunIfPresent's guard
// around any of these. A file of that name anywhere else is the user's
// own: ./scripts/x, ~/bin/x, $HOME/x, ~/.claude/hooks/x, another agent's
// folder.
func RunsScript(script string) func(command string) bool {
	return func(command string) bool { return runs(command, script, rootRE) }
}

// RunsScriptIn returns a recogniser for commands that run script in one of
// dirs, each spelled as a command spells it, e.g.
// "${CLAUDE_CONFIG_DIR:-$HOME/.claude}"; the way there may be quoted or
// assigned (s="dir/x").
func RunsScriptIn(dirs []string, script string) func(command string) bool {
	alts := make([]string, len(dirs))
	for i, d := range dirs {
		alts[i] = regexp.QuoteMeta(d) + "/"
	}
	re := regexp.MustCompile(`(^|[\s;&|(=])(` + strings.Join(alts, "|") + `)$`)
	return func(command string) bool { return runs(command, script, re) }
}

// rootRE matches the text before our script's path in a command that
// runs it from the repository root: nothing, ./, the root's variable or
// $(git rev-parse --show-toplevel), after a word's start or an assignment.
var rootRE = regexp.MustCompile(`(^|[\s;&|(=])(\./|\$\{?([A-Z][A-Z0-9_]*_PROJECT_DIR|PWD|[a-z][a-z0-9_]*)(:-[^}\s]*)?\}?/|\$\(git rev-parse --show-toplevel\)/)?$`)

// runs reports whether command, its quotes dropped, names script where it
// ends a word and before matches the text in front of it.
func runs(command, script string, before *regexp.Regexp) bool {
	c := strings.NewReplacer(`"`, "", `'`, "").Replace(command)
	for i := 0; ; {
		j := strings.Index(c[i:], script)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(script)
		if (end == len(c) || strings.ContainsRune(" \t\n;&|)", rune(c[end]))) && before.MatchString(c[:start]) {
			return true
		}
		i = start + 1
	}
}

// Group is a matcher group with one command handler that runs command
// (which runs script) with timeout seconds; an empty matcher is left out
// (events without matchers, such as UserPromptSubmit and PreCompact).
func Group(matcher, command, script string, timeout int) Hook {
	var entry Ordered
	if matcher != "" {
		entry = append(entry, Member{"matcher", matcher})
	}
	entry = append(entry, Member{"hooks", []Ordered{{
		{"type", "command"},
		{"command", command},
		{"timeout", timeout},
	}}})
	return Hook{Entry: entry, Ours: RunsScript(script)}
}
