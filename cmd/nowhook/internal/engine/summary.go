package engine

import (
	"fmt"
	"io"
	"strings"
)

// printSummary prints one line per target: the agent, its mode (or
// "removed"), and what happened to each file; below it, indented, what
// each of below says of the target, when it says something.
func printSummary(w io.Writer, plans []*agentPlan, how func(t Target) string, below ...func(t Target) string) {
	for _, ap := range plans {
		var parts []string
		seen := map[string]bool{}
		// A file something was taken out of says so; the blocks that stay
		// in it add nothing to that.
		took := map[string]bool{}
		for _, s := range ap.steps {
			if !s.apply && (s.status == "removed" || s.status == "deleted") {
				took[s.art.Path()] = true
			}
		}
		for _, s := range ap.steps {
			if s.apply && s.status == "" && took[s.art.Path()] && !s.c.remove {
				continue
			}
			status := s.status
			if s.apply && status == "" {
				status = s.c.status()
			}
			if s.c.remove && (s.apply || status == "removed") {
				status = "deleted" // the file goes: one word for all that went from it
			}
			item := s.art.Path() + " (" + status + ")"
			if !seen[item] {
				seen[item] = true
				parts = append(parts, item)
			}
		}
		what := strings.Join(parts, ", ")
		if what == "" {
			what = "nothing of nowhook's to change"
		}
		mode := string(ap.t.Mode)
		if mode == "" {
			mode = "removed"
		}
		line := fmt.Sprintf("%-12s %-9s %s", ap.t.Agent.Name, mode, what)
		if extra := how(ap.t); extra != "" {
			line += " - " + extra
		}
		fmt.Fprintln(w, line)
		for _, b := range below {
			if more := b(ap.t); more != "" {
				fmt.Fprintf(w, "%-12s %-9s %s\n", "", "", more)
			}
		}
	}
}
