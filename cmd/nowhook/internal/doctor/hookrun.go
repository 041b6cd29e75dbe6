package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
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

// runLimit is how long doctor lets a run take: Options.LiveLimit (which
// this package's tests set), or the budget the run gives kbs and two
// seconds more.
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

// fakeNames are the names the hook may call Kanbus's CLI by.
var fakeNames = []string{"kbs", "kanbus"}

// scenario is one way of running a hook.
type scenario struct {
	name  string // as shown: "your kbs", "failing kbs", "hanging kbs"
	fake  string // the fake kbs script, "" for the user's own
	hangs bool   // the fake never answers: the run takes the whole budget
}

// liveRun is what one run of a hook did (hookrun.go runs every one).
type liveRun struct {
	scenario scenario
	res      procResult
	calls    int   // times the fake kbs was started
	strays   []int // fake kbs processes still running after the hook exited (killed)
}

// fake is a fake kbs set up for one run: its directory (first on PATH)
// and the file that records its calls.
type fake struct{ dir, calls string }

// scratch returns the run's temporary directory, making it on first use.
func (d *doctor) scratch() (string, error) {
	if d.slow.tmp == "" && d.slow.tmpErr == nil {
		d.slow.tmp, d.slow.tmpErr = os.MkdirTemp("", "nowhook-doctor-")
	}
	return d.slow.tmp, d.slow.tmpErr
}

// writeFake makes dir and writes the fake kbs there under every name
// the hook may call it by.
func writeFake(dir, script string) (*fake, error) {
	fk := &fake{dir: dir, calls: filepath.Join(dir, "calls")}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	body := []byte(fmt.Sprintf(script, diag.ShellQuote(fk.calls)))
	for _, name := range fakeNames {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o700); err != nil {
			return nil, err
		}
	}
	return fk, nil
}

// hookEnv is the environment a hook gets from its agent; with a fake kbs,
// KBS names it and its directory comes first on PATH. extra are
// VAR=value settings that replace the environment's.
func (d *doctor) hookEnv(a *agent, fk *fake, extra ...string) []string {
	drop := map[string]bool{"NOWHOOK_DEBUG": true, reminder.ProbeBudgetEnv: true}
	if fk != nil {
		drop["KBS"] = true
		drop["PATH"] = true
	}
	if a.p.Hooks.ProjectDirEnv != "" {
		drop[a.p.Hooks.ProjectDirEnv] = true
	}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
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
	if fk != nil {
		path := osutil.Getenv(d.env, "PATH")
		if path == "" {
			path = "/usr/local/bin:/usr/bin:/bin"
		}
		env = append(env, "PATH="+fk.dir+string(filepath.ListSeparator)+path, "KBS="+filepath.Join(fk.dir, fakeNames[0]))
	}
	return append(env, extra...)
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
	deadline := time.Now().Add(strayWait)
	var alive []int
	for {
		alive = alive[:0]
		for _, pid := range pids {
			if osutil.Running(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range alive {
		osutil.KillPID(pid)
	}
	return append([]int(nil), alive...)
}
