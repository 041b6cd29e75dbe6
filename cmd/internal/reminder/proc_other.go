//go:build !unix

package reminder

import (
	"os"
	"syscall"
)

// procAttr: no process groups here; killGroup kills the process only.
func procAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) { _ = p.Kill() }
