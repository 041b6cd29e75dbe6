package reminder

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
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

// shield is the shell script that prog runs under (shell -c shield prog
// args...): prog's parent is that shell, not the hook, so a kbs that kills
// its parent kills the shell, and the hook sees a failed call, kills the
// group and exits 0. The shell starts prog, closes its own stdout, so that
// the pipe ends when prog closes it, and exits with prog's status. The
// python3 fallback runs kbs the same way.
const shield = `"$0" "$@" & exec >&-; wait $!`

// shell runs shield; where it cannot start, prog runs on its own.
var shell = "/bin/sh"

// maxOrphanWait bounds the killing of what kbs left outside its group.
const maxOrphanWait = 100 * time.Millisecond

// running is the kbs call under way, for guard.
var running atomic.Pointer[os.Process]

// call runs prog in its own process group, under shield, with stdin from
// /dev/null, and returns its stdout. When prog exits, the rest of its
// group is killed, so a child it left behind cannot hold the pipe open,
// and so is every process it moved out of the group (setsid), where the
// system lets the hook find them (becomeReaper: Linux); at the deadline
// the whole group is killed and call returns at once, without waiting for
// the pipe to close (what prog printed counts if it had closed stdout). A
// signal on stop kills the group and returns at once too.
func call(prog string, args []string, dir string, deadline time.Time, stop <-chan os.Signal, log logger) (out []byte, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoStart, err)
	}
	defer pr.Close()
	reaper := becomeReaper()
	cmd := exec.Command(shell, append([]string{"-c", shield, prog}, args...)...)
	cmd.Dir = dir
	cmd.Stdout = pw
	cmd.SysProcAttr = osutil.GroupAttr()
	var stderr <-chan []byte
	if log.on {
		// Never the agent's own stderr: a leftover child would hold it.
		er, ew, err := os.Pipe()
		if err == nil {
			defer er.Close()
			cmd.Stderr = ew
			defer func() { log.printf("%s stderr: %q", prog, drain(stderr)) }()
			stderr = readHead(er, 16<<10)
		}
	}
	err = cmd.Start()
	if err != nil && cmd.Process == nil {
		// No shell here: prog runs on its own, a child of the hook.
		shielded := cmd
		cmd = exec.Command(prog, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = dir, pw, shielded.Stderr, osutil.GroupAttr()
		err = cmd.Start()
	}
	pw.Close()
	if f, ok := cmd.Stderr.(*os.File); ok {
		f.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoStart, err)
	}
	proc := cmd.Process
	running.Store(proc)
	defer running.Store(nil)
	if reaper {
		defer killOrphans(log)
	}
	exited := make(chan error, 1)
	go func() {
		defer func() { _ = recover() }()
		exited <- cmd.Wait()
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
				osutil.KillGroup(proc)
				return nil, errTooBig
			}
		case waitErr = <-exited:
			done = true
			// Whatever it left in its group goes too, closing the pipe,
			// and whatever it moved out of the group.
			osutil.KillGroup(proc)
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
			osutil.KillGroup(proc)
			if eof {
				// It printed everything and closed stdout, then lingered.
				log.printf("%s closed its stdout but had not exited at the deadline: using its output", prog)
				return out, nil
			}
			return nil, errTimeout
		case s := <-stop:
			osutil.KillGroup(proc)
			return nil, fmt.Errorf("%w by %v: killed its process group", errStopped, s)
		}
	}
	if waitErr != nil {
		return nil, waitErr
	}
	return out, nil
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
