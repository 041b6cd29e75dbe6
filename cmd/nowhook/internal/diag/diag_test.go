package diag

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadHookFile: each layout's handlers are found with their event,
// group, index, matcher, line and JSON path; an entry of the wrong shape
// is a shape problem, a handler without its group wrapper is unwrapped,
// and a file the format rejects has a parse error.
func TestReadHookFile(t *testing.T) {
	grouped := "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"matcher\": \"compact\", \"hooks\": [{\"type\": \"command\", \"command\": \"a.sh\", \"timeout\": 10}]},\n      {\"type\": \"command\", \"command\": \"b.sh\"}\n    ],\n    \"Stop\": [42]\n  }\n}\n"
	f := ReadHookFile(writeFile(t, grouped), "hooks.json", false, Format{Title: "Agent", Layout: LayoutGrouped})
	if f == nil || f.ParseErr != nil || len(f.Handlers) != 2 {
		t.Fatalf("grouped: %+v", f)
	}
	h := f.Handlers[0]
	if h.Event != "SessionStart" || h.Group != 0 || h.Index != 0 || !h.Wrapped || h.Matcher == nil || *h.Matcher != "compact" || h.Command != "a.sh" || h.Line != 4 {
		t.Errorf("first handler: %+v", h)
	}
	if n, ok := h.Obj["timeout"].(json.Number); !ok || n.String() != "10" {
		t.Errorf("timeout %v: numbers stay json.Number", h.Obj["timeout"])
	}
	if got := h.Where(); got != "hooks.json:4 (hooks.SessionStart[0].hooks[0])" {
		t.Errorf("Where() = %q", got)
	}
	if u := f.Handlers[1]; u.Wrapped || u.Index != -1 || u.Command != "b.sh" {
		t.Errorf("unwrapped handler: %+v", u)
	}
	if len(f.Shape) != 1 || f.Shape[0].At != "hooks.Stop[0]" || f.Shape[0].Line != 7 || !strings.Contains(f.Shape[0].What, "not an object") {
		t.Errorf("shape: %+v", f.Shape)
	}

	flat := `{"version": 1, "hooks": {"preCompact": [{"command": ["nudge.sh", "--x"]}]}}`
	f = ReadHookFile(writeFile(t, flat), "hooks.json", false, Format{Layout: LayoutFlat})
	if len(f.Handlers) != 1 || f.Handlers[0].Command != "nudge.sh --x" || !f.Handlers[0].Wrapped {
		t.Errorf("flat: %+v", f.Handlers)
	}

	named := `{"$schema": "x", "mine": {"PreInvocation": [{"command": "kbs now"}]}}`
	f = ReadHookFile(writeFile(t, named), "hooks.json", false, Format{Layout: LayoutNamed, Strict: true})
	if len(f.Handlers) != 1 || f.Handlers[0].Name != "mine" || f.Handlers[0].At != "mine.PreInvocation[0]" {
		t.Errorf("named: %+v", f.Handlers)
	}

	f = ReadHookFile(writeFile(t, "{\n  // a comment\n}\n"), "hooks.json", false, Format{Title: "Agent", Strict: true, Layout: LayoutGrouped})
	if f.ParseErr == nil || f.ParseErr.Line != 2 {
		t.Errorf("strict: a comment is a parse error at line 2: %+v", f.ParseErr)
	}
	if ReadHookFile(filepath.Join(t.TempDir(), "missing.json"), "missing.json", false, Format{}) != nil {
		t.Error("a missing file is nil")
	}
}

func TestSeverityJSON(t *testing.T) {
	b, _ := json.Marshal([]Severity{OK, Info, Warn, Error})
	if string(b) != `["ok","info","warn","error"]` {
		t.Errorf("%s", b)
	}
	var s Severity
	if err := json.Unmarshal([]byte(`"warn"`), &s); err != nil || s != Warn {
		t.Errorf("%v %v", s, err)
	}
	if json.Unmarshal([]byte(`"bad"`), &s) == nil {
		t.Error("an unknown severity is an error")
	}
}

func TestText(t *testing.T) {
	if Plural(1, "hook handler") != "1 hook handler" || Plural(2, "hook handler") != "2 hook handlers" {
		t.Error("Plural")
	}
	for in, want := range map[string]string{"a/b.sh": "a/b.sh", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
	p := writeFile(t, "exec nowhook-reminder --timeout 3s --x\n")
	if b, ok := ScriptBudget(p); !ok || b.String() != "3s" {
		t.Errorf("ScriptBudget: %v %v", b, ok)
	}
}
