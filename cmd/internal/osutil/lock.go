package osutil

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// A Lock is held on one lock file by one process: the writer lock that
// setup and remove take before they read what they will change. The lock
// file holds who took it (Holder), so that a second writer that gives up
// can say who it waited for. The kernel releases the lock of a process
// that dies, however it dies (lock_unix.go); the file it leaves is taken
// over by the next writer.
type Lock struct {
	f    *os.File
	path string
}

// Holder is who holds a lock, as its file says.
type Holder struct {
	PID     int
	Command string
	Since   time.Time
}

// String says who holds the lock: "pid 4242 (nowhook setup --yes), since
// 21:04:05".
func (h Holder) String() string {
	if h.PID == 0 {
		return "a process that has not said who it is yet"
	}
	s := "pid " + strconv.Itoa(h.PID)
	if h.Command != "" {
		s += " (" + h.Command + ")"
	}
	if !h.Since.IsZero() {
		s += ", since " + h.Since.Local().Format("2006-01-02 15:04:05")
	}
	return s
}

// LockedError is a lock another process held for the whole wait.
type LockedError struct {
	Path   string
	Holder Holder
	Waited time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is held by %s; waited %s", e.Path, e.Holder, e.Waited)
}

// AcquireLock takes the lock at path, creating its file, and writes who
// takes it (this process, running command). While another process holds
// it, it tries again every 50ms for up to wait, then gives up with a
// *LockedError; a wait of 0 tries once.
func AcquireLock(path string, wait time.Duration, command string) (*Lock, error) {
	deadline := time.Now().Add(wait)
	for moved := 0; ; {
		l, err := tryLock(path)
		if errors.Is(err, errMoved) && moved < 100 {
			moved++ // its holder let go while this process took it: again
			continue
		}
		if err == nil {
			l.path = path
			l.write(command)
			return l, nil
		}
		if !errors.Is(err, errLocked) && !errors.Is(err, errMoved) {
			return nil, err
		}
		if !time.Now().Before(deadline) {
			return nil, &LockedError{Path: path, Holder: ReadHolder(path), Waited: wait}
		}
		time.Sleep(min(50*time.Millisecond, time.Until(deadline)))
	}
}

var (
	errLocked = errors.New("locked")
	errMoved  = errors.New("the lock file was replaced")
)

func (l *Lock) write(command string) {
	_ = l.f.Truncate(0)
	_, _ = l.f.WriteAt([]byte(fmt.Sprintf("pid %d\ncommand %s\nsince %s\n", os.Getpid(), strings.ReplaceAll(command, "\n", " "), time.Now().UTC().Format(time.RFC3339))), 0)
}

// ReadHolder reads who holds the lock at path, as far as its file says.
func ReadHolder(path string) Holder {
	var h Holder
	b, err := ReadBounded(path, 4096)
	if err != nil {
		return h
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "command":
			h.Command = v
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, v)
		}
	}
	return h
}

// Release gives the lock up and deletes its file.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	// Deleted while still held: a writer waiting on this file then finds
	// that the path names another file (or none) and starts again.
	_ = os.Remove(l.path)
	_ = l.f.Close()
	l.f = nil
}
