package agent

import (
	"regexp"
	"strings"
	"testing"
)

// TestReadsFacts: every agent says what it reads, on which client, and how
// each fact is known; every file that hides another, or imports it, is one
// the agent reads itself.
func TestReadsFacts(t *testing.T) {
	known := regexp.MustCompile(`^(measured|vendor docs|source|reported)\b`)
	for _, a := range All {
		if a.Reads.Client == "" || a.Reads.Where == "" || len(a.Reads.Files) == 0 {
			t.Errorf("%s: Reads lacks its client, folders or files: %+v", a.Name, a.Reads)
		}
		files := map[string]bool{}
		for _, in := range a.Reads.Files {
			files[in.File] = true
		}
		for _, in := range a.Reads.Files {
			if !known.MatchString(in.Known) {
				t.Errorf("%s %s: Known %q does not say how the fact is known", a.Name, in.File, in.Known)
			}
			for _, h := range append(in.HiddenBy, in.ImportedBy) {
				if h != "" && !files[h] {
					t.Errorf("%s %s: %s hides or imports it but is not among the files it reads", a.Name, in.File, h)
				}
			}
		}
	}
}

// memFiles is a repository in memory; links maps a name to the file it is.
type memFiles struct {
	files map[string]string
	links map[string]string
}

func (m memFiles) Read(p string) ([]byte, bool) {
	if t, ok := m.links[p]; ok {
		p = t
	}
	s, ok := m.files[p]
	return []byte(s), ok
}

func (m memFiles) Same(a, b string) bool {
	if t, ok := m.links[a]; ok {
		a = t
	}
	if t, ok := m.links[b]; ok {
		b = t
	}
	return a == b
}

func TestLoads(t *testing.T) {
	cases := []struct {
		agent string
		files map[string]string
		links map[string]string
		want  string
	}{
		{"claude", map[string]string{"AGENTS.md": "a"}, nil, "AGENTS.md"},
		{"claude", map[string]string{"AGENTS.md": "a", "CLAUDE.md": "c"}, nil, "CLAUDE.md"},
		{"claude", map[string]string{"AGENTS.md": "a", "CLAUDE.md": "@AGENTS.md\nc"}, nil, "CLAUDE.md AGENTS.md"},
		{"claude", map[string]string{"AGENTS.md": "a"}, map[string]string{"CLAUDE.md": "AGENTS.md"}, "CLAUDE.md AGENTS.md"},
		{"codex", map[string]string{"AGENTS.md": "a", "AGENTS.override.md": "o"}, nil, "AGENTS.override.md"},
		{"codex", map[string]string{"CLAUDE.md": "c"}, nil, ""},
		{"qwen", map[string]string{"AGENTS.md": "a", "QWEN.md": "q", "CLAUDE.md": "c"}, nil, "QWEN.md AGENTS.md"},
		{"opencode", map[string]string{"CLAUDE.md": "c"}, nil, "CLAUDE.md"},
		{"opencode", map[string]string{"AGENTS.md": "a", "CLAUDE.md": "c"}, nil, "AGENTS.md"},
		{"gemini", map[string]string{"AGENTS.md": "a", "GEMINI.md": "g"}, nil, "GEMINI.md"},
	}
	for _, c := range cases {
		a, _ := Lookup(c.agent)
		got := strings.Join(a.Loads(memFiles{c.files, c.links}), " ")
		if got != c.want {
			t.Errorf("%s over %v (links %v) loads %q, want %q", c.agent, c.files, c.links, got, c.want)
		}
	}
}
