package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/generate"
)

// The managed layer in doctor (issue 27). Each client with a managed
// channel (agentpkg.ManagedScope) reads a file in a system folder in every
// session, before or beside the user's and the project's settings; some
// have a managed-only switch (agentpkg.ManagedOnly) that drops every hook
// but the managed ones. doctor --scope managed checks nowhook's managed
// install itself (setup --scope managed): the managed file as the client
// parses it, nowhook's entry there, its wrapper in agentpkg.ManagedDir and
// the record. In the project and user scopes, the row <agent>.managed says
// which layer's hook of nowhook's prints the reminder, and calls an error
// the switch that drops the install doctor is looking at. --root DIR reads
// the tree under DIR in place of the machine's (every scope).

// layered reports whether agent p's project rows say what its managed
// layer does to nowhook's hooks: it has a hook of nowhook's, and a managed
// channel or a managed-only switch.
func layered(p *agentpkg.Agent) bool {
	return len(p.HookEntries()) > 0 && (p.Scope.Managed != nil || p.Scope.ManagedOnly != nil)
}

// managedInstall is nowhook's managed install of one agent, as the tree
// under doctor's managed root holds it.
type managedInstall struct {
	p     *agentpkg.Agent
	entry *agentpkg.HookEntry // its paths under the root
	// file is the managed file (under the root), f what was read of it
	// (nil: it does not exist), problem the row of a file the client
	// cannot load (nil: it loads), ours nowhook's managed handlers in it.
	file    string
	f       *diag.HookFile
	problem *Finding
	ours    []diag.Handler
	// script is the wrapper (under the root); runnable: a regular file,
	// executable.
	script   string
	runnable bool
}

// managedOf reads agent p's managed install, once per run; nil for an
// agent without a managed channel.
func (d *doctor) managedOf(p *agentpkg.Agent) *managedInstall {
	if p.Scope.Managed == nil {
		return nil
	}
	if m, ok := d.managed[p]; ok {
		return m
	}
	m := &managedInstall{p: p, entry: p.ManagedHook(d.mroot)}
	m.file, m.script = m.entry.File.Path, m.entry.Script
	m.f = diag.ReadHookFile(m.file, m.file, true, hookFormat(p))
	if m.f != nil {
		if bad, ok := fileProblem(p, m.f, p.Scope.Managed.Guard, m.entry.File.Check); ok {
			// The schema's own fix names the project's file.
			if h, ok := reinjectHook(p); ok {
				bad.Fix = strings.ReplaceAll(bad.Fix, h.File.Path, m.file)
			}
			m.problem = &bad
		} else {
			for _, h := range m.f.Handlers {
				if h.Event == m.entry.File.Event && p.Scope.Managed.Ours(h.Command) {
					m.ours = append(m.ours, h)
				}
			}
		}
	}
	info, err := os.Stat(m.script)
	m.runnable = err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
	if d.managed == nil {
		d.managed = map[*agentpkg.Agent]*managedInstall{}
	}
	d.managed[p] = m
	return m
}

// runs reports whether the managed hook runs nowhook's wrapper: the file
// loads, holds nowhook's entry, and the wrapper can run.
func (m *managedInstall) runs() bool {
	return m != nil && m.problem == nil && len(m.ours) > 0 && m.runnable
}

// why says why the managed hook does not run ("" where it does).
func (m *managedInstall) why() string {
	switch {
	case m == nil:
		return "it has no managed channel"
	case m.f == nil:
		return "there is no " + m.file
	case m.problem != nil:
		return m.problem.Message
	case len(m.ours) == 0:
		return m.file + " has no managed hook of nowhook's"
	case !m.runnable:
		return m.script + " is missing or not executable, so its command exits 0 and prints nothing"
	}
	return ""
}

// managedSetup is the command that installs agent's managed hook in the
// tree doctor reads: as root on the machine, with --root for a tree.
func (d *doctor) managedSetup(agent string) string {
	if d.onMachine() {
		return "sudo nowhook setup --scope managed --yes --agents " + agent
	}
	return "nowhook setup --scope managed --yes --agents " + agent + " --root " + diag.ShellQuote(d.mroot)
}

