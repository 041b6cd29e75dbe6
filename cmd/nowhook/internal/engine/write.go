package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// check refuses a plan that could not be written whole, or that would
// write where the guard forbids: it runs before the first write, so a
// refusal changes nothing. A file the plan only reads through a link out
// of its area gets a note saying where it really is.
func (p *plan) check(g *guard) error {
	for _, c := range p.changes {
		if !c.changed() {
			if g != nil && c.existed && !g.outside {
				if _, ok := g.inside(c.target); !ok && len(g.areas) > 0 && !g.rec.consented(c.target) {
					if link, to := g.linkOut(c.rel); link != "" {
						p.note("%s is a symbolic link to %s, outside %s: nowhook read it there and changed nothing in it.", osutil.TildeHome(link), osutil.TildeHome(to), g.areas[0].name)
					}
				}
			}
			continue
		}
		if g != nil {
			verb := "write"
			switch {
			case c.remove:
				verb = "delete"
			case !c.existed:
				verb = "create"
			}
			if err := g.allows(c.rel, c.target, verb); err != nil {
				return err
			}
		}
		if c.remove {
			if info, err := os.Stat(filepath.Dir(c.target)); err != nil || info.Mode().Perm()&0o222 == 0 {
				return fmt.Errorf("%s: its directory is not writable, so it cannot be deleted; make it writable, then run nowhook again", c.rel)
			}
			continue
		}
		if c.existed && c.oldMode&0o222 == 0 {
			return fmt.Errorf("%s: is read-only; make it writable (chmod u+w %s), then run nowhook again", c.rel, c.rel)
		}
		if c.existed {
			if err := keepable(g, c); err != nil {
				return err
			}
		}
		if isTextFile(c.rel) && !utf8.Valid(c.next) {
			return fmt.Errorf("%s: internal error: planned content is not UTF-8; nothing was written", c.rel)
		}
		for dir := filepath.Dir(c.target); ; dir = filepath.Dir(dir) {
			info, err := os.Stat(dir)
			if err == nil {
				if !info.IsDir() {
					return fmt.Errorf("%s: %s is not a directory; move it away, then run nowhook again", c.rel, relTo(p.root, dir))
				}
				if info.Mode().Perm()&0o222 == 0 {
					return fmt.Errorf("%s: directory %s is read-only; make it writable, then run nowhook again", c.rel, relTo(p.root, dir))
				}
				break
			}
			if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
				return fmt.Errorf("%s: %w", c.rel, err)
			}
			if info, lerr := os.Lstat(dir); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
				to, _ := os.Readlink(dir)
				return fmt.Errorf("%s: %s is a symbolic link to %s, which does not exist; nowhook creates no folder through a dangling link: create its target or remove the link, then run nowhook again", c.rel, relTo(p.root, dir), osutil.TildeHome(to))
			}
		}
	}
	for _, d := range p.rmdirs {
		if g != nil {
			if err := g.allows(p.shownDir(d)+"/", d, "delete the folder"); err != nil {
				return err
			}
		}
	}
	return nil
}

// keepable refuses a rewrite that would lose the file's owner or group
// (a user's file rewritten by someone else), or write, through a hard
// link, one of the user's own agent settings files.
func keepable(g *guard, c *change) error {
	info, err := os.Stat(c.target)
	if err != nil {
		return nil // gone since it was read: the write finds out
	}
	if uid, gid, ok := osutil.Owner(info); ok && !osutil.CanOwn(uid, gid) {
		return fmt.Errorf("%s: belongs to user %d, group %d; rewritten by this user (%d) it would belong to this user: run nowhook as its owner, then run nowhook again", c.rel, uid, gid, os.Geteuid())
	}
	if osutil.Links(info) > 1 && g != nil && g.project {
		if own, ok := g.sameAsOwn(info); ok {
			return fmt.Errorf("%s: is a hard link to %s, your own agent settings: written in place, it would change them for every session on this machine, so nowhook writes neither; replace the hard link with a file of the repository's own (cp --remove-destination), then run nowhook again", c.rel, osutil.TildeHome(own))
		}
	}
	return nil
}

