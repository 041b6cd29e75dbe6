package agent

import (
	"bytes"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/generate"
)

// The one judgement of what an agent reads (docs/platforms.md,
// "Instruction files"): for a session started in a folder of the
// repository, which instruction files the agent loads and in what order,
// which file hides which, what an import brings in, and what a budget
// cuts. Each agent's facts are data in its own file of the table (its
// Reads); Judge applies them to a repository, on disk or as a plan leaves
// it. Doctor's reach and budget rows, setup's refusals and notes, and
// setup --check's exit all come from it.

// Files is a repository's files as an agent would find them: on disk, or
// as a plan leaves them. Paths are relative to the root, slash-separated.
type Files interface {
	// Read returns the file's content and whether it exists.
	Read(path string) ([]byte, bool)
	// Same reports whether a and b name one file (a symbolic link).
	Same(a, b string) bool
}

// Lister is what a Files may know besides: the names of the regular files
// in a folder (for the folders an agent loads whole, Claude Code's
// .claude/rules/).
type Lister interface {
	List(dir string) []string
}

// Sited is what a Files may know besides: the repository's absolute root
// and the environment the agents run in (for a budget set in a user's
// config, and the trust that decides whether the project's counts).
type Sited interface {
	Site() (root string, env []string)
}

// Linker is what a Files may know besides: whether a file is a symbolic
// link (an agent may skip those: Factory Droid).
type Linker interface {
	IsLink(path string) bool
}

// Starter is what a Files may know besides: the folders below the root
// where a session plausibly starts (detect.StartFolders), slash-separated.
type Starter interface {
	StartFolders() []string
}

// Kept is what a Files may know besides: whether nowhook's record says
// the file at path was there before nowhook first wrote into it, so that
// it is the user's whatever it now holds.
type Kept interface {
	Kept(path string) bool
}

// TrustRecord is what a Files may know besides: the project whose trust
// nowhook's record says nowhook's own trust step recorded for the agent
// ("" for none). Without nowhook that project is not trusted, so Bare
// judges it untrusted: a fallback file or a cap of the project's config
// that counts only through nowhook's trust is not the team's reading
// before nowhook.
type TrustRecord interface {
	RecordedTrust(agent string) string
}

// untrustedWithout reports whether, in the view f, the project's trust is
// nowhook's own (TrustRecord) and f is Bare: the repository as it would be
// without nowhook, trust included.
func untrustedWithout(f Files, agent string) bool {
	b, ok := f.(*bareFiles)
	if !ok {
		return false
	}
	r, ok := b.Files.(TrustRecord)
	return ok && r.RecordedTrust(agent) != ""
}

// Walk is which folders an agent takes its instruction files from, for a
// session started in a folder of the repository.
type Walk int

const (
	// Upward: the start folder and each folder above it up to the root.
	Upward Walk = iota
	// StartOnly: the start folder only (a session started in a sub-folder
	// reads none of the root's files).
	StartOnly
	// RootOnly: the workspace root, wherever a session works (an IDE's
	// agent reads the folder it opened, the repository's root).
	RootOnly
)

// Budget is a cap on what an agent reads of its instruction files, all of
// them together (Codex CLI's project_doc_max_bytes).
type Budget struct {
	// Limit is the cap in bytes; Setting names it; Source says where its
	// value comes from ("Codex's default", "set in ~/.codex/config.toml").
	Limit   int64
	Setting string
	Source  string
	// Ignored says which setting of the cap the agent does not take, and
	// why ("project_doc_max_bytes = 65536 in .codex/config.toml, which
	// Codex ignores while it does not trust the project"), or "".
	Ignored string
	// Fix is where to raise it ("~/.codex/config.toml").
	Fix string
	// Row is the name of doctor's row that reports it ("agents-md-cap").
	Row string
}

// Judgement is what an agent loads as instructions in a session started in
// one folder.
type Judgement struct {
	Agent *Agent
	// From is the start folder, relative to the root ("." for the root).
	From string
	// Loads are the files it loads, in the order it loads them.
	Loads []Loaded
	// Hidden are files on its walk that it skips, with what makes it.
	Hidden []Skipped
	// Budget is the cap that applies, nil for none.
	Budget *Budget
	// Source says where the list of file names comes from where the
	// agent's settings name files ("context.fileName in .gemini/settings.json").
	Source string
	files  Files
}

