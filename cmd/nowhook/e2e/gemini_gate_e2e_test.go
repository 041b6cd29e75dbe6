package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The gate of Gemini CLI's BeforeModel hook (templates/gemini-turn.sh): the
// command setup writes sources the turn script in the `bash -c` Gemini CLI
// starts, and the script hands a request to the runtime only when the
// history starts from a compression it has not handed over yet in that
// session (GEMINI_SESSION_ID). These tests count the hand-overs with a
// nowhook-reminder on PATH that logs each start and then runs the real
// runtime (`nowhook reminder`), so that they prove which requests the gate
// passed with builtins alone.

// countRuntime puts that counting nowhook-reminder into the sandbox's bin
// and returns its log.
func countRuntime(t *testing.T, s *sandbox) string {
	t.Helper()
	log := filepath.Join(s.root, "runtime.log")
	writeFile(t, filepath.Join(s.bin, "nowhook-reminder"),
		"#!/bin/sh\necho \"$GEMINI_SESSION_ID $*\" >> "+shQuote(log)+"\nexec nowhook reminder \"$@\"\n", 0o755)
	return log
}

// runtimeStarts returns the lines of that log, one per hand-over.
func runtimeStarts(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// geminiReminders checks one session's requests: the reminder once in the
// first turn request after each compression listed in want (1-based), and
// in no other request; it returns the first turns after the compressions.
func geminiReminders(t *testing.T, who string, reqs []recordedRequest, compressions int, want map[int]bool) []int {
	t.Helper()
	reminder := expectedReminder(t)
	first, _ := geminiFirstTurns(t, reqs)
	if len(first) != compressions {
		t.Fatalf("%s: Gemini CLI compressed %d times, want %d: the mock did not force what the test needs", who, len(first), compressions)
	}
	expect := map[int]bool{}
	for n, i := range first {
		if want[n+1] {
			expect[i] = true
		}
	}
	for i, r := range reqs {
		got := countIn(t, r.Body, reminder)
		switch {
		case expect[i] && got != 1:
			t.Errorf("%s: request %d, the first after a compression, carries the reminder %d times, want once", who, i, got)
		case !expect[i] && got != 0:
			t.Errorf("%s: request %d (%s) carries the reminder %d times, want none", who, i, r.Kind, got)
		}
	}
	return first
}

// TestGeminiGateOncePerCompression: with Gemini CLI's default (plain
// `setup --yes` in a repository with .gemini/), over two compressions and
// two more requests in one session, the gate hands over exactly the first
// request after each compression (two runtime starts for five turn
// requests), and the reminder is in those two requests only.
func TestGeminiGateOncePerCompression(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	writeFile(t, filepath.Join(s.repo, ".gemini", ".keep"), "", 0o644)
	out := runNowhook(t, ctx, s, "setup", "--yes")
	if !strings.Contains(out, "gemini       reinject  GEMINI.md (created), AGENTS.md (created), .gemini/settings.json (created), .gemini/hooks/kanbus-gemini-turn.sh (created)") {
		t.Fatalf("setup --yes where .gemini/ is did not set Gemini CLI up to re-inject by default:\n%s", out)
	}
	log := countRuntime(t, s)
	m := newGeminiMultiMock(t, 2, 2)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	reqs := runGeminiMulti(t, ctx, s, m, bin, env)

	first := geminiReminders(t, "the session", reqs, 2, map[int]bool{1: true, 2: true})
	turns := geminiTurns(reqs)
	starts := runtimeStarts(t, log)
	if len(starts) != 2 {
		t.Errorf("the runtime started %d times for %d turn requests, want 2 (once per compression): %q", len(starts), len(turns), starts)
	}
	if calls := s.kbsCalls(t); calls != 2 {
		t.Errorf("kbs ran %d times, want 2", calls)
	}
	if !t.Failed() {
		t.Logf("%d turn requests %v; the gate handed over %d of them (the first after each compression, %v), the other %d exited in bash; the reminder in those two, once each",
			len(turns), turns, len(starts), first, len(turns)-len(starts))
	}
}

// TestGeminiGateSessionsApart: two Gemini CLI sessions in one repository
// at once, each with its own model server and two compressions whose
// summaries and session context are byte for byte the same: each gets the
// reminder once after each of its own compressions and nowhere else, and
// neither's latch passes the other's request.
func TestGeminiGateSessionsApart(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	setupGeminiTurn(t, ctx, s)
	log := countRuntime(t, s)
	mocks := []*geminiMock{newGeminiMultiMock(t, 2, 1), newGeminiMultiMock(t, 2, 1)}
	envs := [][]string{geminiEnv(t, s, mocks[0]), geminiEnv(t, s, mocks[1])}
	clientVersion(t, ctx, envs[0], bin)

	res := make([]result, 2)
	var wg sync.WaitGroup
	for i := range mocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = runCmd(t, ctx, envs[i], s.repo, "", bin, "-m", geminiModel, "-p", "hello")
		}()
	}
	wg.Wait()
	for i, r := range res {
		if r.err != nil || !strings.Contains(r.stdout, "from the mock.") {
			t.Fatalf("session %d: gemini -p: %v\nstdout:\n%s\nstderr:\n%s", i+1, r.err, r.stdout, r.stderr)
		}
	}
	for i, m := range mocks {
		reqs := m.Requests()
		dumpRequests(t, reqs)
		geminiReminders(t, fmt.Sprintf("session %d", i+1), reqs, 2, map[int]bool{1: true, 2: true})
	}
	starts := runtimeStarts(t, log)
	sessions := map[string]int{}
	for _, l := range starts {
		id, _, _ := strings.Cut(l, " ")
		sessions[id]++
	}
	if len(starts) != 4 || len(sessions) != 2 {
		t.Errorf("the runtime started %d times over %d sessions, want 4 over 2 (once per compression of each): %q", len(starts), len(sessions), starts)
	}
	for id, n := range sessions {
		if n != 2 {
			t.Errorf("session %s: handed over %d times, want 2", id, n)
		}
	}
	if calls := s.kbsCalls(t); calls != 4 {
		t.Errorf("kbs ran %d times, want 4", calls)
	}
	if !t.Failed() {
		t.Logf("two sessions at once in one repository: each got the reminder once after each of its 2 compressions, nowhere else; hand-overs per session %v", sessions)
	}
}

