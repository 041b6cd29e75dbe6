package doctor

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// The checks only Gemini CLI needs (docs/platforms.md#gemini-cli): hooks
// that carry Claude Code's matchers and units into Gemini CLI (what
// `gemini hooks migrate --from-claude` makes of them), and the context file
// that teaches `kbs now`. The agent table's gemini row names them.

func init() {
	register(geminiMigratedCheck, geminiContextCheck)
	loadsBySetting["gemini"] = func(_ *doctor, a *agent) ([]string, string) { return geminiContextFiles(a) }
}

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
var geminiMigratedCheck = checkFunc{"migrated-hooks", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		if f.ReadErr != nil || f.ParseErr != nil || len(f.Handlers) == 0 {
			continue
		}
		var found []Finding
		deadGroup := map[string]bool{} // one row per group for its matcher
		for _, h := range f.Handlers {
			sev, reminder := Warn, d.handlerRunsReminder(a, h)
			if reminder {
				sev = Error
			}
			groupAt := strings.TrimSuffix(h.At, fmt.Sprintf(".hooks[%d]", h.Index))
			if !geminiEvents[h.Event] {
				msg := fmt.Sprintf("%s: %s has no hook event %q and skips it, so this hook never runs", h.Where(), a.p.Title, h.Event)
				fix := fmt.Sprintf("move the entry at %s under one of %s's events, or delete it", h.Where(), a.p.Title)
				if to, ok := claudeToGemini[h.Event]; ok {
					msg += fmt.Sprintf(" (%q is Claude Code's name; Gemini CLI's nearest is %q)", h.Event, to)
					fix = fmt.Sprintf("rename %q to %q at %s, or delete the entry", h.Event, to, h.Where())
				}
				found = append(found, Finding{Severity: sev, Path: f.Show, Message: msg, Fix: fix})
				continue
			}
			if !h.Wrapped {
				found = append(found, Finding{Severity: sev, Path: f.Show,
					Message: fmt.Sprintf("%s: this handler is not inside a group's \"hooks\" list; %s discards it (\"Discarding invalid hook definition\"), so it never runs", h.Where(), a.p.Title),
					Fix:     fmt.Sprintf("wrap the handler at %s in {\"hooks\": [...]} (with a \"matcher\" if it needs one)", h.Where())})
				continue
			}
			if values, ok := geminiTriggers[h.Event]; ok && h.Matcher != nil && !deadGroup[groupAt] {
				m := strings.TrimSpace(*h.Matcher)
				if m != "" && m != "*" && !containsString(values, m) {
					deadGroup[groupAt] = true
					msg := fmt.Sprintf("%s: the %s group's matcher %q never matches in %s, which compares it exactly with the %s (%s), so this hook never runs",
						h.Where(), h.Event, *h.Matcher, a.p.Title, triggerWord(h.Event), strings.Join(values, ", "))
					fix := fmt.Sprintf("set the matcher at %s to one of %s (or \"*\"), or delete the group", h.Where(), strings.Join(values, ", "))
					if m == "compact" || reminder {
						msg += "; " + geminiMigrate + ", and " + a.p.Title + " has no event after a compression"
					}
					if reminder {
						fix = fmt.Sprintf("delete the %s entry at %s; %s teaches `kbs now` in %s instead", h.Event, h.Where(), d.setupFix(a.p.Name), agentpkg.GeminiContextFile)
					}
					found = append(found, Finding{Severity: sev, Path: f.Show, Message: msg, Fix: fix})
				}
			}
			if n, ok := h.Obj["timeout"].(json.Number); ok {
				ms, err := strconv.ParseFloat(n.String(), 64)
				if err == nil && ms > 0 && ms < geminiMinTimeout {
					found = append(found, Finding{Severity: sev, Path: f.Show,
						Message: fmt.Sprintf("%s: \"timeout\": %s is %s milliseconds: %s counts hook timeouts in milliseconds (Claude Code in seconds) and kills this hook after %s ms; %s",
							h.Where(), n, n, a.p.Title, n, geminiMigrate),
						Fix: fmt.Sprintf("write \"timeout\": %s (%s seconds) at %s, or delete it for the default of 60000 ms", strconv.FormatFloat(ms*1000, 'f', -1, 64), n, h.Where())})
				}
			}
		}
		if len(found) == 0 {
			found = append(found, Finding{Path: f.Show,
				Message: fmt.Sprintf("%s: %s, each in a group under an event %s knows, none with a matcher it never matches or a timeout under %d ms (it counts milliseconds)",
					f.Show, diag.Plural(len(f.Handlers), "hook handler"), a.p.Title, geminiMinTimeout)})
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

// geminiContextCheck: Gemini CLI reads the files context.fileName names
// (the project's settings win over the user's; the default is GEMINI.md),
// and AGENTS.md only when it is one of them: one of those files must hold
// the kbs-now block.
var geminiContextCheck = checkFunc{"context-file", func(d *doctor, a *agent) []Finding {
	names, source := geminiContextFiles(a)
	name := agentpkg.OnDemandBlock.Block.Name
	var fallback *Finding
	for _, file := range names {
		m := readMD(d.root, file)
		if m.ReadErr == nil && m.block(name) == nil {
			continue
		}
		f := d.blockFinding(m, name, "Gemini CLI never learns to run `kbs now`", d.setupFix(a.p.Name))
		if f.Severity == OK {
			f.Message += fmt.Sprintf(", and %s reads %s (%s)", a.p.Title, file, source)
			return []Finding{f}
		}
		if fallback == nil {
			fallback = &f
		}
	}
	if fallback != nil {
		return []Finding{*fallback}
	}
	others := false
	for _, art := range a.p.Owned() {
		if b, ok := art.(*agentpkg.Block); ok && readMD(d.root, b.File).block(name) != nil {
			others = true
		}
	}
	if a.mode == "" && !others {
		return nil // the mode row says that nowhook has not set it up
	}
	which := "which has no"
	if len(names) > 1 {
		which = "none of which has the"
	}
	f := Finding{Severity: Warn, Path: names[0],
		Message: fmt.Sprintf("%s reads %s (%s), %s nowhook kbs-now block, so %s never learns to run `kbs now`",
			a.p.Title, strings.Join(names, ", "), source, which, a.p.Title),
		Fix: d.setupFix(a.p.Name)}
	if !containsString(names, agentpkg.GeminiContextFile) {
		f.Fix = fmt.Sprintf("add %q to context.fileName (%s), then run %s", agentpkg.GeminiContextFile, source, d.setupFix(a.p.Name))
	}
	if !containsString(names, agentpkg.OnDemandBlock.File) && d.agentsMD.block(name) != nil {
		f.Message += fmt.Sprintf(" (%s has it, but %s reads %s only when context.fileName lists it)", agentpkg.OnDemandBlock.File, a.p.Title, agentpkg.OnDemandBlock.File)
	}
	return []Finding{f}
}}

// geminiContextFiles returns the context files Gemini CLI reads and where
// that list comes from.
func geminiContextFiles(a *agent) ([]string, string) {
	for _, user := range []bool{false, true} {
		for _, f := range a.files {
			if f.User != user || f.Doc == nil {
				continue
			}
			ctx, _ := f.Doc["context"].(map[string]any)
			switch v := ctx["fileName"].(type) {
			case string:
				if v != "" {
					return []string{v}, "context.fileName in " + f.Show
				}
			case []any:
				var names []string
				for _, x := range v {
					if s, ok := x.(string); ok && s != "" {
						names = append(names, s)
					}
				}
				if len(names) > 0 {
					return names, "context.fileName in " + f.Show
				}
			}
		}
	}
	return []string{agentpkg.GeminiContextFile}, "its default context file"
}
