package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The live check runs each installed hook the way its agent would: the
// entry's command through the agent's shell, in the project directory,
// with a compact SessionStart payload on stdin whose cwd is the session
// directory doctor stands for (the working directory, inside the
// repository: in a monorepo, a sub-project's). It runs it with the
// user's kbs, with a kbs that fails, and with one that hangs. The fake
// kbs programs live in a temporary directory outside the repository; each
// is both $KBS and the first kbs and kanbus on PATH, so that a script
// that ignores $KBS (a hand-copied one that runs `kbs now` itself) meets
// it too. A probe that never reached the fake proves nothing, and is
// never called ok.

// Fake Kanbus CLIs, as fmt formats: %[1]s is the file that records the
// pid of every call.
const (
	failingKbs = "#!/bin/sh\necho \"$$\" >>%[1]s\necho 'kbs: error: simulated failure (nowhook doctor)' >&2\nexit 1\n"
	hangingKbs = "#!/bin/sh\necho \"$$\" >>%[1]s\nexec sleep 120\n"
)

// liveJob is the live check of one installed hook.
type liveJob struct {
	a      *agent
	h      diag.Handler
	budget time.Duration
	// ownBudget: the script states its budget (nowhook's wrappers do);
	// otherwise budget is the other wrappers' or the default.
	ownBudget bool
	limit     time.Duration
	timeout   string // the entry's timeout, as written
	// probe is the short budget of doctor's quick runs of nowhook's own
	// wrapper (NOWHOOK_PROBE_BUDGET), 0 under --live: the runs then prove
	// that the wrapper gives up on a hanging kbs, and the file checks that
	// it is nowhook's, unchanged, with budget.
	probe time.Duration
	// managed: the agent's managed layer runs nowhook's hook, so in a
	// real session this hook steps aside and prints nothing (the runtime
	// tells its client by the session's variables, which a run of
	// doctor's may or may not carry).
	managed bool
	// notRun says why the hook was not run (a script that is not
	// nowhook's, outside --live; a matcher that never selects compact).
	// Its runs are d.ranFor(job).
	notRun string
}

// liveScenarios are the three live runs of a compact hook.
var liveScenarios = []scenario{{name: "your kbs"}, {name: "failing kbs", fake: failingKbs}, {name: "hanging kbs", fake: hangingKbs, hangs: true}}

// effective is the budget the job's runs give kbs.
func (j *liveJob) effective() time.Duration {
	if j.probe > 0 {
		return j.probe
	}
	return j.budget
}

// probeBudget is the budget doctor's quick live runs give kbs, through
// the hook runtime's NOWHOOK_PROBE_BUDGET, in nowhook's own wrappers; it
// also bounds doctor's own kbs query outside --live. With it the whole
// doctor run takes under a second even when kbs hangs.
const probeBudget = 500 * time.Millisecond

// QuickWaitEnv names a longer quick wait for doctor's own kbs query
// outside --live (a Go duration). The verdict on what kbs answers must
// not depend on how busy the machine is: the testscript scenarios set it,
// so that a fake kbs that answers is judged on its answer, never on
// whether it was started within 500ms on a loaded machine.
const QuickWaitEnv = "NOWHOOK_DOCTOR_QUICK_WAIT"

// quickWait is how long doctor waits for its kbs query outside --live.
func (d *doctor) quickWait() time.Duration {
	if w, err := time.ParseDuration(osutil.Getenv(d.env, QuickWaitEnv)); err == nil && w > 0 {
		return w
	}
	return probeBudget
}

// slowResults are the checks that run programs, started together so that
// doctor takes about one hook budget overall. (The checks that start a
// program for one agent, the checkpoint's live runs and an agent's own
// checks with a Start, are starters; waits waits for what they started.)
type slowResults struct {
	liveSkipped string // why the live runs could not start, if so
	query       *future[kbsQuery]
	live        []*liveJob
	// runs are the hook runs started (hookrun.go), each with what it is
	// for; fakes counts the fake kbs written for them.
	runs  []*ran
	fakes int
	// tmp is the temporary directory of the fake kbs programs (and the
	// checkpoint's synthetic transcripts and state), made on first use
	// and removed when everything started has ended; tmpErr says why it
	// could not be made.
	tmp    string
	tmpErr error
	// waits wait for what the starters started.
	waits []func()
}

