//go:build unix && !linux

package reminder

import "syscall"

// groupAttr puts kbs in a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