// readPlanned reads a file the plan may change: bounded, and never a
// special file (osutil.ReadBounded).
func readPlanned(path string) ([]byte, error) { return osutil.ReadBounded(path, diag.MaxRead) }

// readError says why the plan cannot read the file rel: too large is not
// unreadable, and neither is a special file.
func readError(rel string, err error) error {
	var tl *osutil.TooLargeError
	var nr *osutil.NotRegularError
	switch {
	case errors.As(err, &tl):
		return fmt.Errorf("%s: %v, so nowhook neither edits nor checks it and changed nothing; shrink it (an agent's settings file is a few KiB), then run nowhook again", rel, err)
	case errors.As(err, &nr):
		return fmt.Errorf("%s: %v, so nowhook neither reads nor writes it; replace it with a file, then run nowhook again", rel, err)
	}
	return fmt.Errorf("%s: cannot be read: %w; fix its permissions, then run nowhook again", rel, err)
}

func isTextFile(rel string) bool {
	switch filepath.Ext(rel) {
	case ".json", ".md", ".sh":
		return true
	}
	return false
}

// write makes every change of the plan, each file atomically, then
// deletes the files and folders it removes. If one step fails, every
// earlier one is undone: files written or deleted get their old bytes and
// mode back, and folders it created or deleted are deleted or made again;
// the error says, file by file, what was undone and what could not be.
// Before the first write it deletes the temporary copies that a run
// stopped between writing and renaming left beside the plan's files.
func (p *plan) write(g *guard, rescue string) error {
	if err := p.check(g); err != nil {
		return err
	}
	p.clearLeftovers(g)
	var done []*change
	var madeDirs, goneDirs []string
	fail := func(what string, err error) error {
		return &WriteError{File: what, Err: err, Undo: p.rollback(done, madeDirs, goneDirs, rescue)}
	}
	for _, c := range p.changes {
		if !c.changed() {
			continue
		}
		var err error
		if c.remove {
			err = os.Remove(c.target)
		} else {
			var dirs []string
			dirs, err = mkdirs(filepath.Dir(c.target))
			madeDirs = append(madeDirs, dirs...)
			if err == nil {
				err = writeFile(c.target, c.next, c.mode)
			}
		}
		if err != nil {
			return fail(c.rel, err)
		}
		done = append(done, c)
	}
	for _, dir := range p.rmdirs {
		if err := os.Remove(dir); err != nil {
			return fail(p.shownDir(dir)+"/", err)
		}
		goneDirs = append(goneDirs, dir)
	}
	p.madeDirs = madeDirs
	return nil
}

// WriteError is a write that failed after the checks passed, and what
// the rollback made of the earlier steps.
type WriteError struct {
	File string
	Err  error
	Undo []Undone
}

// Undone is one earlier step of a failed write and what its rollback did:
// Done says what was put back ("restored", "deleted again", ...); Err is
// set when it could not be, and Saved names where the file's old bytes
// were kept then ("" when they could not be saved either).
type Undone struct {
	Name, Done string
	Err        error
	Saved      string
}

func (e *WriteError) Unwrap() error { return e.Err }

func (e *WriteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v", e.File, e.Err)
	if len(e.Undo) == 0 {
		b.WriteString("; nothing had been changed before it, so every file is as it was")
		return b.String()
	}
	var failed int
	for _, u := range e.Undo {
		if u.Err != nil {
			failed++
		}
	}
	if failed == 0 {
		b.WriteString("\nEvery earlier step was undone, so every file is as it was:")
	} else {
		fmt.Fprintf(&b, "\n%d of the %d earlier steps could not be undone:", failed, len(e.Undo))
	}
	for _, u := range e.Undo {
		if u.Err == nil {
			fmt.Fprintf(&b, "\n  %s: %s", u.Name, u.Done)
			continue
		}
		fmt.Fprintf(&b, "\n  %s: NOT %s (%v)", u.Name, u.Done, u.Err)
		switch {
		case u.Saved != "":
			fmt.Fprintf(&b, "; its old content is saved in %s", osutil.TildeHome(u.Saved))
		case u.Done == "restored":
			b.WriteString("; its old content could not be saved either")
		}
	}
	return b.String()
}

