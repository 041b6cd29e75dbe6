//go:build unix

package reminder

import (
	"fmt"
	"os"
	"syscall"
)

// child is kbs, started by spawn.
type child struct{ pid int }

// spawn starts prog with args in dir with env, in a process group of its
// own, stdin from /dev/null, stdout to stdout and stderr to stderr (nil:
// /dev/null). It forks and execs directly, without os/exec, whose first
// start in a process also probes the system's pidfd support with a child
// of its own: a hook starts one program, and every process counts
// (scripts/bench-reminder.sh).
func spawn(prog string, args []string, dir string, env []string, stdout, stderr *os.File) (child, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return child{}, err
	}
	defer null.Close()
	errFd := null.Fd()
	if stderr != nil {
		errFd = stderr.Fd()
	}
	pid, err := syscall.ForkExec(prog, append([]string{prog}, args...), &syscall.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: []uintptr{null.Fd(), stdout.Fd(), errFd},
		Sys:   groupAttr(),
	})
	if err != nil {
		return child{}, err
	}
	return child{pid: pid}, nil
}

// wait waits for the child to end: nil when it exited 0, the reason
// otherwise.
func (c child) wait() error {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(c.pid, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return err
		case ws.Signaled():
			return fmt.Errorf("signal: %v", ws.Signal())
		case ws.ExitStatus() != 0:
			return fmt.Errorf("exit status %d", ws.ExitStatus())
		}
		return nil
	}
}

// killGroup kills the child's process group.
func (c child) killGroup() { killGroup(c.pid) }

// killGroup kills the process group that pid leads.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
