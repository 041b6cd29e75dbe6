// Package doctor is `nowhook doctor`: it reads a repository's hook
// configuration the way each agent reads it and reports, as one table,
// every way the Kanbus compaction reminder can be silently broken (README,
// "Commands"). It writes nothing itself; what it runs is the installed
// hooks (with the user's kbs, and with a failing and a hanging fake kbs
// kept in a temporary directory that it removes; the checkpoint's with a
// fake kbs that lists two issues, on synthetic transcripts, its latch in
// that directory too), `kbs now --json --list`, and, when codex is on
// PATH, `codex app-server` to list hook trust.
//
// Every check is a small named unit behind one interface (check), run by
// one runner that names its findings, shows $HOME as ~ and keeps the
// worst. Which checks an agent gets is derived from its row of the agent
// table (agentChecks): its hook files, their layout and the flags of its
// hook format, the events that cannot re-inject, the files setup writes
// for each mode, its checkpoint. The checks that concern one agent only
// live in that agent's file of the table (agentpkg.Agent.Doctor.Quirks)
// and see doctor's run through agentpkg.View (view.go); no check here
// knows an agent by its name.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/scripts"
	"github.com/nowhook/nowhook/templates"
)

// Report is one doctor run: its findings in table order, and the worst of
// their severities.
type Report struct {
	Findings []Finding
	Worst    Severity
}

// Failed reports whether a finding is an error: nowhook doctor then
// exits 1.
func (r Report) Failed() bool { return r.Worst >= Error }

// Exit statuses, as the tests read a report.
const (
	exitOK     = 0
	exitFailed = 1
)

// exitStatus is the status nowhook doctor exits with for r.
func (r Report) exitStatus() int {
	if r.Failed() {
		return exitFailed
	}
	return exitOK
}

// Options is what one doctor run looks at.
type Options struct {
	// Root is the repository root (see detect.Root).
	Root string
	// Dir is the --dir value as given, repeated in the fix commands; ""
	// when doctor runs in the repository itself.
	Dir string
	// From is the working directory doctor was started in. When it lies
	// inside Root it stands for an agent session's directory: the Kanbus
	// project is looked for from there up to the git root, as the hook
	// runtime and setup look (a monorepo's sub-project). Otherwise, or
	// when "", Root.
	From string
	// Env is the environment the agents would give their hooks: HOME,
	// PATH, KBS, CODEX_HOME and CLAUDE_CONFIG_DIR are read from it.
	Env []string
	// LiveLimit bounds each live run of a hook (0: the budget the run
	// gives kbs plus 2s).
	LiveLimit time.Duration
	// Live is doctor --live: the live runs give kbs the wrapper's own
	// budget, every installed hook is run (scripts of the user's too),
	// and doctor's kbs query waits the whole budget. Without it only
	// nowhook's own wrappers are run, under a short probe budget that
	// the hook runtime takes from NOWHOOK_PROBE_BUDGET, so that doctor
	// answers within a second.
	Live bool
	// Version is nowhook's version line, for the nowhook row.
	Version string
	// Start is doctor --from: the one folder whose sessions are judged
	// (absolute, inside Root). "": the root and every folder where a
	// session plausibly starts (agentpkg.StartFolders), From among them.
	Start string
	// ManagedRoot is doctor --root: the tree whose managed layers doctor
	// reads (the clients' managed files, nowhook's managed wrappers and
	// record), in every scope. "": the machine's, at /.
	ManagedRoot string
}

// A check is one named unit of doctor (chezmoi's doctor check): Run looks
// at one agent (nil for a check that concerns every agent) and returns its
// findings with their severity, message, fix and path. The runner fills
// in the rest: the row's name, the agent, $HOME shown as ~.
type check interface {
	Name() string
	Run(d *doctor, a *agent) []Finding
}

// checkFunc is a check made of a name and a function.
type checkFunc struct {
	name string
	run  func(d *doctor, a *agent) []Finding
}

func (c checkFunc) Name() string                      { return c.name }
func (c checkFunc) Run(d *doctor, a *agent) []Finding { return c.run(d, a) }

// A starter is a check that needs a slow answer (a program it runs):
// Start begins it for agent a, together with the other slow work, before
// any check runs; Run then waits for it.
type starter interface {
	check
	Start(ctx context.Context, d *doctor, a *agent)
}

