package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
)

// The two scopes in doctor. In the project scope (the default), a row per
// re-inject agent whose sessions started in a sub-folder run no project
// hook says so, or that the user-scope hook covers them. doctor --scope
// user checks the user-scope install itself (setup --scope user): the
// settings file, our entry, its wrapper, and three live runs of the entry's
// command with a fake kbs.

// subFolderCheck: where a session started in a sub-folder of the
// repository runs no project hook of nowhook's (Claude Code and Qwen Code
// load project hooks only from the directory they start in), for each
// start folder: the user-scope hook covers it, a hook set up in that
// folder itself (setup --dir) runs there, or the reminder does not come
// back there, with the fix. The root's row is advice (info): for the
// sessions started in a folder that doctor does not find.
var subFolderCheck = eachAgent{checkFunc{"subfolders", func(d *doctor, a *agent) []Finding {
	if a == nil || a.mode != agentpkg.Reinject {
		return nil
	}
	gap := a.p.SubFolderGap()
	if gap == "" {
		return nil
	}
	userFile, user := d.userInstalled(a.p)
	userFix := ""
	if a.p.Scope.User != nil {
		userFix = "nowhook setup --scope user --agents " + a.p.Name
	}
	if d.policyOf(a.p).set != nil && a.p.Scope.Managed != nil {
		// The managed-only switch drops a user-scope hook too (the
		// managed row says so): only the managed layer's reaches them.
		userFix = d.managedSetup(a.p.Name)
	}
	covered := Finding{Severity: Info, Path: userFile,
		Message: "sessions started in a sub-folder of the repository get the reminder from your user-scope hook in " + userFile + " (" + a.p.Title + " loads project hooks " + a.p.Scope.Loads + "); where the project's hook runs too, the user-scope hook prints nothing"}
	if m := d.managedOf(a.p); m.runs() {
		// The managed layer is read wherever a session starts.
		user = true
		covered = Finding{Severity: Info, Path: m.file,
			Message: "sessions started in a sub-folder of the repository get the reminder from nowhook's managed hook in " + m.file + ", which " + a.p.Title + " reads wherever a session starts (it loads project hooks " + a.p.Scope.Loads + ")"}
	}
	var out []Finding
	if d.only == "" || d.only == "." {
		f := covered
		if !user {
			f = Finding{Severity: Info, Fix: userFix, Message: gap + ", so in a monorepo or any session started below " + d.root + " the work does not come back after compaction"}
		}
		out = append(out, f)
	}
	for _, from := range d.judged() {
		if from == "." {
			continue
		}
		if _, ok := detect.FindKanbusConfig(filepath.Join(d.root, filepath.FromSlash(from))); !ok {
			// Nothing to bring back: the hook finds no project from there.
			out = append(out, Finding{From: from, Severity: Info,
				Message: "started in " + from + "/: no .kanbus.yml is found from there up to the git root, so there is no reminder to bring back after a compaction in sessions started there (the kanbus.config row says where the Kanbus projects are)"})
			continue
		}
		if user {
			if d.only != "" {
				covered.From = from
				out = append(out, covered)
			}
			continue
		}
		file, runs := a.p.HookFrom(d.files, from)
		if runs {
			out = append(out, Finding{From: from, Path: file,
				Message: "started in " + from + "/: " + a.p.Title + " runs the hook of nowhook's set up in " + from + "/ (" + file + ")"})
			continue
		}
		f := Finding{From: from, Severity: Warn, Path: file,
			Message: "started in " + from + "/: " + a.p.Title + " loads project hooks " + a.p.Scope.Loads + ", and " + from + "/ has no hook of nowhook's, so the work in progress does not come back after a compaction in sessions started there"}
		f.Fix = d.setupIn(from, a.p.ArgFor(a.mode))
		if userFix != "" {
			f.Fix = userFix
		}
		out = append(out, f)
	}
	return out
}}}

// userFolder is the agent's user folder as the agent finds it, from the
// environment doctor checks.
func (d *doctor) userFolder(p *agentpkg.Agent) (string, error) {
	return p.Scope.User.Folder(func(k string) string { return osutil.Getenv(d.env, k) }, d.home)
}

