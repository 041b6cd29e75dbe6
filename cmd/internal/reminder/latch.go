package reminder

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// The checkpoint's latch: one small file per session and Kanbus project,
// present from the moment the checkpoint fires until the context use has
// fallen below --at minus --refire. It lives outside the repository, in
// ${XDG_STATE_HOME:-~/.local/state}/nowhook/checkpoint, named by a hash of
// the session id and the project directory, so no two sessions or
// repositories ever share one.

const (
	// latchMaxAge is how long a latch is kept: older ones belong to
	// sessions long gone and are removed whenever a new one is written.
	latchMaxAge = 14 * 24 * time.Hour
	// latchMaxFiles bounds the directory; the oldest go first.
	latchMaxFiles = 256
	// latchTempAge is how old a temporary file left by a killed hook must
	// be before it is removed.
	latchTempAge = time.Minute
)

// Latch folders under nowhook's state, one per mode that latches.
const (
	checkpointLatches  = "checkpoint"   // the checkpoint's, one per session
	compressionLatches = "compressions" // --gemini-turn's, one per compression answered
)

// latchDir returns the directory of one mode's latches (name), "" when
// neither XDG_STATE_HOME (absolute) nor HOME is set.
func latchDir(getenv func(string) string, name string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "nowhook", name)
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "nowhook", name)
	}
	return ""
}

// latchName is the file name of the latch of one session in one project:
// the FNV-128a hash of both, which no two sessions or projects share in
// practice (no cryptographic strength is needed, and it keeps crypto out
// of the hook binary).
func latchName(session, project string) string {
	h := fnv.New128a()
	h.Write([]byte(session + "\x00" + project))
	return hex.EncodeToString(h.Sum(nil))
}

// rearm removes the latch; a missing one is fine.
func rearm(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// errLatched is returned by setLatch when the latch is already set.
var errLatched = errors.New("already latched")

// takeLatch sets the latch name in states before kbs runs, so that a kbs
// that fails or hangs costs one try per latch, not one per hook call, and
// reports whether this call set it (and may go on to kbs). said tells,
// for NOWHOOK_DEBUG, what a latch already there means; content is what
// the latch holds, for a person who looks.
func (o options) takeLatch(states, name, said string, content func(now time.Time) string) bool {
	now := time.Now()
	path := filepath.Join(states, name)
	switch err := setLatch(states, name, content(now), now); {
	case errors.Is(err, errLatched):
		o.log.printf("%s (latch %s): printing nothing", said, path)
		return false
	case err != nil:
		// Without the latch it would fire on every call: never.
		o.log.printf("setting the latch: %v: printing nothing", err)
		return false
	}
	o.log.printf("latch set: %s", path)
	return true
}

// setLatch creates the latch atomically and exclusively: the content goes
// into a temporary file that is then linked to the latch's name, so that
// of two hooks racing (parallel tool calls), exactly one sets it; the
// other gets errLatched. On success it prunes stale latches.
func setLatch(dir, name, content string, now time.Time) error {
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		return errLatched
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(content)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return errLatched
		}
		return err
	}
	pruneLatches(dir, name, now)
	return nil
}

// pruneLatches removes latches older than latchMaxAge, leftover temporary
// files, and the oldest latches beyond latchMaxFiles; keep is never
// removed. Errors are ignored: pruning is housekeeping.
func pruneLatches(dir, keep string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type latch struct {
		name string
		mod  time.Time
	}
	var live []latch
	for _, e := range entries {
		name := e.Name()
		if name == keep || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		age := now.Sub(info.ModTime())
		switch {
		case filepath.Ext(name) == ".tmp":
			if age > latchTempAge {
				os.Remove(filepath.Join(dir, name))
			}
		case age > latchMaxAge:
			os.Remove(filepath.Join(dir, name))
		default:
			live = append(live, latch{name, info.ModTime()})
		}
	}
	if extra := len(live) + 1 - latchMaxFiles; extra > 0 {
		slices.SortFunc(live, func(a, b latch) int { return a.mod.Compare(b.mod) })
		for _, l := range live[:extra] {
			os.Remove(filepath.Join(dir, l.name))
		}
	}
}

// latchContent is what a latch holds, for a person who looks: when it was
// set, for which session, project and event, and the use that set it.
func latchContent(now time.Time, session, project, event string, used, window int64) string {
	session, project, event = clip(session), clip(project), clip(event)
	pct := strconv.FormatInt(percent(used, window), 10)
	return fmt.Sprintf("nowhook checkpoint latch\nset: %s\nsession: %q\nproject: %q\nevent: %q\nuse: %d of %d tokens (%s%%)\n",
		now.UTC().Format(time.RFC3339), session, project, event, used, window, pct)
}

// clip bounds a string a latch records.
func clip(s string) string {
	const max = 512
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// percent is used as a whole percentage of window, rounded down.
func percent(used, window int64) int64 {
	if window <= 0 {
		return 0
	}
	return used * 100 / window
}
