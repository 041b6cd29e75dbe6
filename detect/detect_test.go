package detect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAgents(t *testing.T) {
	got, err := ParseAgents("claude, codex=ondemand,cursor=nudge")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range got {
		s = append(s, c.Platform.Name+"="+string(c.Mode))
	}
	if strings.Join(s, ",") != "claude=reinject,codex=ondemand,cursor=nudge" {
		t.Errorf("got %v", s)
	}
	for list, want := range map[string]string{
		"cursor=reinject":      "Cursor cannot re-inject",
		"antigravity=reinject": "Antigravity cannot re-inject",
		"antigravity=nudge":    "no compaction event",
		"claude=nudge":         "claude=nudge is refused",
		"codex=nudge":          "codex=nudge is refused",
		"vim":                  `unknown agent "vim"`,
		"claude=always":        `unknown mode "always"`,
		"claude,claude":        "listed twice",
		",":                    "lists no agent",
	} {
		if _, err := ParseAgents(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAgents(%q) = %v, want an error containing %q", list, err, want)
		}
	}
}

// TestTableComplete checks that every platform either supports or refuses
// every mode, with a reason, so no request falls through the table.
func TestTableComplete(t *testing.T) {
	for _, p := range Platforms {
		if _, ok := p.Supported[p.Default]; !ok {
			t.Errorf("%s: default mode %s is not supported", p.Name, p.Default)
		}
		for _, m := range Modes {
			_, sup := p.Supported[m]
			reason, ref := p.Refused[m]
			if sup == ref {
				t.Errorf("%s: mode %s must be either supported or refused", p.Name, m)
			}
			if ref && reason == "" {
				t.Errorf("%s: mode %s is refused without a reason", p.Name, m)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", ".claude", ".cursor/rules", ".agents/rules", "sub/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".kanbus.yml", "CLAUDE.md", ".cursor/rules/a.mdc"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	got, err := Root(filepath.Join(root, "sub", "dir"))
	if err != nil || got != root {
		t.Fatalf("Root = %q, %v; want %q", got, err, root)
	}
	f := Detect(root)
	desc := f.Describe()
	for _, want := range []string{"claude: .claude/ exists, CLAUDE.md exists", "cursor: .cursor/ exists, .cursor/rules/ has rules", "antigravity: .agents/rules/ exists"} {
		if !strings.Contains(desc, want) {
			t.Errorf("Describe() = %q, want it to contain %q", desc, want)
		}
	}
	if strings.Contains(desc, "codex") {
		t.Errorf("codex detected without evidence: %q", desc)
	}
	if f.Kanbus.Config != filepath.Join(root, ".kanbus.yml") {
		t.Errorf("Kanbus config = %q", f.Kanbus.Config)
	}
	if _, ok := FindKanbusConfig(filepath.Join(root, "sub", "dir")); !ok {
		t.Errorf("FindKanbusConfig from a subdirectory failed")
	}
}
