package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
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
//
// A path may hold any byte (a newline in the repository's name): one that
// would not read back as written is saved as a Go string literal.
// Besides the files, the record keeps what remove needs to give back
// exactly what was there: the files nowhook wrote outside the repository
// with the user's consent (--follow-outside-links; their old bytes are
// kept in the folder beside the record), the files that held only white
// space before nowhook wrote into them, the user-scope folders setup
// wrote in, and the Codex project trust it recorded.
type record struct {
	root  string // the repository root, which relative paths of old records are taken from
	path  string // "" outside git: nothing is remembered
	found bool   // the record existed when read
	// lines are "f PATH", "k PATH", "d PATH", "c PATH#container",
	// "a AGENT MODE", "o PATH" (written outside, with consent), "e PATH"
	// (held only white space: blank), "u AGENT\x00FOLDER" (user scope),
	// "t AGENT\x00PROJECT" (trust recorded).
	lines map[string]bool
	// blank holds, per "e" path, the white space the file held.
	blank map[string]string
	// base, if set, is the tree the record's paths are written relative
	// to (the managed scope's: --root DIR, or /), so that a tree built
	// under DIR for packaging carries a record that is right once it is
	// installed at /.
	base string
}

// maxRecord bounds the record read: a record that size is not ours.
const maxRecord = 8 << 20

// loadRecord reads the record of the repository root.
func loadRecord(root string) *record {
	r := &record{root: root, lines: map[string]bool{}, blank: map[string]string{}}
	dir, ok := gitDir(root)
	if !ok {
		return r
	}
	sum := sha256.Sum256([]byte(root))
	r.path = filepath.Join(dir, "nowhook", "created-"+hex.EncodeToString(sum[:6]))
	b, err := osutil.ReadBounded(r.path, maxRecord)
	if err != nil {
		return r
	}
	r.found = true
	r.parse(b)
	return r
}

// parse reads the record's lines; one it cannot read is skipped.
func (r *record) parse(b []byte) {
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r.add(line)
	}
}

// add reads one line of the record into its one form of path (see key):
// an older record's relative paths and unresolved links are migrated
// here. An agent's line ("a claude reinject") names no path.
func (r *record) add(line string) {
	kind, rest, ok := strings.Cut(line, " ")
	if !ok || len(kind) != 1 {
		return
	}
	switch kind {
	case "a":
		r.lines[line] = true
	case "f", "k", "d", "o":
		if path, ok := wholePath(rest); ok {
			r.lines[kind+" "+r.key(path)] = true
		}
	case "c":
		path, cpath, ok := "", "", false
		if strings.HasPrefix(rest, `"`) {
			var tail string
			if path, tail, ok = quotedPath(rest); ok {
				cpath, ok = strings.CutPrefix(tail, "#")
			}
		} else if i := strings.LastIndexByte(rest, '#'); i >= 0 {
			path, cpath, ok = rest[:i], rest[i+1:], true
		}
		if ok {
			r.lines["c "+r.key(path)+"#"+cpath] = true
		}
	case "e":
		path, tail, ok := quotedPath(rest)
		if !ok {
			return
		}
		space, err := strconv.Unquote(strings.TrimPrefix(tail, " "))
		if err != nil || strings.TrimSpace(space) != "" {
			return
		}
		k := r.key(path)
		r.lines["e "+k] = true
		r.blank[k] = space
	case "u", "t":
		name, tail, _ := strings.Cut(rest, " ")
		if path, _, ok := quotedPath(tail); ok && name != "" {
			r.lines[kind+" "+name+"\x00"+filepath.Clean(path)] = true
		}
	}
}

// wholePath reads a path that is the rest of a line: quoted, or, as an
// older record wrote it, bare.
func wholePath(s string) (string, bool) {
	if strings.HasPrefix(s, `"`) {
		path, tail, ok := quotedPath(s)
		return path, ok && tail == ""
	}
	return s, s != ""
}

