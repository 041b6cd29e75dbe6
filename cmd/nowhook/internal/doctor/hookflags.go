package doctor

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The checks an agent gets from the flags of its hook format
// (agentpkg.HookFormat): disabled, twice and precompact-block.

// disabledCheck: the hook format's switch that turns every hook off
// (Claude Code's and Qwen Code's "disableAllHooks").
var disabledCheck = checkFunc{"disabled", func(d *doctor, a *agent) []Finding {
	var out []Finding
	key := a.p.Hooks.DisableKey
	for _, f := range a.files {
		if v, ok := f.Doc[key]; ok && v == true {
			out = append(out, Finding{Severity: Error, Path: f.Show,
				Message: fmt.Sprintf("%s sets %q: true, so %s runs no hooks at all, the compact hook included", f.Show, key, a.p.Title),
				Fix:     fmt.Sprintf("delete %q: true from %s", key, f.Show)})
		}
	}
	return out
}}

// twiceCheck: an agent that runs a byte-identical command from several
// files once (the hook format's OnceByCommand: Claude Code) still runs
// every different spelling of the same reminder once more.
var twiceCheck = checkFunc{"twice", func(d *doctor, a *agent) []Finding {
	entry := a.p.HookEntries()[0].Hook
	byCommand := map[string][]diag.Handler{}
	var commands []string
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event != entry.File.Event || !h.Wrapped || !matchMatcher(h.Matcher, "compact").matches || !d.handlerRunsReminder(a, h) {
				continue
			}
			if u := a.p.Scope.User; u != nil && u.Ours(h.Command) {
				continue // the user-scope hook prints nothing where the project's runs
			}
			if _, seen := byCommand[h.Command]; !seen {
				commands = append(commands, h.Command)
			}
			byCommand[h.Command] = append(byCommand[h.Command], h)
		}
	}
	if len(commands) < 2 {
		return nil
	}
	// Setup fixes it when it can rewrite every other spelling: ours in
	// .claude/settings.json, the current command anywhere else.
	var where []string
	bySetup := true
	ours := generate.RunsScript(entry.Script)
	current := entryCommand(entry.Hook(agentpkg.Options{Budget: d.budget()}))
	for _, c := range commands {
		h := byCommand[c][0]
		where = append(where, fmt.Sprintf("%q at %s", c, h.Where()))
		for _, h := range byCommand[c] {
			inProject := !h.File.User && h.File.Show == entry.File.Path
			if (inProject && !ours(c)) || (!inProject && c != current) {
				bySetup = false
			}
		}
	}
	fix := d.setupFix(a.p.Name)
	if !bySetup {
		fix = "keep one of them and delete the others by hand"
	}
	return []Finding{{Severity: Warn, Path: byCommand[commands[0]][0].File.Show,
		Message: fmt.Sprintf("the reminder runs %d times after each compaction: %d different commands run it (%s); %s runs a byte-identical command once, each other spelling again",
			len(commands), len(commands), strings.Join(where, "; "), a.p.Title),
		Fix: fix}}
}}

// What makes a PreCompact hook block compaction (docs/platforms.md): exit
// status 2, in any language the hook is written in, or a printed
// {"decision": "block"}, in any quoting. Lines that start a comment with
// # are skipped.
var (
	blockExitRE     = regexp.MustCompile(`(?m)^[^#\n]*?\b(exit\s+2\b|exit\s*\(\s*2\s*\)|Exit\(\s*2\s*\)|SystemExit\(\s*2\s*\)|exitCode\s*=\s*2\b)`)
	blockDecisionRE = regexp.MustCompile(`(?m)^[^#\n]*?\bdecision\b[^\n]{0,40}\bblock\b`)
)

// blocker finds the first line of text that can block compaction, and
// says what it does.
func blocker(text []byte) (line int, what string, ok bool) {
	first, what := -1, ""
	for _, c := range []struct {
		re   *regexp.Regexp
		what string
	}{{blockExitRE, "exits 2"}, {blockDecisionRE, `prints a "block" decision`}} {
		if loc := c.re.FindIndex(text); loc != nil && (first < 0 || loc[0] < first) {
			first, what = loc[0], c.what
		}
	}
	if first < 0 {
		return 0, "", false
	}
	return bytes.Count(text[:first], []byte("\n")) + 1, what, true
}

// blockingCheck: a hook of the event that can stop a compaction (the hook
// format's BlockingEvent: Claude Code's PreCompact) that exits 2 or prints
// {"decision": "block"} stops it; at the context limit that can deadlock
// the session (anthropics/claude-code#47618). Doctor reads the command and
// every file it runs, except the script of our own summary hint (a
// checkpoint entry of the table) while it is nowhook's template,
// unchanged: that never blocks.
var blockingCheck = checkFunc{"precompact-block", func(d *doctor, a *agent) []Finding {
	var out []Finding
	event := a.p.Hooks.BlockingEvent
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event != event {
				continue
			}
			ourScript := ""
			if s := a.checkpointSpec(h); s != nil {
				ourScript = d.repoPath(s.script)
			}
			cause, fix := "", ""
			if _, what, ok := blocker([]byte(h.Command)); ok {
				cause = "its command " + what
				fix = "change the " + event + " command at " + h.Where() + ` so that it exits 0 and prints no {"decision": "block"}, or delete the entry`
			} else {
				for _, p := range d.commandFiles(a, h.Command) {
					b, err := diag.ReadBounded(p)
					if err != nil {
						continue
					}
					if state, _ := generate.InspectScript(b); p == ourScript && state == generate.ScriptOurs {
						continue
					}
					if line, what, ok := blocker(b); ok {
						cause = fmt.Sprintf("%s:%d %s", d.show(p), line, what)
						fix = fmt.Sprintf(`edit %s (line %d) so that it exits 0 and prints no {"decision": "block"}, or delete the %s entry at %s`, d.show(p), line, event, h.Where())
						break
					}
				}
			}
			if cause == "" {
				continue
			}
			out = append(out, Finding{Severity: Error, Path: f.Show,
				Message: fmt.Sprintf("%s: this %s hook can block compaction (%s); %s then does not compact, and at the context limit that can deadlock the session", h.Where(), event, cause, a.p.Title),
				Fix:     fix})
		}
	}
	return out
}}
