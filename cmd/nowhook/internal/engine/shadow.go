package engine

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// A shadow is the repository as the plan would leave it, made so that
// doctor's checks, which read files from disk, can judge the plan before
// anything is written (setup refuses a plan they call an error, and setup
// --check lists what they say): a temporary folder in which every folder
// above a file the plan changes is a real folder, its other entries
// symbolic links to the repository's, and each changed file holds the
// plan's content (a deleted one is absent). Nothing in the repository is
// touched.

// Shadow makes the plan's shadow and returns its root and the function
// that removes it. Files the plan changes outside the repository (through
// a linked folder) are shown under the name the repository gives them.
func (pl *Plan) Shadow() (root string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "nowhook-shadow-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	if err := pl.p.shadow(dir); err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}

func (p *plan) shadow(dir string) error {
	type file struct {
		next   []byte
		mode   os.FileMode
		remove bool
	}
	files := map[string]file{}
	for _, c := range p.changes {
		if !c.changed() {
			continue
		}
		rel := relTo(p.root, c.target)
		if filepath.IsAbs(rel) {
			rel = c.rel // outside the repository, through a link: its name here
		}
		files[rel] = file{next: c.next, mode: c.mode, remove: c.remove}
	}
	real := map[string]bool{".": true}
	for rel := range files {
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			real[d] = true
		}
	}
	var dirs []string
	for d := range real {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		return strings.Count(dirs[i], "/") < strings.Count(dirs[j], "/") || dirs[i] < dirs[j]
	})
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
		entries, _ := os.ReadDir(filepath.Join(p.root, filepath.FromSlash(d)))
		for _, e := range entries {
			rel := path.Join(d, e.Name())
			if _, changed := files[rel]; changed || real[rel] {
				continue
			}
			src := filepath.Join(p.root, filepath.FromSlash(rel))
			link := src
			if info, err := os.Lstat(src); err == nil && info.Mode()&os.ModeSymlink != 0 {
				// A link keeps its own text, so that one naming a file
				// the plan changes names the shadow's; an absolute one
				// into the repository is turned into the shadow.
				if to, err := os.Readlink(src); err == nil {
					abs := to
					if !filepath.IsAbs(to) {
						abs = filepath.Join(filepath.Dir(src), to)
					}
					switch {
					case !Within(p.root, abs):
						link = abs // outside the repository: the same file
					case filepath.IsAbs(to):
						link = filepath.Join(dir, strings.TrimPrefix(to, p.root))
					default:
						link = to
					}
				}
			}
			if err := os.Symlink(link, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return err
			}
		}
	}
	for rel, f := range files {
		if f.remove {
			continue
		}
		name := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.WriteFile(name, f.next, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(name, f.mode); err != nil {
			return err
		}
	}
	for _, d := range p.rmdirs {
		if rel := relTo(p.root, d); !filepath.IsAbs(rel) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	return nil
}