// onMachine reports whether doctor reads the machine's managed layers.
func (d *doctor) onMachine() bool { return d.mroot == string(filepath.Separator) }

// policy is what the managed files of agent p's switch say: the first
// that sets it, and those the client cannot parse.
type policy struct {
	sw     *agentpkg.ManagedOnly
	set    *agentpkg.ManagedFile
	broken []agentpkg.ManagedFile
}

func (d *doctor) policyOf(p *agentpkg.Agent) policy {
	pol := policy{sw: p.Scope.ManagedOnly}
	if pol.sw == nil {
		return pol
	}
	for _, f := range pol.sw.Read(d.mroot) {
		switch {
		case f.Err != nil:
			pol.broken = append(pol.broken, f)
		case f.Set && pol.set == nil:
			pol.set = &f
		}
	}
	return pol
}

// brokenRows are the rows of the managed files the client cannot parse
// and for which it stops every session (the switch's Broken), but for
// skip (the managed install's own file, which its hooks-file row names).
func (d *doctor) brokenRows(p *agentpkg.Agent, pol policy, skip string) []Finding {
	if pol.sw == nil || pol.sw.Broken == "" {
		return nil
	}
	var out []Finding
	for _, f := range pol.broken {
		if f.Abs == skip {
			continue
		}
		fix := "correct " + f.Abs + " or remove it: it is the machine's managed settings (ask whoever manages this machine)"
		if m := p.Scope.Managed; m != nil && f.Path == m.File() {
			fix = "remove " + f.Abs + ", then run " + d.managedSetup(p.Name)
		}
		out = append(out, Finding{Severity: Error, Path: f.Abs,
			Message: fmt.Sprintf("%s %v: %s", f.Abs, f.Err, pol.sw.Broken), Fix: fix})
	}
	return out
}

// managedCheck: in the project and user scopes, which layer's hook of
// nowhook's prints the reminder for the agent, and whether a managed-only
// switch drops the hooks doctor is looking at (here names them: "the
// project's hook in .claude/settings.json"; none: nothing of nowhook's is
// installed in this scope).
var managedCheck = checkFunc{"managed", func(d *doctor, a *agent) []Finding {
	var here []string
	if s := a.reinjectSpec(); s != nil && a.mode == agentpkg.Reinject {
		for _, h := range s.ours {
			if !h.File.User {
				here = append(here, "the project's hook in "+h.File.Show)
				break
			}
		}
	}
	if file, ok := d.userInstalled(a.p); ok {
		here = append(here, "your user-scope hook in "+file)
	}
	return d.layerRows(a.p, here)
}}

// reinjectSpec is the agent's re-inject hook entry, if it has one.
func (a *agent) reinjectSpec() *ourSpec {
	for _, s := range a.specs {
		if s.mode == agentpkg.Reinject {
			return s
		}
	}
	return nil
}

// layerRows are the rows of the managed layer for agent p, seen from the
// installs of nowhook's here (project or user).
func (d *doctor) layerRows(p *agentpkg.Agent, here []string) []Finding {
	m := d.managedOf(p)
	pol := d.policyOf(p)
	out := d.brokenRows(p, pol, "")
	installs := strings.Join(here, " and ")
	// verb is one of two forms, as here holds one install or two.
	verb := func(one, two string) string {
		if len(here) > 1 {
			return two
		}
		return one
	}
	switch {
	case pol.set != nil && m.runs():
		out = append(out, Finding{Path: pol.set.Abs,
			Message: fmt.Sprintf("%s: true in %s: %s runs the managed layer's hooks alone (%s); nowhook's managed hook in %s is one of them and prints the reminder", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known, m.file)})
	case pol.set != nil:
		f := Finding{Severity: Info, Path: pol.set.Abs,
			Message: fmt.Sprintf("%s: true in %s: %s runs the managed layer's hooks alone (%s), so a project or user hook of nowhook's would never run", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known),
			Fix:     d.policyFix(p)}
		if len(here) > 0 {
			f.Severity = Error
			f.Message = fmt.Sprintf("%s: true in %s: %s runs the managed layer's hooks alone (%s), so %s %s and the work in progress does not come back after a compaction", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known, installs, verb("never runs", "never run"))
		}
		if m != nil && len(m.ours) > 0 {
			f.Message += "; nowhook's managed hook does not run either: " + m.why()
		}
		if p.Scope.Managed == nil {
			f.Fix = "ask the organisation that manages this machine to lift " + pol.sw.Key
		}
		out = append(out, f)
	case m.runs() && len(here) > 0:
		out = append(out, Finding{Path: m.file,
			Message: "managed layer: nowhook's hook in " + m.file + " prints the reminder; " + installs + " " + verb("steps", "step") + " aside"})
	case m.runs():
		out = append(out, Finding{Path: m.file,
			Message: "managed layer: nowhook's hook in " + m.file + " prints the reminder in every " + p.Title + " session on this machine"})
	case m != nil && len(m.ours) > 0:
		f := Finding{Severity: Warn, Path: m.file,
			Message: "managed layer: nowhook's hook in " + m.file + " does not run: " + m.why(),
			Fix:     d.managedDoctor()}
		if len(here) > 0 {
			f.Message += "; " + installs + " " + verb("prints", "print") + " the reminder"
		}
		out = append(out, f)
	}
	return out
}

