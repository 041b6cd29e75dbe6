package generate

import "testing"

func TestImportRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "@AGENTS.md\n"},
		{"## Compact Instructions\n", "@AGENTS.md\n\n## Compact Instructions\n"},
		{"# A\r\nb\r\n", "@AGENTS.md\r\n\r\n# A\r\nb\r\n"},
		{"\ufeff# A\n", "\ufeff@AGENTS.md\n\n# A\n"},
	}
	for _, c := range cases {
		got := AddImport([]byte(c.in), "AGENTS.md")
		if string(got) != c.want {
			t.Errorf("AddImport(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := AddImport(got, "AGENTS.md"); string(again) != string(got) {
			t.Errorf("a second AddImport changed %q to %q", got, again)
		}
		if !StartsWithImport(got, "AGENTS.md") || !Imports(got, "AGENTS.md") {
			t.Errorf("%q: the import is not recognised", got)
		}
		back, ok := RemoveImport(got, "AGENTS.md")
		if !ok || string(back) != c.in {
			t.Errorf("RemoveImport(%q) = %q, %v; want %q", got, back, ok, c.in)
		}
	}
}

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
	if _, ok := RemoveImport([]byte("# Rules\n@AGENTS.md\n"), "AGENTS.md"); ok {
		t.Error("RemoveImport took an import that is not the first line")
	}
}
