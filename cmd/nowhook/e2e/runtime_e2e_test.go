package e2e

import (
	"context"
	"testing"
)

// TestGeminiReinjectQuotedPath: in a repository whose path holds both ' and
// ! (a folder named "it's here!"), the BeforeModel hook setup wrote still
// runs, and the reminder is in the first request after the compression,
// once. Gemini CLI 0.61.0 replaces $GEMINI_PROJECT_DIR in a command with
// the path quoted by shell-quote, which writes such a path in double
// quotes with the ! escaped as \!, and bash keeps that backslash: a
// command that spells $GEMINI_PROJECT_DIR names a folder that does not
// exist, and the hook exits 0 having run nothing.
func TestGeminiReinjectQuotedPath(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandboxNamed(t, kbsFixture, "it's here!")
	out := runNowhook(t, ctx, s, "setup", "--yes", "--agents", "gemini=reinject")
	t.Logf("setup:\n%s", out)
	m := newGeminiMultiMock(t, 1, 0)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)
	reqs := runGeminiMulti(t, ctx, s, m, bin, env)
	first, _ := geminiFirstTurns(t, reqs)
	if len(first) != 1 {
		t.Fatalf("Gemini CLI compressed %d times, want 1", len(first))
	}
	reminder := expectedReminder(t)
	for i, r := range reqs {
		got := countIn(t, r.Body, reminder)
		switch {
		case i == first[0] && got != 1:
			t.Errorf("request %d, the first after the compression, carries the reminder %d times, want once (kbs ran %d times)", i, got, s.kbsCalls(t))
		case i != first[0] && got != 0:
			t.Errorf("request %d (%s) carries the reminder %d times", i, r.Kind, got)
		}
	}
	if !t.Failed() {
		t.Logf("in %s the reminder is in request %d, the first after the compression, once; kbs ran %d times", s.repo, first[0], s.kbsCalls(t))
	}
}
