package doctor

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The checkpoint (`setup --checkpoint`; docs/platforms.md, "Checkpoint and
// summary hint"): hook entries after each tool call and each prompt run a
// signed script that tells the agent, once per climb past a share of the
// context window, to write where it stands into its Kanbus issues; on
// Claude Code a PreCompact entry runs the summary hint, which gives the
// summariser the in-progress ids. The agent table declares them
// (agentpkg.Agent.Checkpoint); the check "checkpoint" reports them and runs
// them live on a synthetic transcript (the row's Doctor.Transcript) with a
// fake kbs. The checks that
// read every hook of an event (inject-event, precompact-block) know our own
// entries from the table too, and Codex's trust covers them.

// checkpointCheck: what of the checkpoint is installed, that its entries
// and scripts are as setup writes them, its threshold, and how the
// installed scripts behave above and below it.
type checkpointCheck struct{}

func (checkpointCheck) Name() string { return "checkpoint" }

// checkpointSpec returns the checkpoint's hook entry that handler h is,
// or nil: h is one of the handlers scan found for it (by its event and
// the script its command runs, as the table declares them).
func (a *agent) checkpointSpec(h diag.Handler) *ourSpec {
	for _, s := range a.checkpoint {
		for _, o := range s.ours {
			if o.File == h.File && o.At == h.At {
				return s
			}
		}
	}
	return nil
}

// checkpointParts lists what of the agent's checkpoint is not installed,
// and reports whether any of it is.
func (d *doctor) checkpointParts(a *agent) (missing []string, installed bool) {
	for _, s := range a.checkpoint {
		if len(s.ours) > 0 {
			installed = true
		} else {
			missing = append(missing, fmt.Sprintf("no %s hook in %s runs %s", s.schema.Event, s.rel, s.script))
		}
	}
	for _, sc := range a.cpScripts {
		if exists(d.repoPath(sc.File)) {
			installed = true
		} else {
			missing = append(missing, sc.File+" is missing")
		}
	}
	return missing, installed
}

func (d *doctor) repoPath(rel string) string {
	return filepath.Join(d.root, filepath.FromSlash(rel))
}

// isCheckpointScript reports whether the table's script is the
// checkpoint's (rather than the summary hint's): what it renders names a
// threshold.
func isCheckpointScript(sc *agentpkg.Script) bool {
	_, ok := agentpkg.CheckpointIn([]byte(sc.Body(agentpkg.Options{Budget: agentpkg.DefaultBudget})))
	return ok
}

// checkpointAt is the threshold the installed checkpoint script fires at.
func (d *doctor) checkpointAt(a *agent) (at int, ok bool) {
	for _, sc := range a.cpScripts {
		if !isCheckpointScript(sc) {
			continue
		}
		if b, err := diag.ReadBounded(d.repoPath(sc.File)); err == nil {
			if at, ok := agentpkg.CheckpointIn(b); ok {
				return at, true
			}
		}
	}
	return agentpkg.DefaultCheckpointAt, false
}

// agentArg is the agent as --agents names it for a fix that must keep
// its mode: the name, with the mode when it is not the default.
func (a *agent) agentArg() string { return a.p.ArgFor(a.mode) }

// checkpointFix is the setup command that installs the checkpoint as it
// is meant to be, at the installed threshold, keeping the agent's mode.
func (d *doctor) checkpointFix(a *agent, extra ...string) string {
	flags := []string{"--checkpoint"}
	if at, ok := d.checkpointAt(a); ok && at != agentpkg.DefaultCheckpointAt {
		flags = append(flags, "--checkpoint-at "+strconv.Itoa(at))
	}
	return d.setupFix(a.agentArg(), append(flags, extra...)...)
}

// cpBudgetRE finds the time the checkpoint and hint scripts give kbs.
var cpBudgetRE = regexp.MustCompile(`(?m)^[^#\n]*nowhook[ -]reminder --(?:checkpoint|hint)\b[^\n]*?--timeout (\S+)`)

func cpBudget(script []byte) (time.Duration, bool) {
	m := cpBudgetRE.FindSubmatch(script)
	if m == nil {
		return 0, false
	}
	t, err := time.ParseDuration(string(m[1]))
	return t, err == nil && t > 0
}

func (checkpointCheck) Run(d *doctor, a *agent) []Finding {
	if len(a.checkpoint)+len(a.cpScripts) == 0 {
		return nil
	}
	missing, installed := d.checkpointParts(a)
	if !installed {
		if a.mode == "" {
			return nil // not set up at all: the mode row says how
		}
		return []Finding{{Severity: Info,
			Message: fmt.Sprintf("the checkpoint is off: nothing tells %s to write where it stands into its Kanbus issues before the context window fills and is compacted", a.p.Title),
			Fix:     d.checkpointFix(a)}}
	}
	var out []Finding
	if len(missing) > 0 {
		path := ""
		if len(a.checkpoint) > 0 {
			path = a.checkpoint[0].rel
		}
		out = append(out, Finding{Severity: Warn, Path: path,
			Message: fmt.Sprintf("the checkpoint is installed only in part: %s; it does not run as setup made it (to take the rest away instead: %s)",
				strings.Join(missing, "; "), d.setupFix(a.agentArg(), "--checkpoint=false")),
			Fix: d.checkpointFix(a)})
	}
	out = append(out, d.checkpointEntries(a, len(missing) == 0)...)
	out = append(out, d.checkpointScripts(a)...)
	return append(out, d.checkpointLive(a)...)
}

// checkpointEntries reports the checkpoint's hook entries: one row that
// says which events run which script (all of them when whole), and a row
// for each entry that is not as setup writes it.
func (d *doctor) checkpointEntries(a *agent, whole bool) []Finding {
	var problems []Finding
	var scripts []string
	events := map[string][]string{}
	path := ""
	for _, s := range a.checkpoint {
		budget, hasBudget := cpBudget(d.readScript(s.script))
		want := s.hook(budget)
		if !hasBudget {
			want = s.hook(agentpkg.DefaultBudget)
		}
		for _, h := range s.ours {
			desc, bad := d.checkpointShape(a, s, h, want, budget, hasBudget)
			if len(bad) > 0 {
				problems = append(problems, bad...)
				continue
			}
			if _, seen := events[s.script]; !seen {
				scripts = append(scripts, s.script)
			}
			events[s.script] = append(events[s.script], desc)
			if path == "" {
				path = h.File.Show
			}
		}
	}
	if len(scripts) == 0 {
		return problems
	}
	var parts []string
	for _, sc := range scripts {
		verb := " runs "
		if len(events[sc]) > 1 {
			verb = " run "
		}
		parts = append(parts, joinFiles(events[sc])+verb+sc)
	}
	lead := "the checkpoint is on: "
	if !whole {
		lead = "of the checkpoint, these entries are in place: "
	}
	on := Finding{Path: path, Message: lead + strings.Join(parts, "; ")}
	return append([]Finding{on}, problems...)
}

// checkpointShape checks one handler of a checkpoint entry as the agent
// reads it, and describes it: `PostToolUse (.claude/settings.json:17,
// matcher "*", timeout 10s)`.
func (d *doctor) checkpointShape(a *agent, s *ourSpec, h diag.Handler, want generate.Hook, budget time.Duration, hasBudget bool) (string, []Finding) {
	fix := d.checkpointFix(a)
	if h.File.User {
		fix = "correct the entry in " + h.File.Show + " by hand, or delete it and run " + fix
	}
	var out []Finding
	bad := func(sev Severity, format string, args ...any) {
		out = append(out, Finding{Severity: sev, Path: h.File.Show, Message: h.Where() + ": " + fmt.Sprintf(format, args...), Fix: fix})
	}
	if h.File.Dropped != nil || (a.dropsWholeFile() && len(h.File.Shape) > 0) {
		bad(Warn, "%s drops this whole file (see %s.hooks-file), so this %s hook never runs", a.p.Title, a.p.Name, s.schema.Event)
		return "", out
	}
	grouped := a.p.Hooks.Layout == agentpkg.LayoutGrouped
	if grouped && !h.Wrapped {
		bad(Warn, `is a handler placed directly in %s, without the group wrapper {"matcher": ..., "hooks": [...]}; %s rejects it`, s.schema.Event, a.p.Title)
		return "", out
	}
	how := []string{fmt.Sprintf("%s:%d", h.File.Show, h.Line)}
	if m := cpMatcher(a, h, want, bad); m != "" {
		how = append(how, m)
	}
	cpHandlerKeys(a, h, bad)
	if t := cpTimeout(a, s, h, budget, hasBudget, bad); t != "" {
		how = append(how, t)
	}
	if async, ok := h.Obj["async"]; ok && async != false {
		bad(Warn, `has "async": %s; %s adds nothing from an async hook to the context`, jsonText(async), a.p.Title)
	}
	if wantCmd := entryCommand(want); wantCmd != "" && h.Command != wantCmd && len(out) == 0 {
		bad(Info, "runs %s with the older command %q; setup replaces it in place with %q", s.script, h.Command, wantCmd)
	}
	return s.schema.Event + " (" + strings.Join(how, ", ") + ")", out
}

// complain adds a row about what is wrong with a handler.
type complain func(sev Severity, format string, args ...any)

// cpMatcher checks the matcher of a checkpoint entry's group against the
// one setup writes, and describes it ("" when there is none to show).
func cpMatcher(a *agent, h diag.Handler, want generate.Hook, bad complain) string {
	wantMatcher, _ := memberValue(want.Entry, "matcher").(string)
	switch {
	case h.BadMatch:
		bad(Warn, "the group's matcher is not a string; %s rejects the group", a.p.Title)
	case wantMatcher != "" && !matchMatcher(h.Matcher, wantMatcher).all:
		bad(Warn, "the group's matcher %q selects only some tools, so the checkpoint runs only after those and a climb through the others goes unnoticed", *h.Matcher)
	case wantMatcher != "" && h.Matcher != nil:
		return fmt.Sprintf("matcher %q", *h.Matcher)
	}
	return ""
}

// cpHandlerKeys checks a checkpoint handler's type and command.
func cpHandlerKeys(a *agent, h diag.Handler, bad complain) {
	if t, ok := h.Obj["type"].(string); !ok || t != "command" {
		bad(Warn, `has "type": %s; %s runs only "command" handlers here`, jsonText(h.Obj["type"]), a.p.Title)
	}
	if _, ok := h.Obj["command"].(string); !ok {
		bad(Warn, `"command" is not a string; %s needs one command string`, a.p.Title)
	}
}

// cpTimeout checks a checkpoint handler's timeout against the budget its
// script gives kbs, and describes it ("" when there is none to show).
func cpTimeout(a *agent, s *ourSpec, h diag.Handler, budget time.Duration, hasBudget bool, bad complain) string {
	raw, ok := h.Obj["timeout"]
	if !ok {
		return ""
	}
	n, isNum := raw.(json.Number)
	secs, err := strconv.ParseFloat(n.String(), 64)
	switch {
	case !isNum:
		bad(Warn, `"timeout" is %s, not a number of seconds; %s rejects the handler`, jsonText(raw), a.p.Title)
	case err != nil || secs <= 0:
		bad(Warn, `"timeout": %s is not a positive number of seconds; %s rejects the handler`, n, a.p.Title)
	case hasBudget && time.Duration(secs*float64(time.Second)) < budget:
		bad(Warn, `"timeout": %s cancels the hook before the %s %s gives kbs`, n, budget, s.script)
	default:
		return "timeout " + n.String() + "s"
	}
	return ""
}

// memberValue is the value of key in an ordered JSON object, or nil.
func memberValue(o generate.Ordered, key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// checkpointScripts reports each installed script of the checkpoint as
// the script check does, with the threshold and the budget it states.
func (d *doctor) checkpointScripts(a *agent) []Finding {
	var out []Finding
	setup := func(extra ...string) string { return d.checkpointFix(a, extra...) }
	for _, sc := range a.cpScripts {
		path := d.repoPath(sc.File)
		if !exists(path) {
			continue // said in the row about what is missing
		}
		f, b, _ := d.ownedScript(sc.File, path, a.p.Title+" gets nothing from it", setup)
		if f.Severity == OK {
			if at, ok := agentpkg.CheckpointIn(b); ok {
				f.Message += fmt.Sprintf(", fires at %d%% of the context window", at)
			}
			if t, ok := cpBudget(b); ok {
				f.Message += fmt.Sprintf(", gives kbs %s", t)
			}
		}
		out = append(out, f)
	}
	return out
}
