package reminder

import "syscall"

// groupAttr puts kbs in a process group of its own, and has the kernel
// kill it when the hook's thread that started it ends: a kbs that kills
// the hook does not outlive it.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
