package reminder

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

var (
	errNoStart  = errors.New("could not start")
	errTimeout  = errors.New("out of time: killed its process group")
	errTooBig   = fmt.Errorf("printed more than %d bytes: killed its process group", maxOutput)
	errNotArray = errors.New("did not print a JSON array")
	errStopped  = errors.New("stopped")
)

// query runs `PROG now --json --list [--raw]` in dir and parses its
// output. Compaction re-injection always asks for the whole project: no
// issue ids.
func query(prog, dir string, raw bool, deadline time.Time, stop <-chan os.Signal, log logger) ([]item, error) {
	args := []string{"now", "--json", "--list"}
	if raw {
		args = append(args, "--raw")
	}
	out, err := call(prog, args, dir, deadline, stop, log)
	if err != nil {
		log.printf("%s %v: %v", prog, args, err)
		return nil, err
	}
	items, ok := parseItems(out)
	if !ok {
		log.printf("%s %v: %v (%d bytes)", prog, args, errNotArray, len(out))
		return nil, errNotArray
	}
	return items, nil
}

// maxOrphanWait bounds the killing of what kbs left outside its group.
const maxOrphanWait = 100 * time.Millisecond

// embedded is set in a process that runs the sources beside children of
// its own (nowhook doctor, CheckSources): there call never becomes the
// orphans' reaper, whose killOrphans would kill those children too.
var embedded atomic.Bool

// running is the kbs call under way (its pid, 0 for none), for guard.
var running atomic.Int64

// call runs prog in its own process group with stdin from /dev/null, and
// returns its stdout. When prog exits, the rest of its group is killed, so
// a child it left behind cannot hold the pipe open, and so is every
// process it moved out of the group (setsid), where the system lets the
// hook find them (becomeReaper: Linux); at the deadline the whole group is
// killed and call returns at once, without waiting for the pipe to close
// (what prog printed counts if it had closed stdout). A signal on stop
// kills the group and returns at once too. On Linux prog dies with the
// hook (a parent-death signal): a kbs that kills its parent, the hook,
// goes with it, and the wrapper that runs the hook still exits 0.
func call(prog string, args []string, dir string, deadline time.Time, stop <-chan os.Signal, log logger) (out []byte, err error) {
	return callReaping(true, prog, args, dir, deadline, stop, log)
}

// callGit is call for git, which leaves nothing outside its group but
// perhaps a daemon of the user's (core.fsmonitor): nothing is reaped
// after it, and a status killed at its bound is not waited for.
func callGit(prog string, args []string, dir string, deadline time.Time, stop <-chan os.Signal, log logger) (out []byte, err error) {
	return callReaping(false, prog, args, dir, deadline, stop, log)
}

// callReaping is call, which reaps the orphans below it where reap is set.
func callReaping(reap bool, prog string, args []string, dir string, deadline time.Time, stop <-chan os.Signal, log logger) (out []byte, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoStart, err)
	}
	defer pr.Close()
	reaper := reap && !embedded.Load() && becomeReaper()
	var stderr <-chan []byte
	var ew *os.File
	if log.on {
		// Never the agent's own stderr: a leftover child would hold it.
		er, w, err := os.Pipe()
		if err == nil {
			defer er.Close()
			ew = w
			defer func() { log.printf("%s stderr: %q", prog, drain(stderr)) }()
			stderr = readHead(er, 16<<10)
		}
	}
	kid, err := spawn(prog, args, dir, kbsEnv(os.Environ()), pw, ew)
	pw.Close()
	if ew != nil {
		ew.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoStart, err)
	}
	running.Store(int64(kid.pid))
	defer running.Store(0)
	// From here a stop must kill kbs's group: the signals are caught,
	// while kbs starts on its own (stops.go). A stop in the instant
	// before ends the hook by its default action, and kbs with it (its
	// parent-death signal).
	armStops()
	if reaper {
		defer killOrphans(log)
	}
	exited := make(chan error, 1)
	go func() {
		defer func() { _ = recover() }()
		exited <- kid.wait()
	}()
	data := readChunks(pr, maxOutput+1)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var (
		waitErr   error
		done, eof bool
		grace     <-chan time.Time
	)
	for !done || !eof {
		select {
		case c, open := <-data:
			if !open {
				eof, data = true, nil
				continue
			}
			out = append(out, c...)
			if len(out) > maxOutput {
				kid.killGroup()
				return nil, errTooBig
			}
		case waitErr = <-exited:
			done = true
			// Whatever it left in its group goes too, closing the pipe,
			// and whatever it moved out of the group.
			kid.killGroup()
			if reaper {
				killOrphans(log)
			}
			if !eof {
				grace = time.After(exitGrace)
			}
		case <-grace:
			log.printf("a process outside the group of %s holds its stdout: using the %d bytes read", prog, len(out))
			eof = true
		case <-timer.C:
			kid.killGroup()
			if eof {
				// It printed everything and closed stdout, then lingered.
				log.printf("%s closed its stdout but had not exited at the deadline: using its output", prog)
				return out, nil
			}
			return nil, errTimeout
		case s := <-stop:
			kid.killGroup()
			return nil, fmt.Errorf("%w by %v: killed its process group", errStopped, s)
		}
	}
	if waitErr != nil {
		return nil, waitErr
	}
	return out, nil
}

// gomaxprocsVar is set by the wrappers, which start the runtime with
// GOMAXPROCS=1 (a Go program with one processor starts faster, and the
// hook works one step at a time): it holds the agent's own GOMAXPROCS,
// "none" when it had none, which kbs gets back.
const gomaxprocsVar = "NOWHOOK_GOMAXPROCS"

// kbsEnv is the environment kbs runs with: the hook's, with GOMAXPROCS as
// the agent had it, where a wrapper set it (gomaxprocsVar).
func kbsEnv(env []string) []string {
	orig, set := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, gomaxprocsVar+"="); ok {
			orig, set = v, true
		}
	}
	if !set {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, gomaxprocsVar+"=") && !strings.HasPrefix(kv, "GOMAXPROCS=") {
			out = append(out, kv)
		}
	}
	if orig != "none" {
		out = append(out, "GOMAXPROCS="+orig)
	}
	return out
}

// drain returns what c holds now, without waiting.
func drain(c <-chan []byte) []byte {
	var b []byte
	for {
		select {
		case chunk, open := <-c:
			if !open {
				return b
			}
			b = append(b, chunk...)
		default:
			return b
		}
	}
}