// quotedPath reads a Go string literal that starts s, and what follows it.
func quotedPath(s string) (path, tail string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	path, err = strconv.Unquote(q)
	return path, s[len(q):], err == nil && path != ""
}

// encode writes a path for the record: as it is when it reads back so,
// else as a Go string literal.
func encode(path string) string {
	if path == "" || path[0] == '"' || strings.TrimSpace(path) != path || !utf8.ValidString(path) || strings.ContainsFunc(path, unicode.IsControl) {
		return strconv.Quote(path)
	}
	return path
}

// format writes one line of lines as the record file holds it.
func (r *record) format(line string) string {
	kind, rest, _ := strings.Cut(line, " ")
	switch kind {
	case "f", "k", "d", "o":
		return kind + " " + encode(r.written(rest))
	case "c":
		i := strings.LastIndexByte(rest, '#')
		return "c " + encode(r.written(rest[:i])) + rest[i:]
	case "e":
		return "e " + strconv.Quote(r.written(rest)) + " " + strconv.Quote(r.blank[rest])
	case "u", "t":
		name, path, _ := strings.Cut(rest, "\x00")
		return kind + " " + name + " " + strconv.Quote(path)
	}
	return line
}

// written is path as the record file holds it: relative to base where
// the record has one and the path lies in it, else absolute.
func (r *record) written(path string) string {
	if r.base == "" {
		return path
	}
	if rel, err := filepath.Rel(r.base, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
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
	b, err := osutil.ReadBounded(dotGit, 4096)
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
	c := &record{root: r.root, found: r.found, lines: map[string]bool{}, blank: map[string]string{}}
	for l := range r.lines {
		c.lines[l] = true
	}
	for k, v := range r.blank {
		c.blank[k] = v
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
func (r *record) update(p *plan, madeDirs []string, restored map[string]bool) {
	for _, c := range p.changes {
		if !c.changed() && len(c.created) == 0 {
			continue
		}
		k := r.key(c.target)
		if c.remove || c.clean || restored[c.target] {
			delete(r.lines, "f "+k)
			delete(r.lines, "k "+k)
			delete(r.lines, "e "+k)
			delete(r.blank, k)
			r.forgetOutside(k)
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
			if len(bytes.TrimSpace(c.old)) == 0 {
				r.keepBlank(k, c.old)
			}
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
		delete(r.lines, "o "+r.key(dir))
	}
}

// intend adds, before a write, the files the plan creates and the
// folders it will make for them (those of their folders that do not exist
// yet), as created by nowhook; the write's update then says what really
// was.
func (r *record) intend(p *plan) {
	for _, c := range p.changes {
		if !c.changed() || c.existed || c.remove {
			continue
		}
		r.lines["f "+r.key(c.target)] = true
		for d := filepath.Dir(c.target); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			r.lines["d "+r.key(d)] = true
		}
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

// save writes the record, or deletes it (and the old bytes kept beside
// it) when it holds nothing. Its error says what a later remove loses.
func (r *record) save() error {
	if r.path == "" {
		return nil
	}
	if len(r.lines) == 0 {
		err := os.Remove(r.path)
		_ = os.RemoveAll(r.savedDir())
		_ = os.Remove(filepath.Dir(r.path))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the record of what nowhook created, %s, could not be deleted: %w", osutil.TildeHome(r.path), err)
		}
		return nil
	}
	var lines []string
	for l := range r.lines {
		lines = append(lines, r.format(l))
	}
	sort.Strings(lines)
	var b strings.Builder
	by := "by absolute path with links resolved"
	if r.base != "" {
		by = "by path relative to the root of the managed tree"
	}
	b.WriteString("# What nowhook setup created (f file, k file that existed, d folder, c JSON container, o written outside with --follow-outside-links, e file that held only white space, u user-scope folder, t Codex project trust), " + by + " (quoted where a path holds odd bytes), and the agents it set up (a agent mode); nowhook remove reads it.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	err := os.MkdirAll(filepath.Dir(r.path), 0o755)
	if err == nil {
		clearTemps(r.path)
		err = writeAtomic(r.path, []byte(b.String()), 0o644, nil)
	}
	if err != nil {
		return fmt.Errorf("the record of what nowhook created could not be saved in %s (%w), so a later nowhook remove cannot tell what nowhook created from what was there before: it keeps folders and files that now hold nothing", osutil.TildeHome(r.path), err)
	}
	return nil
}

// clearTemps deletes the temporary copies a stopped run left beside path.
func clearTemps(path string) {
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), tempPrefix(path)); ok && digits(rest) && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// savedDir is where the record keeps the old bytes of the files nowhook
// wrote outside the repository with consent.
func (r *record) savedDir() string { return r.path + ".saved" }

func (r *record) savedName(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(r.savedDir(), hex.EncodeToString(sum[:12]))
}

// consented reports whether nowhook wrote the file or folder at path
// outside its area with the user's consent: an "o" line, or, in the
// record of an older nowhook (which wrote through such links unasked),
// any line of the file or folder itself.
func (r *record) consented(path string) bool {
	if r == nil {
		return false
	}
	k := r.key(path)
	return r.lines["o "+k] || r.lines["f "+k] || r.lines["k "+k] || r.lines["d "+k]
}

// keepOriginal remembers that nowhook writes path outside its area with
// consent, keeping its old bytes (old, with mode; nil for a file that
// did not exist) for remove, unless an earlier run kept them already.
func (r *record) keepOriginal(path string, old []byte, mode fs.FileMode, existed bool) error {
	k := r.key(path)
	if r.consented(k) {
		return nil // kept already, or nowhook's own from the start
	}
	if existed {
		if err := os.MkdirAll(r.savedDir(), 0o700); err != nil {
			return err
		}
		if err := writeAtomic(r.savedName(k), old, mode.Perm(), nil); err != nil {
			return err
		}
	}
	r.lines["o "+k] = true
	return nil
}

// original is the content the file at path had before nowhook first
// wrote it outside its area, when it existed.
func (r *record) original(path string) ([]byte, fs.FileMode, bool) {
	if !r.lines["o "+r.key(path)] {
		return nil, 0, false
	}
	name := r.savedName(r.key(path))
	info, err := os.Stat(name)
	if err != nil {
		return nil, 0, false
	}
	b, err := osutil.ReadBounded(name, diag.MaxRead)
	if err != nil {
		return nil, 0, false
	}
	return b, info.Mode().Perm(), true
}

// forgetOutside forgets the consent for path and the bytes kept of it.
func (r *record) forgetOutside(path string) {
	k := r.key(path)
	delete(r.lines, "o "+k)
	_ = os.Remove(r.savedName(k))
}

// keepBlank remembers that the file at path held only the white space
// old before nowhook first wrote into it.
func (r *record) keepBlank(path string, old []byte) {
	k := r.key(path)
	if !r.lines["e "+k] {
		r.lines["e "+k] = true
		r.blank[k] = string(old)
	}
}

// wasBlank is the white space the file at path held before nowhook
// first wrote into it, when that is all it held.
func (r *record) wasBlank(path string) (string, bool) {
	k := r.key(path)
	return r.blank[k], r.lines["e "+k]
}

// userFolder remembers (or, with keep false, forgets) that setup --scope
// user wrote agent's hook into folder.
func (r *record) userFolder(agentName, folder string, keep bool) {
	line := "u " + agentName + "\x00" + filepath.Clean(folder)
	if keep {
		r.lines[line] = true
	} else {
		delete(r.lines, line)
	}
}

// rememberTrust remembers (or, with keep false, forgets) that agentName's
// trust step recorded the trust of project.
func (r *record) rememberTrust(agentName, project string, keep bool) {
	line := "t " + agentName + "\x00" + filepath.Clean(project)
	if keep {
		r.lines[line] = true
	} else {
		delete(r.lines, line)
	}
}

// trustedProject is the project whose trust the record says agentName's
// trust step recorded, "" for none.
func (r *record) trustedProject(agentName string) string {
	for line := range r.lines {
		if rest, ok := strings.CutPrefix(line, "t "+agentName+"\x00"); ok {
			return rest
		}
	}
	return ""
}

// userFolders are the folders the record says setup --scope user wrote
// agent's hook into.
func (r *record) userFolders(agentName string) []string {
	var out []string
	for line := range r.lines {
		if rest, ok := strings.CutPrefix(line, "u "+agentName+"\x00"); ok {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}

// loadUserRecord reads the record at path (the user scope's: UserRecord) of what setup --scope user created in
// the user's own agent folders, outside every repository:
// ${XDG_STATE_HOME:-~/.local/state}/nowhook/user-scope, its paths relative
// to the file-system root. Unlike a clone's, a missing record is no
// licence to delete folders: only those it lists go.
func loadUserRecord(path string) *record { return loadScopeRecord(path, "") }

// loadScopeRecord reads the record at path of a scope outside any
// repository; with base (the managed scope's tree), its paths are
// relative to base.
func loadScopeRecord(path, base string) *record {
	r := &record{root: string(filepath.Separator), lines: map[string]bool{}, blank: map[string]string{}, found: true}
	if base != "" {
		r.root, r.base = base, realDir(base)
	}
	if path == "" {
		return r
	}
	r.path = path
	if b, err := osutil.ReadBounded(r.path, maxRecord); err == nil {
		r.parse(b)
	}
	return r
}

// UserRecord is the user scope's record of what nowhook created: in
// nowhook's state folder, "" without a home.
func UserRecord() string {
	if state := stateDir(); state != "" {
		return filepath.Join(state, "user-scope")
	}
	return ""
}

// stateDir is nowhook's own folder outside every repository:
// ${XDG_STATE_HOME:-~/.local/state}/nowhook; "" without a home.
func stateDir() string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home := os.Getenv("HOME")
		if home == "" {
			return ""
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "nowhook")
}

// forgetKept empties a record that lists nothing nowhook created (only
// files that existed before), so that it is deleted once setup's last
// file, folder and container are gone.
func (r *record) forgetKept() {
	for line := range r.lines {
		if !strings.HasPrefix(line, "k ") && !strings.HasPrefix(line, "u ") && !strings.HasPrefix(line, "e ") {
			return
		}
	}
	clear(r.lines)
}

// UserFolders are the folders that nowhook's user-scope record says
// setup --scope user wrote a's hook into, so that remove follows the
// record rather than today's environment (CLAUDE_CONFIG_DIR set then,
// unset now): those its "u" lines name, or, in the record of an older
// nowhook, the folders of the settings files it lists that still hold
// a's user-scope hook.
func UserFolders(a *agent.Agent) []string {
	r := loadUserRecord(UserRecord())
	folders := r.userFolders(a.Name)
	u := a.Scope.User
	if u == nil || len(folders) > 0 {
		return folders
	}
	suffix := string(filepath.Separator) + filepath.FromSlash(u.Settings.Path)
	for line := range r.lines {
		kind, path, _ := strings.Cut(line, " ")
		dir, ok := strings.CutSuffix(path, suffix)
		if (kind != "f" && kind != "k") || !ok || slices.Contains(folders, dir) {
			continue
		}
		if b, err := readPlanned(path); err == nil && a.UserHook(dir).Present(b) {
			folders = append(folders, dir)
		}
	}
	sort.Strings(folders)
	return folders
}

// ManagedRecorded reports whether the managed scope's record in the tree
// under root exists (found) and lists the file at path (under root) as
// one setup --scope managed created or merged into (listed).
func ManagedRecorded(root, path string) (record string, found, listed bool) {
	record = filepath.Join(root, filepath.FromSlash(agent.ManagedRecord))
	if _, err := os.Stat(record); err != nil {
		return record, false, false
	}
	return record, true, loadScopeRecord(record, root).knows(path)
}
