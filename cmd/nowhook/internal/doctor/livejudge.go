package doctor

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// How the compact hook's live runs are judged: each run's verdict
// (judge), and what the probes showed a script lacks.

// lacking is what the failing and hanging probes showed a script lacks,
// each with the probes that showed it.
type lacking struct {
	budget    []string // it waited for a hanging kbs until doctor stopped it
	softFail  []string // it exited non-zero when kbs failed or hung
	missedKbs []string // the fake kbs was never called
}

func (l lacking) or(m lacking) lacking {
	return lacking{
		budget:    append(l.budget, m.budget...),
		softFail:  append(l.softFail, m.softFail...),
		missedKbs: append(l.missedKbs, m.missedKbs...),
	}
}

func (l lacking) any() bool {
	return len(l.budget)+len(l.softFail)+len(l.missedKbs) > 0
}

// say tells, for a script that is not nowhook's own, what the probes
// showed it lacks.
func (l lacking) say(script string, state generate.ScriptState) string {
	var whose string
	switch state {
	case generate.ScriptModified:
		whose = script + " was changed by hand since nowhook wrote it"
	case generate.ScriptKanbus:
		whose = script + " is Kanbus's example wrapper, copied unchanged"
	case generate.ScriptKanbusLike:
		whose = script + " is a hand-made Kanbus compaction wrapper, not nowhook's, so setup leaves it alone"
	default:
		whose = script + " is yours, not nowhook's wrapper"
	}
	var what []string
	if len(l.budget) > 0 {
		what = append(what, "no budget for kbs ("+theRuns(l.budget)+" waited for kbs until doctor stopped "+them(l.budget)+")")
	}
	if len(l.softFail) > 0 {
		what = append(what, "no soft fail ("+theRuns(l.softFail)+" exited non-zero)")
	}
	s := whose
	if len(what) > 0 {
		s += ": it has " + strings.Join(what, " and ")
	}
	if len(l.missedKbs) > 0 {
		sep := ": "
		if len(what) > 0 {
			sep = ", and "
		}
		s += sep + theRuns(l.missedKbs) + " never reached kbs (doctor puts its fake first on PATH and in KBS), so doctor cannot tell what it does when kbs fails or hangs"
	}
	return s
}

// theRuns names the runs of scenarios: "the failing kbs run", "the
// failing kbs and hanging kbs runs".
func theRuns(names []string) string {
	if len(names) == 1 {
		return "the " + names[0] + " run"
	}
	return "the " + strings.Join(names, " and ") + " runs"
}

func them(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}

// verdict is how one run went.
type verdict struct {
	sev   Severity
	text  string // the run, described without the scenario's name
	lacks lacking
	debug bool // NOWHOOK_DEBUG would show why it printed nothing
	// recheck: a quick run under the probe budget could not tell; doctor
	// --live, with the wrapper's own budget, can.
	recheck bool
	notes   []string // what the run did, for text
}

// judge rates one run and describes it. yours is the run with the user's
// kbs, to tell a probe's result from the hook's own.
func (d *doctor) judge(job *liveJob, r liveRun, yours *liveRun, items int) verdict {
	if v, stopped := judgeStopped(job, r, yours); stopped {
		return v
	}
	res := r.res
	v := verdict{text: fmt.Sprintf("exit %d in %s", res.exit, round(res.elapsed))}
	switch {
	case r.scenario.hangs && job.probe > 0 && job.ownBudget:
		v.text += fmt.Sprintf(" (probe budget %s; the wrapper's own is %s)", job.probe, job.budget)
	case r.scenario.hangs && job.ownBudget:
		v.text += fmt.Sprintf(" (budget %s)", job.budget)
	}
	v.judgeExit(r, yours)
	v.judgeProcesses(job, r)
	v.judgeOutput(job, r, items)
	switch {
	case r.scenario.fake == "" || res.exit != 0:
	case !d.kanbusSource(job.a):
		v.note(OK, "kbs not called: kanbus is not among the reminder's sources")
	default:
		v.judgeCalls(job, r, d.kanbus.Config != "")
	}
	v.text += ", " + strings.Join(v.notes, ", ")
	return v
}

// note adds what the run did to the verdict, which is then at least as
// bad as sev.
func (v *verdict) note(sev Severity, text string) {
	v.sev = max(v.sev, sev)
	v.notes = append(v.notes, text)
}

// judgeStopped rates a run that could not start, was stopped, or whose
// command could not run its script: nothing else about it counts.
func judgeStopped(job *liveJob, r liveRun, yours *liveRun) (v verdict, stopped bool) {
	res := r.res
	agentLimit := ""
	if job.timeout != "" {
		agentLimit = " (" + job.a.p.Title + " cancels it at " + job.timeout + "s and injects nothing)"
	}
	switch {
	case res.startErr != nil:
		v.sev, v.text = Error, fmt.Sprintf("cannot start %s: %v", job.a.p.Hooks.Shell, res.startErr)
	case res.killed && job.probe > 0:
		v.sev, v.recheck = Warn, true
		v.text = fmt.Sprintf("still running after %s, stopped by doctor: the hook runtime did not take the %s probe budget (%s; is the nowhook-reminder on PATH older than this nowhook?), so this quick run cannot tell whether it keeps its own %s", round(job.limit), job.probe, reminder.ProbeBudgetEnv, job.budget)
	case res.killed:
		v.sev, v.text = Error, fmt.Sprintf("still running after %s, stopped by doctor; the wrapper should give up after its %s budget%s", round(job.limit), job.budget, agentLimit)
		if !job.ownBudget {
			v.text = fmt.Sprintf("still running after %s, stopped by doctor%s", round(job.limit), agentLimit)
		}
		if r.scenario.fake != "" && yours != nil && !yours.res.killed {
			v.lacks.budget = []string{r.scenario.name}
		}
	case res.exit == 126 || res.exit == 127:
		v.sev, v.text = Error, fmt.Sprintf("exit %d, %s gets no reminder (%s)", res.exit, job.a.p.Title, firstLine(res.stderr))
	default:
		return v, false
	}
	return v, true
}

