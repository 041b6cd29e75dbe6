package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// What each agent reads: the instruction files it loads from the folder a
// session starts in, which file hides which, and how each fact is known
// (docs/platforms.md, "Instruction files"). Setup uses it so that no agent
// reads less after setup than before, and so that each agent's kbs-now
// block lands in a file it loads; doctor's reach row reports it; a test
// runs the real setup over many repository shapes and compares Loads
// before and after.

// Reads is what an agent loads as instructions (judge.go applies it).
type Reads struct {
	// Client is the client and version the facts were known on.
	Client string
	// Files are the instruction files it looks for in each folder of its
	// walk, by their path in that folder, in the order it loads them.
	Files []Instruction
	// Where says from which folders it loads them (for the docs and doctor).
	Where string
	// Walk is which folders it loads them from; ClosestFirst: the start
	// folder's first, the root's last (else the root's first).
	Walk         Walk
	ClosestFirst bool
	// HideOnWalk: a file of HiddenBy anywhere on the walk hides the file in
	// every folder of it (Claude Code: one CLAUDE.md hides every
	// AGENTS.md), not only in its own folder (Codex's AGENTS.override.md).
	HideOnWalk bool
	// Rules is a folder, in each folder of the walk, whose Markdown files
	// the agent loads too, whatever else is there (Claude Code's
	// .claude/rules).
	Rules string
	// Imports: a loaded file's `@path` lines bring the files they name in
	// (Claude Code), from inside the start folder only.
	Imports bool
	// Budget, where set, is the cap on all the files together (Codex).
	Budget func(f Files) Budget
	// Named, where set, are the files the agent's settings name for a
	// session started in from (Gemini CLI's context.fileName), and where
	// the list comes from; an Instruction with a Setting loads only where
	// they name it.
	Named func(f Files, from string) (names []string, source string)
	// NamedHiddenBy are the files that hide, in their folder, a file
	// only Named names (Codex's fallback files come after AGENTS.md).
	NamedHiddenBy []string
	// Listed, where set, are files (relative to the root) that the
	// agent's project settings make it load in a session started at the
	// root, whatever hides them on the walk (OpenCode's "instructions").
	Listed func(f Files) []string
	// NoLinks: the agent reads no instruction file that is a symbolic
	// link (Factory Droid, measured).
	NoLinks bool
}

// Instruction is one instruction file an agent loads.
type Instruction struct {
	File string
	// Known says how the fact is known ("measured", "vendor docs",
	// "source" or "reported"), with what was seen.
	Known string
	// HiddenBy are files whose presence makes the agent skip this one
	// (unless they are the same file through a link): in the same folder,
	// or on the whole walk (Reads.HideOnWalk).
	HiddenBy []string
	// ImportedBy is a file whose `@File` line loads this one even where
	// it is hidden (Claude Code's import; for the docs: Reads.Imports
	// follows every import).
	ImportedBy string
	// Setting names the setting without which the agent does not load the
	// file at all (Gemini CLI's context.fileName).
	Setting string
	// Limit says what cuts the file off (Codex's project_doc_max_bytes).
	Limit string
	// Keep says how a user keeps the file in view where it is hidden
	// (for a message).
	Keep string
	// Caveat is what else limits the file's reach (for doctor and docs).
	Caveat string
}

// Loads lists the instruction files the agent loads from a session started
// at the repository root, as f shows the repository.
func (a *Agent) Loads(f Files) []string { return a.Judge(f, ".").Files() }

// LoadsAt lists the instruction files the agent loads from a session
// started in the folder from.
func (a *Agent) LoadsAt(f Files, from string) []string { return a.Judge(f, from).Files() }

// TeachesAt lists the files the agent loads, in a session started in
// from, whose kbs-now block it reads whole.
func (a *Agent) TeachesAt(f Files, from string) []string { return a.Judge(f, from).Teaches() }

// Teaches lists the files among those the agent loads at the root whose
// kbs-now block it reads whole.
func (a *Agent) Teaches(f Files) []string { return a.TeachesAt(f, ".") }

// Hidden lists, for each instruction file that exists in f but that the
// agent does not load from the root, the file that hides it ("" for a
// setting).
func (a *Agent) Hidden(f Files) map[string]string {
	out := map[string]string{}
	for _, h := range a.Judge(f, ".").Hidden {
		out[h.File] = h.By
	}
	return out
}

// Keep says how to keep file (a path in any folder) in view where it is
// hidden, or "".
func (r *Reads) Keep(file string) string {
	for _, in := range r.Files {
		if in.File == file || strings.HasSuffix(file, "/"+in.File) {
			return in.Keep
		}
	}
	return ""
}

// caveat is the caveat of the instruction file file is, or "".
func (r *Reads) caveat(file string) string {
	for _, in := range r.Files {
		if in.File == file || strings.HasSuffix(file, "/"+in.File) {
			return in.Caveat
		}
	}
	return ""
}