// eachAgent marks a shared check that reports on every agent: it runs
// once as itself (a nil agent, rows named after the check) and once for
// each agent that is present (rows named "<check>.<agent>").
type eachAgent struct{ check }

// agentChecks are doctor's checks of the agent p, in the order of their
// rows, derived from the agent table's data: every agent gets mode and
// reach, and one with a pin in scripts/pins.tsv client; an agent whose hook files hold something doctor judges (a hook
// entry of ours, or an event that cannot re-inject) gets hooks-file; one
// with our hook entries hook and script; the hook format's flags bring
// disabled (DisableKey), twice (OnceByCommand), inject-event (WrongEvents)
// and precompact-block (BlockingEvent); the blocks the row says it misses
// (Doctor.BlockMisses) md. Then come the agent's own checks, written in its
// file of the table (Doctor.Quirks), managed for an agent with a managed
// layer (managed.go), and last the checkpoint's, for an agent with one
// (Checkpoint), whose live runs come last.
func agentChecks(p *agentpkg.Agent) []check {
	cs := []check{modeCheck}
	if len(scripts.Proven(p.Name)) > 0 {
		cs = append(cs, clientCheck{})
	}
	cs = append(cs, reachCheck)
	if row := p.Reads.BudgetRow(); row != "" {
		cs = append(cs, budgetCheck{row})
	}
	cs = append(cs, hookChecks(p)...)
	if len(p.Doctor.BlockMisses) > 0 {
		cs = append(cs, mdCheck)
	}
	for _, q := range p.Doctor.Quirks {
		cs = append(cs, quirk{q})
	}
	if layered(p) {
		cs = append(cs, managedCheck)
	}
	if len(p.Checkpoint) > 0 {
		cs = append(cs, checkpointCheck{})
	}
	return cs
}

// hookChecks are the checks of agent p's hook files and entries, in
// agentChecks' order, from its hook format's flags.
func hookChecks(p *agentpkg.Agent) []check {
	entries := len(p.HookEntries()) > 0
	var cs []check
	if entries || len(p.Hooks.WrongEvents) > 0 {
		cs = append(cs, hookFilesCheck)
	}
	if p.Hooks.DisableKey != "" {
		cs = append(cs, disabledCheck)
	}
	if entries {
		cs = append(cs, ourHookCheck, scriptCheck)
	}
	if entries && p.Hooks.OnceByCommand {
		cs = append(cs, twiceCheck)
	}
	if entries && p.Hooks.OneStartContext {
		cs = append(cs, startContextCheck)
	}
	if len(p.Hooks.WrongEvents) > 0 {
		cs = append(cs, wrongEventCheck)
	}
	if p.Hooks.BlockingEvent != "" {
		cs = append(cs, blockingCheck)
	}
	return cs
}

// sharedChecks concern every agent, after the agents' own.
var sharedChecks = []check{noAgentCheck, subFolderCheck, agentsMDCheck, contributingMDCheck, kanbusConfigCheck, kanbusCLICheck, kanbusQueryCheck, sourcesCheck, sourceCheck("rules"), sourceCheck("git"), sourceCheck("samemind"), liveCheck, runtimeCheck, nowhookCheck}

// Run runs every check and returns the findings in table order.
func Run(ctx context.Context, o Options) Report {
	d := newDoctor(o)
	d.scan()
	cleanup := d.startSlow(ctx)
	defer cleanup()
	var r Report
	add := func(c check, a *agent, name string) {
		for _, f := range d.run(c, a, name) {
			r.Findings = append(r.Findings, f)
			r.Worst = max(r.Worst, f.Severity)
		}
	}
	for _, a := range d.present() {
		for _, c := range agentChecks(a.p) {
			add(c, a, a.p.Name+"."+c.Name())
		}
	}
	for _, c := range sharedChecks {
		add(c, nil, c.Name())
		if _, ok := c.(eachAgent); ok {
			for _, a := range d.present() {
				add(c, a, c.Name()+"."+a.p.Name)
			}
		}
	}
	return r
}