// policyFix is the fix of a managed-only switch that drops nowhook's
// hooks: nowhook's managed hook, installed by the machine's owner.
func (d *doctor) policyFix(p *agentpkg.Agent) string {
	return d.managedSetup(p.Name) + " (or ask the organisation that manages this machine to install nowhook's managed hook)"
}

// managedDoctor is the doctor command that says what is wrong with the
// managed install.
func (d *doctor) managedDoctor() string {
	if d.onMachine() {
		return "nowhook doctor --scope managed"
	}
	return "nowhook doctor --scope managed --root " + diag.ShellQuote(d.mroot)
}

// RunManaged is doctor --scope managed: for every agent with a managed
// channel, the managed file and nowhook's entry in it, the wrapper, the
// record, and what the managed-only switch and the other managed files
// do; then the switches of the clients without a managed channel.
func RunManaged(ctx context.Context, o Options) Report {
	d := newDoctor(o)
	var r Report
	if d.onMachine() && runtime.GOOS != "linux" {
		// setup --scope managed refuses here too (install/managed.go).
		f := Finding{Severity: Info,
			Message: "the managed paths nowhook knows (" + strings.Join(systemFolders(), ", ") + ") are Linux's, and this is " + runtime.GOOS + ": the clients read their managed settings elsewhere here (docs/platforms.md, \"Managed channels\"), which doctor does not check; nowhook doctor --scope managed --root DIR checks a tree built with setup --scope managed --root DIR"}
		return Report{Findings: d.run(checkFunc{"managed", func(*doctor, *agent) []Finding { return []Finding{f} }}, nil, "managed"), Worst: Info}
	}
	add := func(c check, p *agentpkg.Agent) {
		for _, f := range d.run(c, &agent{p: p}, c.Name()) {
			r.Findings = append(r.Findings, f)
			r.Worst = max(r.Worst, f.Severity)
		}
	}
	for _, p := range agentpkg.All {
		if p.Scope.Managed != nil {
			for _, c := range d.managedChecks(ctx, p) {
				add(c, p)
			}
		}
	}
	for _, p := range agentpkg.All {
		if p.Scope.Managed == nil && p.Scope.ManagedOnly != nil {
			if pol := d.policyOf(p); pol.set != nil {
				f := Finding{Severity: Info, Path: pol.set.Abs,
					Message: fmt.Sprintf("%s in %s: %s loads only managed hooks (%s); nowhook writes no hook for it (it cannot re-inject), so this takes nothing of nowhook's away", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known)}
				add(checkFunc{"managed." + p.Name, func(*doctor, *agent) []Finding { return []Finding{f} }}, p)
			}
		}
	}
	d.endSlow()
	return r
}

