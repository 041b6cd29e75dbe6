package engine

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// The guard keeps the writer inside what the user named: the repository
// (at the user scope, the agent's own folder). Every file and folder a
// plan writes, creates or deletes has been resolved through its links
// (plan.target); one that lands outside is refused, naming the link and
// where it leads, unless the user allowed it (--follow-outside-links) or
// nowhook's record says it wrote there with that consent before (remove
// then gives the file back). A project install never writes into the
// user's own agent folders (~/.claude, ~/.codex, ...) or the home
// directory itself, however it gets there: no flag allows that.
type guard struct {
	// areas are the folders the plan may write in, links resolved, each
	// with the name it is shown by ("the repository", "~/.claude").
	areas []area
	// project: a project install, which the user's own folders refuse.
	project bool
	// outside: --follow-outside-links.
	outside bool
	rec     *record
	// home are the user's own agent folders (links resolved), homeDirs
	// the home directories themselves.
	home     []ownFolder
	homeDirs []string
	// tree is, for a managed tree built under --root, that folder (links
	// resolved): nothing is written outside it, whatever link leads
	// there, since the tree is what gets packaged.
	tree, treeName string
}

// ownFolder is one of the user's own agent folders and an agent that
// reads its settings there.
type ownFolder struct {
	dir   string
	agent *agent.Agent
}

type area struct {
	logical, real, name string
}

// newGuard is the guard of a request.
func newGuard(req Request, rec *record) *guard {
	g := &guard{project: !req.User, outside: req.Outside, rec: rec}
	if req.User {
		for _, t := range req.Targets {
			if t.Folder != "" {
				g.areas = append(g.areas, area{logical: t.Folder, real: realDir(t.Folder), name: osutil.TildeHome(t.Folder)})
			}
		}
		for _, d := range req.Areas {
			g.areas = append(g.areas, area{logical: d, real: realDir(d), name: d})
		}
		if b := req.RecordBase; b != "" && filepath.Dir(b) != b {
			g.tree, g.treeName = realDir(b), b
		}
	} else {
		g.areas = []area{{logical: req.Root, real: realDir(req.Root), name: "the repository"}}
	}
	g.home, g.homeDirs = userFolders(os.Getenv)
	return g
}

// inside returns the area that holds path, if one does.
func (g *guard) inside(path string) (area, bool) {
	for _, a := range g.areas {
		if Within(a.real, path) {
			return a, true
		}
	}
	return area{}, false
}

// leadsTo reports whether dir is an area's folder or one of the folders
// above it, which the plan creates to reach the area (the managed
// scope's /etc/claude-code), not through a link out of it.
func (g *guard) leadsTo(dir string) bool {
	for _, a := range g.areas {
		if dir == a.real || Within(dir, a.real) {
			return true
		}
	}
	return false
}

// ownFolder returns the user's own agent folder (or home directory)
// that path lies in, if it does.
func (g *guard) ownFolder(path string) (ownFolder, bool) {
	for _, h := range g.home {
		if path == h.dir || Within(h.dir, path) {
			return h, true
		}
	}
	for _, h := range g.homeDirs {
		// The home directory itself, a file directly in it, or a folder
		// that nowhook would create directly in it.
		r, err := filepath.Rel(h, path)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			continue
		}
		top, _, nested := strings.Cut(filepath.ToSlash(r), "/")
		if _, err := os.Lstat(filepath.Join(h, top)); r == "." || !nested || err != nil {
			return ownFolder{dir: h}, true
		}
	}
	return ownFolder{}, false
}

// allows checks one path the plan writes, creates or deletes (path is
// what rel, as the plan names it, really is) and says why not.
func (g *guard) allows(rel, path, verb string) error {
	if len(g.areas) == 0 {
		return nil
	}
	if g.tree != "" && !Within(g.tree, path) {
		link, to := linkBelow(g.treeName, rel)
		return fmt.Errorf("%s, outside the tree under %s, so nowhook would %s %s there; a tree built with --root holds every file it writes, since that tree is what gets installed. Replace the link (rm %s) with a folder of its own, then run nowhook again",
			leads(rel, link, to, path), g.treeName, verb, path, shellWord(link))
	}
	if _, ok := g.inside(path); ok {
		return nil
	}
	link, to := g.linkOut(rel)
	if own, ok := g.ownFolder(path); ok && g.project {
		what, fix := "is your home directory", ""
		if own.agent != nil {
			what = "holds your own " + own.agent.Title + " settings, which it reads in every session on this machine"
			if own.agent.Scope.User != nil {
				fix = "For every session on this machine, use nowhook setup --scope user --agents " + own.agent.Name + "; otherwise remove"
			}
		}
		if fix == "" {
			fix = "Remove"
		}
		return fmt.Errorf("%s, and %s %s: a project install never writes there, with or without --follow-outside-links. %s the link (rm %s), then run nowhook again",
			leads(rel, link, to, path), osutil.TildeHome(own.dir), what, fix, shellWord(osutil.TildeHome(link)))
	}
	if g.outside || g.rec.consented(path) {
		return nil
	}
	name := g.areas[0].name
	return fmt.Errorf("%s, outside %s, so nowhook would %s %s there; it writes nothing through a link that leads out of %s. If that is where the file belongs, run nowhook again with --follow-outside-links (nowhook remove then gives the file there back byte for byte); otherwise replace the link (rm %s) with a file or folder of its own, then run nowhook again",
		leads(rel, link, to, path), name, verb, osutil.TildeHome(path), name, shellWord(osutil.TildeHome(link)))
}

