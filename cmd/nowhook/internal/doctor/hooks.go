package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The checks an agent gets from its hook format (agentpkg.HookFormat) and
// its hook entries: hooks-file, hook, script and inject-event, and from
// the format's flags disabled, twice and precompact-block.

// hookFilesCheck: each hook file the agent reads loads, the way the agent
// parses it (strict JSON for Claude Code and Antigravity), and holds the
// shapes the agent accepts.
var hookFilesCheck = checkFunc{"hooks-file", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		fd := Finding{Path: f.Show}
		switch {
		case f.ReadErr != nil:
			fd.Severity = Error
			fd.Message, fd.Fix = diag.ReadProblem(f.Show, f.ReadErr, a.p.Title)
		case f.Refused != nil:
			fd.Severity = Error
			fd.Message, fd.Fix = diag.FileErrorText(f.Refused)
		case f.ParseErr != nil:
			fd.Severity = Error
			fd.Message, fd.Fix = diag.FileErrorText(f.ParseErr)
		case f.Dropped != nil:
			fd.Severity = Error
			fd.Message, fd.Fix = diag.FileErrorText(f.Dropped)
		default:
			how := "parses as JSON"
			if a.p.Hooks.Strict {
				how = "parses as strict JSON"
			}
			fd.Message = fmt.Sprintf("%s %s (%s)", f.Show, how, diag.Plural(len(f.Handlers), "hook handler"))
		}
		out = append(out, fd)
		// An agent that validates whole files (Codex) drops the file for
		// one entry of the wrong shape; Claude Code drops only the entry.
		sev, consequence := Warn, a.p.Title+" ignores it"
		if a.dropsWholeFile() {
			sev, consequence = Error, a.p.Title+" drops this whole file, so none of its hooks run"
		}
		for _, s := range f.Shape {
			if refusedAt(f, s) {
				continue // said above, in setup's words
			}
			out = append(out, Finding{Path: f.Show, Severity: sev,
				Message: fmt.Sprintf("%s:%d: %s %s; %s", f.Show, s.Line, s.At, s.What, consequence),
				Fix:     "correct " + s.At + " in " + f.Show + " by hand (see the " + a.p.Title + " hooks documentation)"})
		}
	}
	return out
}}

// refusal is the error setup gives when it would edit f to hold one of
// the agent's hook entries: generate's MergeHook itself, on the file's
// bytes, with the file's name, so that doctor calls an error every file
// setup refuses, in setup's words. Nil when setup would edit it (or the
// agent has no hook entry of ours).
func refusal(a *agent, f *diag.HookFile) *generate.FileError {
	for _, s := range a.specs {
		schema := s.schema
		schema.Path = f.Show
		// The budget shapes only our entry, never a refusal.
		_, err := schema.MergeHook(f.Raw, s.hook(agentpkg.DefaultBudget))
		var fe *generate.FileError
		if errors.As(err, &fe) {
			return fe
		}
	}
	return nil
}

// refusedAt reports whether a shape problem is the value setup refuses
// the file for (already reported, in setup's words).
func refusedAt(f *diag.HookFile, s diag.ShapeProblem) bool {
	return f.Refused != nil && f.Refused.Line == s.Line && strings.HasPrefix(f.Refused.Problem, s.At+" ")
}

// brokenFile returns the agent's repository hook file rel when the agent
// cannot load it or setup refuses to edit it (the hooks-file row says
// which, with its fix), else nil.
func (a *agent) brokenFile(rel string) *diag.HookFile {
	for _, f := range a.files {
		if !f.User && f.Show == rel && (f.ReadErr != nil || f.ParseErr != nil || f.Refused != nil || f.Dropped != nil) {
			return f
		}
	}
	return nil
}

// refusedFile returns the first of the agent's repository hook files that
// setup would have to edit for one of the agent's entries (its own or the
// checkpoint's) and refuses to, or that cannot be read; nil for none.
func (a *agent) refusedFile() *diag.HookFile {
	for _, f := range a.files {
		if f.User || (f.Refused == nil && f.ReadErr == nil) {
			continue
		}
		for _, s := range append(append([]*ourSpec(nil), a.specs...), a.checkpoint...) {
			if s.rel == f.Show {
				return f
			}
		}
	}
	return nil
}

// dropsWholeFile reports whether the agent validates whole hook files.
func (a *agent) dropsWholeFile() bool {
	for _, s := range a.specs {
		if s.schema.Check != nil {
			return true
		}
	}
	return false
}

