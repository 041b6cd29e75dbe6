package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
)

// Doctor's one hook runner. Every row that runs an installed hook (the
// compact hook's live rows, the checkpoint's, the user scope's) describes
// the run as a hookRun and starts it with startHook: the entry's command
// through the agent's shell, in a folder, with a payload on stdin and the
// environment the agent gives its hooks, with the user's kbs or a fake
// one (scenario), bounded in time (limit) and in what is kept of its
// output (runProc). Every run started is kept in one place, d.slow.runs,
// with what it is for; a row reads its own (ranFor), and doctor waits for
// all of them before it removes the fake kbs (endSlow).

// hookRun is one run of an installed hook's command.
type hookRun struct {
	// of is what the run is for, the row that reads it: a *liveJob, a
	// *cpLive, or the user-scope *agent.
	of       any
	a        *agent // the agent whose shell runs it and whose environment it gets
	command  string // the entry's command
	dir      string // the folder it runs in
	payload  []byte // stdin: the event's payload, one JSON line
	scenario scenario
	env      []string // VAR=value settings over the hook's environment
	// probe is the quick runs' budget for kbs in nowhook's wrappers
	// (NOWHOOK_PROBE_BUDGET), 0 for none.
	probe time.Duration
	limit time.Duration // doctor stops it after this
	// What the checkpoint's row says of the run: the script the entry
	// runs, its event, and the context use of the synthetic transcript in
	// percent (-1 for the summary hint).
	script string
	event  string
	pct    int64
}

// ran is a run started: what was run, and what it did once it ends.
type ran struct {
	hookRun
	done *future[liveRun]
}

// wait returns what the run did, once it has ended.
func (r *ran) wait() liveRun { return r.done.wait() }

// startHook writes the run's fake kbs, if its scenario has one, in the
// run's temporary directory and starts the run in the background; the
// error says why the fake could not be written (then nothing started).
func (d *doctor) startHook(ctx context.Context, hr hookRun) (*ran, error) {
	var fk *fake
	if hr.scenario.fake != "" {
		tmp, err := d.scratch()
		if err != nil {
			return nil, err
		}
		d.slow.fakes++
		if fk, err = writeFake(filepath.Join(tmp, "kbs-"+strconv.Itoa(d.slow.fakes)), hr.scenario.fake); err != nil {
			return nil, err
		}
	}
	env := hr.env
	if hr.probe > 0 {
		env = append(env[:len(env):len(env)], reminder.ProbeBudgetEnv+"="+strconv.FormatFloat(hr.probe.Seconds(), 'f', -1, 64))
	}
	p := proc{
		argv:  []string{hr.a.p.Hooks.Shell, "-c", hr.command},
		dir:   hr.dir,
		env:   d.hookEnv(hr.a, fk, env...),
		stdin: hr.payload,
		limit: hr.limit,
	}
	r := &ran{hookRun: hr}
	r.done = start(func() liveRun {
		lr := liveRun{scenario: hr.scenario, res: runProc(ctx, p)}
		if fk != nil {
			pids := readPids(fk.calls)
			lr.calls, lr.strays = len(pids), killStrays(pids)
		}
		return lr
	})
	d.slow.runs = append(d.slow.runs, r)
	return r, nil
}

// ranFor returns the runs started for of, in the order they started.
func (d *doctor) ranFor(of any) []*ran {
	var out []*ran
	for _, r := range d.slow.runs {
		if r.of == of {
			out = append(out, r)
		}
	}
	return out
}

// endSlow waits for everything started (the hook runs, doctor's kbs
// query, the starters' programs) and removes the temporary directory.
func (d *doctor) endSlow() {
	for _, r := range d.slow.runs {
		r.wait()
	}
	if d.slow.query != nil {
		d.slow.query.wait()
	}
	for _, wait := range d.slow.waits {
		wait()
	}
	if d.slow.tmp != "" {
		os.RemoveAll(d.slow.tmp)
	}
}

// runLimit is how long doctor lets a run take: the --limit of its tests,
// or the budget the run gives kbs and two seconds more.
func (d *doctor) runLimit(budget time.Duration) time.Duration {
	if d.limit != 0 {
		return d.limit
	}
	return budget + 2*time.Second
}

// compactPayload is the SessionStart payload after a compaction, for a
// session in cwd, as one line.
func compactPayload(cwd string) []byte {
	return payloadLine(map[string]any{
		"session_id":      "nowhook-doctor",
		"transcript_path": "",
		"cwd":             cwd,
		"hook_event_name": "SessionStart",
		"source":          "compact",
	})
}

// payloadLine is a hook's payload as its agent writes it on stdin: one
// JSON object and a newline.
func payloadLine(pl map[string]any) []byte {
	b, _ := json.Marshal(pl) // strings, numbers and maps of them: no error
	return append(b, '\n')
}
