package reminder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Kimi Code re-inject (docs/platforms.md, "Kimi Code CLI: re-inject in two
// steps"). Kimi Code 2.1.0 drops a SessionStart hook's output and has no
// event after a compaction whose output reaches the model, but the plain
// stdout of a UserPromptSubmit hook is added to the conversation as a user
// message, before the prompt, in that prompt's request and in the history
// after it. Its PreCompact hook is awaited before the summary request, and
// PostCompact fires, without being awaited, once a compaction has been
// applied, never after one that failed or was cancelled (measured). So
// --kimi answers three events with one marker per session, in
// ${XDG_STATE_HOME:-~/.local/state}/nowhook/kimi:
//
//   - PreCompact writes NAME.pending: a compaction of this session began.
//   - PostCompact turns it into NAME.ready (or writes NAME.ready where
//     there is none): that compaction was applied.
//   - UserPromptSubmit takes NAME.ready, by renaming it away, so that one
//     prompt takes it and no other, then prints the reminder. Without
//     NAME.ready it prints nothing and starts no kbs: a prompt sent while a
//     compaction is still under way, or after one that failed (NAME.pending
//     alone), or in a session that never compacted.
//
// So the reminder reaches the first prompt after each compaction, once: a
// crash or a failed compaction leaves only NAME.pending, which prints
// nothing and is pruned with the other latches. A NAME.ready that no
// prompt took within kimiMarkerMaxAge (a session closed right after its
// compaction, or killed) has expired: the prompt that finds it removes it
// and prints nothing, so a session resumed days later gets no reminder of
// a compaction it no longer knows of. Hooks run on every prompt: the quiet
// path is one small payload and one stat.

// kimiMarkers is the folder of --kimi's markers under nowhook's state.
const kimiMarkers = "kimi"

// eventPostCompact is Kimi Code's event after a compaction was applied
// (PreCompact and UserPromptSubmit are named with the checkpoint's).
const eventPostCompact = "PostCompact"

// kimiMarkerMaxAge is how long a compaction's ready marker waits for the
// session's next prompt: a working day and a night, so that a session
// compacted in the evening and continued the next morning gets its
// reminder; an older one has expired.
const kimiMarkerMaxAge = 24 * time.Hour

// Marker suffixes: a compaction began, a compaction was applied.
const (
	kimiPending = ".pending"
	kimiReady   = ".ready"
)

const kimiUsage = `Usage: nowhook reminder --kimi [--timeout DURATION]

For Kimi Code's PreCompact, PostCompact and UserPromptSubmit hooks, one
command for all three. PreCompact marks that a compaction of the session
began, PostCompact that it was applied; the next UserPromptSubmit takes
the mark and prints the Kanbus work-in-progress reminder, which Kimi Code
adds to that prompt's request. Every other prompt, a prompt after a
compaction that failed, and any failure print nothing; it always exits 0.
One marker per session lives in ${XDG_STATE_HOME:-~/.local/state}/nowhook/kimi.

Flags:
  --timeout DURATION   the budget for kbs (default 5s)
`

// kimiTurn does the work of Run --kimi and returns what to print.
func kimiTurn(o options) []byte {
	deadline := time.Now().Add(o.budget)
	pl, ok := readHookPayload(o, maxStdin, eventPreCompact, eventPostCompact, eventUserPromptSubmit)
	if !ok {
		return nil
	}
	if pl.sessionID == "" {
		o.log.printf("the payload has no session_id, so a compaction cannot be matched with the next prompt: printing nothing")
		return nil
	}
	dir := latchDir(o.getenv, kimiMarkers)
	if dir == "" {
		o.log.printf("neither XDG_STATE_HOME nor HOME is set, so there is nowhere to mark a compaction: printing nothing")
		return nil
	}
	name := latchName(pl.sessionID, "")
	now := time.Now()
	switch pl.event {
	case eventPreCompact:
		o.markKimi(dir, name, kimiPending, pl, now)
		return nil
	case eventPostCompact:
		o.applyKimi(dir, name, pl, now)
		return nil
	}
	ready := filepath.Join(dir, name+kimiReady)
	info, err := os.Lstat(ready)
	if err != nil {
		if _, perr := os.Lstat(filepath.Join(dir, name+kimiPending)); perr == nil {
			o.log.printf("a compaction of this session began but has not been applied (it is still running, failed, or its PostCompact hook has not run yet): printing nothing")
		} else {
			o.log.printf("no compaction since the last reminder in this session: printing nothing")
		}
		return nil
	}
	if age := now.Sub(info.ModTime()); age > kimiMarkerMaxAge {
		os.Remove(ready)
		o.log.printf("the marker %s was set %s ago, longer than %s, so it has expired: removed it, printing nothing", ready, age.Round(time.Minute), kimiMarkerMaxAge)
		return nil
	}
	// Rename is atomic: of two prompts racing, one takes the marker. The
	// taken name ends in .tmp, so that a hook killed before it removes it
	// leaves nothing that pruning keeps.
	taken := filepath.Join(dir, name+"."+strconv.Itoa(os.Getpid())+".tmp")
	if err := os.Rename(ready, taken); err != nil {
		o.log.printf("taking the marker %s: %v: printing nothing", ready, err)
		return nil
	}
	os.Remove(taken)
	o.log.printf("marker taken: %s", ready)
	project, ok := o.kanbusProject(pl.cwd)
	if !ok {
		return nil
	}
	return o.fromSources(project, pl.cwd, pl.sourcePayload(), deadline)
}

// markKimi writes the marker name+suffix, replacing one that is there.
func (o options) markKimi(dir, name, suffix string, pl payload, now time.Time) {
	path := filepath.Join(dir, name+suffix)
	if err := rearm(path); err != nil {
		o.log.printf("replacing the marker %s: %v", path, err)
		return
	}
	if err := setLatch(dir, name+suffix, kimiMarkerContent(now, pl), now); err != nil && !errors.Is(err, errLatched) {
		o.log.printf("writing the marker %s: %v", path, err)
		return
	}
	o.log.printf("marker set: %s", path)
}

// applyKimi turns the session's pending marker into a ready one, or writes
// a ready one where there is no pending one (a PreCompact hook that timed
// out).
func (o options) applyKimi(dir, name string, pl payload, now time.Time) {
	pending, ready := filepath.Join(dir, name+kimiPending), filepath.Join(dir, name+kimiReady)
	err := os.Rename(pending, ready)
	switch {
	case err == nil:
		// The ready marker's age counts from the compaction's end, not
		// from a PreCompact that may be older (one whose PostCompact
		// never ran).
		os.Chtimes(ready, now, now)
		o.log.printf("marker set: %s", ready)
	case errors.Is(err, fs.ErrNotExist):
		o.markKimi(dir, name, kimiReady, pl, now)
	default:
		o.log.printf("marking the compaction applied (%s): %v", ready, err)
	}
}

// kimiMarkerContent is what a marker holds, for a person who looks.
func kimiMarkerContent(now time.Time, pl payload) string {
	return fmt.Sprintf("nowhook Kimi Code compaction marker\nset: %s\nevent: %q\nsession: %q\ncwd: %q\n",
		now.UTC().Format(time.RFC3339), clip(pl.event), clip(pl.sessionID), clip(pl.cwd))
}
