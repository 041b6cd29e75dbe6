package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nowhook/nowhook/detect"
)

// record remembers, per clone, what setup created: files, folders and the
// JSON containers it added to files that existed. Remove reads it to take
// away exactly those and keep what was there before (an empty .claude/
// folder, a "SessionStart": [] that someone wrote). It lives in the git
// directory, so it is never committed and never shared; a clone without
// it (a teammate's) falls back to what the files show: a file or folder
// left with nothing in it goes.
type record struct {
	path  string          // "" outside git: nothing is remembered
	found bool            // the record existed when read
	lines map[string]bool // "f rel", "k rel", "d rel", "c rel#container"
}

// loadRecord reads the record of the repository root.
func loadRecord(root string) *record {
	r := &record{lines: map[string]bool{}}
	dir, ok := gitDir(root)
	if !ok {
		return r
	}
	sum := sha256.Sum256([]byte(root))
	r.path = filepath.Join(dir, "nowhook", "created-"+hex.EncodeToString(sum[:6]))
	b, err := os.ReadFile(r.path)
	if err != nil {
		return r
	}
	r.found = true
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			r.lines[line] = true
		}
	}
	return r
}

// gitDir finds the git directory of the repository holding root: the .git
// folder, or where a .git file (worktree, submodule) points.
func gitDir(root string) (string, bool) {
	top, ok := detect.GitTop(root)
	if !ok {
		return "", false
	}
	dotGit := filepath.Join(top, ".git")
	info, err := os.Stat(dotGit)
	if err != nil {
		return "", false
	}
	if info.IsDir() {
		return dotGit, true
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", false
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(top, dir)
	}
	return dir, true
}

// clone is a copy that is never saved, for a scratch plan.
func (r *record) clone() *record {
	c := &record{found: r.found, lines: map[string]bool{}}
	for l := range r.lines {
		c.lines[l] = true
	}
	return c
}

// knows reports whether the record has seen the file rel.
func (r *record) knows(rel string) bool { return r.lines["f "+rel] || r.lines["k "+rel] }

// dropContainer says whether the JSON container path of rel, left empty
// by a removal, was nowhook's.
func (r *record) dropContainer(rel, path string) bool {
	if !r.knows(rel) {
		return true
	}
	return r.lines["f "+rel] || r.lines["c "+rel+"#"+path]
}

// createdFile says whether the file rel, left with nothing in it, was
// created by nowhook.
func (r *record) createdFile(rel string) bool {
	if !r.knows(rel) {
		return true
	}
	return r.lines["f "+rel]
}

// createdDir says whether the folder rel, left empty, was created by
// nowhook.
func (r *record) createdDir(rel string) bool {
	if !r.found {
		return true
	}
	return r.lines["d "+rel]
}

// update adds what the plan creates and drops what it deletes.
func (r *record) update(p *plan, madeDirs []string) {
	for _, c := range p.changes {
		if !c.changed() && len(c.created) == 0 {
			continue
		}
		rel := relTo(p.root, c.target)
		if c.remove {
			delete(r.lines, "f "+rel)
			delete(r.lines, "k "+rel)
			for line := range r.lines {
				if strings.HasPrefix(line, "c "+rel+"#") {
					delete(r.lines, line)
				}
			}
			continue
		}
		switch {
		case !c.existed:
			// Created now, whatever an older record says of an earlier file.
			delete(r.lines, "k "+rel)
			r.lines["f "+rel] = true
		case !r.knows(rel):
			r.lines["k "+rel] = true
		}
		for _, path := range c.created {
			r.lines["c "+rel+"#"+path] = true
		}
	}
	for _, dir := range madeDirs {
		r.lines["d "+relTo(p.root, dir)] = true
	}
	for _, dir := range p.rmdirs {
		delete(r.lines, "d "+relTo(p.root, dir))
	}
}

// dropRemoved forgets the containers a removal took out of rel.
func (r *record) dropRemoved(rel string, kept func(path string) bool) {
	for line := range r.lines {
		if path, ok := strings.CutPrefix(line, "c "+rel+"#"); ok && !kept(path) {
			delete(r.lines, line)
		}
	}
}

// save writes the record, or deletes it when it holds nothing. Failing to
// save only costs precision in a later remove, so errors are ignored.
func (r *record) save() {
	if r.path == "" {
		return
	}
	if len(r.lines) == 0 {
		_ = os.Remove(r.path)
		_ = os.Remove(filepath.Dir(r.path))
		return
	}
	var lines []string
	for l := range r.lines {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	var b strings.Builder
	b.WriteString("# What nowhook setup created in this clone (f file, k file that existed, d folder, c JSON container); nowhook remove reads it.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o755); err == nil {
		_ = writeAtomic(r.path, []byte(b.String()), 0o644)
	}
}

// loadUserRecord reads the record of what setup --scope user created in
// the user's own agent folders, outside every repository:
// ${XDG_STATE_HOME:-~/.local/state}/nowhook/user-scope, its paths relative
// to the file-system root. Unlike a clone's, a missing record is no
// licence to delete folders: only those it lists go.
func loadUserRecord() *record {
	r := &record{lines: map[string]bool{}, found: true}
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home := os.Getenv("HOME")
		if home == "" {
			return r
		}
		state = filepath.Join(home, ".local", "state")
	}
	r.path = filepath.Join(state, "nowhook", "user-scope")
	if b, err := os.ReadFile(r.path); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				r.lines[line] = true
			}
		}
	}
	return r
}

// forgetKept empties a record that lists nothing nowhook created (only
// files that existed before), so that it is deleted once setup's last
// file, folder and container are gone.
func (r *record) forgetKept() {
	for line := range r.lines {
		if !strings.HasPrefix(line, "k ") {
			return
		}
	}
	clear(r.lines)
}
