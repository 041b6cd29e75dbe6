package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/detect"
)

// record remembers, per clone, what setup created: files, folders and the
// JSON containers it added to files that existed. Remove reads it to take
// away exactly those and keep what was there before (an empty .claude/
// folder, a "SessionStart": [] that someone wrote). It lives in the git
// directory, so it is never committed and never shared; a clone without
// it (a teammate's) falls back to what the files show: a file or folder
// left with nothing in it goes.
//
// Every path in it is of one kind: absolute, with symbolic links
// resolved, so that a file reached through a link (.claude pointing into
// a dotfiles folder) has one name whichever way it was reached, inside
// the repository or outside it. A record of an older nowhook, whose paths
// inside the repository were relative to it, is read into that form.
type record struct {
	root  string          // the repository root, which relative paths of old records are taken from
	path  string          // "" outside git: nothing is remembered
	found bool            // the record existed when read
	lines map[string]bool // "f PATH", "k PATH", "d PATH", "c PATH#container", "a AGENT MODE"
}

// loadRecord reads the record of the repository root.
func loadRecord(root string) *record {
	r := &record{root: root, lines: map[string]bool{}}
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
			if l, ok := r.normal(line); ok {
				r.lines[l] = true
			}
		}
	}
	return r
}

// normal gives a line of the record its one form of path (see key): an
// older record's relative paths and unresolved links are migrated here.
// An agent's line ("a claude reinject") names no path.
func (r *record) normal(line string) (string, bool) {
	kind, path, ok := strings.Cut(line, " ")
	if !ok || len(kind) != 1 || !strings.Contains("fkdca", kind) {
		return "", false
	}
	if kind == "a" {
		return line, true
	}
	if kind != "c" {
		return kind + " " + r.key(path), true
	}
	i := strings.LastIndexByte(path, '#')
	if i < 0 {
		return "", false
	}
	return "c " + r.key(path[:i]) + path[i:], true
}

// key is the record's name for path: absolute (a relative path is taken
// from the root), with the links in it resolved.
func (r *record) key(path string) string {
	path = filepath.FromSlash(path)
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.root, path)
	}
	if real, err := resolve(path); err == nil {
		return real
	}
	return filepath.Clean(path)
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
	c := &record{root: r.root, found: r.found, lines: map[string]bool{}}
	for l := range r.lines {
		c.lines[l] = true
	}
	return c
}

// knows reports whether the record has seen the file at path.
func (r *record) knows(path string) bool {
	k := r.key(path)
	return r.lines["f "+k] || r.lines["k "+k]
}

// dropContainer says whether the JSON container cpath of the file at
// path, left empty by a removal, was nowhook's.
func (r *record) dropContainer(path, cpath string) bool {
	if !r.knows(path) {
		return true
	}
	k := r.key(path)
	return r.lines["f "+k] || r.lines["c "+k+"#"+cpath]
}

// createdFile says whether the file at path, left with nothing in it,
// was created by nowhook.
func (r *record) createdFile(path string) bool {
	if !r.knows(path) {
		return true
	}
	return r.lines["f "+r.key(path)]
}

// createdDir says whether the folder at path, left empty, was created by
// nowhook.
func (r *record) createdDir(path string) bool {
	if !r.found {
		return true
	}
	return r.lines["d "+r.key(path)]
}

// made reports whether the record says nowhook created the file or folder
// at path (a marker file setup wrote is no evidence that an agent is used).
func (r *record) made(path string) bool {
	k := r.key(path)
	return r.lines["f "+k] || r.lines["d "+k]
}

// update adds what the plan creates and drops what it deletes; a file
// left with nothing of nowhook's in it (c.clean) is forgotten.
func (r *record) update(p *plan, madeDirs []string) {
	for _, c := range p.changes {
		if !c.changed() && len(c.created) == 0 {
			continue
		}
		k := r.key(c.target)
		if c.remove || c.clean {
			delete(r.lines, "f "+k)
			delete(r.lines, "k "+k)
			r.dropRemoved(k, func(string) bool { return false })
			continue
		}
		switch {
		case !c.existed:
			// Created now, whatever an older record says of an earlier file.
			delete(r.lines, "k "+k)
			r.lines["f "+k] = true
		case !r.knows(k):
			r.lines["k "+k] = true
		}
		for _, cpath := range c.created {
			r.lines["c "+k+"#"+cpath] = true
		}
	}
	for _, dir := range madeDirs {
		r.lines["d "+r.key(dir)] = true
	}
	for _, dir := range p.rmdirs {
		delete(r.lines, "d "+r.key(dir))
	}
}

// agentsKnown reports whether the record names the agents setup set up
// (a record of a nowhook before 2026-12 names none).
func (r *record) agentsKnown() bool {
	for line := range r.lines {
		if strings.HasPrefix(line, "a ") {
			return true
		}
	}
	return false
}

// setUp is the mode the record says setup set agent a up in; "" for none.
func (r *record) setUp(a *agent.Agent) agent.Mode {
	for _, m := range a.ModeNames() {
		if r.lines["a "+a.Name+" "+string(m)] {
			return m
		}
	}
	return ""
}

// setAgent remembers that a is set up in mode m ("" for not at all).
func (r *record) setAgent(a *agent.Agent, m agent.Mode) {
	for _, old := range a.ModeNames() {
		delete(r.lines, "a "+a.Name+" "+string(old))
	}
	if m != "" {
		r.lines["a "+a.Name+" "+string(m)] = true
	}
}

// dropRemoved forgets the containers a removal took out of the file at
// path.
func (r *record) dropRemoved(path string, kept func(cpath string) bool) {
	prefix := "c " + r.key(path) + "#"
	for line := range r.lines {
		if cpath, ok := strings.CutPrefix(line, prefix); ok && !kept(cpath) {
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
	b.WriteString("# What nowhook setup created in this clone (f file, k file that existed, d folder, c JSON container), by absolute path with links resolved, and the agents it set up (a agent mode); nowhook remove reads it.\n")
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
