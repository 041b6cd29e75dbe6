package e2e

import (
	"context"
	"testing"
)

// TestGeminiReadsMatrix runs Gemini CLI over every repository shape and
// start directory (shapes_test.go). For each cell it runs `nowhook setup
// --yes --agents gemini` at the root, commits what it wrote (so a worktree
// made afterwards has it) and asserts that the first request, started in
// the cell's directory, carries every line of nowhook's kbs-now block in
// its first user message. Gemini CLI reads none of the shapes' files
// before setup (docs/platforms.md, measured on 0.61.0 with a run before
// setup in every cell), so there is nothing setup could make it lose; the
// log says which rule lines arrive, one run per cell keeps the matrix
// quick.
func TestGeminiReadsMatrix(t *testing.T) {
	t.Parallel()
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

	runNowhook(t, ctx, s, "setup", "--yes", "--agents", "gemini")
	s.commitAll(t, "nowhook setup")
	dir := s.startIn(t, where)
	first := geminiFirstTurn(t, runGeminiIn(t, ctx, dir, m, bin, env))
	contents := geminiContents(t, first)
	if len(contents) == 0 || contents[0].Role != "user" {
		t.Fatalf("the first request has no user message first: %+v", contents)
	}
	miss := geminiMissing(contents[0].Text(), geminiBlockLines())
	if len(miss) > 0 {
		t.Errorf("after setup, the first request's first user message lacks %d lines of the kbs-now block, e.g. %q\n%.3000s", len(miss), miss[0], contents[0].Text())
	}
	t.Logf("reads: gemini %s: after setup first request %s, kbs-now block %v",
		matrixName(sh, where), rulesIn(t, first.Body, sh), len(miss) == 0)
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