// agentCheck applies the agent's own validation of a whole file (Codex
// drops a hooks.json with an unknown top-level key, for example).
func agentCheck(a *agent, f *diag.HookFile) *generate.FileError {
	if f.Doc == nil {
		return nil
	}
	for _, s := range a.specs {
		if s.schema.Check == nil {
			continue
		}
		if ferr := s.schema.Check(f.Doc); ferr != nil {
			c := *ferr
			c.Path = f.Show
			c.Fix = strings.ReplaceAll(c.Fix, s.rel, f.Show)
			return &c
		}
	}
	return nil
}

// ourHookCheck: our hook entry is present and shaped the way the agent
// needs it to run the reminder after compaction.
var ourHookCheck = checkFunc{"hook", func(d *doctor, a *agent) []Finding {
	var out []Finding
	budget := d.budget()
	for _, s := range a.specs {
		if len(s.ours) == 0 {
			// A file the agent cannot load is the hooks-file row's, with
			// the fix that works (setup refuses to edit it until then).
			if a.mode == s.mode && a.mode != "" && a.brokenFile(s.rel) == nil {
				out = append(out, Finding{Severity: Error, Path: s.rel,
					Message: fmt.Sprintf("%s is installed, but no %s hook in %s runs it, so %s never runs it", s.script, s.schema.Event, s.rel, a.p.Title),
					Fix:     d.setupFix(a.p.Name + "=" + string(s.mode))})
			}
			continue
		}
		want := s.hook(budget)
		for _, h := range s.ours {
			out = append(out, d.hookShape(a, s, h, want, budget)...)
		}
	}
	return out
}}

// hookShape checks one of our handlers as the agent reads it.
func (d *doctor) hookShape(a *agent, s *ourSpec, h diag.Handler, want generate.Hook, budget time.Duration) []Finding {
	sh := &shape{h: h, title: a.p.Title, fix: d.setupFix(a.p.Name + "=" + string(s.mode)), millis: a.p.Hooks.TimeoutMillis}
	if h.File.User {
		sh.fix = "correct the entry in " + h.File.Show + " by hand, or delete it and run " + sh.fix
	}
	grouped := a.p.Hooks.Layout == agentpkg.LayoutGrouped
	if h.File.Dropped != nil || (a.dropsWholeFile() && len(h.File.Shape) > 0) {
		sh.fix = "correct " + h.File.Show + " (see " + a.p.Name + ".hooks-file)"
		if h.File.Dropped != nil {
			_, sh.fix = diag.FileErrorText(h.File.Dropped)
		}
		sh.wrong(Error, "%s drops this whole file (see %s.hooks-file), so this hook never runs", a.p.Title, a.p.Name)
		return sh.bad
	}
	if grouped && !h.Wrapped {
		sh.wrong(Error, `is a handler placed directly in %s, without the group wrapper {"matcher": ..., "hooks": [...]}; %s rejects it, so the reminder never runs`, s.schema.Event, a.p.Title)
		return sh.bad
	}
	if grouped {
		sh.matcher()
	}
	sh.handler(grouped)
	sh.timeout(grouped, budget)
	sh.async()
	if wantCmd := entryCommand(want); wantCmd != "" && h.Command != wantCmd && len(sh.bad) == 0 {
		sh.wrong(Warn, "runs %s with the older command %q; setup replaces it in place with %q", s.script, h.Command, wantCmd)
	}
	if len(sh.bad) > 0 {
		return sh.bad
	}
	what := s.schema.Event + " hook"
	if len(sh.how) > 0 {
		what += ", " + strings.Join(sh.how, ", ")
	}
	return []Finding{{Path: h.File.Show,
		Message: fmt.Sprintf("%s: %s, runs %s", h.Where(), what, s.script)}}
}

// shape is what hookShape finds of one handler: a row for each thing
// wrong with it, and how it reads where nothing is.
type shape struct {
	h     diag.Handler
	title string // the agent
	fix   string
	// millis: the agent counts "timeout" in milliseconds, not seconds.
	millis bool
	bad    []Finding
	how    []string
}

func (sh *shape) wrong(sev Severity, format string, args ...any) {
	sh.bad = append(sh.bad, Finding{Severity: sev, Path: sh.h.File.Show,
		Message: sh.h.Where() + ": " + fmt.Sprintf(format, args...), Fix: sh.fix})
}

