// Package shapes generates repositories shaped like users', from a seed:
// the input of the differential test (cmd/nowhook/e2e, TestShapes*), which
// runs each shape in the real clients before and after `nowhook setup` and
// compares what reached the model with what doctor said.
//
// A shape is deterministic: Generate(seed) gives the same files, byte for
// byte, on every run and machine (its random numbers come from PCG-DXSM,
// whose output math/rand/v2 documents, drawn only through this package's
// own helpers, and no map is ever ranged over while generating). Every line
// of the team's own text, in an instruction file or printed by one of the
// team's hooks, carries a marker token (Marker) unique to its shape, so the
// test can tell from a request body which of the team's lines a client
// sent.
//
// The dimensions (Dim) are the ways users' repositories differ that decide
// what an agent loads: nested CLAUDE.md, AGENTS.md, GEMINI.md and QWEN.md
// at depths 0 to 3, imports and links between them, files near an agent's
// budget (Codex CLI's project_doc_max_bytes, joint over the AGENTS.md files
// from the root to the start folder; Claude Code's 40,000-character
// warning), the team's own hook groups in each hook file a client reads,
// before ours and added after ours, custom context file names, local
// settings files, linked folders, git worktrees and several Kanbus
// projects. Shape.Dims lists the ones a shape exercises.
package shapes

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Budgets the generator writes files near (docs/platforms.md).
const (
	// CodexDocMax is Codex CLI's default project_doc_max_bytes: it reads
	// the AGENTS.md files from the git root down to the start folder and
	// stops after this many bytes of them, silently.
	CodexDocMax = 32 * 1024
	// ClaudeLarge is where Claude Code 2.1.332 starts warning that a
	// CLAUDE.md is large ("Large CLAUDE.md will impact performance"); it
	// still loads the whole file.
	ClaudeLarge = 40000
)

// Shape is one generated repository and how the test sets it up.
type Shape struct {
	// Seed is the generator's seed; 0 for a hand-made shape (Named).
	Seed int64
	// Name is "seed-N" for a generated shape, the case's name otherwise.
	Name string
	// Files are the repository's files and links, in the order written.
	Files []File
	// Starts are the folders the test starts sessions in.
	Starts []Start
	// Kanbus are the folders holding a .kanbus.yml ("." is the root).
	Kanbus []string
	// After are the hook groups the team adds after setup, behind ours.
	After []Edit
	// Setup says how nowhook and the clients are set up.
	Setup Setup
	// Markers are every marker token of the shape, in order.
	Markers []Marker
	// Dims are the dimensions the shape exercises, sorted.
	Dims []Dim
}

// File is a file or a symbolic link of the repository.
type File struct {
	// Path is relative to the repository root, with slashes.
	Path string
	// Content is a regular file's content.
	Content string
	// Link, when set, makes the entry a symbolic link with this target
	// (relative to the link's folder).
	Link string
	// Exec makes a regular file executable.
	Exec bool
	// Local files are the user's own and untracked (.gitignore lists
	// them): a worktree does not have them.
	Local bool
}

// Start is a folder a session starts in.
type Start struct {
	// Dir is relative to the repository root ("." for the root).
	Dir string
	// Kind says why a session plausibly starts there: "root", "package"
	// (a package root: go.mod, package.json, pyproject.toml, Cargo.toml),
	// "folder" (a folder holding an instruction file), "linked" (a
	// package reached through a symbolic link) or "worktree" (the root of
	// a git worktree of the repository, made after setup).
	Kind string
	// Worktree: Dir is inside a git worktree of the repository, not the
	// main checkout.
	Worktree bool
}

// Edit is a hook group the team adds to a hook file after setup: it is
// appended to the event's array, after the groups setup wrote.
type Edit struct {
	// Path is the hook file, relative to the repository root.
	Path string
	// Pointer is the JSON pointer of the event's array, e.g.
	// "/hooks/SessionStart" (Factory Droid's hooks.json has no "hooks"
	// wrapper: "/SessionStart").
	Pointer string
	// Group is the group's JSON.
	Group string
}

// Setup says how the test sets nowhook up for the client it runs.
type Setup struct {
	// Modes is the mode of each client's agent (the --agents names of the
	// clients the test runs), in the order of Clients.
	Modes []string
	// Companions are more agents (agent=mode) set up in the same run,
	// beside the client's own: a team uses several agents.
	Companions []string
	// TrustCodex passes --trust-codex (with codex on PATH).
	TrustCodex bool
	// CodexProjectTrusted: before setup, the user's Codex config trusts
	// the project (a team that has hooks of its own in .codex/ trusted
	// the project and those hooks).
	CodexProjectTrusted bool
	// CodexUser are top-level lines of the user's own Codex config.toml.
	CodexUser []string
	// UserScope are the agents also set up with --scope user.
	UserScope []string
	// NoNowhook: nowhook is not on the agent's PATH (an IDE without
	// ~/.local/bin): the wrappers fall back to python3.
	NoNowhook bool
}

