package generate

import "testing"

func TestImports(t *testing.T) {
	cases := []struct {
		md   string
		want bool
	}{
		{"@AGENTS.md\n", true},
		{"# Rules\n\nSee @AGENTS.md for the team's rules.\n", true},
		{"@./AGENTS.md\n", true},
		{"Write `@AGENTS.md` to import it.\n", false},
		{"```\n@AGENTS.md\n```\n", false},
		{"@AGENTS.md.bak\n", false},
		{"# Rules\n", false},
	}
	for _, c := range cases {
		if got := Imports([]byte(c.md), "AGENTS.md"); got != c.want {
			t.Errorf("Imports(%q) = %v, want %v", c.md, got, c.want)
		}
	}
}