// matcher: the group's matcher selects compact.
func (sh *shape) matcher() {
	h := sh.h
	if h.BadMatch {
		sh.wrong(Error, "the group's matcher is not a string; %s rejects the group", sh.title)
		return
	}
	m := matchMatcher(h.Matcher, "compact")
	const quiet = "; the wrapper prints only after compaction)"
	switch {
	case !m.matches:
		sh.wrong(Error, "%s, so %s never runs this hook after compaction", m.why, sh.title)
	case h.Matcher == nil:
		sh.how = append(sh.how, "no matcher (every source"+quiet)
	case m.all:
		sh.how = append(sh.how, fmt.Sprintf("matcher %q (every source%s", *h.Matcher, quiet))
	case len(m.others) > 0:
		sh.how = append(sh.how, fmt.Sprintf("matcher %q (also %s%s", *h.Matcher, strings.Join(m.others, ", "), quiet))
	default:
		sh.how = append(sh.how, fmt.Sprintf("matcher %q", *h.Matcher))
	}
}

// handler: "type" is "command" and "command" a string.
func (sh *shape) handler(grouped bool) {
	obj := sh.h.Obj
	switch t := obj["type"].(type) {
	case nil:
		if grouped {
			sh.wrong(Error, `has no "type"; %s needs "type": "command"`, sh.title)
		}
	case string:
		if t != "command" {
			sh.wrong(Error, `has "type": %q; %s runs only "command" handlers here`, t, sh.title)
		}
	default:
		sh.wrong(Error, `"type" is not a string; %s rejects the handler`, sh.title)
	}
	if _, ok := obj["command"].(string); !ok {
		sh.wrong(Error, `"command" is not a string; %s needs one command string`, sh.title)
	}
}

// async: the handler is not async, which adds nothing to the context.
func (sh *shape) async() {
	if async, ok := sh.h.Obj["async"]; ok {
		switch async {
		case true:
			sh.wrong(Error, `has "async": true; %s adds nothing from an async hook to the context`, sh.title)
		case false:
		default:
			sh.wrong(Error, `"async" is %s, not true or false; %s rejects the handler`, jsonText(async), sh.title)
		}
	}
}

// timeout: a positive number of seconds (of milliseconds, where the
// agent counts those), no less than the wrapper's budget.
func (sh *shape) timeout(grouped bool, budget time.Duration) {
	unit, units, short, note := time.Second, "seconds", "s", ""
	if sh.millis {
		unit, units, short, note = time.Millisecond, "milliseconds", " ms", " ms"
	}
	raw, ok := sh.h.Obj["timeout"]
	if !ok {
		if grouped && !sh.millis {
			sh.wrong(Info, "has no timeout, so %s would wait up to 600 s; the wrapper stops on its own after %s", sh.title, budget)
		}
		return
	}
	n, isNum := raw.(json.Number)
	if !isNum {
		sh.wrong(Error, `"timeout" is %s, not a number of %s; %s rejects the handler`, jsonText(raw), units, sh.title)
		return
	}
	v, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || v <= 0 {
		sh.wrong(Error, `"timeout": %s is not a positive number of %s; %s rejects the handler`, n, units, sh.title)
		return
	}
	if time.Duration(v*float64(unit)) < budget {
		sh.wrong(Warn, `"timeout": %s%s cancels the hook before the %s the wrapper gives kbs; a slow kbs means no reminder`, n, note, budget)
	}
	sh.how = append(sh.how, "timeout "+n.String()+short)
}

// entryCommand is the command of the entry setup writes.
func entryCommand(h generate.Hook) string {
	for _, m := range h.Entry {
		switch m.Key {
		case "command":
			s, _ := m.Value.(string)
			return s
		case "hooks":
			if hs, ok := m.Value.([]generate.Ordered); ok && len(hs) > 0 {
				return entryCommand(generate.Hook{Entry: hs[0]})
			}
		}
	}
	return ""
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// scriptCheck: the script our entry runs exists, is executable, and is
// nowhook's current template, unchanged.
var scriptCheck = checkFunc{"script", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, s := range a.specs {
		path := filepath.Join(d.root, s.script)
		if len(s.ours) == 0 && !exists(path) {
			continue
		}
		out = append(out, d.scriptFinding(a, s, path))
	}
	return out
}}

