// Package detect answers "what is here, and why do we think so": the
// repository root, the agents in use and Kanbus. Every finding carries its
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

// Agent is what was found for one platform.
type Agent struct {
	Platform Platform
	Evidence []string // e.g. ".claude/ exists", "claude on PATH"
}

// Present reports whether anything shows the agent is used.
func (a Agent) Present() bool { return len(a.Evidence) > 0 }

// Kanbus is what was found of Kanbus.
type Kanbus struct {
	Config   string   // absolute path of .kanbus.yml, or ""
	Evidence []string // e.g. ".kanbus.yml found at /repo/.kanbus.yml", "kbs on PATH"
	Binary   string   // kbs or kanbus as found on PATH, or ""
}

// Findings is everything detect found in one repository.
type Findings struct {
	Root   string
	Agents []Agent // one per platform, in table order
	Kanbus Kanbus
}

// Detect looks at root's known paths and at PATH.
func Detect(root string) Findings {
	f := Findings{Root: root}
	for _, p := range Platforms {
		a := Agent{Platform: p}
		for _, m := range p.Markers {
			if info, err := os.Stat(filepath.Join(root, m)); err == nil {
				if info.IsDir() {
					a.Evidence = append(a.Evidence, m+"/ exists")
				} else {
					a.Evidence = append(a.Evidence, m+" exists")
				}
			}
		}
		if p.Name == "cursor" {
			if matches, _ := filepath.Glob(filepath.Join(root, ".cursor", "rules", "*.md*")); len(matches) > 0 {
				a.Evidence = append(a.Evidence, ".cursor/rules/ has rules")
			}
		}
		for _, b := range p.Binaries {
			if _, err := exec.LookPath(b); err == nil {
				a.Evidence = append(a.Evidence, b+" on PATH")
			}
		}
		f.Agents = append(f.Agents, a)
	}
	f.Kanbus = detectKanbus(root)
	return f
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

func detectKanbus(root string) Kanbus {
	var k Kanbus
	if p, ok := FindKanbusConfig(root); ok {
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

// Detected returns the agents with evidence.
func (f Findings) Detected() []Agent {
	var found []Agent
	for _, a := range f.Agents {
		if a.Present() {
			found = append(found, a)
		}
	}
	return found
}

// Describe prints the evidence, one line per agent.
func (f Findings) Describe() string {
	var b strings.Builder
	for _, a := range f.Agents {
		if a.Present() {
			fmt.Fprintf(&b, "%s: %s\n", a.Platform.Name, strings.Join(a.Evidence, ", "))
		}
	}
	return b.String()
}