// leads says how rel gets outside: "AGENTS.md is a symbolic link to
// /x/y", ".claude/settings.json: .claude is a symbolic link to /x/y" or,
// without a link to name, ".claude/settings.json is really /x/y".
func leads(rel, link, to, path string) string {
	shown, linkShown := osutil.TildeHome(rel), osutil.TildeHome(link)
	switch link {
	case "":
		return shown + " is really " + osutil.TildeHome(path)
	case rel, strings.TrimSuffix(rel, "/"):
		return linkShown + " is a symbolic link to " + osutil.TildeHome(to)
	}
	return shown + ": " + linkShown + " is a symbolic link to " + osutil.TildeHome(to)
}

// linkOut finds the link by which rel leaves its area: the first part
// of rel, from the area's folder as named, that is a symbolic link, and
// what it points to.
func (g *guard) linkOut(rel string) (link, to string) {
	base := g.areas[0].logical
	abs := rel
	if !filepath.IsAbs(rel) {
		abs = filepath.Join(base, filepath.FromSlash(rel))
	}
	for _, a := range g.areas {
		if Within(a.logical, abs) {
			base = a.logical
		}
	}
	link, to = linkBelow(base, abs)
	if link != "" && g.project {
		return relTo(g.areas[0].logical, link), to
	}
	return link, to
}

// linkBelow finds the first symbolic link on the way from the folder base
// to the absolute path p, and what it points to.
func linkBelow(base, p string) (link, to string) {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return "", ""
	}
	at := base
	for _, part := range strings.Split(filepath.ToSlash(r), "/") {
		at = filepath.Join(at, part)
		if info, err := os.Lstat(at); err == nil && info.Mode()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(at)
			return at, to
		}
	}
	return "", ""
}

// shellWord quotes a path for a command the user pastes, when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sameAsOwn reports which of the user's own agent settings files the
// file described by info is (a hard link to ~/.claude/settings.json
// committed nowhere but made in the repository): writing it in place
// would write that file.
func (g *guard) sameAsOwn(info os.FileInfo) (string, bool) {
	for _, f := range ownFiles(os.Getenv) {
		if fi, err := os.Stat(f); err == nil && os.SameFile(fi, info) {
			return f, true
		}
	}
	return "", false
}

var envRef = regexp.MustCompile(`^\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}(.*)$`)

// ownFiles are the user-level hook files of every agent in the table
// (Hooks.Files that start with ~/ or ${VAR:-~/...}), each where the
// environment puts it and where it is by default.
func ownFiles(getenv func(string) string) []string {
	var out []string
	for _, f := range ownAgentFiles(getenv) {
		if !slices.Contains(out, f.dir) {
			out = append(out, f.dir)
		}
	}
	return out
}

// ownAgentFiles are ownFiles with their agents (dir holds the file).
func ownAgentFiles(getenv func(string) string) []ownFolder {
	var out []ownFolder
	for _, home := range homes(getenv) {
		for _, a := range agent.All {
			files := slices.Clone(a.Hooks.Files)
			if u := a.Scope.User; u != nil {
				files = append(files, "${"+u.Var+":-"+u.Default+"}/"+u.Settings.Path)
			}
			for _, f := range files {
				var candidates []string
				if m := envRef.FindStringSubmatch(f); m != nil {
					if v := getenv(m[1]); filepath.IsAbs(v) {
						candidates = append(candidates, filepath.Join(v, m[3]))
					}
					f = m[2] + m[3]
				}
				if rest, ok := strings.CutPrefix(f, "~/"); ok {
					candidates = append(candidates, filepath.Join(home, filepath.FromSlash(rest)))
				}
				for _, c := range candidates {
					out = append(out, ownFolder{dir: c, agent: a})
				}
			}
		}
	}
	return out
}

// userFolders are the user's own agent folders, links resolved: for each
// user-level hook file, its first folder below the home directory (two
// below ~/.config: ~/.config/amp), or the folder a variable names
// (CLAUDE_CONFIG_DIR); and the home directories.
func userFolders(getenv func(string) string) (folders []ownFolder, homeDirs []string) {
	hs := homes(getenv)
	for _, h := range hs {
		homeDirs = append(homeDirs, realDir(h))
	}
	seen := map[string]int{} // folder: its index in folders
	direct := map[string]bool{}
	for _, of := range ownAgentFiles(getenv) {
		f := of.dir
		dir := filepath.Dir(f)
		for _, h := range hs {
			if r, err := filepath.Rel(h, f); err == nil && !strings.HasPrefix(r, "..") {
				parts := strings.Split(filepath.ToSlash(r), "/")
				n := 1
				if parts[0] == ".config" && len(parts) > 2 {
					n = 2
				}
				dir = filepath.Join(h, filepath.Join(parts[:n]...))
			}
		}
		d := realDir(dir)
		if slices.Contains(homeDirs, d) {
			continue
		}
		i, ok := seen[d]
		isDirect := realDir(filepath.Dir(f)) == d
		switch {
		case !ok:
			seen[d] = len(folders)
			direct[d] = isDirect
			folders = append(folders, ownFolder{dir: d, agent: of.agent})
		case isDirect && !direct[d]:
			// ~/.gemini is Gemini CLI's (its settings.json lies there),
			// though Antigravity reads a file further below.
			direct[d] = true
			folders[i].agent = of.agent
		}
	}
	return folders, homeDirs
}

// homes are the user's home directories: $HOME, and the one the user
// database names when it differs (HOME unset or pointed elsewhere).
func homes(getenv func(string) string) []string {
	var out []string
	if h := getenv("HOME"); filepath.IsAbs(h) {
		out = append(out, filepath.Clean(h))
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) && !slices.Contains(out, filepath.Clean(u.HomeDir)) {
		out = append(out, filepath.Clean(u.HomeDir))
	}
	return out
}
