package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The instruction-file matrix on the real Codex CLI, Qwen Code and
// OpenCode: for each repository shape (shapes_test.go) and start
// directory, `nowhook setup --yes --agents <client>` runs at the
// repository root, what it wrote is committed (a worktree made afterwards
// holds it, as a teammate's checkout would), and one session starts in the
// cell's directory. The team's rule lines that the client read before
// setup and nowhook's kbs-now block must be in the first request, and the
// reminder in the first request after the compaction, once: or, where
// the project's hook cannot run (Qwen Code started in a sub-folder), no
// reminder, and setup's output says so. Root cells also run the client
// once before setup, to prove what it read then (for Qwen Code and
// OpenCode, whose runs are slow, only where the shape has a file that one
// of them skips).

// TestReadsCodex: `codex exec` whose turn compacts on its own, after setup
// with nowhook's real trust path (--trust-codex, no bypass flag); in a
// worktree Codex reads the main checkout's hooks.json, trusted there.
func TestReadsCodex(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CODEX_BIN", "codex")
	for _, c := range readsCells(shapeOverride) {
		sh, where := c.sh, c.where
		t.Run(matrixName(sh, where), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			s.applyShape(t, sh)
			if where == startRoot {
				pm := newPlainResponsesMock(t)
				env := codexEnv(s, codexHome(t, s, pm))
				clientVersion(t, ctx, env, bin)
				res := runCmd(t, ctx, env, s.repo, "", bin, "exec", "--strict-config", "hello")
				if res.err != nil {
					t.Fatalf("codex exec before setup: %v\n%s%s", res.err, res.stdout, res.stderr)
				}
				checkReadsBefore(t, "codex", sh, pm.Requests()[0].Body)
			}
			m := newResponsesMock(t)
			env := codexEnv(s, codexHome(t, s, m))
			setupCodex(t, ctx, s, bin, env)
			s.commitAll(t, "nowhook setup")
			dir := s.startIn(t, where)
			checkCodexTrustedIn(t, ctx, bin, env, dir)
			run := codexExecIn(t, ctx, s, m, bin, env, dir)
			checkReadsCell(t, "codex", sh, where, newReadsRun(t, run.reqs, "compaction"), 1)
			if n := s.kbsCalls(t); n != 1 {
				t.Errorf("kbs ran %d times, want 1 (once for the one compaction)", n)
			}
		})
	}
}

// qwenSubFolderNote is what setup's summary says for Qwen Code about
// sessions started in a sub-folder, and the command it gives for them.
var qwenSubFolderNote = []string{
	"sessions started in a sub-folder get no reminder",
	"nowhook setup --scope user --agents qwen",
}

// qwenSubFolderNoted reports whether setup's output tells the user that a
// Qwen Code session started in a sub-folder does not run the project's
// hook (Qwen reads .qwen/settings.json from the directory it starts in),
// and how to cover it.
func qwenSubFolderNoted(out string) bool {
	for _, s := range qwenSubFolderNote {
		if !strings.Contains(out, s) {
			return false
		}
	}
	return true
}

// TestReadsQwen: one headless session (hello, /compress, a follow-up).
// Started in a sub-folder, Qwen Code never reads the root's
// .qwen/settings.json: no reminder, and setup must have said so. A
// worktree is a folder of its own for Qwen's folder trust: the test trusts
// it, as the user would when Qwen asks.
func TestReadsQwen(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	for _, c := range readsCells() {
		sh, where := c.sh, c.where
		t.Run(matrixName(sh, where), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			qwenKbs(t, s, kbsFixture, "")
			s.applyShape(t, sh)
			qwenHome(t, s)
			if where == startRoot && hidesSomething(sh) {
				pm := newQwenMock(t, false, "")
				env := qwenEnv(s, pm)
				clientVersion(t, ctx, env, bin)
				runQwenSession(t, ctx, bin, env, s.repo, []string{"hello"}, nil)
				checkReadsBefore(t, "qwen", sh, firstTurnBody(t, pm.Recorded()))
			}
			out := setupQwen(t, ctx, s, s.repo)
			s.commitAll(t, "nowhook setup")
			dir := s.startIn(t, where)
			if where == startWorktree {
				trustAlso(t, s, dir)
			}
			m := newQwenMock(t, false, "")
			runQwenSession(t, ctx, bin, qwenEnv(s, m), dir, []string{"hello", "/compress", "What was I working on?"}, nil)
			reqs := m.Recorded()
			checkQwenRequests(t, reqs)
			want := 1
			if where == startSub {
				want = 0
				if !qwenSubFolderNoted(out) {
					t.Errorf("setup's output does not say that a Qwen Code session started in a sub-folder gets no reminder:\n%s", out)
				}
			}
			checkReadsCell(t, "qwen", sh, where, newReadsRun(t, reqs, "summary"), want)
			if first, raw := s.kbsRuns(t); first != want || raw != 0 {
				t.Errorf("kbs ran %d times (+%d --raw retries), want %d", first, raw, want)
			}
		})
	}
}

