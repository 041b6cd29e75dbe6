package detect

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Marks are what shows that one tool (a coding agent) is used in a
// repository or installed on this machine. The agent table gives them
// as data (cmd/nowhook/internal/agent); detect only looks.
type Marks struct {
	// Paths are repository paths, with slashes, whose presence shows the
	// tool is used (".claude", "CLAUDE.md").
	Paths []string
	// Globs are patterns, relative to the root, with what a match shows.
	Globs []Glob
	// Binaries are commands whose presence on PATH shows it is installed.
	Binaries []string
}

// Glob is a pattern, relative to the repository root with slashes, and
// the evidence to give when it matches.
type Glob struct{ Pattern, Evidence string }

// Seen is what Look found of one Marks.
type Seen struct {
	// Evidence says what was found, one line a finding: "m/ exists",
	// "m exists", a glob's own evidence, "b on PATH".
	Evidence []string
	// Paths are the paths that exist and the patterns that matched, and
	// Binaries the commands found on PATH, behind the evidence.
	Paths, Binaries []string
}

// Look reports, for each of marks in turn, which of its paths exist
// below root, which of its patterns match there and which of its
// commands are on this process's PATH.
func Look(root string, marks []Marks) []Seen {
	seen := make([]Seen, len(marks))
	for i, m := range marks {
		s := &seen[i]
		for _, p := range m.Paths {
			if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
				if info.IsDir() {
					s.Evidence = append(s.Evidence, p+"/ exists")
				} else {
					s.Evidence = append(s.Evidence, p+" exists")
				}
				s.Paths = append(s.Paths, p)
			}
		}
		for _, g := range m.Globs {
			if matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g.Pattern))); len(matches) > 0 {
				s.Evidence = append(s.Evidence, g.Evidence)
				s.Paths = append(s.Paths, g.Pattern)
			}
		}
		for _, b := range m.Binaries {
			if _, err := exec.LookPath(b); err == nil {
				s.Evidence = append(s.Evidence, b+" on PATH")
				s.Binaries = append(s.Binaries, b)
			}
		}
	}
	return seen
}
