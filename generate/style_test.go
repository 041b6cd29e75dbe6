package generate

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestMergeHookStyle: the entry setup inserts takes the file's line
// ending and indentation step, whatever the step (tab, two or four
// spaces) and wherever it goes (after a sibling, into an empty array, as
// a new event); every byte of the user's stays.
func TestMergeHookStyle(t *testing.T) {
	const group = `{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}`
	cases := []struct{ name, in, want string }{
		{"tabs, after a sibling",
			"{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t" + group + "\n\t\t]\n\t}\n}\n",
			"{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t" + group + ",\n\t\t\t{\n\t\t\t\t\"matcher\": \"compact\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/kanbus-compaction-right-now.sh\",\n\t\t\t\t\t\t\"timeout\": 10\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n"},
		{"four spaces, into an empty array",
			"{\n    \"hooks\": {\n        \"SessionStart\": []\n    }\n}\n",
			"{\n    \"hooks\": {\n        \"SessionStart\": [\n            {\n                \"matcher\": \"compact\",\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/kanbus-compaction-right-now.sh\",\n                        \"timeout\": 10\n                    }\n                ]\n            }\n        ]\n    }\n}\n"},
		{"tabs, a new event",
			"{\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}\n",
			"{\n\t\"hooks\": {\n\t\t\"Stop\": [],\n\t\t\"SessionStart\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"compact\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/kanbus-compaction-right-now.sh\",\n\t\t\t\t\t\t\"timeout\": 10\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n"},
	}
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	for _, c := range append(cases,
		struct{ name, in, want string }{"CRLF, tabs, after a sibling", crlf(cases[0].in), crlf(cases[0].want)},
		struct{ name, in, want string }{"CRLF, four spaces, into an empty array", crlf(cases[1].in), crlf(cases[1].want)},
		struct{ name, in, want string }{"CRLF without a final line ending", strings.TrimSuffix(crlf(cases[2].in), "\r\n"), strings.TrimSuffix(crlf(cases[2].want), "\r\n")},
	) {
		t.Run(c.name, func(t *testing.T) {
			out, err := testSettings.MergeHook([]byte(c.in), testHook(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got:\n%q\nwant:\n%q", out, c.want)
			}
			if bytes.Contains([]byte(c.in), []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
				t.Errorf("a line ends in LF alone in a CRLF file:\n%q", out)
			}
		})
	}
}

// TestIndentUnit: the step is a tab where indented lines start with one,
// else the smallest run of leading spaces, else two spaces.
func TestIndentUnit(t *testing.T) {
	for in, want := range map[string]string{
		"{}":                                  "  ",
		"{\n\"a\": 1\n}":                      "  ",
		"{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}": "\t",
		"{\n    \"a\": {\n        \"b\": 1\n    }\n}": "    ",
		"{\n        \"b\": 1,\n   \"a\": 2\n}":        "   ",
		"{\r\n  \"a\": {\r\n    \"b\": 1\r\n  }\r\n}": "  ",
		"{\n   \n  \"a\": 1\n}":                       "  ", // a line of spaces alone is no step
	} {
		if got := indentUnit([]byte(in)); got != want {
			t.Errorf("indentUnit(%q) = %q, want %q", in, got, want)
		}
	}
}
