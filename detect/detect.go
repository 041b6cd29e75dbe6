// Package detect answers "what is here, and why do we think so": the
// repository root and worktree (Root, GitTop, Worktree), the Kanbus
// project a session finds and every Kanbus project in the repository
// (FindKanbusConfig, DetectKanbusFrom, KanbusProjects), and which of the
// agents' marks, given to it as data by the agent table, are present
// (Look). Every finding carries its evidence. It looks only at known
// paths, except for one bounded search for the Kanbus projects below the
// root (KanbusProjects), made only when none is found on the way up.
//
// The hook runtime (cmd/internal/reminder) uses it too, so it imports the
// standard library only (cmd/nowhook-reminder's dependency test fails
// otherwise).
package detect

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Root returns the repository root for the working directory dir: the git
// top level containing it, else dir itself. It looks for a .git entry going
// up, without running git.
func Root(dir string) (string, error) {
	abs, err := Dir(dir)
	if err != nil {
		return "", err
	}
	if top, ok := GitTop(abs); ok {
		return top, nil
	}
	return abs, nil
}

// Dir returns dir as an absolute path, checking that it is a directory: the
// repository root when the user names it with --dir (agents read project
// settings from the directory they start in, so a subdirectory of a git
// repository can be a project of its own).
func Dir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: not a directory", abs)
	}
	return abs, nil
}