// Static runs only the checks that read files, for the agents named (as
// --agents names them) that the table knows: each agent's own checks, in
// the order of its row, and no shared check. It starts nothing: no live
// run of a hook, no kbs query, no codex app-server (a starter's Run
// answers from files alone when it was not started). root is the
// repository root; env is the environment the agents would give their
// hooks (HOME, CODEX_HOME and CLAUDE_CONFIG_DIR are read from it; nil:
// this process's). Setup calls it after writing, to warn about everything
// doctor would call an error in the files of the agents it just set up.
func Static(root string, agents []string, env []string) []Finding {
	return StaticWith(root, agents, env, StaticOptions{})
}

// StaticOptions are what setup knows already when it asks doctor's file
// checks about a plan.
type StaticOptions struct {
	// Modes are the modes of agents by name, as a plan leaves them, where
	// doctor would otherwise take them from the record of what setup set
	// up (which the plan has not written yet).
	Modes map[string]agentpkg.Mode
	// Starts, where Found, are the start folders below the root (setup
	// found them already; a shadow of the repository has none to find).
	Starts []string
	Found  bool
	// ManagedRoot is the tree of the managed layers ("": the machine's).
	ManagedRoot string
}

// StaticWith is Static with what setup knows already.
func StaticWith(root string, agents []string, env []string, o StaticOptions) []Finding {
	d := newDoctor(Options{Root: root, Env: env, ManagedRoot: o.ManagedRoot})
	d.modes = o.Modes
	if o.Found {
		d.starts, d.startsGiven = o.Starts, true
	}
	d.scan()
	var out []Finding
	for _, name := range agents {
		for _, a := range d.agents {
			if a.p.Name != name {
				continue
			}
			for _, c := range agentChecks(a.p) {
				out = append(out, d.run(c, a, a.p.Name+"."+c.Name())...)
			}
		}
	}
	return out
}

// run runs one check and completes its findings: the row's name, the
// agent, each message and fix on one line, and $HOME shown as ~ in them
// (the path stays as it is, for programs that read --json).
func (d *doctor) run(c check, a *agent, name string) []Finding {
	fs := c.Run(d, a)
	var refused *diag.HookFile
	if a != nil && c.Name() != hookFilesCheck.Name() {
		refused = a.refusedFile()
	}
	for i := range fs {
		f := &fs[i]
		f.Check, f.Agent = name, ""
		if a != nil {
			f.Agent = a.p.Name
		}
		switch {
		case d.only != "":
			f.From = d.only
		case f.From == "":
			f.From = "."
		}
		// Setup refuses to edit a file it cannot read as the agent does:
		// a fix that runs it comes after the hooks-file row's.
		if refused != nil && strings.HasPrefix(f.Fix, "nowhook setup --yes") {
			f.Fix = fmt.Sprintf("first correct %s (%s.hooks-file), then: %s", refused.Show, a.p.Name, f.Fix)
		}
		f.Message = osutil.Tilde(oneLine(f.Message), d.home)
		f.Fix = osutil.Tilde(oneLine(f.Fix), d.home)
	}
	if reminderOnly[name] {
		fs = d.perKanbusFolder(fs)
	}
	return fs
}

// reminderOnly are the rows whose warnings say that a hook of ours will
// not run, and so matter only in sessions that find a Kanbus project
// (the hooks print nothing where no .kanbus.yml is found from the start
// folder up to the git root). subfolders.<agent> judges each start folder
// itself.
var reminderOnly = map[string]bool{"codex.trust": true}

// perKanbusFolder judges rows of reminderOnly by the start folder where
// the Kanbus projects sit below the root: a warning at a folder from
// which no Kanbus project is found is info there, and stands for each
// start folder from which one is found. Where no judged folder finds one,
// the rows stay as they are: the kanbus.config row says what is missing
// first, and these say what comes next.
func (d *doctor) perKanbusFolder(fs []Finding) []Finding {
	kanbus := func(from string) bool {
		_, ok := detect.FindKanbusConfig(filepath.Join(d.root, filepath.FromSlash(from)))
		return ok
	}
	// d.kanbus lists the projects below the root where none is found
	// from the working directory, so the answer is the same with --from.
	if d.kanbus.Config == "" && len(d.kanbus.Projects) == 0 && !slices.ContainsFunc(d.starts, kanbus) {
		return fs
	}
	var out, below []Finding
	for _, f := range fs {
		if f.Severity != Warn || kanbus(f.From) {
			out = append(out, f)
			continue
		}
		if d.only == "" {
			for _, from := range d.starts {
				if kanbus(from) {
					g := f
					g.From, g.Message = from, "started in "+from+"/: "+f.Message
					below = append(below, g)
				}
			}
		}
		f.Severity = Info
		f.Message += "; but no .kanbus.yml is found from " + startName(f.From) + " up to the git root, so sessions started there have no reminder to miss (the kanbus.config row says where the Kanbus projects are)"
		out = append(out, f)
	}
	return append(out, below...)
}

