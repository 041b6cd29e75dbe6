package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// LockWaitVar is the variable that sets how long a writer waits for
// another one to finish (a duration; 0 does not wait).
const LockWaitVar = "NOWHOOK_LOCK_WAIT"

// DefaultLockWait is how long a writer waits for another by default.
const DefaultLockWait = 10 * time.Second

// Lock takes the writer lock of what req writes, before a command plans
// what it will change, so that setup and remove (or two setups) never
// interleave: one lock per repository (in its git directory; outside git,
// in nowhook's state folder, by the repository's real path), and at the
// user scope one per agent folder and one for the user-scope record. A
// second writer waits up to $NOWHOOK_LOCK_WAIT (default 10s), then gives
// up saying who holds the lock. command is what the lock file says of
// this process ("nowhook setup --yes"). The returned release gives every
// lock back.
func Lock(req Request, command string) (release func(), err error) {
	wait := DefaultLockWait
	if v := os.Getenv(LockWaitVar); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%s=%s is not a duration such as 10s or 0", LockWaitVar, v)
		}
		wait = d
	}
	paths, err := lockPaths(req)
	if err != nil {
		return nil, err
	}
	var held []*osutil.Lock
	var made []string // the folders the locks needed, which go again once empty
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
		for i := len(made) - 1; i >= 0; i-- {
			_ = os.Remove(made[i]) // fails while anything else is in it
		}
		if req.Lock != "" && req.RecordBase != "" {
			// The managed tree's record folder (var/lib/nowhook) goes
			// with the record, and the folders above it that it left
			// empty, up to the tree's root: a tree built under --root is
			// then as it was before setup.
			for d := filepath.Dir(req.Lock); Within(req.RecordBase, d); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break
				}
			}
		}
		if state := stateDir(); state != "" && req.User && req.Lock == "" {
			// The record went with the last file it named: nowhook's own
			// folder goes too once nothing is left in it.
			_ = os.Remove(filepath.Join(state, "locks"))
			_ = os.Remove(state)
		}
	}
	for _, p := range paths {
		dirs, err := mkdirs(filepath.Dir(p.file))
		made = append(made, dirs...)
		if err != nil {
			release()
			return nil, fmt.Errorf("the writer lock of %s: %w", p.what, err)
		}
		l, err := osutil.AcquireLock(p.file, wait, command)
		var le *osutil.LockedError
		switch {
		case errors.As(err, &le):
			release()
			return nil, fmt.Errorf("another nowhook is changing %s: %s; waited %s for it. Let it finish, then run nowhook again (%s=1m waits longer; the lock is %s)", p.what, le.Holder, le.Waited, LockWaitVar, osutil.TildeHome(p.file))
		case err != nil:
			release()
			return nil, fmt.Errorf("the writer lock of %s (%s): %w", p.what, osutil.TildeHome(p.file), err)
		}
		held = append(held, l)
	}
	return release, nil
}

type lockPath struct{ file, what string }

// lockPaths are the lock files of req, in one order for every writer.
func lockPaths(req Request) ([]lockPath, error) {
	state := stateDir()
	byPath := func(kind, dir string) (string, error) {
		if state == "" {
			return "", errors.New("HOME is not set, so nowhook has no state folder for its writer lock: set HOME")
		}
		sum := sha256.Sum256([]byte(realDir(dir)))
		return filepath.Join(state, "locks", kind+"-"+hex.EncodeToString(sum[:8])), nil
	}
	if req.Lock != "" {
		return []lockPath{{req.Lock, req.LockWhat}}, nil
	}
	if !req.User {
		if dir, ok := gitDir(req.Root); ok {
			return []lockPath{{filepath.Join(dir, "nowhook.lock"), "this repository"}}, nil
		}
		f, err := byPath("repo", req.Root)
		return []lockPath{{f, req.Root}}, err
	}
	if state == "" {
		return nil, errors.New("HOME is not set, so nowhook has no state folder for its writer lock and record: set HOME")
	}
	out := []lockPath{{filepath.Join(state, "user-scope.lock"), "your user-scope settings"}}
	var folders []string
	for _, t := range req.Targets {
		if t.Folder != "" && !slices.Contains(folders, t.Folder) {
			folders = append(folders, t.Folder)
		}
	}
	sort.Strings(folders)
	for _, d := range folders {
		f, err := byPath("user", d)
		if err != nil {
			return nil, err
		}
		out = append(out, lockPath{f, osutil.TildeHome(d)})
	}
	return out, nil
}