// rollback undoes the steps done and reports each: first what the run
// created goes (files, then folders), which frees the room that putting
// the old files back may need on a full disk; then the folders it deleted
// come back, then the files it changed or deleted get their old bytes
// and mode, last first. A file whose old bytes cannot be put back gets
// them saved in the folder rescue, so that they are never lost.
func (p *plan) rollback(done []*change, madeDirs, goneDirs []string, rescue string) []Undone {
	var out []Undone
	for i := len(done) - 1; i >= 0; i-- {
		if c := done[i]; !c.existed {
			err := os.Remove(c.target)
			out = append(out, Undone{Name: p.shown(c), Done: "deleted again (this run created it)", Err: err})
		}
	}
	for i := len(madeDirs) - 1; i >= 0; i-- {
		err := os.Remove(madeDirs[i])
		out = append(out, Undone{Name: relTo(p.root, madeDirs[i]) + "/", Done: "deleted again (this run created it)", Err: err})
	}
	for i := len(goneDirs) - 1; i >= 0; i-- {
		err := os.Mkdir(goneDirs[i], 0o755)
		out = append(out, Undone{Name: p.shownDir(goneDirs[i]) + "/", Done: "made again", Err: err})
	}
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		if !c.existed {
			continue
		}
		err := writeFile(c.target, c.old, c.oldMode)
		u := Undone{Name: p.shown(c), Done: "restored", Err: err}
		if err != nil {
			u.Saved = saveRescue(rescue, c.target, c.old)
		}
		out = append(out, u)
	}
	return out
}

// saveRescue keeps data, the old content of the file at path that a
// rollback could not put back, in the folder dir (nowhook's record
// folder), else in nowhook's state folder, else in the temporary folder
// (another file system, perhaps, when this one is full), and returns
// where; "" when none would take it.
func saveRescue(dir, path string, data []byte) string {
	base := strings.ReplaceAll(strings.TrimPrefix(path, string(filepath.Separator)), string(filepath.Separator), "%") +
		"." + time.Now().UTC().Format("20060102T150405.000000000")
	for _, d := range []string{dir, stateDir(), filepath.Join(os.TempDir(), "nowhook")} {
		if d == "" {
			continue
		}
		name := filepath.Join(d, "rescue", base)
		if os.MkdirAll(filepath.Dir(name), 0o700) == nil && os.WriteFile(name, data, 0o600) == nil {
			return name
		}
	}
	return ""
}

// mkdirs creates dir and its missing parents, returning those it made.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // not ours to remove on rollback
		}
		if err != nil {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// The temporary file of a write lies beside the file it replaces:
// ".settings.json.nowhook-123456"; the copy of a hard-linked file's old
// content, kept while it is written in place, is
// ".settings.json.nowhook-undo-123456".
const (
	tempInfix = ".nowhook-"
	undoInfix = ".nowhook-undo-"
)

func tempPrefix(path string) string { return "." + filepath.Base(path) + tempInfix }

// testHookRename, when set by a test, is called with the temporary file
// just before it is renamed over its target; an error stops the write
// there, as a kill would.
var testHookRename func(tmp, target string) error

// writeFile writes data to path with mode, keeping the file's owner and
// group: atomically, through a temporary file beside it that is renamed
// over it, or, for a file with several hard links (which a rename would
// split from its other names), in place.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	info, err := os.Stat(path)
	if err != nil {
		info = nil
	}
	if info != nil && osutil.Links(info) > 1 && info.Mode().IsRegular() {
		return writeInPlace(path, data, mode, info)
	}
	return writeAtomic(path, data, mode, info)
}

