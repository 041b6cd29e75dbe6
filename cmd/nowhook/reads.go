package main

import (
	"path/filepath"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// planFiles shows the agent table a repository's files as a plan leaves
// them (or, with before, as they were before it), so that setup can ask
// which instruction files each agent loads before and after it writes.
type planFiles struct {
	p      *plan
	before bool
}

func (f planFiles) Read(rel string) ([]byte, bool) {
	c, err := f.p.file(rel)
	if err != nil {
		return nil, false
	}
	if f.before {
		return c.old, c.existed
	}
	if c.remove || (!c.existed && !c.touched) {
		return nil, false
	}
	return c.next, true
}

func (f planFiles) Same(a, b string) bool {
	ta, err1 := resolve(filepath.Join(f.p.root, filepath.FromSlash(a)))
	tb, err2 := resolve(filepath.Join(f.p.root, filepath.FromSlash(b)))
	return err1 == nil && err2 == nil && ta == tb
}

// blockOf returns the Markdown block an artifact is, also where a
// condition wraps it.
func blockOf(art agent.Artifact) (*agent.Block, bool) {
	switch b := art.(type) {
	case *agent.Block:
		return b, true
	case *agent.Unless:
		return b.Block, true
	}
	return nil, false
}