// Clients are the agents whose real clients the differential test runs,
// in the order of Setup.Modes.
var Clients = []string{"claude", "codex", "qwen", "opencode", "gemini", "droid", "cline", "continue"}

// modesOf lists, per client, the modes nowhook offers it, the default
// first (setup --help; docs/platforms.md).
var modesOf = map[string][]string{
	"claude":   {"reinject", "ondemand"},
	"codex":    {"reinject", "ondemand"},
	"qwen":     {"reinject", "ondemand"},
	"opencode": {"reinject", "ondemand"},
	"gemini":   {"ondemand", "reinject"},
	"droid":    {"ondemand", "reinject"},
	"cline":    {"ondemand"},
	"continue": {"ondemand"},
}

// Mode returns the mode the shape sets client up in.
func (s Shape) Mode(client string) string {
	for i, c := range Clients {
		if c == client && i < len(s.Setup.Modes) {
			return s.Setup.Modes[i]
		}
	}
	return modesOf[client][0]
}

// Agents is the --agents value of setup for a run of client: the client
// in its mode, then the companions that are not the client.
func (s Shape) Agents(client string) string {
	list := []string{client + "=" + s.Mode(client)}
	for _, c := range s.Setup.Companions {
		if name, _, _ := strings.Cut(c, "="); name != client {
			list = append(list, c)
		}
	}
	return strings.Join(list, ",")
}

// Marker is one marker token and where it is.
type Marker struct {
	Token string
	// Path is the file that holds it.
	Path string
	// Kind is "line" (a line of an instruction file) or "hook" (printed
	// by a hook of the team's; Path is the hook file).
	Kind string
}

// MarkerPattern matches every marker token of every shape.
var MarkerPattern = regexp.MustCompile(`tmk_[0-9a-z]+_[0-9]+`)

// Find returns, sorted and without repeats, the marker tokens in text.
func Find(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range MarkerPattern.FindAllString(text, -1) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// Marker returns the marker with token tok.
func (s Shape) Marker(tok string) (Marker, bool) {
	for _, m := range s.Markers {
		if m.Token == tok {
			return m, true
		}
	}
	return Marker{}, false
}

// Has reports whether the shape exercises d.
func (s Shape) Has(d Dim) bool {
	for _, x := range s.Dims {
		if x == d {
			return true
		}
	}
	return false
}

// File returns the entry at path.
func (s Shape) File(path string) (File, bool) {
	for _, f := range s.Files {
		if f.Path == path {
			return f, true
		}
	}
	return File{}, false
}

// Tree is a summary of the shape for a finding: one line per file (its
// size, or the link's target, and its marker count), then the starts,
// the Kanbus projects, the edits after setup and the setup.
func (s Shape) Tree() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d files)\n", s.Name, len(s.Files))
	for _, f := range s.Files {
		n := len(MarkerPattern.FindAllString(f.Content, -1))
		switch {
		case f.Link != "":
			fmt.Fprintf(&b, "  %s -> %s\n", f.Path, f.Link)
		case n > 0:
			fmt.Fprintf(&b, "  %s  %d bytes, %d markers%s\n", f.Path, len(f.Content), n, localNote(f))
		default:
			fmt.Fprintf(&b, "  %s  %d bytes%s\n", f.Path, len(f.Content), localNote(f))
		}
	}
	var starts []string
	for _, st := range s.Starts {
		w := ""
		if st.Worktree {
			w = " in a worktree"
		}
		starts = append(starts, st.Dir+" ("+st.Kind+w+")")
	}
	fmt.Fprintf(&b, "  starts: %s\n", strings.Join(starts, ", "))
	fmt.Fprintf(&b, "  kanbus: %s\n", orNone(s.Kanbus))
	for _, e := range s.After {
		fmt.Fprintf(&b, "  after setup: %s %s += %s\n", e.Path, e.Pointer, e.Group)
	}
	var modes []string
	for i, c := range Clients {
		if i < len(s.Setup.Modes) {
			modes = append(modes, c+"="+s.Setup.Modes[i])
		}
	}
	fmt.Fprintf(&b, "  modes: %s; companions: %s; trust-codex %v, codex project trusted %v, codex user config %s, user scope %s, nowhook on PATH %v\n",
		strings.Join(modes, " "), orNone(s.Setup.Companions), s.Setup.TrustCodex, s.Setup.CodexProjectTrusted,
		orNone(s.Setup.CodexUser), orNone(s.Setup.UserScope), !s.Setup.NoNowhook)
	fmt.Fprintf(&b, "  dims: %s\n", strings.Join(dimNames(s.Dims), " "))
	return b.String()
}

func localNote(f File) string {
	if f.Local {
		return " (local, untracked)"
	}
	return ""
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func dimNames(ds []Dim) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d)
	}
	return out
}
