package generate

import (
	"errors"
	"strings"
	"testing"
)

// testTables are two [[hooks]] tables of ours, recognised by "--ours" in
// their command.
func testTables(timeout int) TOMLTables {
	return TOMLTables{
		Path: "config.toml", Agent: "Kimi Code CLI", Array: "hooks",
		Comment: "# nowhook: test tables",
		Tables: []Ordered{
			{{"event", "PreCompact"}, {"command", `run "x" --ours`}, {"timeout", timeout}},
			{{"event", "UserPromptSubmit"}, {"command", `run "x" --ours`}, {"timeout", timeout}},
		},
		Ours: func(c string) bool { return strings.Contains(c, "--ours") },
	}
}

const oursBlock = "# nowhook: test tables\n[[hooks]]\nevent = \"PreCompact\"\ncommand = \"run \\\"x\\\" --ours\"\ntimeout = 10\n[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"run \\\"x\\\" --ours\"\ntimeout = 10\n"

// TestTOMLTablesRoundTrip: Merge adds our tables after the user's bytes
// (a blank line between), a second Merge changes nothing, and Remove
// gives the file back byte for byte, whatever it ends with, comments,
// CRLF and the user's own [[hooks]] included.
func TestTOMLTablesRoundTrip(t *testing.T) {
	user := "# my settings\ndefault_model = \"k2\" # inline comment\n\n[models.k2]\nprovider = \"p\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify-send done\"\n# trailing comment of mine\n"
	cases := []struct{ name, in, want string }{
		{"a new file", "", oursBlock},
		{"comments and the user's own hooks", user, user + "\n" + oursBlock},
		{"no final line ending", strings.TrimSuffix(user, "\n"), user + oursBlock},
		{"only a blank line", "\n", "\n\n" + oursBlock},
		{"CRLF", strings.ReplaceAll(user, "\n", "\r\n"), strings.ReplaceAll(user+"\n"+oursBlock, "\n", "\r\n")},
		{"a multi-line string that looks like a table", "x = '''\n[[hooks]]\ncommand = \"--ours\"\n'''\n", "x = '''\n[[hooks]]\ncommand = \"--ours\"\n'''\n\n" + oursBlock},
	}
	tt := testTables(10)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := tt.Merge([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Fatalf("merged:\n%q\nwant:\n%q", out, c.want)
			}
			again, err := tt.Merge(out)
			if err != nil || string(again) != string(out) {
				t.Fatalf("a second Merge changed the file (%v):\n%q", err, again)
			}
			if !tt.Present(out) || tt.Present([]byte(c.in)) {
				t.Errorf("Present: %v after Merge, %v before", tt.Present(out), tt.Present([]byte(c.in)))
			}
			back, n, empty, err := tt.Remove(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != c.in || n != 2 {
				t.Errorf("removed %d tables, giving:\n%q\nwant:\n%q", n, back, c.in)
			}
			if empty != (strings.TrimSpace(c.in) == "") {
				t.Errorf("empty = %v for %q", empty, back)
			}
		})
	}
}

// TestTOMLTablesInPlace: an older version of our tables is upgraded where
// it is, the user's tables after it staying after it; a second copy
// elsewhere goes; a table of ours with the user's comment between keys is
// replaced whole.
func TestTOMLTablesInPlace(t *testing.T) {
	tt := testTables(10)
	old := strings.ReplaceAll(oursBlock, "timeout = 10", "timeout = 7")
	tail := "\n[[hooks]]\nevent = \"Stop\"\ncommand = \"mine\"\n"
	in := "a = 1\n\n" + old + tail + "\n# nowhook: test tables\n[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"y --ours\"\n"
	out, err := tt.Merge([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a = 1\n\n" + oursBlock + tail; string(out) != want {
		t.Errorf("got:\n%q\nwant:\n%q", out, want)
	}
	back, n, _, err := tt.Remove(out)
	if err != nil || n != 2 {
		t.Fatalf("Remove: %d, %v", n, err)
	}
	if want := "a = 1\n" + tail; string(back) != want {
		t.Errorf("removed:\n%q\nwant:\n%q", back, want)
	}
}

// TestTOMLTablesRefused: a file the agent cannot read, or whose hooks are
// written in another form, is refused with its line, and nothing is
// returned to write.
func TestTOMLTablesRefused(t *testing.T) {
	tt := testTables(10)
	for _, c := range []struct {
		name, in string
		line     int
		says     string
	}{
		{"not TOML", "a = 1\nb = \n", 2, "is not valid TOML"},
		{"a duplicate key", "a = 1\na = 2\n", 2, "is not valid TOML"},
		{"an inline array", "x = 1\nhooks = [{event = \"Stop\", command = \"c\"}]\n", 2, "inline array"},
		{"a [hooks] table", "[hooks]\nx = 1\n", 1, "inline array or a [hooks] table"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := tt.Merge([]byte(c.in))
			var fe *FileError
			if !errors.As(err, &fe) || out != nil {
				t.Fatalf("Merge = %q, %v; want a FileError", out, err)
			}
			if fe.Line != c.line || !strings.Contains(fe.Error(), c.says) || fe.Fix == "" {
				t.Errorf("error %q at line %d, want line %d saying %q with a fix", fe.Error(), fe.Line, c.line, c.says)
			}
		})
	}
	check := tt
	check.Check = func(doc map[string]any) *FileError { return &FileError{Path: "config.toml", Problem: "checked"} }
	if _, err := check.Merge([]byte("a = 1\n")); err == nil || !strings.Contains(err.Error(), "checked") {
		t.Errorf("Check's refusal was not returned: %v", err)
	}
}
