package engine

import (
	"fmt"
	"os"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// vet makes, for each target set up in a mode, doctor's judgements of
// files alone that its agent has (agent.Check.Files: Codex's AGENTS.md
// size cap) on the files as the plan would leave them, so that setup and
// doctor never disagree: what doctor would call an error refuses the plan,
// and nothing is written; a warning becomes a note.
func (s *session) vet(p *plan, plans []*agentPlan) error {
	if s.User {
		return nil
	}
	j := agent.Judged{Root: p.root, Env: os.Environ(),
		Read:   planFiles{p: p}.Read,
		Before: planFiles{p: p, before: true}.Read,
		Show: func(abs string) string { // as doctor shows it: ~ first, then the root
			if home := os.Getenv("HOME"); home != "" && Within(home, abs) {
				return osutil.TildeHome(abs)
			}
			return relTo(p.root, abs)
		}}
	for _, ap := range plans {
		if ap.t.Mode == "" {
			continue
		}
		for _, q := range ap.t.Agent.Doctor.Quirks {
			if q.Files == nil {
				continue
			}
			for _, f := range q.Files(j) {
				switch f.Severity {
				case diag.Error:
					return fmt.Errorf("%s: as setup would leave it, %s (nowhook doctor's %s.%s row calls that an error). Fix: %s, then run nowhook setup again", f.Path, f.Message, ap.t.Agent.Name, q.Name, f.Fix)
				case diag.Warn:
					p.note("%s; fix: %s", f.Message, f.Fix)
				}
			}
		}
	}
	return nil
}