// Describe says in one sentence which files the agent loads and which
// hides which, for doctor and the docs.
func (r Reads) Describe() string {
	var parts []string
	for _, in := range r.Files {
		s := in.File
		switch {
		case len(in.HiddenBy) > 0 && in.ImportedBy != "":
			s += " only when there is no " + strings.Join(in.HiddenBy, " or ") + ", or through an @" + in.File + " line in " + in.ImportedBy
		case len(in.HiddenBy) > 0:
			s += " only when there is no " + strings.Join(in.HiddenBy, " or ")
		case in.Setting != "":
			s += " only when " + in.Setting + " lists it"
		}
		parts = append(parts, s)
	}
	if r.Rules != "" {
		parts = append(parts, r.Rules+"/*.md")
	}
	return strings.Join(parts, "; ")
}

// A Conditional artifact belongs in the repository only where Needed says
// so, on its files as they were before the plan and as the plan leaves
// them so far (setup applies conditional artifacts after all others, in
// table order). Where the mode owns it but it is not needed, setup takes
// it away as it takes away what a mode does not own.
type Conditional interface {
	Artifact
	Needed(before, after Files) bool
}

// OnlyIf is a block that goes into its file only where When says so, on
// the repository's files before the plan and as the plan leaves them
// (Claude Code's Compact Instructions: in a CLAUDE.md of the user's, else
// in .claude/rules/, since a CLAUDE.md that setup created would hide
// AGENTS.md).
type OnlyIf struct {
	*Block
	When func(before, after Files) bool
	// Where says, for the matrix, where the block goes ("where it exists").
	Where string
}

// Needed asks When.
func (o *OnlyIf) Needed(before, after Files) bool { return o.When(before, after) }

// untaughtSomewhere is a When for a block in file that the agent r
// describes loads from every folder: the block is needed where, in a
// session started in the root or one of the start folders, the agent
// reads no kbs-now block but file's.
func untaughtSomewhere(r *Reads, file string) func(before, after Files) bool {
	return func(_, after Files) bool {
		for _, from := range Folders(after) {
			taught := false
			for _, t := range r.judge(nil, after, from).Teaches() {
				if t != file {
					taught = true
				}
			}
			if !taught {
				b, _ := after.Read(file)
				return !newerBlock(b)
			}
		}
		return false
	}
}

// BlockOf returns the Markdown block an artifact is, also where a
// condition wraps it.
func BlockOf(art Artifact) (*Block, bool) {
	switch b := art.(type) {
	case *Block:
		return b, true
	case *Unless:
		return b.Block, true
	case *OnlyIf:
		return b.Block, true
	}
	return nil, false
}

// onlyBlocks reports whether md holds nothing but nowhook's blocks (with
// the headings setup adds for them): a file nowhook created, now or in an
// earlier version.
func onlyBlocks(file string, md []byte, blocks ...*Block) bool {
	// Last written first, twice: a block appended after another would keep
	// that one's heading in place.
	for range 2 {
		for j := len(blocks) - 1; j >= 0; j-- {
			next, _, _, err := generate.RemoveBlock(file, md, blocks[j].Block)
			if err != nil {
				return false
			}
			md = next
		}
	}
	return len(md) == 0
}

// Unless is a block that goes only where the agent would not otherwise
// load the kbs-now teaching: Claude Code's kbs-now block in a CLAUDE.md
// that neither imports AGENTS.md nor is AGENTS.md through a link.
type Unless struct {
	*Block
	// Reads is the reading of the agent that decides.
	Reads *Reads
	// Loaded is the file whose loading makes the block unneeded.
	Loaded string
}

// Needed: the agent loads the block's file, and not Loaded, and no newer
// nowhook wrote into the file (that one knows better).
func (u *Unless) Needed(_, after Files) bool {
	loads := u.Reads.judge(nil, after, ".").Files()
	if !contains(loads, u.File) || contains(loads, u.Loaded) {
		return false
	}
	b, _ := after.Read(u.File)
	return !newerBlock(b)
}

var beginRE = regexp.MustCompile(`(?m)^<!-- nowhook:begin \S+ v(\d+) -->\r?$`)

// newerBlock reports whether md holds a block of a newer nowhook.
func newerBlock(md []byte) bool {
	for _, m := range beginRE.FindAllSubmatch(md, -1) {
		if v, err := strconv.Atoi(string(m[1])); err == nil && v > templates.Version {
			return true
		}
	}
	return false
}

// DirFiles shows the files of the repository at root as they are on disk,
// with the folders where a session plausibly starts (StartFolders, found on
// first use) and this process's environment.
func DirFiles(root string) Files { return &dirFiles{root: root} }