// managedChecks are the rows of agent p's managed install, each with its
// findings made already (the install is read once).
func (d *doctor) managedChecks(ctx context.Context, p *agentpkg.Agent) []check {
	name := "managed." + p.Name
	done := func(suffix string, fs ...Finding) check {
		return checkFunc{name + suffix, func(*doctor, *agent) []Finding { return fs }}
	}
	m := d.managedOf(p)
	setup := d.managedSetup(p.Name)
	pol := d.policyOf(p)
	layer := d.brokenRows(p, pol, m.file)
	if pol.set != nil {
		f := Finding{Path: pol.set.Abs,
			Message: fmt.Sprintf("%s: true in %s: %s runs the managed layer's hooks alone (%s), so nowhook's user and project hooks print nothing; nowhook's managed hook in %s prints the reminder", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known, m.file)}
		if !m.runs() {
			f.Severity, f.Fix = Error, setup
			f.Message = fmt.Sprintf("%s: true in %s: %s runs the managed layer's hooks alone (%s), and nowhook's managed hook does not run (%s), so no %s session on this machine gets the reminder", pol.sw.Key, pol.set.Abs, p.Title, pol.sw.Known, m.why(), p.Title)
		}
		layer = append(layer, f)
	}
	var out []check
	if len(layer) > 0 {
		out = append(out, done(".layer", layer...))
	}
	if m.f == nil {
		f := Finding{Severity: Info, Path: m.file,
			Message: m.file + " does not exist, so " + p.Title + " has no managed hook of nowhook's (sessions get the reminder only where a project's or the user's hook of nowhook's runs)",
			Fix:     setup}
		if e := p.Scope.Managed.Existing; e != "" {
			f.Fix = ""
			f.Message = m.file + " does not exist, so " + p.Title + " has no managed hook of nowhook's; " + e
		}
		return append([]check{done("", f)}, out...)
	}
	if m.problem != nil {
		bad := *m.problem
		if slices.ContainsFunc(pol.broken, func(f agentpkg.ManagedFile) bool { return f.Abs == m.file }) && pol.sw.Broken != "" {
			bad.Message += "; and as a managed file: " + pol.sw.Broken
		}
		if bad.Fix == "" {
			bad.Fix = "correct " + m.file + ", then run " + setup
		}
		return append(out, done(".hooks-file", bad))
	}
	how := "parses as JSON"
	if p.Hooks.Strict {
		how = "parses as strict JSON"
	}
	out = append(out, done(".hooks-file", Finding{Path: m.file, Message: fmt.Sprintf("%s %s (%s)", m.file, how, diag.Plural(len(m.f.Handlers), "hook handler"))}))
	if len(m.ours) == 0 {
		return append(out, done("", Finding{Severity: Info, Path: m.file,
			Message: m.file + " has no managed hook of nowhook's (sessions get the reminder only where a project's or the user's hook of nowhook's runs)",
			Fix:     setup}))
	}
	a := &agent{p: p.AtManagedScope(d.mroot), files: []*diag.HookFile{m.f}, mode: agentpkg.Reinject}
	entry := m.entry
	s := &ourSpec{mode: agentpkg.Reinject, rel: m.file, schema: entry.File, script: p.Scope.Managed.ScriptPath(), ours: m.ours,
		hook: func(budget time.Duration) generate.Hook { return entry.Hook(agentpkg.Options{Budget: budget}) }}
	a.specs = []*ourSpec{s}
	budget := agentpkg.DefaultBudget
	if b, ok := diag.ScriptBudget(m.script); ok {
		budget = b
	}
	var hookRows []Finding
	for _, h := range m.ours {
		for _, f := range d.hookShape(a, s, h, s.hook(budget), budget) {
			if f.Fix != "" {
				f.Fix = setup
			}
			hookRows = append(hookRows, f)
		}
	}
	out = append(out, done(".hook", hookRows...))
	fix := func(extra ...string) string { return strings.Join(append([]string{setup}, extra...), " ") }
	sf, _, missing := d.ownedScript(m.script, m.script, p.Title+" gets no reminder from the managed hook", fix)
	if missing {
		sf.Message = m.script + " is missing: the managed hook's command exits 0 without it and prints nothing, so " + p.Title + " gets no reminder from it"
		sf.Fix = setup
	}
	out = append(out, done(".script", sf))
	out = append(out, done(".record", d.recordRow(p, m)))
	if sf.Severity == Error {
		return out
	}
	h, ok := firstRunnable(m.ours)
	if !ok {
		return out
	}
	return append(out, done(".live", d.managedLive(ctx, a, h, budget)))
}

