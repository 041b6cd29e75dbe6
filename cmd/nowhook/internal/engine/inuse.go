package engine

import (
	"path/filepath"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// inUse lists the agents that are not targets but are detected or have
// an artifact of their own in place: their shared artifacts stay. A
// marker file that nowhook itself created (a GEMINI.md setup wrote for
// Gemini CLI is also Antigravity's marker) is no evidence.
func inUse(root string, rec *record, targets []Target, found []agent.Found) []*agent.Agent {
	isTarget := map[*agent.Agent]bool{}
	for _, t := range targets {
		isTarget[t.Agent] = true
	}
	var out []*agent.Agent
	for _, f := range found {
		if isTarget[f.Agent] {
			continue
		}
		evidence := len(f.Binaries) > 0
		for _, m := range f.Marks {
			if !rec.made(filepath.Join(root, filepath.FromSlash(m))) {
				evidence = true
			}
		}
		if evidence || hasOwn(root, f.Agent) {
			out = append(out, f.Agent)
		}
	}
	return out
}

// hasOwn reports whether one of a's artifacts that no other agent shares
// is in place.
func hasOwn(root string, a *agent.Agent) bool {
	for art := range a.InstalledIn(root, false).Present {
		if !shared(art) {
			return true
		}
	}
	return false
}

// shared reports whether more than one agent owns art, or a block of
// its name in its file (the kbs-now block in CLAUDE.md).
func shared(art agent.Artifact) bool {
	n := 0
	for _, a := range agent.All {
		for _, x := range a.Owned() {
			if x == art || sameNamedBlock(x, art) {
				n++
				break
			}
		}
	}
	return n > 1
}

// sameNamedBlock reports whether a and b are blocks of one name under one
// path.
func sameNamedBlock(a, b agent.Artifact) bool {
	ba, ok1 := agent.BlockOf(a)
	bb, ok2 := agent.BlockOf(b)
	return ok1 && ok2 && ba.File == bb.File && ba.Block.Name == bb.Block.Name
}