// Doctor's margins for a process starting and ending on this machine.
// They are variables so that this package's tests can widen them: their
// verdicts must not turn on how busy the rest of the suite keeps the
// machine (on 2 cores with both kept busy, a python3 fallback that called
// no kbs took 1.5 s, and was noted slower than its 500ms probe budget).
var (
	// slowSlack: a run longer than its budget by more than this is noted
	// slower than its budget.
	slowSlack = time.Second
	// strayWait: how long the fake kbs processes of a run that exited may
	// take to end before they count as left running.
	strayWait = 500 * time.Millisecond
	// nearProbe: a kbs that took more than this share of the probe budget
	// to answer doctor's query is too close to it to count its items
	// against a quick run (queryItems).
	nearProbe = 0.5
)

// WidenMarginsForTests widens slowSlack and strayWait for a test binary
// whose runs share a machine that the rest of the suite keeps busy (this
// package's tests, cmd/nowhook's scenarios); nothing else calls it.
func WidenMarginsForTests() { slowSlack, strayWait, nearProbe = time.Minute, 5*time.Second, 1 }

// overallSlack bounds everything doctor runs, whatever the hooks do: the
// longest hook budget plus this (15 s in all with the default 5 s budget).
const overallSlack = 10 * time.Second

// startSlow starts the query, the live runs and every starter of the
// agents present (Codex's app-server listing among them), and returns the
// function that waits for them and removes the fake kbs.
func (d *doctor) startSlow(ctx context.Context) (cleanup func()) {
	budget := d.budget()
	longest := budget
	for _, s := range agentpkg.ReminderScripts() {
		if b, ok := diag.ScriptBudget(filepath.Join(d.root, s)); ok && b > longest {
			longest = b
		}
	}
	ctx, cancel := context.WithTimeout(ctx, longest+overallSlack)
	d.startQuery(ctx, budget)
	for _, a := range d.present() {
		for _, c := range agentChecks(a.p) {
			if st, ok := c.(starter); ok {
				st.Start(ctx, d, a)
			}
		}
	}
	for _, a := range d.agents {
		if !a.present() || a.p.Hooks.Shell == "" {
			continue
		}
		for _, s := range a.specs {
			if s.mode == agentpkg.Reinject {
				d.startLive(ctx, a, s, budget)
			}
		}
	}
	return func() {
		d.endSlow()
		cancel()
	}
}

// startQuery starts doctor's own kbs query, where there is a Kanbus
// project and a kbs: bounded by the probe budget outside --live.
func (d *doctor) startQuery(ctx context.Context, budget time.Duration) {
	if d.kanbus.Config == "" {
		return
	}
	prog, _ := d.findKbs()
	if prog == "" {
		return
	}
	limit := budget
	if !d.live {
		limit = min(budget, d.quickWait())
	}
	d.slow.query = start(func() kbsQuery { return d.runQuery(ctx, prog, d.queryDir(), budget, limit) })
}

// startLive adds the live job of the re-inject entry s of agent a, and
// starts its runs unless it is not run.
func (d *doctor) startLive(ctx context.Context, a *agent, s *ourSpec, budget time.Duration) {
	h, ok := firstRunnable(s.ours)
	if !ok {
		return
	}
	job := &liveJob{a: a, h: h, budget: budget, managed: d.managedOf(a.p).runs()}
	if b, ok := diag.ScriptBudget(filepath.Join(d.root, s.script)); ok {
		job.budget, job.ownBudget = b, true
	}
	if t, ok := h.Obj["timeout"].(json.Number); ok {
		job.timeout = t.String()
	}
	if job.notRun = d.notRun(a, s, h); job.notRun != "" {
		d.slow.live = append(d.slow.live, job)
		return
	}
	if !d.live && d.goRuntime() {
		// The python3 fallback can spend the probe budget starting on a
		// busy machine: its runs get the wrapper's own budget (the
		// runtime row warns of the fallback).
		job.probe = probeBudget
	}
	// The hanging-kbs run takes the whole budget: wait for it.
	job.limit = d.runLimit(job.effective())
	if _, err := d.scratch(); err != nil {
		d.slow.liveSkipped = "cannot make a temporary directory for the fake kbs: " + err.Error()
		return
	}
	d.slow.live = append(d.slow.live, job)
	for _, sc := range liveScenarios {
		// A fake kbs that cannot be written leaves its run out.
		d.startHook(ctx, hookRun{of: job, a: a, command: h.Command, dir: d.root,
			payload: compactPayload(d.from), scenario: sc, probe: job.probe, limit: job.limit})
	}
}