// DirFilesFrom is DirFiles with the start folders given (nil: none but
// the root), the environment env, and kept, where set, saying which files
// nowhook's record says were the user's before nowhook wrote into them.
func DirFilesFrom(root string, starts []string, env []string, kept func(rel string) bool) Files {
	return &dirFiles{root: root, starts: starts, found: true, env: env, envSet: true, kept: kept}
}

// Memoizer is Files that keeps, for as long as it lives, facts the agent
// table derives from files outside what it shows and what a plan writes
// (Codex's config.toml layers): a judgement per agent and start folder
// asks for them again and again. Memo returns what fn returned for key
// the first time.
type Memoizer interface {
	Memo(key string, fn func() any) any
}

// memoized is fn's result, kept by f where f is a Memoizer.
func memoized[T any](f Files, key string, fn func() T) T {
	if m, ok := f.(Memoizer); ok {
		return m.Memo(key, func() any { return fn() }).(T)
	}
	return fn()
}

type dirFiles struct {
	root   string
	starts []string
	found  bool
	env    []string
	envSet bool
	kept   func(rel string) bool
	// trusted answers TrustRecord (WithRecordedTrust).
	trusted func(agent string) string
	// reads keeps what Read found, bareView the Bare view of these files:
	// one judgement per agent and start folder reads the same few files
	// again and again.
	mu       sync.Mutex
	reads    map[string][]byte
	bareView Files
	memo     map[string]any
}

// Memo is Memoizer: once per doctor run. fn runs without the lock (it
// may read these files).
func (d *dirFiles) Memo(key string, fn func() any) any {
	d.mu.Lock()
	v, ok := d.memo[key]
	d.mu.Unlock()
	if ok {
		return v
	}
	v = fn()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.memo == nil {
		d.memo = map[string]any{}
	}
	if old, ok := d.memo[key]; ok {
		return old
	}
	d.memo[key] = v
	return v
}

func (d *dirFiles) BareView() Files {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bareView == nil {
		d.bareView = &bareFiles{Files: d}
	}
	return d.bareView
}

func (d *dirFiles) Kept(p string) bool { return d.kept != nil && d.kept(p) }

// RecordedTrust is TrustRecord, from WithRecordedTrust's answer.
func (d *dirFiles) RecordedTrust(agent string) string {
	if d.trusted == nil {
		return ""
	}
	return d.trusted(agent)
}

// WithRecordedTrust makes f, where DirFiles or DirFilesFrom made it, say
// which project's trust nowhook's record says nowhook recorded for an
// agent (TrustRecord; engine.RecordTrusted), and returns it.
func WithRecordedTrust(f Files, trusted func(agent string) string) Files {
	if d, ok := f.(*dirFiles); ok {
		d.trusted = trusted
	}
	return f
}

func (d *dirFiles) abs(p string) string { return filepath.Join(d.root, filepath.FromSlash(p)) }

func (d *dirFiles) Read(p string) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.reads[p]; ok {
		return b, b != nil
	}
	b, err := diag.ReadBounded(d.abs(p)) // never a special file
	if err != nil {
		b = nil
	} else if b == nil {
		b = []byte{}
	}
	if d.reads == nil {
		d.reads = map[string][]byte{}
	}
	d.reads[p] = b
	return b, b != nil
}

func (d *dirFiles) Same(a, b string) bool {
	ia, err1 := os.Stat(d.abs(a))
	ib, err2 := os.Stat(d.abs(b))
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

func (d *dirFiles) List(dir string) []string { return ListDir(d.abs(dir)) }

func (d *dirFiles) IsLink(p string) bool {
	info, err := os.Lstat(d.abs(p))
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

func (d *dirFiles) Site() (string, []string) {
	if !d.envSet {
		return d.root, os.Environ()
	}
	return d.root, d.env
}

func (d *dirFiles) StartFolders() []string {
	if !d.found {
		d.starts, d.found = StartFolders(d.root), true
	}
	return d.starts
}

// ListDir lists the regular files of the folder abs (links to regular
// files included), by name.
func ListDir(abs string) []string {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if info, err := os.Stat(filepath.Join(abs, e.Name())); err == nil && info.Mode().IsRegular() {
			out = append(out, e.Name())
		}
	}
	return out
}

// StartFolders are the folders below root where a session plausibly
// starts (detect.StartFolders, with the instruction files of every agent
// of the table), slash-separated.
func StartFolders(root string) []string {
	found, _ := detect.StartFolders(root, InstructionNames())
	var out []string
	for _, f := range found {
		out = append(out, f.Dir)
	}
	return out
}

// InstructionNames are the names of the instruction files any agent of the
// table looks for in a folder (those that lie in the folder itself).
func InstructionNames() []string {
	var out []string
	for _, a := range All {
		for _, in := range a.Reads.Files {
			if !strings.Contains(in.File, "/") && !contains(out, in.File) {
				out = append(out, in.File)
			}
		}
	}
	return out
}
