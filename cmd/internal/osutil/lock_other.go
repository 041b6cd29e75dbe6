//go:build !unix

package osutil

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// tryLock creates the lock file exclusively: errLocked while it exists and
// names a process that still runs. A file left by a process that died is
// taken over. (Without flock there is a window in which two processes may
// both find a dead holder; nowhook's platforms are Unix.)
func tryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return &Lock{f: f}, nil
	}
	if !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	b, _ := os.ReadFile(path)
	pid, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "pid "))
	if pid > 0 && Running(pid) {
		return nil, errLocked
	}
	if err := os.Remove(path); err != nil {
		return nil, err
	}
	return nil, errMoved
}
