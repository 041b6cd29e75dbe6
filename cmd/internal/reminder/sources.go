package reminder

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
)

// The reminder's sources (README, "Sources"): what comes back after a
// compaction besides, or instead of, the Kanbus board. Setup chooses them
// per repository (setup --sources) and the wrapper passes them on
// (--sources LIST); the default is the board alone, which prints exactly
// the reminder Kanbus documents.
//
//   - kanbus: the board's work in progress (kbs now --json --list).
//   - samemind: `samemind handoff`, the knowledge base's work state
//     (samemind.go).
//   - rules: the user's own words from before the compaction, verbatim,
//     read from the client's own transcript (rules.go).
//   - git: branch, HEAD, changed files, ahead and behind, and where the
//     session started, read fresh (gitfacts.go).
//
// Each source fails on its own: one that fails, hangs or prints garbage is
// left out and the others still print. They share one time budget (the
// wrapper's --timeout) and one byte cap for the whole reminder, which fits
// the client's limit on what a hook may print (capFor).

// sourceSet is a set of sources.
type sourceSet uint8

const (
	srcKanbus sourceSet = 1 << iota
	srcSamemind
	srcRules
	srcGit
)

// DefaultSources is what the hook prints without --sources.
const DefaultSources = "kanbus"

// sourceNames are the sources in the order their parts print: the user's
// words first (the task and its constraints are best recalled at the
// start), then the board, the knowledge base, and the git facts last.
var sourceNames = []struct {
	name string
	bit  sourceSet
}{
	{"rules", srcRules},
	{"kanbus", srcKanbus},
	{"samemind", srcSamemind},
	{"git", srcGit},
}

// SourceNames lists the names --sources accepts, in printing order.
func SourceNames() []string {
	names := make([]string, len(sourceNames))
	for i, s := range sourceNames {
		names[i] = s.name
	}
	return names
}

// parseSources reads a comma-separated list of source names. Unknown
// names are returned in bad and left out; an empty list is the default.
func parseSources(list string) (set sourceSet, bad []string) {
	if strings.TrimSpace(list) == "" {
		list = DefaultSources
	}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		found := false
		for _, s := range sourceNames {
			if s.name == f {
				set |= s.bit
				found = true
			}
		}
		if !found {
			bad = append(bad, f)
		}
	}
	return set, bad
}

// has reports whether s holds every source of t.
func (s sourceSet) has(t sourceSet) bool { return s&t == t }

// String is the set as --sources takes it, in printing order.
func (s sourceSet) String() string {
	var names []string
	for _, n := range sourceNames {
		if s.has(n.bit) {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// The byte cap of the whole reminder, per client (docs/platforms.md,
// "Sources"). Claude Code replaces hook output of about 10,000
// characters or more by a preview; Codex cuts output above about 2,500
// tokens in the middle. Every other client that re-injects takes at least
// as much (measured with the e2e tests' largest reminder).
const (
	// maxReminderBytes is the cap for every client: under Claude Code's
	// 10,000 characters (a character takes a byte or more), and under
	// Codex's 2,500 tokens for text of about 3.6 bytes a token or more.
	maxReminderBytes = 9000
	// partGap separates two parts of the reminder.
	partGap = "\n"
)

// A part is one source's text, rendered within a byte limit.
type part struct {
	src sourceSet
	// render returns the part in at most limit bytes, or nil when it has
	// nothing to say in that room. It is called with the part's want
	// first, then perhaps with less.
	render func(limit int) []byte
	// floor is the room the part is sure to get (when it needs it), want
	// the most it asks for.
	floor, want int
}

// assemble renders the parts, in printing order, into at most total
// bytes: each part first gets up to its floor, then the room left goes to
// the parts in order, up to their want. A part that renders nothing takes
// no room, and its gap goes too.
func assemble(parts []part, total int) []byte {
	sized := make([]int, len(parts))   // the room each part gets
	natural := make([]int, len(parts)) // what it takes at its want
	rendered := make([][]byte, len(parts))
	room := total
	some := false
	for i, p := range parts {
		rendered[i] = p.render(p.want)
		natural[i] = len(rendered[i])
		if natural[i] == 0 {
			continue
		}
		if some {
			room -= len(partGap)
		}
		some = true
	}
	for i, p := range parts {
		give := min(natural[i], p.floor, max(room, 0))
		sized[i] = give
		room -= give
	}
	for i := range parts {
		more := min(natural[i]-sized[i], max(room, 0))
		sized[i] += more
		room -= more
	}
	var out []byte
	for i, p := range parts {
		if natural[i] == 0 || sized[i] == 0 {
			continue
		}
		b := rendered[i]
		if sized[i] < natural[i] {
			b = p.render(sized[i])
		}
		if len(b) == 0 || len(b) > sized[i] {
			continue // a part that cannot fit its room is left out
		}
		if len(out) > 0 {
			out = append(out, partGap...)
		}
		out = append(out, b...)
	}
	return out
}

// lookPath finds a program on PATH, as an absolute path (a relative entry
// of PATH is taken from the working directory).
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return "", err
	}
	return filepath.Abs(path)
}
