package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQwenUserScope: `nowhook setup --scope user --agents qwen` merges the
// compact hook into ~/.qwen/settings.json. A session started in sub/deeper,
// where Qwen Code runs no project hook, then gets the reminder after
// /compress; with the project's own hook set up too, a session at the root
// (where both hooks run) and one in sub/deeper each get it exactly once;
// remove --scope user gives the user file back byte for byte. At the root
// both hooks start (measured); kbs running once there shows that the
// user-scope one stepped aside rather than printing nothing by chance.
func TestQwenUserScope(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	qwenHome(t, s)
	userFile := filepath.Join(s.home, ".qwen", "settings.json")
	// With "$version": 4 already there Qwen leaves the user file alone
	// (docs/platforms.md#qwen-code), so remove can give it back byte for byte.
	b, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	before := strings.Replace(string(b), "{\n", "{\n  \"$version\": 4,\n", 1)
	writeFile(t, userFile, before, 0o644)
	nowhook := filepath.Join(s.bin, "nowhook")
	res := runCmd(t, ctx, s.env(nil), s.root, "", nowhook, "setup", "--scope", "user", "--yes", "--agents", "qwen")
	if res.err != nil {
		t.Fatalf("nowhook setup --scope user: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --scope user --yes --agents qwen:\n%s", strings.TrimSpace(res.stdout))
	sub := filepath.Join(s.repo, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	reminder := expectedReminder(t)
	kbs := 0
	session := func(name, dir string) {
		t.Helper()
		m := newQwenMock(t, false, "")
		runQwenSession(t, ctx, bin, qwenEnv(s, m), dir, []string{"hello", "/compress", "What was I working on?"}, nil)
		reqs := m.Recorded()
		checkQwenRequests(t, reqs)
		idx := qwenSummaryIndex(t, reqs)
		checkNotBefore(t, reqs, idx, reminder)
		n := countIn(t, reqs[idx+1].Body, reminder)
		if n != 1 {
			t.Errorf("%s: the first request after the compression request holds the reminder %d times, want 1", name, n)
		}
		kbs++
		if first, _ := s.kbsRuns(t); first != kbs {
			t.Errorf("%s: kbs ran %d times in all, want %d (once per session)", name, first, kbs)
		}
		t.Logf("%s: reminder %d time(s) in the first request after the compression, kbs runs so far %d", name, n, kbs)
	}
	session("user scope alone, started in sub/deeper", sub)

	setupQwen(t, ctx, s, s.repo)
	session("both scopes, started at the root", s.repo)
	session("both scopes, started in sub/deeper", sub)

	res = runCmd(t, ctx, s.env(nil), s.root, "", nowhook, "remove", "--scope", "user", "--yes")
	if res.err != nil {
		t.Fatalf("nowhook remove --scope user: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	after, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != before {
		t.Errorf("remove --scope user did not give ~/.qwen/settings.json back byte for byte:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".qwen", "hooks", "kanbus-compaction-right-now.sh")); !os.IsNotExist(err) {
		t.Errorf("remove --scope user left the wrapper: %v", err)
	}
}