// goRuntime reports whether the wrappers run the Go hook runtime
// (nowhook-reminder or nowhook on PATH), which takes the probe budget in
// a few milliseconds, rather than their python3 fallback.
func (d *doctor) goRuntime() bool {
	if _, ok := osutil.LookPath(d.env, "nowhook-reminder"); ok {
		return true
	}
	_, ok := osutil.LookPath(d.env, "nowhook")
	return ok
}

// notRun says why doctor does not run the hook h of spec s, or "". A
// hook whose group's matcher never selects compact is not run: the agent
// would not run it after a compaction either (the hook row says why).
// Outside --live only nowhook's own wrapper is run, whose budget the
// quick runs can prove, and a missing script, whose command fails at once
// (the script row says what that means); any other script waits out its
// own budget, or none, with a hanging kbs.
func (d *doctor) notRun(a *agent, s *ourSpec, h diag.Handler) string {
	if a.p.Hooks.Layout == agentpkg.LayoutGrouped && (h.BadMatch || !matchMatcher(h.Matcher, "compact").matches) {
		return fmt.Sprintf("not run: %s does not run this hook after a compaction (%s.hook says why)", a.p.Title, a.p.Name)
	}
	if d.quickRuns(s.script) {
		return ""
	}
	return fmt.Sprintf("not run: %s is not nowhook's wrapper (%s.script says whose it is), so a quick run cannot prove its budget; nowhook doctor --live runs it with your kbs, a failing one and a hanging one", s.script, a.p.Name)
}

// firstRunnable picks the handler to run: a well-wrapped one, in the
// repository's own file if there is one.
func firstRunnable(ours []diag.Handler) (diag.Handler, bool) {
	var pick *diag.Handler
	for i := range ours {
		h := &ours[i]
		if !h.Wrapped || h.Command == "" {
			continue
		}
		if pick == nil || (pick.File.User && !h.File.User) {
			pick = h
		}
	}
	if pick == nil {
		return diag.Handler{}, false
	}
	return *pick, true
}

// liveCheck reports each live run of an agent's hook: exit status and
// time, and what the hook printed. Run for no agent, it says why no hook
// could be run at all.
var liveCheck = eachAgent{checkFunc{"live", func(d *doctor, a *agent) []Finding {
	if a == nil {
		if d.slow.liveSkipped == "" {
			return nil
		}
		return []Finding{{Severity: Warn,
			Message: "did not run the installed hooks: " + d.slow.liveSkipped,
			Fix:     "point TMPDIR at a writable directory, then run nowhook doctor again"}}
	}
	var out []Finding
	for _, job := range d.slow.live {
		if job.a == a {
			out = append(out, d.liveFinding(job, d.queryItems(job)))
		}
	}
	return out
}}}

// queryItems is the number of items the job's run with the user's kbs
// should print, from doctor's own query: -1 when unknown. Under the quick
// runs' probe budget the hook has no second left to retry with --raw, and
// a kbs that took more than half that budget to answer doctor is too
// close to it to call a run that printed nothing wrong: -1 then too.
func (d *doctor) queryItems(job *liveJob) int {
	if d.slow.query == nil {
		return -1
	}
	q := d.slow.query.wait()
	if job.probe > 0 && (q.raw != nil || q.first.elapsed > time.Duration(float64(job.probe)*nearProbe)) {
		return -1
	}
	return q.items()
}

// liveFinding is the row of one hook's live runs.
func (d *doctor) liveFinding(job *liveJob, items int) Finding {
	if job.notRun != "" {
		f := Finding{Severity: Info, Path: job.h.File.Show, Message: job.notRun}
		if !strings.Contains(job.notRun, ".hook says why") {
			f.Fix = "nowhook doctor --live" + d.dirFlag
		}
		return f
	}
	all, parts := d.judgeRuns(job, items)
	script := scriptFor(job)
	state, _ := generate.InspectScript(d.readScript(script))
	how := "compact SessionStart payload"
	if job.probe > 0 {
		how += ", probe budget " + job.probe.String()
	}
	f := Finding{Path: job.h.File.Show, Severity: all.sev,
		Message: fmt.Sprintf("ran %s's compact hook (%s -c, %s): %s", job.a.p.Title, job.a.p.Hooks.Shell, how, strings.Join(parts, "; "))}
	// A script that is not nowhook's: say what the probes showed it
	// lacks, and offer nowhook's wrapper. Ours: NOWHOOK_DEBUG shows why it
	// printed nothing or never called kbs.
	// A missing script is the script check's to report, with its fix.
	theirs := state != generate.ScriptOurs && state != generate.ScriptAbsent
	yoursToFix := theirs && all.lacks.any()
	if yoursToFix {
		f.Message += "; " + all.lacks.say(script, state)
	}
	all.debug = all.debug || (state == generate.ScriptOurs && len(all.lacks.missedKbs) > 0)
	d.liveFix(&f, job, script, theirs, yoursToFix, all)
	return f
}

