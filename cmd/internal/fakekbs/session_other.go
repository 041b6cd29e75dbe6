//go:build !unix

package fakekbs

import "syscall"

// newSession: no sessions here; the child starts as any other.
func newSession() *syscall.SysProcAttr { return nil }