// writeAtomic writes data to path through a temporary file in the same
// directory (never $TMPDIR: a rename works only within one file system),
// synced and renamed over it, with mode, and with old's owner and group
// when the file existed (old, else nil).
func writeAtomic(path string, data []byte, mode fs.FileMode, old fs.FileInfo) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if old != nil {
		if uid, gid, ok := osutil.Owner(old); ok {
			if err = f.Chown(uid, gid); err != nil {
				return err
			}
		}
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if testHookRename != nil {
		if err = testHookRename(f.Name(), path); err != nil {
			return err
		}
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeInPlace rewrites a hard-linked file through its own descriptor, so
// that every name of it sees the new content. Its old content is kept
// beside it (.FILE.nowhook-undo-N) until the new one is synced: a run
// stopped in between leaves that copy, which the next run names instead
// of deleting.
func writeInPlace(path string, data []byte, mode fs.FileMode, old fs.FileInfo) error {
	before, err := osutil.ReadBounded(path, diag.MaxRead)
	if err != nil {
		return err
	}
	undo, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+undoInfix+"*")
	if err != nil {
		return err
	}
	if _, err := undo.Write(before); err != nil {
		undo.Close()
		os.Remove(undo.Name())
		return err
	}
	if err := undo.Sync(); err != nil {
		undo.Close()
		os.Remove(undo.Name())
		return err
	}
	undo.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		os.Remove(undo.Name())
		return err
	}
	if _, err = f.WriteAt(data, 0); err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil && old.Mode().Perm() != mode {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The file may hold part of the new content: put the old back.
		if f, rerr := os.OpenFile(path, os.O_WRONLY, 0); rerr == nil {
			if _, rerr = f.WriteAt(before, 0); rerr == nil {
				rerr = f.Truncate(int64(len(before)))
			}
			if f.Close() == nil && rerr == nil {
				os.Remove(undo.Name())
			}
		}
		return err
	}
	return os.Remove(undo.Name())
}

// syncDir makes a rename in dir durable; a failure only loses that.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// clearLeftovers deletes the temporary files that a run stopped between
// writing and renaming left beside the plan's files (".FILE.nowhook-N":
// the new content, never renamed, so the file itself is as it was), and
// names, without deleting, a hard-linked file's old content left by a run
// stopped while it wrote that file in place. Only beside files the guard
// lets the plan write.
func (p *plan) clearLeftovers(g *guard) {
	seen := map[string]bool{}
	for _, c := range p.changes {
		if g != nil && g.allows(c.rel, c.target, "write") != nil {
			continue
		}
		dir := filepath.Dir(c.target)
		prefix := tempPrefix(c.target)
		if seen[dir+"\x00"+prefix] {
			continue
		}
		seen[dir+"\x00"+prefix] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var gone, undo []string
		for _, e := range entries {
			name := e.Name()
			rest, ok := strings.CutPrefix(name, prefix)
			if !ok || !e.Type().IsRegular() {
				continue
			}
			if n, ok := strings.CutPrefix(rest, "undo-"); ok && digits(n) {
				undo = append(undo, name)
				continue
			}
			if digits(rest) && os.Remove(filepath.Join(dir, name)) == nil {
				gone = append(gone, name)
			}
		}
		shown := relTo(p.root, dir)
		if len(gone) > 0 {
			p.note("deleted %s in %s: temporary copies that a nowhook run stopped before it could rename them left behind (%s itself was never changed by that run).", strings.Join(gone, ", "), osutil.TildeHome(shown), filepath.Base(c.target))
		}
		for _, u := range undo {
			p.note("%s in %s holds what %s held before a nowhook run was stopped while it rewrote that hard-linked file in place: compare the two, keep what you need, then delete %s.", u, osutil.TildeHome(shown), c.rel, u)
		}
	}
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