// userInstalled reports whether the agent's user-scope hook is in place:
// our entry in its user settings and the wrapper it runs, executable.
func (d *doctor) userInstalled(p *agentpkg.Agent) (string, bool) {
	if p.Scope.User == nil {
		return "", false
	}
	dir, err := d.userFolder(p)
	if err != nil {
		return "", false
	}
	h := p.UserHook(dir)
	b, err := diag.ReadBounded(h.File.Path)
	if err != nil || !h.Present(b) {
		return h.File.Path, false
	}
	info, err := os.Stat(h.Script)
	return h.File.Path, err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// RunUser is doctor --scope user: for every agent with a user scope, the
// user settings file and our entry in it, the wrapper, and the live runs.
func RunUser(ctx context.Context, o Options) Report {
	d := newDoctor(o)
	d.scopeArg = " --scope user"
	var r Report
	for _, p := range agentpkg.All {
		if p.Scope.User == nil {
			continue
		}
		a := &agent{p: p}
		cs := d.userChecks(ctx, a)
		if layered(p) {
			// Which layer's hook prints the reminder, seen from the
			// user-scope install.
			var here []string
			if file, ok := d.userInstalled(p); ok {
				here = append(here, "your user-scope hook in "+file)
			}
			rows := d.layerRows(p, here)
			cs = append(cs, checkFunc{p.Name + ".managed", func(*doctor, *agent) []Finding { return rows }})
		}
		for _, c := range cs {
			for _, f := range d.run(c, a, "user."+c.Name()) {
				r.Findings = append(r.Findings, f)
				r.Worst = max(r.Worst, f.Severity)
			}
		}
	}
	d.endSlow()
	return r
}

// userChecks are the checks of one agent's user-scope install, each with
// its findings made already (the install is read once).
func (d *doctor) userChecks(ctx context.Context, a *agent) []check {
	done := func(name string, fs ...Finding) check {
		return checkFunc{name, func(*doctor, *agent) []Finding { return fs }}
	}
	p := a.p
	name := p.Name
	dir, err := d.userFolder(p)
	if err != nil {
		return []check{done(name, Finding{Severity: Error, Message: err.Error()})}
	}
	if c := p.Scope.User.Check; c != nil {
		// The agent's own row: its settings are not a JSON hook file.
		return []check{checkFunc{name + "." + c.Name, quirk{*c}.Run}}
	}
	entry := p.UserHook(dir)
	file, script := entry.File.Path, entry.Script
	setup := func(extra ...string) string { return d.setupFix(name, extra...) }
	f := diag.ReadHookFile(file, file, true, hookFormat(p))
	if f == nil {
		return []check{done(name, Finding{Severity: Info, Path: file,
			Message: file + " does not exist, so " + p.Title + " has no user-scope hook of nowhook's (sessions get the reminder only where a project's own hook runs)",
			Fix:     setup()})}
	}
	a.p = p.AtUserScope(dir)
	a.files = []*diag.HookFile{f}
	if bad, ok := userFileProblem(p, f); ok {
		return []check{done(name+".hooks-file", bad)}
	}
	s := &ourSpec{mode: agentpkg.Reinject, rel: file, schema: entry.File, script: script,
		hook: func(budget time.Duration) generate.Hook { return entry.Hook(agentpkg.Options{Budget: budget}) }}
	for _, h := range f.Handlers {
		if h.Event == entry.File.Event && p.Scope.User.Ours(h.Command) {
			s.ours = append(s.ours, h)
		}
	}
	if len(s.ours) == 0 {
		return []check{done(name, Finding{Severity: Info, Path: file,
			Message: file + " has no user-scope hook of nowhook's (sessions get the reminder only where a project's own hook runs)",
			Fix:     setup()})}
	}
	budget := agentpkg.DefaultBudget
	if b, ok := diag.ScriptBudget(script); ok {
		budget = b
	}
	var hookRows []Finding
	for _, h := range s.ours {
		hookRows = append(hookRows, d.hookShape(a, s, h, s.hook(budget), budget)...)
	}
	out := []check{done(name+".hook", hookRows...)}
	// The switch of the agent's hook format that turns every hook off
	// ("disableAllHooks"), on the user file alone.
	if p.Hooks.DisableKey != "" {
		out = append(out, done(name+".disabled", disabledCheck.Run(d, a)...))
	}
	sf, _, missing := d.ownedScript(script, script, p.Title+" gets no reminder from the user-scope hook", setup)
	if missing {
		sf.Message = script + " is missing: the user-scope hook's command exits 0 without it and prints nothing, so " + p.Title + " gets no reminder from it"
		sf.Fix = setup()
	}
	out = append(out, done(name+".script", sf))
	if sf.Severity == Error {
		return out
	}
	h, ok := firstRunnable(s.ours)
	if !ok {
		return out
	}
	return append(out, done(name+".live", d.userLive(ctx, a, h, budget)))
}

// userFileProblem is the row of a user settings file that cannot be
// read, that the agent cannot parse, or that the agent's guard refuses.
func userFileProblem(p *agentpkg.Agent, f *diag.HookFile) (Finding, bool) {
	return fileProblem(p, f, p.Scope.User.Guard, nil)
}

// fileProblem is the row of a settings file outside the repository that
// cannot be read, that the agent cannot parse, that the agent's guard
// refuses, or that the agent drops whole (check: the file schema's own
// validation, Codex's hooks.json).
func fileProblem(p *agentpkg.Agent, f *diag.HookFile, guard func(string) agentpkg.Artifact, check func(any) *generate.FileError) (Finding, bool) {
	file := f.Abs // read as it is shown
	var problem *generate.FileError
	switch {
	case f.ReadErr != nil:
		msg, fix := diag.ReadProblem(file, f.ReadErr, p.Title)
		return Finding{Severity: Error, Path: file, Message: msg, Fix: fix}, true
	case f.ParseErr != nil:
		problem = f.ParseErr
	case guard != nil:
		if _, err := guard(file).Apply(f.Raw, agentpkg.Options{}); err != nil {
			errors.As(err, &problem)
		}
	}
	if problem == nil && check != nil && f.Doc != nil {
		if problem = check(f.Doc); problem != nil {
			c := *problem
			c.Path = file
			problem = &c
		}
	}
	if problem == nil {
		return Finding{}, false
	}
	msg, fix := diag.FileErrorText(problem)
	return Finding{Severity: Error, Path: file, Message: msg, Fix: fix}, true
}

// userLive runs the user-scope hook's command three ways, with a fake kbs
// that lists two issues: in a folder outside any Kanbus project (nothing,
// and no kbs), in a sub-folder of a Kanbus project (the reminder), and at
// the root of a Kanbus project that has the project's own hook (nothing,
// and no kbs: the project's hook prints it).
func (d *doctor) userLive(ctx context.Context, a *agent, h diag.Handler, budget time.Duration) Finding {
	f := Finding{Path: h.File.Show}
	tmp, err := d.scratch()
	if err != nil {
		f.Severity, f.Message = Info, "the live runs were skipped: cannot make a temporary directory: "+err.Error()
		return f
	}
	outside, sub, both, err := userFolders(filepath.Join(tmp, a.p.Name), a.p.Scope.User)
	if err != nil {
		f.Severity, f.Message = Info, "the live runs were skipped: cannot write their folders: "+err.Error()
		return f
	}
	limit := d.runLimit(budget)
	// Where the agent's managed layer runs nowhook's hook, the user-scope
	// hook steps aside in a real session and the managed one prints; a
	// run of doctor's, which carries the agent's project variable but not
	// every variable of a real session, may print or step aside: either
	// is right.
	managed := d.managedOf(a.p).runs()
	bad := d.runInFolders(ctx, a, h.Command, limit, []folderRun{
		{outside, "outside a Kanbus project", "no Kanbus project", false},
		{sub, "in a sub-folder of a Kanbus project", "", managed},
		{both, "at the root of a project with its own nowhook hook", "the project's hook prints the reminder there; without nowhook on PATH the python3 fallback does not step aside", false},
	})
	if len(bad) > 0 {
		f.Severity = Error
		f.Message = "the user-scope hook, run with a fake kbs that lists two issues: " + strings.Join(bad, "; ")
		f.Fix = d.setupFix(a.p.Name)
		return f
	}
	f.Message = "the user-scope hook, run with a fake kbs that lists two issues: outside a Kanbus project it printed nothing and started no kbs; in a sub-folder of one it printed the reminder; at the root of a project with its own nowhook hook it printed nothing, so that session gets one reminder"
	return f
}

// userFolders writes, under tmp, the folders the user-scope hook runs in:
// one outside any Kanbus project, a sub-folder of a Kanbus project, and
// the root of a Kanbus project with its own hook of nowhook's (the files
// u.Defer names).
func userFolders(tmp string, u *agentpkg.UserScope) (outside, sub, both string, err error) {
	if outside, sub, err = hookFolders(tmp); err != nil {
		return "", "", "", err
	}
	both = filepath.Join(tmp, "both")
	mk := func(path, content string, mode os.FileMode) {
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = os.WriteFile(path, []byte(content), mode)
		}
	}
	mk(filepath.Join(both, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	mk(filepath.Join(both, ".kanbus.yml"), "project_key: doctor\n", 0o644)
	mk(filepath.Join(both, filepath.FromSlash(u.Defer[0])), "#!/bin/sh\n", 0o755)
	mk(filepath.Join(both, filepath.FromSlash(u.Defer[1])), `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "`+u.Defer[0]+`"}]}]}}`+"\n", 0o644)
	return outside, sub, both, err
}

// hookFolders writes, under tmp, two folders doctor runs a hook in that
// needs no repository (the user scope's, the managed scope's): one outside
// any Kanbus project, and a sub-folder of a Kanbus project.
func hookFolders(tmp string) (outside, sub string, err error) {
	outside = filepath.Join(tmp, "outside")
	proj := filepath.Join(tmp, "project")
	sub = filepath.Join(proj, "sub", "deeper")
	for _, f := range []struct{ path, content string }{
		{filepath.Join(outside, ".git", "HEAD"), "ref: refs/heads/main\n"},
		{filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n"},
		{filepath.Join(proj, ".kanbus.yml"), "project_key: doctor\n"},
	} {
		if err = os.MkdirAll(filepath.Dir(f.path), 0o755); err == nil {
			err = os.WriteFile(f.path, []byte(f.content), 0o644)
		}
		if err != nil {
			return "", "", err
		}
	}
	return outside, sub, os.MkdirAll(sub, 0o755)
}

// folderRun is one of doctor's runs of a hook that needs no repository,
// in a folder of its own (hookFolders): want says why it should print
// nothing ("": the reminder); either: printing nothing and starting no
// kbs is right too.
type folderRun struct {
	dir, label, want string
	either           bool
}

// runInFolders runs command in each folder of runs, one at a time (the
// runs share the session id), with a fake kbs that lists two issues and
// the agent's project variable naming the folder, and says what is wrong
// with each run that is wrong.
func (d *doctor) runInFolders(ctx context.Context, a *agent, command string, limit time.Duration, runs []folderRun) []string {
	var bad []string
	for _, run := range runs {
		var env []string
		if k := a.p.Hooks.ProjectDirEnv; k != "" {
			env = append(env, k+"="+run.dir)
		}
		r, err := d.startHook(ctx, hookRun{of: a, a: a, command: command, dir: run.dir,
			payload:  compactPayload(run.dir),
			scenario: scenario{name: run.label, fake: listingKbs},
			env:      env, limit: limit})
		lr := liveRun{res: procResult{startErr: err}}
		if err == nil {
			lr = r.wait()
		}
		if problem := userRunProblem(run.label, run.want, run.either, lr, limit); problem != "" {
			bad = append(bad, problem)
		}
	}
	return bad
}

// userRunProblem says what is wrong with a run of the user-scope hook
// (label says where it ran; want why it should print nothing, "" where it
// should print the reminder; either: printing nothing and starting no kbs
// is right too), or "".
func userRunProblem(label, want string, either bool, r liveRun, limit time.Duration) string {
	res, calls := r.res, r.calls
	switch {
	case res.startErr != nil:
		return fmt.Sprintf("%s: could not run the command (%v)", label, res.startErr)
	case res.killed:
		return fmt.Sprintf("%s: still running after %s", label, limit)
	case res.exit != 0:
		return fmt.Sprintf("%s: exit %d, where it should exit 0", label, res.exit)
	case either && len(bytes.TrimSpace(res.stdout)) == 0 && calls == 0:
		return "" // stepped aside for the managed hook
	case want == "" && !bytes.Contains(res.stdout, []byte(probeIDs[0])):
		return fmt.Sprintf("%s: printed no reminder (kbs ran %s)", label, diag.Plural(calls, "time"))
	case want != "" && (len(bytes.TrimSpace(res.stdout)) > 0 || calls > 0):
		return fmt.Sprintf("%s: printed %d bytes and started kbs %s, where it should print nothing and start no kbs (%s)", label, len(res.stdout), diag.Plural(calls, "time"), want)
	}
	return ""
}