// GitTop returns the closest directory at or above dir that has a .git
// entry (a directory, or a file for worktrees and submodules).
func GitTop(dir string) (string, bool) {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Worktree says whether dir lies in a linked git worktree, and if so its
// main checkout, found as git lays worktrees out (and Codex finds them for
// its project trust, without running git): the worktree's .git is a file
// "gitdir: <common>/worktrees/<name>", and the main checkout is the folder
// that holds <common>. Paths are absolute, with links resolved. evidence
// says how it was known.
func Worktree(dir string) (top, main, evidence string, ok bool) {
	top, found := GitTop(dir)
	if !found {
		return "", "", "", false
	}
	dotGit := filepath.Join(top, ".git")
	info, err := os.Lstat(dotGit)
	if err != nil || !info.Mode().IsRegular() {
		return "", "", "", false
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", "", "", false
	}
	gitdir, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	gitdir = strings.TrimSpace(gitdir)
	if !found || gitdir == "" {
		return "", "", "", false
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	if real, err := filepath.EvalSymlinks(gitdir); err == nil {
		gitdir = real
	}
	worktrees := filepath.Dir(gitdir)
	if filepath.Base(worktrees) != "worktrees" {
		return "", "", "", false // a submodule, or a separate git dir
	}
	main = filepath.Dir(filepath.Dir(worktrees))
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return top, main, fmt.Sprintf("%s is a file pointing to %s: a linked worktree of %s", dotGit, gitdir, main), true
}

// Kanbus is what was found of Kanbus.
type Kanbus struct {
	Config   string   // absolute path of .kanbus.yml, or ""
	Evidence []string // e.g. ".kanbus.yml found at /repo/.kanbus.yml", "kbs on PATH"
	Binary   string   // kbs or kanbus as found on PATH, or ""
	// Projects are, when Config is "", the Kanbus projects found below the
	// root (a repository whose projects all live in sub-folders), and
	// Search how they were looked for.
	Projects []KanbusProject
	Search   Search
}

// Below reports whether the Kanbus project lies in a folder below root
// (a monorepo's sub-project), and that folder relative to root.
func (k Kanbus) Below(root string) (string, bool) {
	if k.Config == "" {
		return "", false
	}
	dir := filepath.Dir(k.Config)
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// FindKanbusConfig finds the Kanbus project a session started in dir
// belongs to: the nearest regular .kanbus.yml (a link to one counts) from
// dir up to the git root (the first folder with a .git entry), or the
// filesystem root outside git. It is the one lookup of both the hook
// runtime and setup and doctor, so that they agree.
//
// dir is walked as given first and then, when that finds nothing and dir
// is reached through a symbolic link, as its real path. The real path is
// what the agent's session sees: started in a link, Claude Code 2.1.332
// hands its hooks the resolved folder as CLAUDE_PROJECT_DIR and as the
// payload's cwd (measured), as git and a kbs run from the session's shell
// do; a link from outside the repository into one of its sub-folders
// leads there to the repository's project. The path as given comes first
// because the hook's working directory keeps the path the user typed
// ($PWD), and the wrapper's python3 fallback looks the same way.
func FindKanbusConfig(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	if p, ok := walkToKanbus(abs); ok {
		return p, true
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		return walkToKanbus(real)
	}
	return "", false
}

// walkToKanbus looks for a regular .kanbus.yml from dir up to the first
// folder with a .git entry, or up to the filesystem root.
func walkToKanbus(dir string) (string, bool) {
	for d := dir; ; {
		p := filepath.Join(d, ".kanbus.yml")
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, true
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// DetectKanbus finds the Kanbus project and CLI for root.
func DetectKanbus(root string) Kanbus { return DetectKanbusFrom(root, root) }

// DetectKanbusFrom finds the Kanbus project the hook would find in a
// session started in from (a directory at or below root; otherwise root):
// the nearest .kanbus.yml from there up to the git root, as the hook
// runtime looks. In a monorepo that may be a sub-project's, below root.
func DetectKanbusFrom(root, from string) Kanbus {
	if from == "" || (from != root && !strings.HasPrefix(from, root+string(filepath.Separator))) {
		from = root
	}
	var k Kanbus
	if p, ok := FindKanbusConfig(from); ok {
		k.Config = p
		k.Evidence = append(k.Evidence, ".kanbus.yml found at "+p)
	} else {
		k.Projects, k.Search = KanbusProjects(root)
		for _, p := range k.Projects {
			k.Evidence = append(k.Evidence, p.Evidence)
		}
	}
	for _, b := range []string{"kbs", "kanbus"} {
		if path, err := exec.LookPath(b); err == nil {
			k.Evidence = append(k.Evidence, b+" on PATH")
			if k.Binary == "" {
				k.Binary = path
			}
		}
	}
	return k
}

// KanbusProject is a Kanbus project below a repository's root.
type KanbusProject struct {
	Dir      string // its folder relative to the root, with slashes ("a", "svc/api")
	Config   string // the absolute path of its .kanbus.yml
	Evidence string // e.g. "a/.kanbus.yml found below /repo (searched 12 folders ...)"
}

// Search says how far KanbusProjects looked.
type Search struct {
	Folders  int  // folders read
	Complete bool // false when it stopped at MaxSearchFolders
}

// The bounds of the search for Kanbus projects below a root: folders at
// most MaxSearchDepth below it, at most MaxSearchFolders in all.
const (
	MaxSearchDepth   = 4
	MaxSearchFolders = 5000
)

// KanbusProjects finds the Kanbus projects in the folders below root, as
// an agent session started in one of them finds its project: a regular
// .kanbus.yml. It is a bounded walk, breadth first and in name order, of
// at most MaxSearchFolders folders down to MaxSearchDepth levels; it
// skips .git, node_modules and every hidden folder (dependencies, caches,
// agents' own folders, .claude/worktrees), and folders with a .git entry
// of their own (another repository, a worktree or a submodule, where a
// session finds its own project). It never follows a symbolic link, and
// does not look below a project it found.
func KanbusProjects(root string) ([]KanbusProject, Search) {
	type dir struct {
		rel   string
		depth int
	}
	var found []KanbusProject
	var s Search
	queue := []dir{{"", 0}}
	for len(queue) > 0 && s.Folders < MaxSearchFolders {
		d := queue[0]
		queue = queue[1:]
		abs := filepath.Join(root, filepath.FromSlash(d.rel))
		entries, err := os.ReadDir(abs)
		s.Folders++
		if err != nil {
			continue
		}
		if d.rel != "" {
			if isProject(abs) {
				found = append(found, KanbusProject{Dir: d.rel, Config: filepath.Join(abs, ".kanbus.yml")})
				continue
			}
			if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
				continue
			}
		}
		if d.depth == MaxSearchDepth {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" {
				continue
			}
			queue = append(queue, dir{path.Join(d.rel, name), d.depth + 1})
		}
	}
	s.Complete = len(queue) == 0
	sort.Slice(found, func(i, j int) bool { return found[i].Dir < found[j].Dir })
	for i := range found {
		found[i].Evidence = fmt.Sprintf("%s/.kanbus.yml found below %s (%s)", found[i].Dir, root, s)
	}
	return found, s
}

// String says how far the search went, for evidence and messages.
func (s Search) String() string {
	what := fmt.Sprintf("searched %d folders, at most %d levels deep, skipping .git, node_modules, hidden folders and nested repositories", s.Folders, MaxSearchDepth)
	if !s.Complete {
		what += fmt.Sprintf("; stopped at the limit of %d folders", MaxSearchFolders)
	}
	return what
}

func isProject(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, ".kanbus.yml"))
	return err == nil && info.Mode().IsRegular()
}
