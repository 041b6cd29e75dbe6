//go:build unix

package reminder

import (
	"os"
	"syscall"
)

// procAttr puts kbs in a process group of its own, so that killGroup
// reaches every process it started.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group that p leads.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