func (d *doctor) scriptFinding(a *agent, s *ourSpec, path string) Finding {
	setup := func(extra ...string) string { return d.setupFix(a.p.Name+"="+string(s.mode), extra...) }
	f, _, missing := d.ownedScript(s.script, path, a.p.Title+" gets no reminder", setup)
	switch {
	case missing:
		f.Message = fmt.Sprintf("%s is missing: %s", s.script, d.withoutScript(a, s.script))
		f.Fix = setup()
	case f.Severity == OK:
		if b, ok := diag.ScriptBudget(path); ok {
			f.Message += fmt.Sprintf(", gives kbs %s", b)
		}
	}
	return f
}

// ownedScript checks a script nowhook owns whole, at rel (path on disk):
// a regular file, executable, nowhook's current template, unchanged. lost
// says what the agent misses when the script cannot run ("Claude Code
// gets no reminder"); setup is the setup command that writes it, with
// extra flags. A missing script is an Error finding without a message,
// for the caller to say what that means (missing). It returns the
// script's bytes when it could read them.
func (d *doctor) ownedScript(rel, path, lost string, setup func(extra ...string) string) (f Finding, b []byte, missing bool) {
	f = Finding{Path: rel, Severity: Error}
	info, err := os.Stat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		return f, nil, true
	case err != nil:
		f.Message = fmt.Sprintf("%s cannot be read: %v", rel, err)
		return f, nil, false
	case !info.Mode().IsRegular():
		f.Message = fmt.Sprintf("%s is not a regular file: the hook cannot run it", rel)
		f.Fix = "move " + rel + " away, then run " + setup()
		return f, nil, false
	case info.Mode()&0o111 == 0:
		f.Message = fmt.Sprintf("%s is not executable (mode %04o): the hook cannot run it (an older command fails with Permission denied, exit 126; a current one passes it by, silent), so %s", rel, info.Mode().Perm(), lost)
		f.Fix = "chmod +x " + diag.ShellQuote(d.showFix(path))
		return f, nil, false
	}
	b, err = diag.ReadBounded(path)
	if err != nil {
		f.Message = fmt.Sprintf("%s cannot be read: %v", rel, err)
		return f, nil, false
	}
	state, version := generate.InspectScript(b)
	f.Severity = Warn
	switch {
	case state == generate.ScriptOurs && version == templateVersion:
		f.Severity = OK
		f.Message = fmt.Sprintf("%s is executable, nowhook's current template (v%d), unchanged", rel, version)
	case state == generate.ScriptOurs && version < templateVersion:
		f.Message = fmt.Sprintf("%s is template v%d, older than this nowhook's v%d", rel, version, templateVersion)
		f.Fix = setup()
	case state == generate.ScriptOurs:
		f.Message = fmt.Sprintf("%s is template v%d, newer than this nowhook's v%d", rel, version, templateVersion)
		f.Fix = "upgrade nowhook (./install.sh in a current nowhook checkout)"
	case state == generate.ScriptModified:
		f.Message = fmt.Sprintf("%s was changed by hand since nowhook wrote it (template v%d): doctor cannot vouch for it, and setup leaves it alone", rel, version)
		f.Fix = setup("--force")
	case state == generate.ScriptKanbus:
		f.Message = fmt.Sprintf("%s is Kanbus's hand-copied example wrapper (bash and python3, no limit on kbs without coreutils timeout); setup upgrades it", rel)
		f.Fix = setup()
	case state == generate.ScriptKanbusLike:
		f.Message = fmt.Sprintf("%s is a hand-made Kanbus compaction wrapper, not a copy nowhook knows, so it is yours and setup leaves it alone (the live runs of nowhook doctor --live show what it does when kbs fails or hangs)", rel)
		f.Fix = setup("--force")
	default:
		f.Message = fmt.Sprintf("%s has no nowhook signature line, so it is yours: doctor cannot tell whether it is current", rel)
		f.Fix = setup("--force")
	}
	return f, b, false
}

// showFix returns a path for a fix command: relative inside the root
// when doctor runs there, else absolute.
func (d *doctor) showFix(abs string) string {
	if d.dirFlag == "" {
		return d.show(abs)
	}
	return abs
}