// managedLive runs the managed hook's command twice, one run at a time,
// with a fake kbs that lists two issues: in a sub-folder of a Kanbus
// project (the reminder) and in a folder outside any (nothing, and no
// kbs). Under --root the command runs the tree's wrappers where it names
// agentpkg.ManagedDir. A hook that is not a SessionStart compact hook
// (Gemini CLI's per-request gate, which prints only after a compression)
// is not run.
func (d *doctor) managedLive(ctx context.Context, a *agent, h diag.Handler, budget time.Duration) Finding {
	f := Finding{Path: h.File.Show}
	if h.Event != "SessionStart" {
		f.Severity = Info
		f.Message = "not run: the managed hook is " + a.p.Title + "'s " + h.Event + " gate, which prints only in the first request after a compression (the real-client test TestGeminiManagedReminder runs it)"
		return f
	}
	tmp, err := d.scratch()
	if err != nil {
		f.Severity, f.Message = Info, "the live runs were skipped: cannot make a temporary directory: "+err.Error()
		return f
	}
	outside, sub, err := hookFolders(filepath.Join(tmp, "managed-"+a.p.Name))
	if err != nil {
		f.Severity, f.Message = Info, "the live runs were skipped: cannot write their folders: "+err.Error()
		return f
	}
	command, where := h.Command, ""
	if !d.onMachine() {
		tree := filepath.Join(d.mroot, filepath.FromSlash(agentpkg.ManagedDir))
		command = strings.ReplaceAll(command, agentpkg.ManagedDir+"/", tree+"/")
		where = " (with " + tree + " for " + agentpkg.ManagedDir + ")"
	}
	limit := d.runLimit(budget)
	bad := d.runInFolders(ctx, a, command, limit, []folderRun{
		{outside, "outside a Kanbus project", "no Kanbus project", false},
		{sub, "in a sub-folder of a Kanbus project", "", false},
	})
	if len(bad) > 0 {
		f.Severity = Error
		f.Message = "the managed hook" + where + ", run with a fake kbs that lists two issues: " + strings.Join(bad, "; ")
		f.Fix = d.managedSetup(a.p.Name)
		return f
	}
	f.Message = "the managed hook" + where + ", run with a fake kbs that lists two issues: outside a Kanbus project it printed nothing and started no kbs; in a sub-folder of one it printed the reminder"
	return f
}

// recordRow says whether the managed scope's record lists the managed
// file and the wrapper, which remove --scope managed takes back by it.
func (d *doctor) recordRow(p *agentpkg.Agent, m *managedInstall) Finding {
	record, found, fileListed := engine.ManagedRecorded(d.mroot, m.file)
	_, _, scriptListed := engine.ManagedRecorded(d.mroot, m.script)
	f := Finding{Path: record}
	switch {
	case !found:
		f.Severity = Warn
		f.Message = record + " does not exist: nowhook's managed hook for " + p.Title + " was not written by setup --scope managed here, or its record was lost, so remove --scope managed cannot tell what was there before"
		f.Fix = d.managedSetup(p.Name)
	case !fileListed || !scriptListed:
		var missing []string
		if !fileListed {
			missing = append(missing, m.file)
		}
		if !scriptListed {
			missing = append(missing, m.script)
		}
		f.Severity = Warn
		f.Message = record + " does not list " + strings.Join(missing, " or ") + ", so remove --scope managed cannot tell what was there before"
		f.Fix = d.managedSetup(p.Name)
	default:
		f.Message = record + " lists " + m.file + " and " + m.script + ", which remove --scope managed takes back"
	}
	return f
}

// systemFolders are the managed folders of the agents that have one, as
// the machine has them.
func systemFolders() []string {
	var out []string
	for _, p := range agentpkg.All {
		if m := p.Scope.Managed; m != nil {
			out = append(out, m.Folder)
		}
	}
	return out
}