// startName names a start folder in a message: "the root" or "pkg/".
func startName(from string) string {
	if from == "." {
		return "the root"
	}
	return from + "/"
}

// present lists the agents that are set up or detected, in table order.
func (d *doctor) present() []*agent {
	var out []*agent
	for _, a := range d.agents {
		if a.present() {
			out = append(out, a)
		}
	}
	return out
}

// noAgentCheck: nothing to check, and how to start.
var noAgentCheck = checkFunc{"agents", func(d *doctor, _ *agent) []Finding {
	if len(d.present()) > 0 {
		return nil
	}
	return []Finding{{Severity: Info,
		Message: "no agent is set up or detected in " + d.root + " (looked for " + strings.Join(agentpkg.Markers(), ", ") + ")",
		Fix:     d.setupFix("")}}
}}

// doctor is one run's state: what was read, and the slow results.
type doctor struct {
	root string
	// from is the session directory the Kanbus project is looked for
	// from: the working directory when it is inside root, else root;
	// fromWD says it is the working directory.
	from     string
	fromWD   bool
	dirFlag  string
	scopeArg string // " --scope user" in doctor --scope user, for the fixes
	// mroot is the tree of the managed layers (Options.ManagedRoot, "/"
	// for the machine's), managed what doctor found there, by agent.
	mroot    string
	managed  map[*agentpkg.Agent]*managedInstall
	env      []string
	home     string
	limit    time.Duration
	live     bool
	version  string
	agents   []*agent
	kanbus   detect.Kanbus
	agentsMD *mdFile // the file of the on-demand block every agent shares
	slow     slowResults
	// modes, where set, are the modes of agents by name (StaticWith);
	// startsGiven says starts were given, not to be found.
	modes       map[string]agentpkg.Mode
	startsGiven bool
	// only is doctor --from's folder, relative to the root ("." for it),
	// the one start folder judged; "" for the root and every start folder.
	only string
	// wd is the working directory where it lies inside the root, else "".
	wd string
	// starts are the folders below the root judged besides it, and files
	// the repository as the agents' judgements see it (folders.go).
	starts []string
	files  agentpkg.Files
	rows   map[*agent][]Finding
}

func newDoctor(o Options) *doctor {
	d := &doctor{root: o.Root, from: o.Root, env: o.Env, limit: o.LiveLimit, live: o.Live, version: o.Version, mroot: o.ManagedRoot}
	if d.mroot == "" {
		d.mroot = string(filepath.Separator)
	}
	if o.From != "" && (o.From == o.Root || within(o.Root, o.From)) {
		d.from, d.fromWD = o.From, true
	}
	if d.fromWD {
		d.wd = o.From
	}
	if o.Start != "" {
		d.from, d.fromWD = o.Start, true
		d.only = relFolder(o.Root, o.Start)
	}
	if d.env == nil {
		d.env = os.Environ()
	}
	d.home = osutil.Getenv(d.env, "HOME")
	if o.Dir != "" {
		d.dirFlag = " --dir " + diag.ShellQuote(o.Dir)
	}
	return d
}

// agent is one platform row and what doctor found of it.
type agent struct {
	p        *agentpkg.Agent
	evidence []string
	files    []*diag.HookFile // the hook files that exist, in the table's order
	specs    []*ourSpec       // the hook entries setup writes for this platform
	mode     agentpkg.Mode    // what nowhook set up for it; "" for nothing
	// checkpoint are the hook entries `setup --checkpoint` writes (the
	// table's Checkpoint artifacts), each with ours found in the hook
	// files, and cpScripts its scripts; cpLive is its live runs, once
	// started (checkpoint.go).
	checkpoint []*ourSpec
	cpScripts  []*agentpkg.Script
	cpLive     *cpLive
	// started are the reports of the agent's own checks that started
	// (agentpkg.Check.Start), by the check's name.
	started map[string]func() []Finding
	// client is the client row's `--version`, once started (clients.go).
	client *clientRun
}

