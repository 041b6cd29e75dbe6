package reminder

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The defer rule: one reminder per compaction, whatever the layers that
// hold nowhook's hook (docs/platforms.md, "Managed channels: three
// layers"). Every client runs the hooks of its managed (system) layer, the
// user's and the project's, in no order one can rely on, so each hook
// decides from what it sees on disk:
//
//   - the managed hook prints;
//   - a project or user hook steps aside where the managed layer of the
//     client that runs it holds nowhook's managed hook (managedDeferred);
//   - otherwise a user-scope hook steps aside where the project's own
//     hook runs (NOWHOOK_DEFER, projectDeferred).
//
// The python3 fallback in templates/wrapper.sh applies the same rules
// (TestDeferGoMatchesPython holds the two together).

// deferred reports whether this hook prints nothing because another
// layer's hook prints the reminder. root is the system root the managed
// layer is read under: "/" in production, a test's folder in the tests,
// "" to leave the managed layer out.
func deferred(getenv func(string) string, pl payload, wd, self, root string, log logger) bool {
	if root != "" {
		l, seen := hookClient(getenv, pl.permissionMode, pl.promptID)
		switch managedDeferred(getenv, l, seen, self, root, log) {
		case managedSelf:
			return false
		case managedRuns:
			return true
		}
	}
	return projectDeferred(getenv, pl.cwd, wd, self, log)
}

// deferVar is set by the user-scope hook (setup --scope user): the
// project's wrapper, then the settings files that may run it, relative to
// the session's project directory and separated by colons. Where the
// project's own hook runs too, it prints the reminder, and the user-scope
// hook prints nothing, so that the session gets one reminder, not two.
// The python3 fallback in templates/wrapper.sh applies the same rule
// (TestDeferGoMatchesPython holds the two together).
const deferVar = "NOWHOOK_DEFER"

// maxDeferRead bounds the read of one settings file.
const maxDeferRead = 1 << 20

// projectDeferred reports whether the project's own hook prints the reminder in
// this session: the session's project directory (CLAUDE_PROJECT_DIR,
// QWEN_PROJECT_DIR, else the payload's cwd, else the working directory)
// holds the wrapper named first in NOWHOOK_DEFER, executable, and one of
// the settings files named after it mentions that wrapper. self is the
// wrapper running this hook (--script): when it is that very wrapper, this
// is the project's own hook, and a NOWHOOK_DEFER it inherited (exported in
// the agent's environment) does not silence it. Without the variable it
// costs nothing; with it, a stat or two and a small read at most.
func projectDeferred(getenv func(string) string, cwd, wd, self string, log logger) bool {
	spec := getenv(deferVar)
	if spec == "" {
		return false
	}
	files := strings.Split(spec, ":")
	script, settings := files[0], files[1:]
	if script == "" || len(settings) == 0 {
		log.printf("%s=%q names no wrapper and settings file: not deferring", deferVar, spec)
		return false
	}
	dir := ""
	for _, d := range []string{getenv("CLAUDE_PROJECT_DIR"), getenv("QWEN_PROJECT_DIR"), cwd, wd} {
		if d != "" {
			dir = d
			break
		}
	}
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, script))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return false
	}
	if self != "" {
		if me, err := os.Stat(self); err == nil && os.SameFile(fi, me) {
			log.printf("%s names this very wrapper (%s): this is the project's own hook, not deferring", deferVar, self)
			return false
		}
	}
	for _, s := range settings {
		if s != "" && mentions(filepath.Join(dir, s), script) {
			log.printf("the project's own hook runs here (%s runs %s in %s): printing nothing", s, script, dir)
			return true
		}
	}
	return false
}

// mentions reports whether the regular file at path names script.
func mentions(path, script string) bool {
	f, err := openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDeferRead))
	return err == nil && bytes.Contains(b, []byte(script))
}

// openRegular opens the file at path for reading if it is a regular file
// (or a link to one). A FIFO, a device or a directory is never read: it is
// opened without blocking (opening a FIFO with no writer would wait
// forever), then refused.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}
