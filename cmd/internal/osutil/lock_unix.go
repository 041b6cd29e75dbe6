//go:build unix

package osutil

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) on the file at path without
// waiting: errLocked while another open file holds it. flock is released
// by the kernel when the holder's last descriptor closes, so a writer
// killed mid-run never leaves a lock behind.
func tryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	// The holder deletes the file as it lets go: the file this process
	// locked may be that one, no longer at path.
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, errMoved
	}
	if !held.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Kind: KindOf(held.Mode())}
	}
	return &Lock{f: f}, nil
}