// wrongEventCheck: no hook runs `kbs now` from an event that cannot put
// the reminder back after compaction (the platform's WrongEvents). Our
// own entries are no such attempt: the table declares each at its event,
// with the script its command runs, by which doctor knows it (Claude
// Code's PreCompact summary hint gives the summariser the ids, by design;
// Gemini CLI's BeforeModel hook prints only after a compression).
var wrongEventCheck = checkFunc{"inject-event", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		for _, h := range f.Handlers {
			reason, wrong := a.p.Hooks.WrongEvents[h.Event]
			if !wrong || a.ourSpec(h) != nil || !d.handlerRunsReminder(a, h) {
				continue
			}
			fix := "delete the " + h.Event + " entry at " + h.Where()
			hook, opt := reinjectHook(a.p)
			switch {
			case a.p.Refused[agentpkg.Reinject] != "":
				fix += "; " + d.setupFix(a.p.Name) + " teaches `kbs now` in " + joinFiles(onDemandFiles(a.p)) + " instead"
			case opt && (a.p.Default != agentpkg.Reinject || hook.File.Event != "SessionStart"):
				fix += "; " + d.setupFix(a.p.ArgFor(agentpkg.Reinject)) + " installs nowhook's " + hook.File.Event + " hook, which prints only after a compression"
			default:
				fix += "; " + d.setupFix(a.p.Name) + " installs the SessionStart compact hook"
			}
			out = append(out, Finding{Severity: Error, Path: f.Show,
				Message: fmt.Sprintf("%s: a %s hook runs kbs now: %s", h.Where(), h.Event, reason), Fix: fix})
		}
	}
	return out
}}

// ourSpec returns the hook entry of ours, re-inject's or the
// checkpoint's, that handler h is, or nil.
func (a *agent) ourSpec(h diag.Handler) *ourSpec {
	for _, s := range a.specs {
		for _, o := range s.ours {
			if o.File == h.File && o.At == h.At {
				return s
			}
		}
	}
	for _, s := range a.noteSpecs() {
		for _, o := range s.ours {
			if o.File == h.File && o.At == h.At {
				return s
			}
		}
	}
	return a.checkpointSpec(h)
}

// reinjectHook is the hook entry of the agent's re-inject mode, if it has
// one.
func reinjectHook(p *agentpkg.Agent) (*agentpkg.HookEntry, bool) {
	for _, mh := range p.HookEntries() {
		if mh.Mode == agentpkg.Reinject {
			return mh.Hook, true
		}
	}
	return nil, false
}

// reminderScriptRE finds a script that runs the reminder: `... now --json`
// or `nowhook reminder` on a line that is not a comment.
var reminderScriptRE = regexp.MustCompile(`(?m)^[^#\n]*(\bnow\s+--json|nowhook(\s+|-)reminder)`)

// handlerRunsReminder reports whether a handler of agent a prints the
// reminder: its command, or a file its command runs.
func (d *doctor) handlerRunsReminder(a *agent, h diag.Handler) bool {
	if runsReminder(h.Command) {
		return true
	}
	for _, p := range d.commandFiles(a, h.Command) {
		if b, err := diag.ReadBounded(p); err == nil && reminderScriptRE.Match(b) {
			return true
		}
	}
	return false
}

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
// startContextCheck: where the agent keeps only the text of the start
// hooks that ran for the compaction (Hooks.OneStartContext), a team's own
// start hook whose matcher does not select compact loses its text to our
// reminder after each compaction: a warning per such handler, beside our
// installed hook.
var startContextCheck = checkFunc{"start-context", func(d *doctor, a *agent) []Finding {
	entry := a.p.HookEntries()[0].Hook
	ours := false
	for _, f := range a.files {
		for _, h := range f.Handlers {
			ours = ours || (h.Event == entry.File.Event && h.Wrapped && matchMatcher(h.Matcher, "compact").matches && d.handlerRunsReminder(a, h))
		}
	}
	if !ours {
		return nil
	}
	var out []Finding
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event != entry.File.Event || !h.Wrapped || h.Command == "" || d.handlerRunsReminder(a, h) {
				continue
			}
			m := matchMatcher(h.Matcher, "compact")
			if m.matches || h.BadMatch || h.Matcher == nil {
				continue
			}
			out = append(out, Finding{Severity: Warn, Path: f.Show,
				Message: fmt.Sprintf("%s: your %s hook (matcher %q) adds its text at start-up; after a compaction %s keeps only the text of the hooks that ran for it, so nowhook's reminder takes its place (measured on %s)", h.Where(), h.Event, *h.Matcher, a.p.Title, a.p.Reads.Client),
				Fix:     fmt.Sprintf("add compact to that matcher (%q), so that it runs after a compaction too", *h.Matcher+"|compact")})
		}
	}
	return out
}}

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