// TestReadsOpencode: one session of `opencode serve` started in the cell's
// directory (hello, a summarize call as /compact makes, next, third).
func TestReadsOpencode(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "OPENCODE_BIN", "opencode")
	for _, c := range readsCells(shapeClaudeOnly) {
		sh, where := c.sh, c.where
		t.Run(matrixName(sh, where), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			s.applyShape(t, sh)
			env := opencodeEnv(s)
			if where == startRoot && hidesSomething(sh) {
				pm := opencodeMock(t, false)
				opencodeConfig(t, s, pm)
				clientVersion(t, ctx, env, bin)
				srv := startOpencode(t, ctx, bin, env, s.repo)
				srv.newSession(t, ctx).send(t, ctx, "hello")
				srv.stop()
				checkReadsBefore(t, "opencode", sh, firstTurnBody(t, pm.Recorded()))
			}
			m := opencodeMock(t, false)
			opencodeConfig(t, s, m)
			setupOpencode(t, ctx, s)
			s.commitAll(t, "nowhook setup")
			dir := s.startIn(t, where)
			run := opencodeSessionIn(t, ctx, s, m, bin, env, dir, true)
			checkReadsCell(t, "opencode", sh, where, newReadsRun(t, run.rec, "summary"), 1)
			if n := s.kbsCalls(t); n != 1 {
				t.Errorf("kbs ran %d times, want 1 (once for the one compaction)", n)
			}
		})
	}
}

// hidesSomething reports whether the shape has an instruction file that
// Qwen Code or OpenCode does not read, or reads only without AGENTS.md:
// where a run before setup proves more than that AGENTS.md is read.
func hidesSomething(sh repoShape) bool {
	_, agents := sh.files["AGENTS.md"]
	return len(sh.files) > 1 || !agents
}

// opencodeKeepNote is the note setup prints where the AGENTS.md it
// creates for another agent hides a CLAUDE.md from OpenCode, and the line
// it tells the user to add to opencode.json.
const (
	opencodeKeepNote = "OpenCode no longer reads CLAUDE.md"
	opencodeKeepLine = `"instructions": ["CLAUDE.md"]`
)

// TestReadsOpencodeBesideCodex: in a repository whose only instruction
// file is CLAUDE.md, setup for Codex CLI and OpenCode must create AGENTS.md
// (Codex reads nothing else), which would hide CLAUDE.md from OpenCode;
// setup refuses that (exit 2, nothing written), naming the opencode.json
// line that keeps it in view. With that line added as the fix says, setup
// goes through, OpenCode's first request has the team's CLAUDE.md rule
// and the kbs-now block, and the reminder comes once after the
// compaction.
func TestReadsOpencodeBesideCodex(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "OPENCODE_BIN", "opencode")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sh := shapeClaudeOnly
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, sh)
	setup := func() result {
		return runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "codex,opencode")
	}
	res := setup()
	out := res.stdout + res.stderr
	t.Logf("nowhook setup --yes --agents codex,opencode:\n%s", strings.TrimSpace(out))
	if code := exitCode(res.err); code != 2 {
		t.Fatalf("nowhook setup exited %d, want 2 (refused: AGENTS.md would hide CLAUDE.md from OpenCode)", code)
	}
	if !strings.Contains(out, opencodeKeepNote) || !strings.Contains(out, opencodeKeepLine) || !strings.Contains(out, "Nothing was written.") {
		t.Fatalf("setup does not say that OpenCode would stop reading CLAUDE.md, how to keep it, and that it wrote nothing (want %q, %q)", opencodeKeepNote, opencodeKeepLine)
	}
	if _, err := os.Stat(filepath.Join(s.repo, "AGENTS.md")); err == nil {
		t.Fatal("the refused setup created AGENTS.md")
	}
	writeFile(t, filepath.Join(s.repo, "opencode.json"), "{\n  "+opencodeKeepLine+"\n}\n", 0o644)
	if res := setup(); res.err != nil {
		t.Fatalf("nowhook setup after the fix: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	m := opencodeMock(t, false)
	opencodeConfig(t, s, m)
	env := opencodeEnv(s)
	clientVersion(t, ctx, env, bin)
	run := opencodeSessionIn(t, ctx, s, m, bin, env, s.repo, true)
	checkReadsCell(t, "opencode", sh, startRoot+" (codex too, opencode.json instructions)", newReadsRun(t, run.rec, "summary"), 1)
	if n := s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1 (once for the one compaction)", n)
	}
}
