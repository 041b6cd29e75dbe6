package e2e

import (
	"context"
	"testing"
)

// TestGeminiReadsMatrix runs Gemini CLI over every repository shape and
// start directory (shapes_test.go). For each cell it measures which of
// the team's rule lines the first request holds before setup, runs
// `nowhook setup --yes --agents gemini` at the root, commits what it
// wrote (so a worktree made afterwards has it) and asserts that the
// first request, started in the cell's directory, carries every line of
// nowhook's kbs-now block in its first user message and every rule line
// it carried before setup.
func TestGeminiReadsMatrix(t *testing.T) {
	bin := findClient(t, "GEMINI_BIN", "gemini")
	for _, sh := range repoShapes {
		for _, where := range startDirs {
			t.Run(matrixName(sh, where), func(t *testing.T) {
				checkGeminiCell(t, bin, sh, where)
			})
		}
	}
}

func checkGeminiCell(t *testing.T, bin string, sh repoShape, where string) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, sh)
	m := newGeminiMock(t, false)
	// One process instead of two: by default the CLI starts itself again
	// only to raise node's heap limit, which doubles its start-up time;
	// what it reads and sends is the same.
	env := append(geminiEnv(t, s, m), "GEMINI_CLI_NO_RELAUNCH=true")

	var beforeDir string
	if where == startWorktree {
		beforeDir = s.worktreeAt(t, "worktree-before")
	} else {
		beforeDir = s.startIn(t, where)
	}
	before := geminiFirstTurn(t, runGeminiIn(t, ctx, beforeDir, m, bin, env))
	var read []string
	for _, rule := range sh.rules {
		if bodyContains(t, before.Body, rule) {
			read = append(read, rule)
		}
	}

	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "gemini")
	s.commitAll(t, "nowhook setup")
	dir := beforeDir
	if where == startWorktree {
		dir = s.startIn(t, where)
	}
	first := geminiFirstTurn(t, runGeminiIn(t, ctx, dir, m, bin, env))
	contents := geminiContents(t, first)
	if len(contents) == 0 || contents[0].Role != "user" {
		t.Fatalf("the first request has no user message first: %+v", contents)
	}
	miss := geminiMissing(contents[0].text(), geminiBlockLines())
	if len(miss) > 0 {
		t.Errorf("after setup, the first request's first user message lacks %d lines of the kbs-now block, e.g. %q\n%.3000s", len(miss), miss[0], contents[0].text())
	}
	for _, rule := range read {
		if !bodyContains(t, first.Body, rule) {
			t.Errorf("after setup, the first request lacks %q, which Gemini CLI read before setup", rule)
		}
	}
	t.Logf("reads: gemini %s: before setup %s; after setup first request %s, kbs-now block %v",
		matrixName(sh, where), rulesIn(t, before.Body, sh), rulesIn(t, first.Body, sh), len(miss) == 0)
}

// geminiFirstTurn returns the first request of a run, which must be a
// turn of the conversation.
func geminiFirstTurn(t *testing.T, run geminiRun) recordedRequest {
	t.Helper()
	if len(run.reqs) == 0 || run.reqs[0].Kind != "turn" {
		t.Fatalf("the run's first request is not a turn (%d requests)", len(run.reqs))
	}
	return run.reqs[0]
}
