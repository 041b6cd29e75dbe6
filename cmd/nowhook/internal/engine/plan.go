package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// A change is one file's planned new content. Nothing touches the disk
// until every change of a plan has been computed and checked.
type change struct {
	rel     string      // as shown to the user, relative to the root
	target  string      // the file written: the final target when rel is a symlink
	old     []byte      // current content; nil when absent
	existed bool        // whether target exists
	oldMode fs.FileMode // current mode, when it exists
	next    []byte      // planned content
	mode    fs.FileMode // mode to write with
	remove  bool        // the file is deleted
	touched bool        // something was planned for it (an absent file is created)
	whole   string      // what the file is when nowhook owns it whole ("wrapper script"), else ""
	// created lists the JSON containers the plan creates in the file.
	created []string
	// unhooked: a removal took something of nowhook's out of the file and
	// left it; clean: nothing of nowhook's is left in it afterwards, so
	// the record forgets it.
	unhooked, clean bool
}

func (c *change) changed() bool {
	if c.remove {
		return c.existed
	}
	if !c.existed {
		return c.touched
	}
	return !bytes.Equal(c.old, c.next) || c.mode != c.oldMode
}

// take plans the file as an artifact's edit leaves it: its content,
// whole or executable where the edit says, with the JSON containers the
// edit creates.
func (c *change) take(e agent.Edit) {
	c.next, c.touched, c.remove = e.Next, true, false
	if e.Whole {
		c.whole = "nowhook's script"
	}
	if e.Exec {
		c.mode = c.oldMode | 0o755
		if !c.existed {
			c.mode = 0o755
		}
	}
	c.created = append(c.created, e.Created...)
}

// status says what the plan does to the file, for the summary.
func (c *change) status() string {
	switch {
	case !c.changed():
		return "unchanged"
	case c.remove:
		return "deleted"
	case !c.existed:
		return "created"
	}
	return "updated"
}

// plan is every change of one command run, keyed by the file written, so
// that two names for one file (a symlink) get all their edits in one place.
type plan struct {
	root    string
	changes []*change
	byPath  map[string]*change
	notes   []string // warnings and things left alone, shown after the summary
	losses  []string // what an agent would no longer read once the plan is written
	// rmdirs are the folders the plan deletes once the files in them are
	// gone, deepest first.
	rmdirs []string
	// madeDirs are the folders write created.
	madeDirs []string
	// dirNames maps each folder of rmdirs to the name it has in the
	// repository (.claude/hooks where .claude links elsewhere).
	dirNames map[string]string
	// starts are the folders below the root where a session plausibly
	// starts (agent.StartFolders), found once per reconcile.
	starts []string
	// disk remembers what target found and what the files are on disk,
	// for every plan of one reconcile (nothing is written while they are
	// made): the reconcile asks again and again (sameBlock), and the
	// judgements of what the agents read ask for the same files in plan
	// after plan.
	disk *diskCache
	// bare is the Bare view of the plan's files, once asked (vet, after
	// the plan is made).
	bare map[bool]agent.Files
}

// diskCache is what target found for a name, and what a file holds on disk.
type diskCache struct {
	targets map[string]resolved
	files   map[string]onDisk
	lists   map[string][]string
	// memo keeps the facts the agent table derives from files that no
	// plan writes (agent.Memoizer: Codex's config.toml layers).
	memo map[string]any
}

// onDisk is a file as file found it: what Stat said, and its bytes.
type onDisk struct {
	info    fs.FileInfo
	statErr error
	old     []byte
	readErr error
}

func newDiskCache() *diskCache {
	return &diskCache{targets: map[string]resolved{}, files: map[string]onDisk{}, lists: map[string][]string{}, memo: map[string]any{}}
}

type resolved struct {
	path string
	err  error
}

func newPlan(root string) *plan {
	return &plan{root: root, byPath: map[string]*change{}, dirNames: map[string]string{}, disk: newDiskCache()}
}

// target is the file that rel, relative to the root, really names
// (resolve).
func (p *plan) target(rel string) (string, error) {
	if t, ok := p.disk.targets[rel]; ok {
		return t.path, t.err
	}
	path, err := resolve(filepath.Join(p.root, filepath.FromSlash(rel)))
	p.disk.targets[rel] = resolved{path, err}
	return path, err
}

// read is the file target on disk, read once per reconcile.
func (p *plan) read(target string) onDisk {
	if f, ok := p.disk.files[target]; ok {
		return f
	}
	var f onDisk
	f.info, f.statErr = os.Stat(target)
	if f.statErr == nil && f.info.Mode().IsRegular() {
		f.old, f.readErr = readPlanned(target)
	}
	p.disk.files[target] = f
	return f
}

// file returns the change for rel, reading the file on first use.
func (p *plan) file(rel string) (*change, error) {
	target, err := p.target(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if c, ok := p.byPath[target]; ok {
		return c, nil
	}
	c := &change{rel: rel, target: target, mode: 0o644}
	d := p.read(target)
	info, err := d.info, d.statErr
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s: is a directory, where nowhook expects a file; move it away, then run nowhook again", rel)
	case err == nil && !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s: is %s, not a regular file, so nowhook neither reads nor writes it; replace it with a file, then run nowhook again", rel, osutil.KindOf(info.Mode()))
	case err == nil:
		if d.readErr != nil {
			return nil, readError(rel, d.readErr)
		}
		c.old, c.existed, c.mode, c.oldMode = d.old, true, info.Mode().Perm(), info.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	c.next = c.old
	p.byPath[target] = c
	p.changes = append(p.changes, c)
	return c, nil
}

// note adds a note once: an artifact several agents share (the AGENTS.md
// block) says the same thing for each of them.
func (p *plan) note(format string, args ...any) {
	p.notes = appendOnce(p.notes, fmt.Sprintf(format, args...))
}

// lose adds a note, once, that says what an agent no longer reads once
// the plan is written: true only of a plan that is written.
func (p *plan) lose(msg string) { p.losses = appendOnce(p.losses, msg) }

// appendOnce is list with s at its end, unless list holds s already.
func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// resolve follows symlinks to the file that is really written: in the
// path's directories and in the file itself, even when the final target
// or some of its folders do not exist yet.
func resolve(path string) (string, error) {
	for hops := 0; hops < 40; hops++ {
		dir, base := filepath.Split(path)
		path = filepath.Join(realDir(dir), base)
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// realDir resolves the symlinks of dir as far as it exists: the folders
// below that are kept as named, so that .claude/hooks, not there yet
// under a .claude that links into a dotfiles folder, is that folder's
// hooks/.
func realDir(dir string) string {
	dir = filepath.Clean(dir)
	var rest []string
	for d := dir; ; {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		rest = append([]string{filepath.Base(d)}, rest...)
		d = parent
	}
}

// shown is the name a diff uses for c: the file really written, relative
// to the root, so that a patch tool can apply it to a symlinked name too.
func (p *plan) shown(c *change) string {
	if r := relTo(p.root, c.target); !filepath.IsAbs(r) {
		return r
	}
	return c.rel
}

// shownDir is the name a summary or diff uses for a folder the plan
// deletes: relative to the root where it really lies inside it, else the
// name it has in the repository.
func (p *plan) shownDir(dir string) string {
	if r := relTo(p.root, dir); !filepath.IsAbs(r) {
		return r
	}
	if name, ok := p.dirNames[dir]; ok {
		return name
	}
	return dir
}

// relTo shows path relative to root where it lies inside it.
func relTo(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}
