//go:build !unix

package osutil

import (
	"os"
	"syscall"
)

// GroupAttr: there are no process groups here; a command runs as it is,
// and KillGroup kills the process only.
func GroupAttr() *syscall.SysProcAttr { return nil }

// KillGroup kills p (there is no process group to kill here).
func KillGroup(p *os.Process) { _ = p.Kill() }

// GroupAlive is false: without process groups nothing can be asked about
// the processes p left behind.
func GroupAlive(*os.Process) bool { return false }

// KillPID kills the process pid.
func KillPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