// judgeRuns rates a job's runs together: all is the worst of them, with
// what they showed the script lacks and whether NOWHOOK_DEBUG or doctor
// --live would tell more; parts describe them, runs that failed the same
// way (without a time) in one part.
func (d *doctor) judgeRuns(job *liveJob, items int) (all verdict, parts []string) {
	started := d.ranFor(job)
	runs := make([]liveRun, len(started))
	var yours *liveRun
	for i, r := range started {
		runs[i] = r.wait()
		if runs[i].scenario.fake == "" {
			yours = &runs[i]
		}
	}
	var names []string
	last := ""
	for i, r := range runs {
		v := d.judge(job, r, yours, items)
		all.sev = max(all.sev, v.sev)
		all.lacks = all.lacks.or(v.lacks)
		all.debug = all.debug || v.debug
		all.recheck = all.recheck || v.recheck
		if i > 0 && (v.text != last || strings.Contains(v.text, " in ")) {
			parts = append(parts, strings.Join(names, ", ")+": "+last)
			names = nil
		}
		names, last = append(names, r.scenario.name), v.text
	}
	if len(names) > 0 {
		parts = append(parts, strings.Join(names, ", ")+": "+last)
	}
	return all, parts
}

// liveFix gives the live row f its one fix. One problem, one fix: a
// script that is missing, not a file or not executable is the script
// row's to fix; nowhook's own wrapper, with its file in order, a plain
// setup rewrites; only a script of the user's (theirs) needs --force. The
// command is spelled as the script and hook rows spell it (the live runs
// are re-inject's).
func (d *doctor) liveFix(f *Finding, job *liveJob, script string, theirs, yoursToFix bool, all verdict) {
	arg := job.a.p.Name + "=" + string(agentpkg.Reinject)
	setup := d.setupFix(arg)
	if theirs {
		setup = d.setupFix(arg, "--force")
	}
	switch {
	case d.scriptFileBroken(script):
		// The command passes a missing script by, silent (template v4), so
		// its runs look like a hook with nothing to say: never ok.
		f.Severity = max(f.Severity, Warn)
		f.Message += fmt.Sprintf("; %s.script names the cause and its fix", job.a.p.Name)
	case f.Severity == Error:
		f.Fix = setup
	case all.debug && f.Severity > OK && !all.recheck:
		f.Fix = fmt.Sprintf(`echo '{"source":"compact"}' | NOWHOOK_DEBUG=1 %s`, d.showFix(filepath.Join(d.root, script)))
	case all.recheck:
		f.Fix = "nowhook doctor --live" + d.dirFlag
	case yoursToFix, f.Severity > Info:
		f.Fix = setup
	}
}

// scriptFileBroken reports whether the repository's script rel is
// missing, not a regular file or not executable: what the script row
// reports, with its fix.
func (d *doctor) scriptFileBroken(rel string) bool {
	if rel == "" {
		return false
	}
	info, err := os.Stat(filepath.Join(d.root, filepath.FromSlash(rel)))
	return err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0
}

