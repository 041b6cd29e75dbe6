package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// vet makes doctor's verdict on what the agents read (agent.Verdict: the
// reach row, and the budget row of an agent with one) on the files as the
// plan would leave them, for every agent in use, from the root and from
// every start folder, so that setup and doctor never disagree. It keeps
// the rows that are errors and warnings: setup refuses a plan with an
// error (Refusal) and prints the warnings as notes; setup --check lists
// both.
func (s *session) vet(p *plan) []diag.Finding {
	if s.User {
		return nil
	}
	after, before := planFiles{p: p, rec: s.rec}, planFiles{p: p, before: true, rec: s.rec}
	o := agent.VerdictOptions{Before: before,
		SetupFix: func(agents string, extra ...string) string {
			return strings.Join(append([]string{"nowhook setup --yes --agents " + agents}, extra...), " ")
		},
		SetupIn: func(from, agents string) string {
			return "nowhook setup --yes --agents " + agents + " --dir " + diag.ShellQuote(filepath.Join(p.root, filepath.FromSlash(from)))
		}}
	targets := map[*agent.Agent]bool{}
	for _, t := range s.Targets {
		targets[t.Agent] = true
	}
	var out []diag.Finding
	for _, a := range s.inUse() {
		m := s.mode(a)
		if m == "" {
			continue
		}
		seen := map[string]bool{}
		for _, from := range agent.Folders(after) {
			// Of an agent in use that setup does not set up, only what
			// the plan makes worse: its rows as they were stay its own.
			var was []diag.Finding
			if !targets[a] {
				was = a.Verdict(before, s.modes[a], from, o)
			}
			for _, f := range a.Verdict(after, m, from, o) {
				if f.Severity < diag.Warn || slices.ContainsFunc(was, func(x diag.Finding) bool { return x.Check == f.Check && x.Severity >= f.Severity }) {
					continue
				}
				f.Check, f.Agent = a.Name+"."+f.Check, a.Name
				if key := f.Check + "\x00" + f.Message; !seen[key] {
					seen[key] = true
					out = append(out, f)
				}
			}
		}
	}
	for _, f := range out {
		if f.Severity == diag.Warn {
			p.note("%s; fix: %s", f.Message, f.Fix)
		}
	}
	return out
}

// mode is the mode the plan leaves agent a in: its target's, else the one
// it was set up in.
func (s *session) mode(a *agent.Agent) agent.Mode {
	for _, t := range s.Targets {
		if t.Agent == a {
			return t.Mode
		}
	}
	return s.modes[a]
}

// Verdict is the plan's vet: doctor's rows on what the agents in use read,
// from the root and every start folder, as the plan would leave the
// files, that are warnings or errors.
func (pl *Plan) Verdict() []diag.Finding { return pl.verdict }

// Refusal is the error that refuses the plan: every row of its verdict
// that is an error, with doctor's words and the fix; nil where none is.
func (pl *Plan) Refusal() error {
	var parts []string
	for _, f := range pl.verdict {
		if f.Severity == diag.Error {
			parts = append(parts, fmt.Sprintf("%s: as setup would leave it, %s (nowhook doctor's %s row calls that an error). Fix: %s, then run nowhook setup again", f.Path, f.Message, f.Check, f.Fix))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(parts, "\n"))
}

// StartFolders are the folders below the root where a session plausibly
// starts, as the reconcile found them.
func (pl *Plan) StartFolders() []string { return pl.s.starts }