// judgeExit rates a run's exit status. A probe that exits non-zero where
// the user's kbs gives exit 0 lacks a soft fail: the agent drops the
// output and goes on, no harm beyond the reminder that kbs could not give,
// but not the hook's promise.
func (v *verdict) judgeExit(r liveRun, yours *liveRun) {
	res := r.res
	yoursOK := yours != nil && yours.res.startErr == nil && !yours.res.killed && yours.res.exit == 0
	switch {
	case res.exit != 0 && r.scenario.fake != "" && yoursOK:
		what := "fails"
		if r.scenario.hangs {
			what = "hangs"
		}
		v.note(Warn, fmt.Sprintf("exits %d when kbs %s (%s)", res.exit, what, firstLine(res.stderr)))
		v.lacks.softFail = []string{r.scenario.name}
	case res.exit != 0:
		v.note(Error, fmt.Sprintf("a hook that exits non-zero has its output dropped (%s)", firstLine(res.stderr)))
	}
}

// judgeProcesses rates a run's time and what it left running.
func (v *verdict) judgeProcesses(job *liveJob, r liveRun) {
	res := r.res
	switch {
	case job.probe > 0 && res.elapsed > job.probe+slowSlack:
		v.note(Info, fmt.Sprintf("slower than the %s probe budget (did the hook runtime take %s?)", job.probe, reminder.ProbeBudgetEnv))
		v.recheck = true
	case res.elapsed > job.budget+slowSlack:
		v.note(Warn, fmt.Sprintf("slower than its %s budget", job.budget))
	}
	if res.leftover {
		v.note(Error, "left processes running after it exited (killed)")
	}
	if res.heldOutput && !res.leftover && !res.killed {
		v.note(Error, "left a process outside its process group holding its output open after it exited: the agent waits for that process")
	}
	if len(r.strays) > 0 {
		v.note(Error, fmt.Sprintf("left kbs running after it exited (pid %v, killed)", r.strays))
	}
}

// judgeOutput rates what a run printed: items are those kbs lists (-1:
// unknown).
func (v *verdict) judgeOutput(job *liveJob, r liveRun, items int) {
	res := r.res
	out := bytes.TrimSpace(res.stdout)
	lines := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "- [") {
			lines++
		}
	}
	switch {
	case len(out) == 0 && job.managed:
		v.note(OK, "printed nothing: nowhook's managed hook prints the reminder here, and this one steps aside ("+job.a.p.Name+".managed)")
	case len(out) == 0 && r.scenario.fake == "" && items > 0 && res.exit == 0:
		v.note(Warn, fmt.Sprintf("printed nothing although kbs lists %s", diag.Plural(items, "item")))
		v.debug = true
	case len(out) == 0:
		v.note(OK, "printed nothing")
	case (out[0] == '{' || out[0] == '[') && job.a.p.Hooks.JSONOutput:
		v.note(Error, "printed output that begins with "+string(out[0])+", which "+job.a.p.Title+" parses as JSON and drops")
	case len(out) >= 10000:
		v.note(Warn, fmt.Sprintf("printed %d bytes; Claude Code replaces 10,000 characters or more with a preview", len(out)))
	case lines > 0:
		v.note(OK, "printed the reminder ("+diag.Plural(lines, "item")+")")
	default:
		v.note(OK, fmt.Sprintf("printed %d bytes", len(out)))
	}
}

// judgeCalls rates how often a probe that exited 0 called the fake kbs.
// Whatever it printed, a run that never met the failing or hanging kbs
// proves nothing. A quick run (the probe budget, nowhook's own wrapper
// alone) that did not reach kbs says nothing against the hook: on a busy
// machine the python3 fallback can spend the whole probe budget starting,
// and the wrapper gives up, as it should, before it calls kbs; doctor
// --live, with the wrapper's own budget, tells.
func (v *verdict) judgeCalls(job *liveJob, r liveRun, kanbus bool) {
	switch {
	case r.calls == 0 && !kanbus:
		v.note(OK, "kbs not called: no .kanbus.yml")
	case r.calls == 0 && job.managed:
		v.note(OK, "kbs not called: the managed hook calls it")
	case r.calls == 0 && job.probe > 0 && r.res.elapsed >= job.probe:
		v.note(Info, "kbs not called within the probe budget")
		v.recheck = true
	case r.calls == 0:
		v.note(Warn, "kbs not called")
		v.lacks.missedKbs = []string{r.scenario.name}
	case r.calls > 1:
		v.note(OK, fmt.Sprintf("kbs called %d times (the --raw retry)", r.calls))
	}
}
