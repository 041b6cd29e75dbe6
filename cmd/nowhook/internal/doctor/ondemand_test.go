package doctor

import (
	"strings"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestOnDemandFilesNamed: every agent with an on-demand mode writes at
// least one block there that doctor can name, so the mode row and the
// inject-event fix never say "teach `kbs now`" without a file.
func TestOnDemandFilesNamed(t *testing.T) {
	for _, a := range agentpkg.All {
		if _, ok := a.Spec(agentpkg.OnDemand); !ok {
			continue
		}
		files := onDemandFiles(a)
		if len(files) == 0 {
			t.Errorf("%s: its on-demand mode writes no block that doctor can name", a.Name)
			continue
		}
		row := teachesKbsNow(a)
		for _, f := range files {
			if !strings.Contains(row, f) {
				t.Errorf("%s: %q does not name %s", a.Name, row, f)
			}
		}
	}
}

func TestJoinFiles(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"AGENTS.md"}, "AGENTS.md"},
		{[]string{"GEMINI.md", "AGENTS.md"}, "GEMINI.md and AGENTS.md"},
		{[]string{"A.md", "B.md", "C.md"}, "A.md, B.md and C.md"},
	} {
		if got := joinFiles(c.in); got != c.want {
			t.Errorf("joinFiles(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
