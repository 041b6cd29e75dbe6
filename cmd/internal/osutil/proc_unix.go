//go:build unix

package osutil

import (
	"os"
	"syscall"
)

// GroupAttr puts a command in a process group of its own, so that
// KillGroup reaches every process it starts (set it as the command's
// SysProcAttr before Start).
func GroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills the process group that p leads (see GroupAttr).
func KillGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// GroupAlive reports whether the process group that p leads still has a
// process (p itself may have exited).
func GroupAlive(p *os.Process) bool {
	return syscall.Kill(-p.Pid, 0) == nil
}

// KillPID kills the process pid.
func KillPID(pid int) {
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
