// Package detect answers "what is here, and why do we think so": the
// repository root and Kanbus (the agents are detected by their own table,
// cmd/nowhook/internal/agent). Every finding carries its
// evidence. It looks only at known paths and never walks the tree.
package detect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// Kanbus is what was found of Kanbus.
type Kanbus struct {
	Config   string   // absolute path of .kanbus.yml, or ""
	Evidence []string // e.g. ".kanbus.yml found at /repo/.kanbus.yml", "kbs on PATH"
	Binary   string   // kbs or kanbus as found on PATH, or ""
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

// FindKanbusConfig looks for .kanbus.yml from dir up to the git root
// (or the filesystem root outside git).
func FindKanbusConfig(dir string) (string, bool) {
	top, inGit := GitTop(dir)
	for d := dir; ; {
		p := filepath.Join(d, ".kanbus.yml")
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, true
		}
		if inGit && d == top {
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