func (a *agent) present() bool {
	if len(a.evidence) > 0 || a.mode != "" {
		return true
	}
	for _, f := range a.files {
		if !f.User {
			return true
		}
	}
	return false
}

// ourSpec is a hook entry setup writes: the file, its schema, and the
// script the entry runs, from the agent table.
type ourSpec struct {
	mode   agentpkg.Mode // "" for the checkpoint's, which any mode may have
	rel    string
	schema generate.HookFile
	hook   func(budget time.Duration) generate.Hook
	script string
	ours   []diag.Handler // our handlers, in any of the agent's hook files
}

// scan reads every platform's hook files and finds our entries.
func (d *doctor) scan() {
	d.scanFolders()
	d.kanbus = detect.DetectKanbusFrom(d.root, d.from)
	d.agentsMD = readMD(d.root, agentpkg.OnDemandBlock.File)
	found := agentpkg.Detect(d.root)
	modes := engine.Modes(d.root, found)
	for _, fa := range found {
		a := &agent{p: fa.Agent, evidence: fa.Evidence}
		for _, path := range a.p.Hooks.Files {
			abs, user := d.expand(path)
			if f := diag.ReadHookFile(abs, d.show(abs), user, hookFormat(a.p)); f != nil {
				a.files = append(a.files, f)
			}
		}

		a.mode = modes[a.p]
		if m, ok := d.modes[a.p.Name]; ok {
			a.mode = m
		}
		for _, mh := range a.p.HookEntries() {
			a.specs = append(a.specs, a.spec(mh.Mode, mh.Hook))
		}
		for _, art := range a.p.Checkpoint {
			switch art := art.(type) {
			case *agentpkg.HookEntry:
				a.checkpoint = append(a.checkpoint, a.spec("", art))
			case *agentpkg.Script:
				a.cpScripts = append(a.cpScripts, art)
			}
		}
		for _, f := range a.files {
			f.Dropped = agentCheck(a, f)
			if f.ReadErr == nil && f.Dropped == nil {
				f.Refused = refusal(a, f)
			}
		}
		d.agents = append(d.agents, a)
	}
}

// spec is the table's hook entry, owned by mode, with our handlers of it
// in the agent's hook files: those under its event whose command runs its
// script.
func (a *agent) spec(mode agentpkg.Mode, entry *agentpkg.HookEntry) *ourSpec {
	s := &ourSpec{mode: mode, rel: entry.File.Path, schema: entry.File, script: entry.Script,
		hook: func(budget time.Duration) generate.Hook { return entry.Hook(agentpkg.Options{Budget: budget}) }}
	ours := generate.RunsScript(s.script)
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event == s.schema.Event && ours(h.Command) {
				s.ours = append(s.ours, h)
			}
		}
	}
	return s
}

// expand turns a table path into an absolute one: repository paths are
// joined to the root; "~/" and "${VAR:-default}" expand from the env.
func (d *doctor) expand(path string) (abs string, user bool) {
	expanded := envRefRE.ReplaceAllStringFunc(path, func(ref string) string {
		m := envRefRE.FindStringSubmatch(ref)
		if v := osutil.Getenv(d.env, m[1]); v != "" {
			return v
		}
		return m[2]
	})
	switch {
	case strings.HasPrefix(expanded, "~/"):
		return filepath.Join(d.home, expanded[2:]), true
	case filepath.IsAbs(expanded):
		return filepath.Clean(expanded), true
	}
	return filepath.Join(d.root, filepath.FromSlash(expanded)), false
}

