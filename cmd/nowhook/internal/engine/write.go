package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// check refuses a plan that could not be written whole: it runs before the
// first write, so a refusal changes nothing.
func (p *plan) check() error {
	for _, c := range p.changes {
		if !c.changed() {
			continue
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
				return fmt.Errorf("%s: %s is a symbolic link to a directory that does not exist; create its target or remove the link, then run nowhook again", c.rel, relTo(p.root, dir))
			}
		}
	}
	return nil
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
// mode back, and folders it created or deleted are deleted or made again.
func (p *plan) write() error {
	if err := p.check(); err != nil {
		return err
	}
	var done []*change
	var madeDirs, goneDirs []string
	fail := func(what string, err error) error {
		p.rollback(done, madeDirs, goneDirs)
		return fmt.Errorf("%s: %w (every file changed before it was restored, and the folders it created were removed)", what, err)
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
				err = writeAtomic(c.target, c.next, c.mode)
			}
		}
		if err != nil {
			return fail(c.rel, err)
		}
		done = append(done, c)
	}
	for _, dir := range p.rmdirs {
		if err := os.Remove(dir); err != nil {
			return fail(relTo(p.root, dir), err)
		}
		goneDirs = append(goneDirs, dir)
	}
	p.madeDirs = madeDirs
	return nil
}

func (p *plan) rollback(done []*change, madeDirs, goneDirs []string) {
	for i := len(goneDirs) - 1; i >= 0; i-- {
		_ = os.Mkdir(goneDirs[i], 0o755)
	}
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		if c.existed {
			_ = writeAtomic(c.target, c.old, c.oldMode)
		} else {
			_ = os.Remove(c.target)
		}
	}
	for i := len(madeDirs) - 1; i >= 0; i-- {
		_ = os.Remove(madeDirs[i])
	}
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

// writeAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over it, with mode.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".nowhook-*")
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
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