// TestGeminiGateCrash: the hook is killed after the gate set its latch
// and handed over, before the runtime printed: kbs, at its first call,
// kills the runtime and both bash processes of the hook with SIGKILL. That
// compression's reminder is lost, never delivered late: no later request
// of it carries the reminder and the gate does not hand any of them over
// again; the next compression gets it once.
func TestGeminiGateCrash(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	setupGeminiTurn(t, ctx, s)
	log := countRuntime(t, s)
	mark, killed := filepath.Join(s.root, "crashed"), filepath.Join(s.root, "killed.log")
	// Up from kbs's parent, each process until Gemini CLI's node: the
	// runtime, the pipeline's bash, the hook's bash; killed at once, the
	// hook's bash first (the runtime's death would end kbs first).
	writeFile(t, filepath.Join(s.bin, "kbs"), fmt.Sprintf(`#!/bin/sh
echo "$*" >> %[1]s
if [ ! -e %[2]s ]; then
	: > %[2]s
	p=$PPID chain=
	while [ "$p" -gt 1 ]; do
		comm=$(cat /proc/$p/comm)
		case $comm in node*|gemini*) break ;; esac
		echo "$p $comm" >> %[3]s
		chain="$p $chain"
		p=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' /proc/$p/stat)
	done
	kill -KILL $chain
	exit 1
fi
case "$*" in
*now*--json*) exec cat %[4]s ;;
esac
exit 1
`, shQuote(s.kbsLog), shQuote(mark), shQuote(killed), shQuote(fixture(t, "basic.json"))), 0o755)
	m := newGeminiMultiMock(t, 2, 2)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	reqs := runGeminiMulti(t, ctx, s, m, bin, env)

	b, err := os.ReadFile(killed)
	if err != nil {
		t.Fatalf("kbs killed nothing: %v", err)
	}
	t.Logf("killed at the first compression (pid comm):\n%s", b)
	if n := strings.Count(string(b), "\n"); n < 2 || !strings.Contains(string(b), "bash") {
		t.Fatalf("kbs killed %d processes, want the runtime and the hook's bash", n)
	}
	first := geminiReminders(t, "the session", reqs, 2, map[int]bool{2: true})
	starts := runtimeStarts(t, log)
	if len(starts) != 2 {
		t.Errorf("the runtime started %d times, want 2 (the killed one, then once for compression 2): %q", len(starts), starts)
	}
	if calls := s.kbsCalls(t); calls != 2 {
		t.Errorf("kbs ran %d times, want 2", calls)
	}
	if !t.Failed() {
		t.Logf("the hook killed in the first request after compression 1 (request %d): no request carries that compression's reminder, none of the later ones was handed over; compression 2's first request (%d) got it once",
			first[0], first[1])
	}
}
