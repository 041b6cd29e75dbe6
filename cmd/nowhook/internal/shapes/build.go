package shapes

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
)

// builder holds a shape while it is made: the generator (Generate) and the
// hand-made cases (Named) write files through the same helpers.
type builder struct {
	src   *rand.PCG
	s     Shape
	id    string // the marker tokens' middle part
	files []*File
	index map[string]*File // by path; looked up, never ranged over
	dims  map[Dim]bool     // looked up, never ranged over
	n     int              // markers made so far
}

func newBuilder(id string, seed uint64) *builder {
	return &builder{
		src:   rand.NewPCG(seed, 0x5eed5a9e5),
		id:    id,
		index: map[string]*File{},
		dims:  map[Dim]bool{},
	}
}

// The random helpers: every random choice goes through them, so a shape
// depends only on the PCG's output, which math/rand/v2 documents.

func (b *builder) intn(n int) int { return int(b.src.Uint64() % uint64(n)) }

func (b *builder) chance(p float64) bool {
	return float64(b.src.Uint64()>>11)/float64(1<<53) < p
}

func (b *builder) pick(xs []string) string { return xs[b.intn(len(xs))] }

func (b *builder) dim(d Dim) { b.dims[d] = true }

// token makes the next marker token, recorded as being in file p.
func (b *builder) token(p, kind string) string {
	b.n++
	tok := fmt.Sprintf("tmk_%s_%d", b.id, b.n)
	b.s.Markers = append(b.s.Markers, Marker{Token: tok, Path: p, Kind: kind})
	return tok
}

// sentences are what the team's rules say; the marker makes each line
// unique.
var sentences = []string{
	"run make lint before every commit",
	"keep pull requests under 400 changed lines",
	"write commit messages in the imperative mood",
	"never edit files under gen/ by hand; regenerate them",
	"prefer table-driven tests",
	"every exported function has a doc comment",
	"wrap errors with the operation that failed",
	"do not add a dependency without a note in the pull request",
	"run the integration tests with make itest before tagging",
	"log with the structured logger, never with fmt.Println",
	"keep handlers thin and put the logic in the service layer",
	"migrations are append-only; never edit an applied one",
	"secrets come from the environment, never from files in the repository",
	"feature flags are removed within two releases",
	"use the shared retry helper for every network call",
	"name test files after the file they test",
	"format with the project's formatter before pushing",
	"ask before deleting any file outside your package",
	"public API changes need a changelog entry",
	"benchmarks go beside the code they measure",
	"keep the README's quick start working",
	"use UTC for every stored timestamp",
	"no global state in library packages",
	"the main branch must always build",
	"document every environment variable in docs/config.md",
	"prefer small interfaces defined where they are used",
	"close every response body",
	"use context deadlines on every outbound request",
	"review your own diff before asking for review",
	"keep TODO comments tied to an issue number",
}

// rule is one line of the team's rules, with a fresh marker.
func (b *builder) rule(p string) string {
	return fmt.Sprintf("- %s [%s]", b.pick(sentences), b.token(p, "line"))
}

// instructions is an instruction file's text: a title and n rule lines,
// with a section heading half-way when there are several.
func (b *builder) instructions(p, title string, n int) string {
	var sb strings.Builder
	sb.WriteString("# " + title + "\n\n")
	for i := 0; i < n; i++ {
		if n > 3 && i == n/2 {
			sb.WriteString("\n## " + b.pick([]string{"Testing", "Style", "Reviews", "Releases", "Layout"}) + "\n\n")
		}
		sb.WriteString(b.rule(p) + "\n")
	}
	return sb.String()
}

// add adds a regular file.
func (b *builder) add(p, content string) *File {
	if _, ok := b.index[p]; ok {
		panic("shapes: " + p + " added twice")
	}
	f := &File{Path: p, Content: content}
	b.files = append(b.files, f)
	b.index[p] = f
	return f
}

// link adds a symbolic link at p to the file or folder at target (a
// path from the root), written relative to the link's folder.
func (b *builder) link(p, target string) *File {
	f := b.add(p, "")
	f.Link = relPath(path.Dir(p), target)
	return f
}

// relPath is the relative path from folder from to to (both from the
// root, slash-separated, clean).
func relPath(from, to string) string {
	fp, tp := splitPath(from), splitPath(to)
	i := 0
	for i < len(fp) && i < len(tp) && fp[i] == tp[i] {
		i++
	}
	var parts []string
	for range fp[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, tp[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// has reports whether p was added (as a file or a link).
func (b *builder) has(p string) bool {
	_, ok := b.index[p]
	return ok
}

// resolve follows links from p (lexically, up to 8) and returns the
// regular file they end at, or nil.
func (b *builder) resolve(p string) *File {
	for i := 0; i < 8; i++ {
		f, ok := b.index[p]
		if !ok {
			return nil
		}
		if f.Link == "" {
			return f
		}
		p = path.Join(path.Dir(p), f.Link)
	}
	return nil
}

// pad appends rule lines to f until it holds at least size bytes, and
// returns how many it added.
func (b *builder) pad(f *File, size int) int {
	n := 0
	if !strings.HasSuffix(f.Content, "\n") && f.Content != "" {
		f.Content += "\n"
	}
	if len(f.Content) < size && !strings.Contains(f.Content, "## Details") {
		f.Content += "\n## Details\n\n"
	}
	for len(f.Content) < size {
		f.Content += b.rule(f.Path) + "\n"
		n++
	}
	return n
}

// Hook groups, in the nesting Claude Code, Codex CLI, Qwen Code, Factory
// Droid and Gemini CLI share.

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type group struct {
	Matcher *string   `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// groupJSON renders a group running command; matcher nil means none.
func groupJSON(matcher *string, command string, timeout int) string {
	out, err := json.Marshal(group{Matcher: matcher, Hooks: []handler{{Type: "command", Command: command, Timeout: timeout}}})
	if err != nil {
		panic(err) // the group's fields always marshal
	}
	return string(out)
}

// object renders a JSON object whose members are given in order (name,
// raw JSON value, ...), compact.
func object(members ...string) string {
	var parts []string
	for i := 0; i+1 < len(members); i += 2 {
		name, _ := json.Marshal(members[i])
		parts = append(parts, string(name)+":"+members[i+1])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// quoted is a JSON string.
func quoted(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}

// indentJSON lays a compact JSON text out with indent, ending in a newline.
func indentJSON(compact, indent string) string {
	var sb strings.Builder
	depth := 0
	inString, escaped := false, false
	newline := func() {
		sb.WriteByte('\n')
		sb.WriteString(strings.Repeat(indent, depth))
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			sb.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			sb.WriteByte(c)
		case '{', '[':
			sb.WriteByte(c)
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				continue
			}
			depth++
			newline()
		case '}', ']':
			if i > 0 && (compact[i-1] == '{' || compact[i-1] == '[') {
				sb.WriteByte(c)
				continue
			}
			depth--
			newline()
			sb.WriteByte(c)
		case ',':
			sb.WriteByte(c)
			newline()
		case ':':
			sb.WriteString(": ")
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('\n')
	return sb.String()
}

// finish returns the shape with its files and dimensions.
func (b *builder) finish() Shape {
	for _, f := range b.files {
		b.s.Files = append(b.s.Files, *f)
	}
	for _, d := range AllDims {
		if b.dims[d] {
			b.s.Dims = append(b.s.Dims, d)
		}
	}
	return b.s
}
