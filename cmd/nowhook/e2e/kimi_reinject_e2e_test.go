package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Kimi Code's re-inject as users get it: `nowhook setup --scope user
// --agents kimi` merges the PreCompact, PostCompact and UserPromptSubmit
// tables into the user's ~/.kimi-code/config.toml (beside the provider the
// sandbox names, and a comment of the user's) and writes the wrapper they
// run, and the real Kimi Code CLI 2.1.0 then runs them against the mock
// model. The hand-written tables of kimi_e2e_test.go are not there. Run:
// eval "$(sh scripts/install-agents.sh kimi)"; go test ./cmd/nowhook/e2e/ -run '^TestKimiUserScope' -v

// newKimiUserWorld is newKimiWorld with config.toml as a user has it (no
// nowhook hook, a comment of theirs), then setup --scope user --agents
// kimi run there; it returns the file as it was before setup.
func newKimiUserWorld(t *testing.T, ctx context.Context, highFirst bool, extra ...string) (*kimiWorld, []byte) {
	t.Helper()
	w := newKimiWorld(t, kbsFixture, highFirst)
	config := filepath.Join(w.home, ".kimi-code", "config.toml")
	writeKimiConfig(t, w.home, w.mock, "# the user's own line, kept by setup and remove\n")
	before, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"setup", "--scope", "user", "--yes", "--agents", "kimi"}, extra...)
	res := runCmd(t, ctx, w.env(), w.root, "", filepath.Join(w.sandbox.bin, "nowhook"), args...)
	if res.err != nil {
		t.Fatalf("nowhook %v: %v\n%s%s", args, res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook %s:\n%s", strings.Join(args, " "), strings.TrimSpace(res.stdout))
	after, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), string(before)) || strings.Count(string(after), "[[hooks]]") != 3 {
		t.Fatalf("setup --scope user did not append three [[hooks]] tables after the user's bytes:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(w.home, ".kimi-code", "hooks", "nowhook-kimi.sh")); err != nil {
		t.Fatalf("no wrapper: %v", err)
	}
	return w, before
}

// removeUser runs remove --scope user and checks config.toml is back byte
// for byte and the wrapper gone.
func (w *kimiWorld) removeUser(t *testing.T, ctx context.Context, before []byte) {
	t.Helper()
	res := runCmd(t, ctx, w.env(), w.root, "", filepath.Join(w.sandbox.bin, "nowhook"), "remove", "--scope", "user", "--yes", "--agents", "kimi")
	if res.err != nil {
		t.Fatalf("nowhook remove --scope user: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	after, err := os.ReadFile(filepath.Join(w.home, ".kimi-code", "config.toml"))
	if err != nil || string(after) != string(before) {
		t.Errorf("remove --scope user did not give config.toml back byte for byte (%v):\nbefore:\n%s\nafter:\n%s", err, before, after)
	}
	if _, err := os.Stat(filepath.Join(w.home, ".kimi-code", "hooks")); !os.IsNotExist(err) {
		t.Errorf("remove --scope user left the wrapper's folder: %v", err)
	}
}

// TestKimiUserScopeReinjectAfterCompact: with what setup --scope user
// wrote, a `kimi acp` session started in a sub-folder of the repository
// (the user scope runs wherever a session starts): two prompts, /compact,
// two more. The reminder is in the first request after the compaction,
// once, as the UserPromptSubmit hook's result; in no request before it;
// the next prompt adds none (the request holds it once, from the
// history); the summary request holds none; kbs runs once. remove --scope
// user then gives config.toml back byte for byte.
func TestKimiUserScopeReinjectAfterCompact(t *testing.T) {
	ctx := probeCtx(t)
	w, before := newKimiUserWorld(t, ctx, false)
	clientVersion(t, ctx, w.env(), w.bin)
	sub := filepath.Join(w.repo, "svc", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	a := startKimiACP(t, ctx, w, sub)
	s := a.session(ctx, sub)
	a.prompt(ctx, s, "hello")
	a.prompt(ctx, s, "second")
	if n := w.kbsCalls(t); n != 0 {
		t.Fatalf("kbs ran %d times before any compaction", n)
	}
	a.prompt(ctx, s, "/compact")
	w.waitCompacted(t, ctx)
	a.prompt(ctx, s, "next")
	a.prompt(ctx, s, "again")
	reqs := w.mock.Requests()
	summaryAt(t, reqs)
	checkKimiRequests(t, reqs, expectedReminder(t), []int{0, 0, 1, 1})
	if n := w.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
	if m, _ := filepath.Glob(filepath.Join(w.state, "nowhook", "kimi", "*")); len(m) != 0 {
		t.Errorf("markers left after the reminder was delivered: %v", m)
	}
	w.removeUser(t, ctx, before)
}

// TestKimiUserScopeAutoCompaction: the first reply reports 95% of the
// window, so the second prompt compacts on its own; the reminder comes in
// the first request of the next prompt, once (Kimi Code ran that prompt's
// UserPromptSubmit hook before the compaction), with --sources kanbus,git
// chosen at setup, whose git facts come with it. Three `kimi -p` runs
// resume one session at the repository's root.
func TestKimiUserScopeAutoCompaction(t *testing.T) {
	ctx := probeCtx(t)
	w, before := newKimiUserWorld(t, ctx, true, "--sources", "kanbus,git")
	kimiPrompts(t, ctx, w.env(), w.repo, w.bin, "hello", "second", "third")
	reqs := w.mock.Requests()
	if idx := summaryAt(t, reqs); idx != 1 {
		t.Fatalf("the summary request is request %d (%s), want the second prompt's first", idx, kinds(reqs))
	}
	rem := expectedReminder(t)
	checkKimiRequests(t, reqs, rem, []int{0, 0, 1})
	// The git source's heading, in the request that holds the reminder
	// and in none before it.
	const gitHeading = "Git, read after the compaction"
	for i, r := range reqs {
		if got, want := bodyContains(t, r.Body, gitHeading), i == len(reqs)-1; got != want {
			t.Errorf("request %d (%s) holds the git facts --sources kanbus,git asks for: %v, want %v", r.Index, r.Kind, got, want)
		}
	}
	if n := w.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
	w.removeUser(t, ctx, before)
}
