//go:build unix

package fakekbs

import "syscall"

// newSession starts a process in a session of its own (setsid).
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
