package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeBothScopesFallback: both scopes installed (setup --scope user,
// then setup in the repository) on a machine whose Claude Code has neither
// nowhook nor nowhook-reminder on its PATH, as an IDE without ~/.local/bin
// starts it: both compact hooks fall back to python3, and the session
// still gets the reminder once after /compact, kbs running once, because
// the fallback applies the Go runtime's defer rule (issue 24, case 5). A
// session in sub/deeper, where only the user-scope hook runs, gets it
// once too.
func TestClaudeBothScopesFallback(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, shapeAgentsOnly)
	sub := s.startIn(t, startSub)
	runNowhook(t, ctx, s, "setup", "--scope", "user", "--yes", "--agents", "claude")
	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude")
	s.commitAll(t, "nowhook setup")
	// The client's PATH is s.bin, node's folder, /usr/bin and /bin: take
	// nowhook out, and check that nothing else there is nowhook.
	if err := os.Remove(filepath.Join(s.bin, "nowhook")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Split(strings.TrimPrefix(s.env(nil)[0], "PATH="), ":") {
		for _, name := range []string{"nowhook", "nowhook-reminder"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Skipf("%s is in %s, on the client's PATH: the fallback would not run", name, dir)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "python3")); err == nil {
			t.Logf("python3 on the client's PATH: %s", filepath.Join(dir, "python3"))
		}
	}
	for _, c := range []struct{ name, dir string }{{startRoot, s.repo}, {startSub, sub}} {
		t.Run(strings.ReplaceAll(c.name, "/", "-"), func(t *testing.T) {
			checkClaudeReminders(t, ctx, bin, s, c.dir, 1, 1)
		})
	}
}
