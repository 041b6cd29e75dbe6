package engine

import (
	"path/filepath"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// inUse lists the agents that are not targets but are detected, have an
// artifact of their own in place, or are set up as the record says: their
// shared artifacts stay where they really use them (setUp). A marker file
// that nowhook itself created (a GEMINI.md setup wrote for Gemini CLI is
// also Antigravity's marker) is no evidence.
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
		if detected(root, rec, f) || hasOwn(root, f.Agent) || rec.setUp(f.Agent) != "" {
			out = append(out, f.Agent)
		}
	}
	return out
}

// detected reports whether detection's evidence of f's agent is more than
// marker files nowhook created.
func detected(root string, rec *record, f agent.Found) bool {
	evidence := len(f.Binaries) > 0
	for _, m := range f.Marks {
		if !rec.made(filepath.Join(root, filepath.FromSlash(m))) {
			evidence = true
		}
	}
	return evidence
}

// setUpModes says, for every agent, the mode nowhook set it up in before
// the reconcile, "" for none, so that a shared artifact (the kbs-now block
// of AGENTS.md) is kept for, and named after, the agents that really use
// it, never one that is merely detected there. An agent's own artifacts
// tell first (a hook entry, a script: InstalledIn); else the record of
// what setup set up in this clone; and only where the record names no
// agent at all (a teammate's clone, a record of an older nowhook) does a
// detected agent count as set up on demand wherever its kbs-now block is,
// as InstalledIn reads it for an agent in use.
func setUpModes(root string, rec *record, found []agent.Found) map[*agent.Agent]agent.Mode {
	modes := map[*agent.Agent]agent.Mode{}
	known := rec.agentsKnown()
	for _, f := range found {
		in := f.Agent.InstalledIn(root, false)
		m := in.Mode
		switch {
		case m != "" && known && !hooked(f.Agent, in) && rec.setUp(f.Agent) != "":
			// Only a script is left, which setup keeps where the user
			// changed it: the record says what the agent was set up in.
			m = rec.setUp(f.Agent)
		case m != "":
		case known:
			m = rec.setUp(f.Agent)
		case detected(root, rec, f):
			m = f.Agent.InstalledIn(root, true).Mode
		}
		if m != "" {
			modes[f.Agent] = m
		}
	}
	return modes
}

// recordAgents remembers in rec the mode each target is set up in now
// (none, for remove). A record that named no agent before also takes the
// agents that setUpModes found set up on demand by their block alone, so
// that what was known is not lost (those whose own artifacts show their
// mode need no line: the files keep telling).
func (s *session) recordAgents(rec *record) {
	if !rec.agentsKnown() {
		for a, m := range s.modes {
			if a.InstalledIn(s.Root, false).Mode == "" {
				rec.setAgent(a, m)
			}
		}
	}
	for _, t := range s.Targets {
		rec.setAgent(t.Agent, t.Mode)
	}
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

// Modes says, for the agents detected in the repository at root (found),
// the mode nowhook set each up in, as setup and remove take it
// (setUpModes): doctor judges an agent in that mode, and one that is only
// detected not at all, as setup --check leaves it alone.
func Modes(root string, found []agent.Found) map[*agent.Agent]agent.Mode {
	return setUpModes(root, loadRecord(root), found)
}

// hooked reports whether one of a's hook entries is in place.
func hooked(a *agent.Agent, in agent.Installed) bool {
	for _, mh := range a.HookEntries() {
		if in.Present[mh.Hook] {
			return true
		}
	}
	return false
}
