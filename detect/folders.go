package detect

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Where an agent session plausibly starts, besides the repository root: a
// folder that holds an instruction file of some agent (the names come from
// the agent table) or a package manifest (a package root of a monorepo,
// where people open a terminal and start their agent).

// Manifests are the files that make a folder a package root.
var Manifests = []string{"go.mod", "package.json", "pyproject.toml", "Cargo.toml"}

// StartFolder is one folder below the root where a session plausibly
// starts, and why.
type StartFolder struct {
	// Dir is relative to the root, slash-separated ("svc/api").
	Dir string
	// Because names the file that makes it one ("svc/api/go.mod").
	Because string
}

// StartSearch says how far StartFolders looked.
type StartSearch struct {
	Folders int // folders read
	// Complete is false when a bound stopped the search (the count of
	// folders, of start folders, or the time).
	Complete bool
	Stopped  string // which bound stopped it, when one did
}

// The bounds of StartFolders: folders at most MaxStartDepth below the
// root, at most MaxStartFolders read and MaxStarts found, within
// MaxStartTime.
const (
	MaxStartDepth   = 6
	MaxStartFolders = 5000
	MaxStarts       = 64
	MaxStartTime    = 500 * time.Millisecond
)

// skipFolders are folders no session starts in and whose files are not the
// team's instructions: dependencies, build output, and test fixtures (which
// hold copies of instruction files, not a package's own). Hidden folders
// are skipped too.
var skipFolders = map[string]bool{
	"node_modules": true, "vendor": true, "target": true, "dist": true, "build": true,
	"out": true, "__pycache__": true, "venv": true, "bower_components": true, "Pods": true,
	"testdata": true, "fixtures": true, "golden": true,
}

// StartFolders lists the folders below root where an agent session
// plausibly starts: each that holds one of names (instruction files, by
// base name) or a package manifest. It is a bounded walk, breadth first and
// in name order (see the Max bounds); it skips hidden folders, the
// dependency and build folders of skipFolders and folders with a .git
// entry of their own (another repository, where a session judges its own
// files), and never follows a symbolic link. The result is in name order.
func StartFolders(root string, names []string) ([]StartFolder, StartSearch) {
	deadline := time.Now().Add(MaxStartTime)
	wanted := map[string]bool{}
	for _, n := range append(append([]string{}, names...), Manifests...) {
		wanted[n] = true
	}
	type dir struct {
		rel   string
		depth int
	}
	var found []StartFolder
	var s StartSearch
	queue := []dir{{"", 0}}
	for len(queue) > 0 {
		switch {
		case s.Folders >= MaxStartFolders:
			s.Stopped = "the limit of folders read"
		case len(found) >= MaxStarts:
			s.Stopped = "the limit of start folders"
		case time.Now().After(deadline):
			s.Stopped = "the time limit"
		}
		if s.Stopped != "" {
			break
		}
		d := queue[0]
		queue = queue[1:]
		abs := filepath.Join(root, filepath.FromSlash(d.rel))
		entries, err := os.ReadDir(abs)
		s.Folders++
		if err != nil {
			continue
		}
		if d.rel != "" {
			if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
				continue
			}
			for _, e := range entries {
				if wanted[e.Name()] && !e.IsDir() {
					found = append(found, StartFolder{Dir: d.rel, Because: path.Join(d.rel, e.Name())})
					break
				}
			}
		}
		if d.depth == MaxStartDepth {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || skipFolders[name] {
				continue
			}
			queue = append(queue, dir{path.Join(d.rel, name), d.depth + 1})
		}
	}
	s.Complete = len(queue) == 0 && s.Stopped == ""
	sort.Slice(found, func(i, j int) bool { return found[i].Dir < found[j].Dir })
	return found, s
}