// Loaded is one file an agent loads.
type Loaded struct {
	File string
	// Via says how an import brings it in ("through @AGENTS.md in
	// pkg/CLAUDE.md"), "" where the agent finds it itself.
	Via string
	// Size is its length; Read how much of it the agent reads (less where
	// a budget cuts it).
	Size, Read int
}

// Skipped is a file on an agent's walk that it does not load.
type Skipped struct {
	File string
	// By is the file that hides it; Setting, where none does, the setting
	// without which the agent does not load it.
	By, Setting string
	// Link: the agent reads no file that is a symbolic link (Reads.NoLinks).
	Link bool
}

// importDepth bounds how deep imports are followed (Claude Code: five).
const importDepth = 5

// folders are the folders of the walk from a session started in from, in
// the order the agent loads them.
func (r *Reads) folders(from string) []string {
	switch r.Walk {
	case StartOnly:
		return []string{from}
	case RootOnly:
		return []string{"."}
	}
	out := []string{"."}
	if from != "." {
		parts := strings.Split(from, "/")
		for i := range parts {
			out = append(out, strings.Join(parts[:i+1], "/"))
		}
	}
	if r.ClosestFirst {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// Judge says what the agent loads in a session started in from (relative
// to the root, "." for it), as f shows the repository.
func (a *Agent) Judge(f Files, from string) Judgement { return a.Reads.judge(a, f, from) }

func (r *Reads) judge(a *Agent, f Files, from string) Judgement {
	from = cleanFrom(from)
	j := Judgement{Agent: a, From: from, files: f}
	files := r.Files
	named := map[string]bool{}
	if r.Named != nil {
		names, source := r.Named(f, from)
		j.Source = source
		for _, n := range names {
			named[n] = true
			if !hasInstruction(files, n) {
				files = append(append([]Instruction{}, files...), Instruction{File: n, Known: source, HiddenBy: r.NamedHiddenBy})
			}
		}
	}
	walk := r.folders(from)
	seen := map[string]bool{}
	load := func(file, via string) {
		b, _ := f.Read(file)
		j.Loads = append(j.Loads, Loaded{File: file, Via: via, Size: len(b), Read: len(b)})
		seen[file] = true
	}
	for _, dir := range walk {
		if r.Rules != "" {
			if l, ok := f.(Lister); ok {
				for _, name := range sortedMD(l.List(path.Join(dir, r.Rules))) {
					if p := path.Join(dir, r.Rules, name); !seen[p] {
						load(p, "")
					}
				}
			}
		}
		for _, in := range files {
			p := path.Join(dir, in.File)
			if _, ok := f.Read(p); !ok || seen[p] {
				continue
			}
			if l, ok := f.(Linker); ok && r.NoLinks && l.IsLink(p) {
				j.Hidden = append(j.Hidden, Skipped{File: p, Link: true})
				continue
			}
			if in.Setting != "" && !named[in.File] {
				j.Hidden = append(j.Hidden, Skipped{File: p, Setting: in.Setting})
				continue
			}
			if by := r.hider(f, in, dir, walk); by != "" {
				j.Hidden = append(j.Hidden, Skipped{File: p, By: by})
				continue
			}
			load(p, "")
		}
	}
	if r.Listed != nil && from == "." {
		var hidden []Skipped
		listed := map[string]bool{}
		for _, p := range r.Listed(f) {
			if _, ok := f.Read(p); ok && !seen[p] {
				load(p, "")
				listed[p] = true
			}
		}
		for _, h := range j.Hidden {
			if !listed[h.File] {
				hidden = append(hidden, h)
			}
		}
		j.Hidden = hidden
	}
	if r.Imports {
		j.Loads = r.imports(f, from, j.Loads, seen, 0)
		var hidden []Skipped
		for _, h := range j.Hidden {
			if !seen[h.File] {
				hidden = append(hidden, h)
			}
		}
		j.Hidden = hidden
	}
	if r.Budget != nil {
		b := r.Budget(f)
		j.Budget = &b
		left := b.Limit
		for i := range j.Loads {
			l := &j.Loads[i]
			l.Read = int(min(int64(l.Size), max(left, 0)))
			left -= int64(l.Read)
		}
	}
	return j
}

// hider is the file that hides in (found in folder dir) from the agent, or
// "": one of in.HiddenBy in the same folder, or, where the agent hides on
// its whole walk, in any folder of it; never the file itself through a
// link.
func (r *Reads) hider(f Files, in Instruction, dir string, walk []string) string {
	p := path.Join(dir, in.File)
	where := []string{dir}
	if r.HideOnWalk {
		where = walk
	}
	for _, d := range where {
		for _, h := range in.HiddenBy {
			hp := path.Join(d, h)
			if _, ok := f.Read(hp); ok && !f.Same(hp, p) {
				return hp
			}
		}
	}
	return ""
}

// imports adds, after each loaded file, the files its `@path` lines import
// (Claude Code), each once: a path relative to the importing file's
// folder, inside the start folder (an import from outside it is one the
// agent takes only once approved, which a session does not do unasked).
func (r *Reads) imports(f Files, from string, loads []Loaded, seen map[string]bool, depth int) []Loaded {
	if depth == importDepth {
		return loads
	}
	var out []Loaded
	for _, l := range loads {
		out = append(out, l)
		b, _ := f.Read(l.File)
		var added []Loaded
		for _, imp := range generate.ImportPaths(b) {
			p := path.Join(path.Dir(l.File), imp)
			if seen[p] || p == ".." || strings.HasPrefix(p, "../") || !inside(from, p) {
				continue
			}
			c, ok := f.Read(p)
			if !ok {
				continue
			}
			seen[p] = true
			added = append(added, Loaded{File: p, Via: "through @" + imp + " in " + l.File, Size: len(c), Read: len(c)})
		}
		out = append(out, r.imports(f, from, added, seen, depth+1)...)
	}
	return out
}

// inside reports whether the file p lies in the folder from or below it.
func inside(from, p string) bool {
	return from == "." || strings.HasPrefix(p, from+"/")
}

// cleanFrom makes a start folder relative and slash-separated, "." for
// the root.
func cleanFrom(from string) string {
	from = path.Clean(strings.ReplaceAll(from, `\`, "/"))
	if from == "" || from == "/" {
		return "."
	}
	return strings.TrimPrefix(from, "./")
}

func hasInstruction(files []Instruction, name string) bool {
	for _, in := range files {
		if in.File == name {
			return true
		}
	}
	return false
}

// sortedMD keeps the Markdown files of names, in name order.
func sortedMD(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".md") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Files lists the files the judgement loads, in order.
func (j Judgement) Files() []string {
	var out []string
	for _, l := range j.Loads {
		out = append(out, l.File)
	}
	return out
}

// Load returns the loaded file, if the agent loads it.
func (j Judgement) Load(file string) (Loaded, bool) {
	for _, l := range j.Loads {
		if l.File == file {
			return l, true
		}
	}
	return Loaded{}, false
}

// HiddenBy returns what hides file ("" for a setting), if the agent skips it.
func (j Judgement) HiddenBy(file string) (Skipped, bool) {
	for _, h := range j.Hidden {
		if h.File == file {
			return h, true
		}
	}
	return Skipped{}, false
}

// Teaches lists the loaded files whose kbs-now block the agent reads
// whole (a budget may cut it off).
func (j Judgement) Teaches() []string {
	var out []string
	for _, l := range j.Loads {
		if span, ok := j.block(l.File); ok && span.End <= l.Read {
			out = append(out, l.File)
		}
	}
	return out
}

// block is where the kbs-now block lies in a file, when it has one.
func (j Judgement) block(file string) (generate.BlockSpan, bool) {
	b, _ := j.files.Read(file)
	return kbsNowSpan(b)
}

// parsed remembers, by a file's content, where its kbs-now block and
// nowhook's blocks lie: the judgements of every agent and start folder
// look at the same few files, in plan after plan.
var parsed = struct {
	sync.Mutex
	spans map[string]spans
}{spans: map[string]spans{}}

type spans struct {
	kbsNow generate.BlockSpan
	has    bool
	ours   [][2]int
}

// spansOf parses md once.
func spansOf(md []byte) spans {
	if !bytes.Contains(md, []byte("nowhook:")) {
		return spans{}
	}
	key := string(md)
	parsed.Lock()
	sp, ok := parsed.spans[key]
	parsed.Unlock()
	if ok {
		return sp
	}
	if OnDemandBlock.Present(md) {
		if span, found, err := generate.FindBlock(md, OnDemandBlock.Block.Name); found && err == nil {
			sp.kbsNow, sp.has = span, true
		}
	}
	sp.ours = findOurs(md)
	parsed.Lock()
	if len(parsed.spans) > 512 {
		parsed.spans = map[string]spans{}
	}
	parsed.spans[key] = sp
	parsed.Unlock()
	return sp
}

// kbsNowSpan is where md's kbs-now block lies, when it has a current one.
func kbsNowSpan(md []byte) (generate.BlockSpan, bool) {
	sp := spansOf(md)
	return sp.kbsNow, sp.has
}

// Offset is where in the text the agent reads, all files joined in order,
// the file starts.
func (j Judgement) Offset(file string) int {
	n := 0
	for _, l := range j.Loads {
		if l.File == file {
			return n
		}
		n += l.Size
	}
	return n
}

// Total is the length of every file the agent loads, joined.
func (j Judgement) Total() int {
	n := 0
	for _, l := range j.Loads {
		n += l.Size
	}
	return n
}

// TeamRead is how many bytes of the team's own text (the file less
// nowhook's blocks) the agent reads of file, under its name or through a
// link to it that the agent loads: none where it does not load it.
func (j Judgement) TeamRead(file string) int {
	l, ok := j.Load(file)
	for i := 0; !ok && i < len(j.Loads); i++ {
		// Loaded under another name, through a link (a pkg/AGENTS.md
		// that is pkg/CLAUDE.md).
		if x := j.Loads[i]; j.files.Same(x.File, file) {
			l, ok = x, true
		}
	}
	if !ok {
		return 0
	}
	b, _ := j.files.Read(file)
	return l.Read - oursWithin(b, l.Read)
}

var (
	anyBeginRE = regexp.MustCompile(`(?m)^<!-- nowhook:begin (\S+) v\d+ -->\r?$`)
	anyEndRE   = regexp.MustCompile(`(?m)^<!-- nowhook:end (\S+) -->\r?\n?`)
)

// oursSpans are the byte spans of nowhook's blocks in md, markers included.
func oursSpans(md []byte) [][2]int { return spansOf(md).ours }

func findOurs(md []byte) [][2]int {
	var out [][2]int
	for _, m := range anyBeginRE.FindAllSubmatchIndex(md, -1) {
		name := md[m[2]:m[3]]
		for _, e := range anyEndRE.FindAllSubmatchIndex(md[m[1]:], -1) {
			if bytes.Equal(md[m[1]+e[2]:m[1]+e[3]], name) {
				out = append(out, [2]int{m[0], m[1] + e[1]})
				break
			}
		}
	}
	return out
}

// oursWithin counts the bytes of nowhook's blocks among the first n of md.
func oursWithin(md []byte, n int) int {
	c := 0
	for _, s := range oursSpans(md) {
		if s[0] < n {
			c += min(s[1], n) - s[0]
		}
	}
	return c
}

// Bare shows f as it would be without nowhook: every block of nowhook's
// taken out, and a file that held nothing but them gone (unless the record
// says it was the user's). It is what the team's own files alone make an
// agent read, to tell what nowhook's blocks cost them.
func Bare(f Files) Files {
	if v, ok := f.(interface{ BareView() Files }); ok {
		return v.BareView()
	}
	return BareOf(f)
}

// BareOf is a new Bare view of f, for a Files that keeps its own (its
// BareView method).
func BareOf(f Files) Files { return &bareFiles{Files: f} }

type bareFiles struct {
	Files
	mu    sync.Mutex
	reads map[string][]byte
}

// Memo passes on to the files it views (Memoizer).
func (b *bareFiles) Memo(key string, fn func() any) any {
	if m, ok := b.Files.(Memoizer); ok {
		return m.Memo(key, fn)
	}
	return fn()
}

func (b *bareFiles) Read(p string) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.reads[p]; ok {
		return c, c != nil
	}
	c, ok := b.read(p)
	if ok && c == nil {
		c = []byte{}
	}
	if b.reads == nil {
		b.reads = map[string][]byte{}
	}
	b.reads[p] = c
	return c, ok
}

func (b *bareFiles) read(p string) ([]byte, bool) {
	c, ok := b.Files.Read(p)
	if !ok {
		return nil, false
	}
	if len(oursSpans(c)) == 0 {
		return c, true
	}
	out := withoutBlocks(p, c)
	if len(bytes.TrimSpace(out)) == 0 {
		if k, ok := b.Files.(Kept); !ok || !k.Kept(p) {
			return nil, false
		}
	}
	return out, true
}

func (b *bareFiles) List(dir string) []string {
	l, ok := b.Files.(Lister)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range l.List(dir) {
		if _, ok := b.Read(path.Join(dir, n)); ok {
			out = append(out, n)
		}
	}
	return out
}

func (b *bareFiles) Site() (string, []string) {
	if s, ok := b.Files.(Sited); ok {
		return s.Site()
	}
	return "", nil
}

// Loss is team text an agent read without nowhook's blocks and does not
// read with them, in one file: hidden by a file of nowhook's, or pushed
// past a budget.
type Loss struct {
	File  string
	Bytes int // how many of the team's bytes are lost
	// By is the file of nowhook's that hides it, "" where a budget cuts it.
	By string
}

// Losses compares what the agent reads with nowhook's blocks (j) and
// without them (bare, the judgement of Bare(f) from the same folder).
func (j Judgement) Losses(bare Judgement) []Loss {
	var out []Loss
	for _, l := range bare.Loads {
		was, now := bare.TeamRead(l.File), j.TeamRead(l.File)
		if now >= was {
			continue
		}
		loss := Loss{File: l.File, Bytes: was - now}
		if h, ok := j.HiddenBy(l.File); ok {
			loss.By = h.By
		}
		out = append(out, loss)
	}
	return out
}

// Folders are the folders judged for a repository f shows: the root, then
// the start folders it knows (Starter).
func Folders(f Files) []string {
	out := []string{"."}
	if s, ok := f.(Starter); ok {
		out = append(out, s.StartFolders()...)
	}
	return out
}

// showIn shows the path abs as doctor does: relative to root inside it,
// with ~ for the HOME of env inside that.
func showIn(root string, env []string, abs string) string {
	if home := osutil.Getenv(env, "HOME"); home != "" {
		if rel, err := filepath.Rel(home, abs); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// BudgetRow is the name of doctor's row for the agent's budget, "" for an
// agent without one.
func (r *Reads) BudgetRow() string {
	if r.Budget == nil {
		return ""
	}
	return r.Budget(noFiles{}).Row
}

// noFiles is an empty repository.
type noFiles struct{}

func (noFiles) Read(string) ([]byte, bool) { return nil, false }
func (noFiles) Same(string, string) bool   { return false }

// withoutBlocks is md less every block of the table's (and the heading
// setup added for it), as remove takes them out; where a block cannot be
// taken out that way, its span goes.
func withoutBlocks(file string, md []byte) []byte {
	for range 2 {
		for _, b := range ourBlocks() {
			if next, _, _, err := generate.RemoveBlock(file, md, b); err == nil {
				md = next
			}
		}
	}
	spans := oursSpans(md)
	if len(spans) == 0 {
		return md
	}
	var out []byte
	last := 0
	for _, s := range spans {
		out = append(out, md[last:s[0]]...)
		last = s[1]
	}
	return append(out, md[last:]...)
}

// ourBlocks are the Markdown blocks of the agent table, each once.
func ourBlocks() []generate.Block {
	var out []generate.Block
	seen := map[string]bool{}
	for _, a := range All {
		for _, art := range a.Owned() {
			if b, ok := BlockOf(art); ok && !seen[b.Block.Name] {
				seen[b.Block.Name] = true
				out = append(out, b.Block)
			}
		}
	}
	return out
}

// OnlyOurs reports whether md holds nothing but nowhook's blocks (and the
// headings setup adds for them): a file nowhook created.
func OnlyOurs(file string, md []byte) bool {
	return len(oursSpans(md)) > 0 && len(bytes.TrimSpace(withoutBlocks(file, md))) == 0
}
