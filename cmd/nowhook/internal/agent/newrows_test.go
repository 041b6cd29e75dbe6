package agent

import (
	"strings"
	"testing"
)

// TestLoadsNewRows: what the rows of issue 17 load, as measured (Factory
// Droid 0.225.2, Cline 3.0.65, Continue CLI 1.5.47, a source build of
// Crush) or read in the package (Auggie 0.36.0): Continue reads only the
// first of AGENTS.md, AGENT.md and CLAUDE.md; the others read what they
// read side by side; Cline never reads CLAUDE.md.
func TestLoadsNewRows(t *testing.T) {
	all := map[string]string{"AGENTS.md": "a", "AGENT.md": "s", "CLAUDE.md": "c", "CRUSH.md": "r", ".augment-guidelines": "g"}
	cases := []struct {
		agent string
		files map[string]string
		want  string
	}{
		{"droid", all, "CLAUDE.md AGENTS.md"},
		{"droid", map[string]string{"CLAUDE.md": "c"}, "CLAUDE.md"},
		{"cline", all, "AGENTS.md"},
		{"cline", map[string]string{"CLAUDE.md": "c"}, ""},
		{"crush", all, "AGENTS.md CLAUDE.md CRUSH.md"},
		{"continue", all, "AGENTS.md"},
		{"continue", map[string]string{"AGENT.md": "s", "CLAUDE.md": "c"}, "AGENT.md"},
		{"continue", map[string]string{"CLAUDE.md": "c"}, "CLAUDE.md"},
		{"auggie", all, ".augment-guidelines AGENTS.md CLAUDE.md"},
	}
	for _, c := range cases {
		a, _ := Lookup(c.agent)
		got := strings.Join(a.Loads(memFiles{c.files, nil}), " ")
		if got != c.want {
			t.Errorf("%s over %v loads %q, want %q", c.agent, c.files, got, c.want)
		}
	}
}

// TestNewRowsTeachWhereRead: where there is no AGENTS.md, each row that
// reads the team's CLAUDE.md (or, for Continue CLI, AGENT.md) wants its
// kbs-now block there, and no row wants it in a file it does not read.
func TestNewRowsTeachWhereRead(t *testing.T) {
	for _, c := range []struct {
		agent, file string
		want        bool
	}{
		{"droid", "CLAUDE.md", true},
		{"crush", "CLAUDE.md", true},
		{"auggie", "CLAUDE.md", true},
		{"continue", "CLAUDE.md", true},
		{"continue", "AGENT.md", true},
	} {
		a, _ := Lookup(c.agent)
		after := memFiles{map[string]string{c.file: "# Team\n"}, nil}
		var got bool
		for _, art := range a.Owned() {
			if u, ok := art.(*Unless); ok && u.File == c.file {
				got = u.Needed(after, after)
			}
		}
		if got != c.want {
			t.Errorf("%s with only %s: its kbs-now block there is needed = %v, want %v", c.agent, c.file, got, c.want)
		}
	}
	a, _ := Lookup("continue")
	both := memFiles{map[string]string{"AGENT.md": "s", "CLAUDE.md": "c"}, nil}
	for _, art := range a.Owned() {
		if u, ok := art.(*Unless); ok && u.File == "CLAUDE.md" && u.Needed(both, both) {
			t.Errorf("continue beside AGENT.md wants its block in CLAUDE.md, which it does not read there")
		}
	}
}
