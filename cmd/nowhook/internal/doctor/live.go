package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codexapp"
)

// The live check runs each installed hook the way its agent would: the
// entry's command through the agent's shell, in the project directory,
// with a compact SessionStart payload on stdin. It runs it with the
// user's kbs, with a kbs that fails, and with one that hangs. The fake
// kbs programs live in a temporary directory outside the repository.

// Fake Kanbus CLIs. $0.calls and $0.pids sit beside the script.
const (
	failingKbs = "#!/bin/sh\necho \"$$\" >>\"$0.calls\"\necho 'kbs: error: simulated failure (nowhook doctor)' >&2\nexit 1\n"
	hangingKbs = "#!/bin/sh\necho \"$$\" >>\"$0.calls\"\nexec sleep 120\n"
)

// scenario is one way of running a hook.
type scenario struct {
	name  string // as shown: "your kbs", "failing kbs", "hanging kbs"
	fake  string // the fake kbs script, "" for the user's own
	hangs bool   // the fake never answers: the run takes the whole budget
}

// liveRun is one run of a hook.
type liveRun struct {
	scenario scenario
	res      procResult
	calls    int   // times the fake kbs was started
	strays   []int // fake kbs processes still running after the hook exited (killed)
}

// liveJob is the live check of one installed hook.
type liveJob struct {
	a       *agent
	h       handler
	budget  time.Duration
	limit   time.Duration
	timeout string // the entry's timeout, as written
	runs    []*future[liveRun]
}

// slowResults are the checks that run programs, started together so that
// doctor takes about one hook budget overall.
type slowResults struct {
	codex        *future[codexListing]
	codexSkipped string // why codex app-server was not asked
	liveSkipped  string // why the live runs could not start, if so
	query        *future[kbsQuery]
	live         []*liveJob
}

// overallSlack bounds everything doctor runs, whatever the hooks do: the
// longest hook budget plus this (15 s in all with the default 5 s budget).
const overallSlack = 10 * time.Second