var envRefRE = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}`)

// show returns how a path is shown: relative to the root inside it, but
// absolute (shown with ~) inside a home directory that lies in the root.
func (d *doctor) show(abs string) string {
	if within(d.home, abs) && within(d.root, d.home) {
		return abs
	}
	if within(d.root, abs) {
		rel, _ := filepath.Rel(d.root, abs)
		return filepath.ToSlash(rel)
	}
	return abs
}

// within reports whether path lies strictly inside dir.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

// setupFix is the setup command for agents ("" for the detected ones).
func (d *doctor) setupFix(agents string, extra ...string) string {
	s := "nowhook setup" + d.scopeArg + " --yes"
	if agents != "" {
		s += " --agents " + agents
	}
	for _, e := range extra {
		s += " " + e
	}
	return s + d.dirFlag
}

// setupIn is the setup command that sets agents up in the start folder
// from (relative to the root) as a repository of its own, with --dir as
// the user types it from the working directory.
func (d *doctor) setupIn(from, agents string) string {
	dir := filepath.Join(d.root, filepath.FromSlash(from))
	if d.wd != "" {
		if rel, err := filepath.Rel(d.wd, dir); err == nil {
			dir = filepath.ToSlash(rel)
		}
	}
	return "nowhook setup" + d.scopeArg + " --yes --agents " + agents + " --dir " + diag.ShellQuote(dir)
}

// budget is the time the installed wrapper gives kbs: its --timeout, else
// the default.
func (d *doctor) budget() time.Duration {
	for _, s := range agentpkg.ReminderScripts() {
		if b, ok := diag.ScriptBudget(filepath.Join(d.root, s)); ok {
			return b
		}
	}
	return agentpkg.DefaultBudget
}

// modeCheck says what nowhook set up for the agent, or that it did not.
var modeCheck = checkFunc{"mode", func(d *doctor, a *agent) []Finding {
	var f Finding
	refusal := a.p.Refused[agentpkg.Reinject]
	switch a.mode {
	case agentpkg.Reinject:
		f.Message = a.p.Title + ": re-inject after compaction (" + strings.TrimPrefix(a.p.Reinject, "yes: ") + ")"
	case agentpkg.OnDemand:
		f.Message = a.p.Title + ": on-demand only, " + d.teachesKbsNow(a.p)
		switch {
		case refusal != "":
			f.Message += " (" + refusal + ")"
		case a.p.OptIn != "":
			f.Message += "; " + a.p.OptIn
		default:
			f.Severity = Info
			f.Message += "; it can re-inject after compaction"
			f.Fix = d.setupFix(a.p.Name + "=" + string(agentpkg.Reinject))
		}
	case agentpkg.Nudge:
		f.Message = a.p.Title + ": on-demand, with a preCompact message telling the user to have the agent run `kbs now` (" + refusal + ")"
	default:
		f.Severity = Info
		f.Message = a.p.Title + " is detected (" + strings.Join(a.evidence, ", ") + ") but nowhook has not set it up"
		f.Fix = d.setupFix(a.p.Name)
	}
	return []Finding{f}
}}

// onDemandFiles lists the files whose block teaches `kbs now` in the
// agent's on-demand mode: the Markdown blocks that mode writes, leaving out
// those that go only into a file that already exists.
func onDemandFiles(p *agentpkg.Agent) []string {
	spec, _ := p.Spec(agentpkg.OnDemand)
	var files []string
	for _, art := range spec.Artifacts {
		if b, ok := art.(*agentpkg.Block); ok && !b.IfPresent && !containsString(files, b.File) {
			files = append(files, b.File)
		}
	}
	return files
}

// teachesKbsNow names the files that teach `kbs now` to the agent in its
// on-demand mode, with the verb: "AGENTS.md teaches `kbs now`",
// "GEMINI.md and AGENTS.md teach `kbs now`".
func teachesKbsNow(p *agentpkg.Agent) string {
	files := onDemandFiles(p)
	if len(files) == 1 {
		return files[0] + " teaches `kbs now`"
	}
	return joinFiles(files) + " teach `kbs now`"
}

// teachesKbsNow names the files the agent loads that teach `kbs now`, or
// where none does, those its on-demand mode writes.
func (d *doctor) teachesKbsNow(p *agentpkg.Agent) string {
	files := p.Teaches(agentpkg.DirFiles(d.root))
	switch len(files) {
	case 0:
		return teachesKbsNow(p)
	case 1:
		return files[0] + " teaches `kbs now`"
	}
	return joinFiles(files) + " teach `kbs now`"
}

// joinFiles joins file names for a sentence: "A", "A and B", "A, B and C".
func joinFiles(files []string) string {
	if len(files) < 2 {
		return strings.Join(files, "")
	}
	return strings.Join(files[:len(files)-1], ", ") + " and " + files[len(files)-1]
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// templateVersion is the version of the templates this nowhook writes.
const templateVersion = templates.Version