// withoutScript says what the hook does while its script is missing, as
// the live run with the user's kbs showed it: a command that runs the
// script fails (exit 127); one that looks for it first (Codex's walks up
// from the session's directory) exits 0 and prints nothing.
func (d *doctor) withoutScript(a *agent, script string) string {
	var yours *liveRun
	for _, job := range d.slow.live {
		if job.a != a || scriptFor(job) != script {
			continue
		}
		for _, started := range d.ranFor(job) {
			if r := started.wait(); r.scenario.fake == "" {
				yours = &r
			}
		}
	}
	switch {
	case yours == nil || yours.res.startErr != nil || yours.res.killed:
		return fmt.Sprintf("the hook cannot run it, so %s gets no reminder", a.p.Title)
	case yours.res.exit != 0:
		return fmt.Sprintf("the hook fails (exit %d) and %s gets no reminder", yours.res.exit, a.p.Title)
	case len(bytes.TrimSpace(yours.res.stdout)) == 0:
		return fmt.Sprintf("the hook's command exits 0 without it and prints nothing, so %s gets no reminder", a.p.Title)
	}
	return fmt.Sprintf("the hook's command exits 0 without it and printed %d bytes from elsewhere (see live.%s)", len(yours.res.stdout), a.p.Name)
}

// readScript reads a script of the repository; nil when it cannot.
func (d *doctor) readScript(rel string) []byte {
	if rel == "" {
		return nil
	}
	b, _ := diag.ReadBounded(filepath.Join(d.root, filepath.FromSlash(rel)))
	return b
}

func scriptFor(job *liveJob) string {
	for _, s := range job.a.specs {
		for _, h := range s.ours {
			if h.File == job.h.File && h.At == job.h.At {
				return s.script
			}
		}
	}
	return ""
}

// runtimeCheck: the wrappers exec nowhook-reminder, else `nowhook
// reminder`; without either on PATH they fall back to python3, and without
// that they print nothing.
var runtimeCheck = eachAgent{checkFunc{"runtime", func(d *doctor, a *agent) []Finding {
	if a != nil {
		return d.runtimeOf(a)
	}
	installed := false
	for _, a := range d.agents {
		for _, s := range a.specs {
			if s.mode == agentpkg.Reinject && exists(filepath.Join(d.root, s.script)) {
				installed = true
			}
		}
	}
	if !installed {
		return nil
	}
	var f Finding
	lean, hasLean := osutil.LookPath(d.env, "nowhook-reminder")
	nowhook, hasNowhook := osutil.LookPath(d.env, "nowhook")
	_, hasPython := osutil.LookPath(d.env, "python3")
	fallback := "python3 is on PATH for teammates without nowhook (the fallback has fewer protections)"
	if !hasPython {
		fallback = "teammates without nowhook get nothing: python3, the fallback, is not on PATH either"
	}
	switch {
	case hasLean:
		f.Message = "nowhook-reminder on PATH (" + lean + "): the wrappers run it; " + fallback
		if !hasPython {
			f.Severity = Info
		}
	case hasNowhook:
		f.Message = "nowhook on PATH (" + nowhook + "): the wrappers run `nowhook reminder`; " + fallback
		if !hasPython {
			f.Severity = Info
		}
	case hasPython:
		f.Severity = Warn
		f.Message = "neither nowhook-reminder nor nowhook is on PATH: the wrappers use their python3 fallback, which has fewer protections"
		f.Fix = "install nowhook (./install.sh in a nowhook checkout) and put it on PATH"
	default:
		f.Severity = Error
		f.Message = "neither nowhook-reminder, nowhook nor python3 is on PATH: the wrappers print nothing"
		f.Fix = "install nowhook (./install.sh in a nowhook checkout) and put it on PATH"
	}
	return []Finding{f}
}}}

// runtimeOf is the agent's runtime row: an error where a re-inject
// script of nowhook's that has no python3 fallback (Gemini CLI's
// BeforeModel hook, which runs before every request) is installed and
// neither nowhook-reminder nor nowhook is on PATH: that agent gets no
// reminder at all, whatever the shared runtime row says of the others.
func (d *doctor) runtimeOf(a *agent) []Finding {
	if d.goRuntime() {
		return nil
	}
	for _, s := range a.specs {
		if s.mode != agentpkg.Reinject || s.script == "" {
			continue
		}
		b := d.readScript(s.script)
		if state, _ := generate.InspectScript(b); state != generate.ScriptOurs || bytes.Contains(b, []byte("command -v python3")) {
			continue
		}
		return []Finding{{Severity: Error, Path: s.script,
			Message: fmt.Sprintf("neither nowhook-reminder nor nowhook is on PATH, and %s has no python3 fallback: it prints nothing, so %s gets no reminder after a compaction", s.script, a.p.Title),
			Fix:     "install nowhook (./install.sh in a nowhook checkout) and put it on the PATH " + a.p.Title + " runs with"}}
	}
	return nil
}
