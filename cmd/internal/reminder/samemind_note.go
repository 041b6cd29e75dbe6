package reminder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// samemind's pre-compact note (--sources samemind=note; docs/platforms.md,
// "Sources"): samemind's compaction recipe flushes the session's state
// into the knowledge base's inbox before a compaction, appending a dated
// "pre-compact" note to $OKF_ROOT/inbox/mcp.md, and runs `samemind
// handoff` at the next start, which files the inbox into the handoff.
// A hook cannot make the model write anything, so the note is what the
// hook can know mechanically, fresh: when, which session, where it
// started, and git's branch, HEAD and changed-file count.
//
// The pre-compaction hook runs it (nowhook reminder --samemind-note). It
// prints nothing, whatever happens: the compaction goes on. The note is
// appended, one line in one write, never rewritten; once written it is
// the user's, and remove leaves it (README, "Sources").

const (
	// noteFile is the inbox file of samemind's example, under $OKF_ROOT.
	noteFile = "inbox/mcp.md"
	// maxNoteLine bounds the note, in bytes.
	maxNoteLine = 800
	// maxNoteField bounds each piece of it (a path, a subject).
	maxNoteField = 200
)

// noteGitOptions bound the note's git calls: git status gets more time
// than after a compaction (gitStatusMax), as a compaction takes seconds
// anyway; a repository where it takes longer gets no count.
var noteGitOptions = gitOptions{factsMax: gitFactsMax, statusMax: 250 * time.Millisecond}

// noteNow is the note's clock (tests set it).
var noteNow = time.Now

// samemindNote does the work of --samemind-note and returns what to
// print: nothing.
func samemindNote(o options) []byte {
	deadline := time.Now().Add(o.budget)
	wait := min(o.budget/4, maxStdinWait)
	pl, proceed := readPayload(o.stdin, wait, o.stop, o.log)
	if !proceed || o.foreign(pl) {
		return nil
	}
	if pl.event != "" && pl.event != "PreCompact" {
		o.log.printf("samemind note: the payload's event is %q, not PreCompact: no note", pl.event)
		return nil
	}
	root, err := knowledgeBase(o.getenv)
	if err != nil {
		o.log.printf("samemind note: %v: no note", err)
		return nil
	}
	start := pl.cwd
	if start == "" {
		start = o.wd
	}
	facts, ok := readGitFacts(start, deadline, noteGitOptions, o.stop, o.log)
	line := noteLine(noteNow(), pl.sessionID, start, facts, ok)
	path := filepath.Join(root, filepath.FromSlash(noteFile))
	if err := appendNote(path, line); err != nil {
		o.log.printf("samemind note: %v", err)
		return nil
	}
	o.log.printf("samemind note: appended %d bytes to %s", len(line), path)
	return nil
}

// knowledgeBase is the folder samemind reads, $OKF_ROOT or ~/samemind,
// which must exist: the note never creates a knowledge base.
func knowledgeBase(getenv func(string) string) (string, error) {
	root := getenv("OKF_ROOT")
	if root == "" {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither OKF_ROOT nor HOME is set")
		}
		root = filepath.Join(home, "samemind")
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("no knowledge base at %s (set OKF_ROOT)", root)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the knowledge base %s is not a folder", root)
	}
	return root, nil
}

// noteLine is the note, one Markdown list item ending in a line feed:
//
//   - 2026-12-02T04:50:12Z pre-compact (nowhook): session S, started in DIR, is being compacted; branch main at 3f4df15 "subject", 2 changed files.
//
// Each piece is sanitised and bounded as the board's text is.
func noteLine(at time.Time, session, start string, f gitFacts, gitOK bool) []byte {
	b := make([]byte, 0, 256)
	b = append(b, "- "...)
	b = at.UTC().AppendFormat(b, "2006-01-02T15:04:05Z")
	b = append(b, " pre-compact (nowhook): session "...)
	if session == "" {
		session = "(no id)"
	}
	b = appendField(b, session)
	if abs, err := filepath.Abs(start); err == nil && start != "" {
		b = append(b, ", started in "...)
		b = appendField(b, abs)
	}
	b = append(b, ", is being compacted"...)
	if gitOK {
		b = append(b, "; "...)
		if f.branch != "" {
			b = append(b, "branch "...)
			b = appendField(b, f.branch)
		} else {
			b = append(b, "detached HEAD"...)
		}
		if f.hash != "" {
			b = append(b, " at "...)
			b = appendField(b, f.hash)
			if f.subject != "" {
				b = append(b, " \""...)
				b = appendField(b, f.subject)
				b = append(b, '"')
			}
		}
		if f.counted {
			b = append(b, ", "...)
			b = strconv.AppendInt(b, int64(f.changed), 10)
			if f.changed == 1 {
				b = append(b, " changed file"...)
			} else {
				b = append(b, " changed files"...)
			}
		}
	}
	if len(b) > maxNoteLine-2 {
		b = append(cutBytes(b, 0, maxNoteLine-2-len("…")), "…"...)
	}
	return append(b, ".\n"...)
}

// appendField appends s as one clean line of at most maxNoteField bytes.
func appendField(dst []byte, s string) []byte {
	start := len(dst)
	dst = appendClean(dst, s)
	if len(dst)-start > maxNoteField {
		dst = append(cutBytes(dst, start, maxNoteField-len("…")), "…"...)
	}
	return dst
}

// appendNote appends line to the inbox file at path in one write,
// creating the inbox folder (0700) and the file (0600) where they are
// missing. Only a regular file is written: a FIFO, device or folder there
// is refused without blocking. A file whose last line has no line feed
// gets one first, so that the note starts a line of its own.
func appendNote(path string, line []byte) error {
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Stat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder: no note", dir)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: no note", path)
	}
	if size := fi.Size(); size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	_, err = f.Write(line)
	return err
}

// NoteTarget is where the pre-compact note goes for a hook started with
// this environment (getenv), for doctor: the inbox file, and nil when a
// note could be appended there now (the knowledge base exists; the inbox
// is a folder or can be made; the file is a regular one or absent). It
// writes nothing.
func NoteTarget(getenv func(string) string) (string, error) {
	root, err := knowledgeBase(getenv)
	if err != nil {
		return filepath.Join(samemindRoot(getenv), filepath.FromSlash(noteFile)), err
	}
	path := filepath.Join(root, filepath.FromSlash(noteFile))
	if fi, err := os.Stat(filepath.Dir(path)); err == nil && !fi.IsDir() {
		return path, fmt.Errorf("%s is not a folder", filepath.Dir(path))
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return path, fmt.Errorf("%s is not a regular file", path)
	}
	return path, nil
}