// startSlow starts the query, the live runs and codex app-server, and
// returns the function that waits for them and removes the fake kbs.
func (d *doctor) startSlow(ctx context.Context) (cleanup func()) {
	budget := d.budget()
	longest := budget
	for _, s := range agentpkg.ReminderScripts() {
		if b, ok := scriptBudget(filepath.Join(d.root, s)); ok && b > longest {
			longest = b
		}
	}
	ctx, cancel := context.WithTimeout(ctx, longest+overallSlack)
	if d.kanbus.Config != "" {
		if prog, _ := d.findKbs(); prog != "" {
			d.slow.query = start(func() kbsQuery { return d.runQuery(ctx, prog, d.queryDir(), budget) })
		}
	}
	// codex app-server writes its state under CODEX_HOME: ask it only
	// where codex has been run before.
	codexHome, _ := d.expand("${CODEX_HOME:-~/.codex}")
	if a := d.agent("codex"); a != nil && a.present() && d.hasOurs(a) {
		bin, err := codexapp.Find(d.env)
		switch {
		case err != nil:
			d.slow.codexSkipped = "codex is not on PATH"
		case !exists(codexHome):
			d.slow.codexSkipped = "codex has not been run here (" + codexHome + " does not exist)"
		default:
			d.slow.codex = start(func() codexListing { return d.listCodex(ctx, bin) })
		}
	}
	tmp := ""
	for _, a := range d.agents {
		if !a.present() || a.p.Hooks.Shell == "" {
			continue
		}
		for _, s := range a.specs {
			if s.mode != agentpkg.Reinject {
				continue
			}
			h, ok := firstRunnable(s.ours)
			if !ok {
				continue
			}
			if tmp == "" {
				var err error
				if tmp, err = os.MkdirTemp("", "nowhook-doctor-"); err != nil {
					tmp = ""
					d.slow.liveSkipped = "cannot make a temporary directory for the fake kbs: " + err.Error()
					continue
				}
			}
			job := &liveJob{a: a, h: h, budget: budget}
			if b, ok := scriptBudget(filepath.Join(d.root, s.script)); ok {
				job.budget = b
			}
			job.limit = d.limit
			if job.limit == 0 {
				// The hanging-kbs run takes the whole budget: wait for it.
				job.limit = job.budget + 2*time.Second
			}
			if t, ok := h.obj["timeout"].(json.Number); ok {
				job.timeout = t.String()
			}
			for _, sc := range []scenario{{name: "your kbs"}, {name: "failing kbs", fake: failingKbs}, {name: "hanging kbs", fake: hangingKbs, hangs: true}} {
				fake := ""
				if sc.fake != "" {
					dir := filepath.Join(tmp, a.p.Name+"-"+strings.Fields(sc.name)[0])
					fake = filepath.Join(dir, "kbs")
					if os.Mkdir(dir, 0o700) != nil || os.WriteFile(fake, []byte(sc.fake), 0o700) != nil {
						continue
					}
				}
				sc := sc
				job.runs = append(job.runs, start(func() liveRun { return d.runHook(ctx, job, sc, fake) }))
			}
			d.slow.live = append(d.slow.live, job)
		}
	}
	return func() {
		for _, j := range d.slow.live {
			for _, r := range j.runs {
				r.wait()
			}
		}
		if d.slow.query != nil {
			d.slow.query.wait()
		}
		if d.slow.codex != nil {
			d.slow.codex.wait()
		}
		cancel()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
}

func (d *doctor) hasOurs(a *agent) bool {
	for _, s := range a.specs {
		if len(s.ours) > 0 {
			return true
		}
	}
	return false
}

// firstRunnable picks the handler to run: a well-wrapped one, in the
// repository's own file if there is one.
func firstRunnable(ours []handler) (handler, bool) {
	var pick *handler
	for i := range ours {
		h := &ours[i]
		if !h.wrapped || h.command == "" {
			continue
		}
		if pick == nil || (pick.file.user && !h.file.user) {
			pick = h
		}
	}
	if pick == nil {
		return handler{}, false
	}
	return *pick, true
}

func (d *doctor) listCodex(ctx context.Context, bin string) codexListing {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, err := codexapp.CanonicalRoot(d.root)
	if err != nil {
		return codexListing{err: err}
	}
	c, err := codexapp.Start(ctx, codexapp.Options{Codex: bin, Env: d.env, Dir: root, ClientVersion: "doctor"})
	if err != nil {
		return codexListing{err: err}
	}
	defer c.Close()
	l, err := c.List(ctx, root)
	return codexListing{listing: l, userAgent: c.UserAgent, err: err}
}

// hookEnv is the environment a hook gets from its agent, with KBS set to
// fake when it is not empty.
func (d *doctor) hookEnv(a *agent, fake string) []string {
	drop := map[string]bool{"NOWHOOK_DEBUG": true}
	if fake != "" {
		drop["KBS"] = true
	}
	if a.p.Hooks.ProjectDirEnv != "" {
		drop[a.p.Hooks.ProjectDirEnv] = true
	}
	var env []string
	for _, kv := range d.env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	if a.p.Hooks.ProjectDirEnv != "" {
		env = append(env, a.p.Hooks.ProjectDirEnv+"="+d.root)
	}
	if fake != "" {
		env = append(env, "KBS="+fake)
	}
	return env
}

func (d *doctor) runHook(ctx context.Context, job *liveJob, sc scenario, fake string) liveRun {
	payload, _ := json.Marshal(map[string]string{
		"session_id":      "nowhook-doctor",
		"transcript_path": "",
		"cwd":             d.root,
		"hook_event_name": "SessionStart",
		"source":          "compact",
	})
	r := liveRun{scenario: sc}
	r.res = runProc(ctx, proc{
		argv:  []string{job.a.p.Hooks.Shell, "-c", job.h.command},
		dir:   d.root,
		env:   d.hookEnv(job.a, fake),
		stdin: append(payload, '\n'),
		limit: job.limit,
	})
	if fake != "" {
		pids := readPids(fake + ".calls")
		r.calls = len(pids)
		r.strays = killStrays(pids)
	}
	return r
}

func readPids(path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killStrays waits a moment for the fake kbs processes to end, then kills
// and returns those still running.
func killStrays(pids []int) []int {
	deadline := time.Now().Add(500 * time.Millisecond)
	var alive []int
	for {
		alive = alive[:0]
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range alive {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return append([]int(nil), alive...)
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			return b[i+2] != 'Z' && b[i+2] != 'X'
		}
		return true
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		return false // /proc works and the process is gone
	}
	return syscall.Kill(pid, 0) == nil
}

// liveCheck reports each live run: exit status and time, and what the
// hook printed.
var liveCheck = check{"live", func(d *doctor, _ *agent) []Finding {
	var out []Finding
	var items = -1
	if d.slow.query != nil {
		items = d.slow.query.wait().items()
	}
	if d.slow.liveSkipped != "" {
		out = append(out, Finding{Check: "live", Severity: Warn,
			Message: "did not run the installed hooks: " + d.slow.liveSkipped,
			Fix:     "point TMPDIR at a writable directory, then run nowhook doctor again"})
	}
	for _, job := range d.slow.live {
		f := Finding{Check: "live." + job.a.p.Name, Agent: job.a.p.Name, Path: job.h.file.show}
		var parts []string
		worst := OK
		debug := false
		var names []string
		last := ""
		for i, fu := range job.runs {
			r := fu.wait()
			sev, text, wantDebug := d.judge(job, r, items)
			worst = max(worst, sev)
			debug = debug || wantDebug
			// Runs that failed the same way (without a time) share one part.
			if i > 0 && (text != last || strings.Contains(text, " in ")) {
				parts = append(parts, strings.Join(names, ", ")+": "+last)
				names = nil
			}
			names, last = append(names, r.scenario.name), text
		}
		if len(names) > 0 {
			parts = append(parts, strings.Join(names, ", ")+": "+last)
		}
		f.Severity = worst
		f.Message = fmt.Sprintf("ran %s's compact hook (%s -c, compact SessionStart payload): %s", job.a.p.Title, job.a.p.Hooks.Shell, strings.Join(parts, "; "))
		switch {
		case worst == Error:
			f.Fix = d.setupFix(job.a.p.Name, "--force")
		case debug && worst > OK:
			f.Fix = fmt.Sprintf(`echo '{"source":"compact"}' | NOWHOOK_DEBUG=1 %s`, d.showFix(filepath.Join(d.root, scriptFor(job))))
		case worst > Info:
			f.Fix = d.setupFix(job.a.p.Name, "--force")
		}
		out = append(out, f)
	}
	return out
}}

func scriptFor(job *liveJob) string {
	for _, s := range job.a.specs {
		for _, h := range s.ours {
			if h.file == job.h.file && h.at == job.h.at {
				return s.script
			}
		}
	}
	return ""
}

// judge rates one run and describes it (without the scenario's name).
// wantDebug asks for the NOWHOOK_DEBUG fix.
func (d *doctor) judge(job *liveJob, r liveRun, items int) (sev Severity, text string, wantDebug bool) {
	res := r.res
	agentLimit := ""
	if job.timeout != "" {
		agentLimit = " (" + job.a.p.Title + " cancels it at " + job.timeout + "s and injects nothing)"
	}
	switch {
	case res.startErr != nil:
		return Error, fmt.Sprintf("cannot start %s: %v", job.a.p.Hooks.Shell, res.startErr), false
	case res.killed:
		return Error, fmt.Sprintf("still running after %s, stopped by doctor; the wrapper should give up after its %s budget%s", round(job.limit), job.budget, agentLimit), false
	case res.exit == 126 || res.exit == 127:
		return Error, fmt.Sprintf("exit %d, %s gets no reminder (%s)", res.exit, job.a.p.Title, firstLine(res.stderr)), false
	}
	var notes []string
	sev = OK
	text = fmt.Sprintf("exit %d in %s", res.exit, round(res.elapsed))
	if r.scenario.hangs {
		text += fmt.Sprintf(" (budget %s)", job.budget)
	}
	if res.exit != 0 {
		sev = Error
		notes = append(notes, fmt.Sprintf("a hook that exits non-zero has its output dropped (%s)", firstLine(res.stderr)))
	}
	if res.elapsed > job.budget+time.Second {
		sev = max(sev, Warn)
		notes = append(notes, fmt.Sprintf("slower than its %s budget", job.budget))
	}
	if res.leftover {
		sev = Error
		notes = append(notes, "left processes running after it exited (killed)")
	}
	if res.heldOutput && !res.leftover && !res.killed {
		sev = Error
		notes = append(notes, "left a process outside its process group holding its output open after it exited: the agent waits for that process")
	}
	if len(r.strays) > 0 {
		sev = Error
		notes = append(notes, fmt.Sprintf("left kbs running after it exited (pid %v, killed)", r.strays))
	}
	out := bytes.TrimSpace(res.stdout)
	lines := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "- [") {
			lines++
		}
	}
	switch {
	case len(out) == 0:
		notes = append(notes, "printed nothing")
		if r.scenario.fake == "" && items > 0 && res.exit == 0 {
			sev = max(sev, Warn)
			notes[len(notes)-1] += fmt.Sprintf(" although kbs lists %s", plural(items, "item"))
			wantDebug = true
		}
	case (out[0] == '{' || out[0] == '[') && job.a.p.Hooks.JSONOutput:
		sev = Error
		notes = append(notes, "printed output that begins with "+string(out[0])+", which "+job.a.p.Title+" parses as JSON and drops")
	case len(out) >= 10000:
		sev = max(sev, Warn)
		notes = append(notes, fmt.Sprintf("printed %d bytes; Claude Code replaces 10,000 characters or more with a preview", len(out)))
	case lines > 0:
		notes = append(notes, "printed the reminder ("+plural(lines, "item")+")")
	default:
		notes = append(notes, fmt.Sprintf("printed %d bytes", len(out)))
	}
	if r.scenario.fake != "" && res.exit == 0 {
		switch {
		case r.calls == 0 && d.kanbus.Config == "":
			notes = append(notes, "kbs not called: no .kanbus.yml")
		case r.calls == 0:
			notes = append(notes, "kbs not called")
		case r.calls > 1:
			notes = append(notes, fmt.Sprintf("kbs called %d times (the --raw retry)", r.calls))
		}
	}
	return sev, text + ", " + strings.Join(notes, ", "), wantDebug
}

// runtimeCheck: the wrappers exec nowhook-reminder, else `nowhook
// reminder`; without either on PATH they fall back to python3, and without
// that they print nothing.
var runtimeCheck = check{"runtime", func(d *doctor, _ *agent) []Finding {
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
	f := Finding{Check: "runtime"}
	lean, hasLean := lookPath(d.env, "nowhook-reminder")
	nowhook, hasNowhook := lookPath(d.env, "nowhook")
	_, hasPython := lookPath(d.env, "python3")
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
}}
