package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
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

// Files is a repository's files as an agent would find them: on disk, or
// as a plan leaves them. Paths are relative to the root, slash-separated.
type Files interface {
	// Read returns the file's content and whether it exists.
	Read(path string) ([]byte, bool)
	// Same reports whether a and b name one file (a symbolic link).
	Same(a, b string) bool
}

// Kept is what a Files may know besides: whether nowhook's record says
// the file at path was there before nowhook first wrote into it, so that
// it is the user's whatever it now holds.
type Kept interface {
	Kept(path string) bool
}

// Reads is what an agent loads as instructions.
type Reads struct {
	// Client is the client and version the facts were known on.
	Client string
	// Files are the instruction files it loads from the session's folder,
	// in the order it loads them.
	Files []Instruction
	// Where says from which folders it loads them (for the docs and doctor).
	Where string
}

// Instruction is one instruction file an agent loads.
type Instruction struct {
	File string
	// Known says how the fact is known ("measured", "vendor docs",
	// "source" or "reported"), with what was seen.
	Known string
	// HiddenBy are files whose presence makes the agent skip this one
	// (unless they are the same file through a link).
	HiddenBy []string
	// ImportedBy is a file whose `@File` line loads this one even where
	// it is hidden (Claude Code's import).
	ImportedBy string
	// ImportAtRootOnly: the import loads the file only in a session
	// started in ImportedBy's own folder; from a sub-folder it is an
	// import from outside the start folder, which the agent does not take
	// unasked (Claude Code: claude -p drops it, an interactive session
	// asks, offering No first). LoadsFrom leaves it out there.
	ImportAtRootOnly bool
	// Setting names the setting without which the agent does not load the
	// file at all (Gemini CLI's context.fileName); Loads leaves it out.
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
// at the repository root, as f shows the repository: the one function
// setup, doctor and the tests ask.
func (a *Agent) Loads(f Files) []string { return a.Reads.Loads(f) }

// LoadsFrom is Loads for a session started at the root (sub false) or in
// a sub-folder of it (sub true), where the files at the root are still
// found (every agent here looks in the folders above the start) but an
// import the agent takes only at the root is not.
func (a *Agent) LoadsFrom(f Files, sub bool) []string { return a.Reads.LoadsFrom(f, sub) }

// TeachesFrom is Teaches for a session started at the root or in a
// sub-folder (see LoadsFrom).
func (a *Agent) TeachesFrom(f Files, sub bool) []string {
	var out []string
	for _, file := range a.LoadsFrom(f, sub) {
		if b, _ := f.Read(file); OnDemandBlock.Present(b) {
			out = append(out, file)
		}
	}
	return out
}

// Loads lists the instruction files loaded from a session started at the
// repository root, as f shows the repository.
func (r *Reads) Loads(f Files) []string { return r.LoadsFrom(f, false) }

// LoadsFrom lists the instruction files loaded from a session started at
// the repository root or, with sub, in a sub-folder of it.
func (r *Reads) LoadsFrom(f Files, sub bool) []string {
	var out []string
	for _, in := range r.Files {
		if in.Setting != "" {
			continue
		}
		if _, ok := f.Read(in.File); !ok {
			continue
		}
		if hider(f, in) != "" {
			if in.ImportedBy == "" || !contains(out, in.ImportedBy) || (sub && in.ImportAtRootOnly) {
				continue
			}
			if b, _ := f.Read(in.ImportedBy); !generate.Imports(b, in.File) {
				continue
			}
		}
		out = append(out, in.File)
	}
	return out
}

// Through says how the agent loads file when it loads it through an
// import ("through @AGENTS.md in CLAUDE.md"), with the import's caveat;
// "" when it loads it by itself.
func (r *Reads) Through(f Files, file string) string {
	for _, in := range r.Files {
		if in.File == file && in.ImportedBy != "" && hider(f, in) != "" {
			s := "through @" + in.File + " in " + in.ImportedBy
			if in.Caveat != "" {
				s += "; " + in.Caveat
			}
			return s
		}
	}
	return ""
}

// Keep says how to keep file in view where it is hidden, or "".
func (r *Reads) Keep(file string) string {
	for _, in := range r.Files {
		if in.File == file {
			return in.Keep
		}
	}
	return ""
}

// hider returns the file that hides in, or "".
func hider(f Files, in Instruction) string {
	for _, h := range in.HiddenBy {
		if _, ok := f.Read(h); ok && !f.Same(h, in.File) {
			return h
		}
	}
	return ""
}

// Hidden lists, for each instruction file that exists in f but that the
// agent does not load, the file that hides it ("" for a setting).
func (a *Agent) Hidden(f Files) map[string]string {
	loads := a.Loads(f)
	out := map[string]string{}
	for _, in := range a.Reads.Files {
		if _, ok := f.Read(in.File); !ok || contains(loads, in.File) {
			continue
		}
		if in.Setting != "" {
			out[in.File] = ""
			continue
		}
		out[in.File] = hider(f, in)
	}
	return out
}

// Teaches lists the files among those the agent loads that hold the
// kbs-now block.
func (a *Agent) Teaches(f Files) []string { return a.TeachesFrom(f, false) }

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
	loads := u.Reads.Loads(after)
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

// DirFiles shows the files of the repository at root as they are on disk.
func DirFiles(root string) Files { return dirFiles(root) }

type dirFiles string

func (d dirFiles) Read(path string) ([]byte, bool) {
	b, err := diag.ReadBounded(filepath.Join(string(d), filepath.FromSlash(path)))
	return b, err == nil
}

func (d dirFiles) Same(a, b string) bool {
	ia, err1 := os.Stat(filepath.Join(string(d), filepath.FromSlash(a)))
	ib, err2 := os.Stat(filepath.Join(string(d), filepath.FromSlash(b)))
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
