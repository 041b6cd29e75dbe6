package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeReadsMatrix runs Claude Code over every repository shape and
// start directory (shapes_test.go). For each cell it first measures what
// the first request holds before nowhook is set up, then runs `nowhook
// setup --yes --agents claude` at the root, commits what it wrote (so a
// worktree made afterwards has it) and runs hello, /compact and a
// follow-up in the start directory. It asserts that:
//   - every team rule line Claude read before setup is still in the first
//     request, next to nowhook's kbs-now block;
//   - at the root and in a worktree, the first request after the summary
//     carries the reminder exactly once and no earlier request does;
//   - in a sub-folder, where project settings are not read, no request
//     carries the reminder, and setup's summary says so and names
//     `nowhook setup --scope user --agents claude`.
func TestClaudeReadsMatrix(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	for _, sh := range repoShapes {
		for _, where := range startDirs {
			t.Run(matrixName(sh, where), func(t *testing.T) {
				checkClaudeCell(t, bin, sh, where)
			})
		}
	}
}

func checkClaudeCell(t *testing.T, bin string, sh repoShape, where string) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, sh)
	m := newAnthropicMock(t)
	env := claudeEnv(s, m.URL)
	reminder := expectedReminder(t)

	// Before setup: what Claude Code reads of the team's own files.
	var beforeDir string
	if where == startWorktree {
		beforeDir = s.worktreeAt(t, "worktree-before")
	} else {
		beforeDir = s.startIn(t, where)
	}
	runClaudeSession(t, ctx, bin, env, beforeDir, []string{"hello"})
	before := m.Requests()
	if len(before) == 0 {
		t.Fatal("Claude Code sent no request before setup")
	}
	read := claudeView(sh)
	if miss := missingRules(t, before[0].Body, read); len(miss) > 0 {
		t.Errorf("before setup, the first request lacks %q: Claude Code no longer reads what docs/platforms.md says", miss)
	}
	for file, rule := range sh.rules {
		if _, ok := read.rules[file]; !ok && bodyContains(t, before[0].Body, rule) {
			t.Errorf("before setup, the first request holds %s's rule line, which docs/platforms.md says Claude Code does not read", file)
		}
	}

	out := runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude")
	s.commitAll(t, "nowhook setup")
	dir := beforeDir
	if where == startWorktree {
		dir = s.startIn(t, where)
	}
	sess := runClaudeSession(t, ctx, bin, env, dir, []string{"hello", "/compact", "What was I working on?"})
	reqs := m.Requests()[len(before):]
	dumpRequests(t, reqs)

	if lost := missingRules(t, reqs[0].Body, read); len(lost) > 0 {
		t.Errorf("after setup, the first request lacks %d team rule line(s) Claude Code read before setup: %q", len(lost), lost)
	}
	block := bodyContains(t, reqs[0].Body, kbsNowLine)
	if !block {
		t.Errorf("after setup, the first request lacks nowhook's kbs-now block (%q)", kbsNowLine)
	}

	idx := summaryIndex(t, reqs)
	n := countInBody(t, reqs[idx+1].Body, reminder)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, reqs[i].Body, reminder) {
			t.Errorf("request %d (before or at the summary) already contains the reminder", i)
		}
	}
	if where == startSub {
		if n != 0 {
			t.Errorf("started in %s, the first request after the summary holds the reminder %d times; project settings were thought unread there", subDir, n)
		}
		for _, want := range []string{"sessions started in a sub-folder get no reminder", "nowhook setup --scope user --agents claude"} {
			if !strings.Contains(out, want) {
				t.Errorf("started in %s, no reminder reaches Claude Code, and setup's summary does not say %q:\n%s", subDir, want, out)
			}
		}
	} else if n != 1 {
		t.Errorf("the first request after the summary (request %d) holds the reminder %d times, want 1", idx+1, n)
	}
	t.Logf("reads: claude %s: before setup %s; after setup first request %s, kbs-now block %v; reminders after /compact %d; compact hooks %d",
		matrixName(sh, where), rulesIn(t, before[0].Body, sh), rulesIn(t, reqs[0].Body, sh), block, n, len(sess.compactHookRuns()))
}

// claudeView is the shape as Claude Code 2.1.332 reads it before setup
// (docs/platforms.md, measured): only the rule lines of the files it
// loads. That is CLAUDE.md (a link to AGENTS.md carries AGENTS.md's
// line), and AGENTS.md only when there is no CLAUDE.md.
func claudeView(sh repoShape) repoShape {
	read := "AGENTS.md"
	if target, ok := sh.links["CLAUDE.md"]; ok {
		read = target
	} else if _, ok := sh.files["CLAUDE.md"]; ok {
		read = "CLAUDE.md"
	}
	view := sh
	view.rules = map[string]string{read: sh.rules[read]}
	return view
}

// runNowhook runs nowhook with args in the repository root and
// returns what it printed.
func runNowhook(t *testing.T, ctx context.Context, s *sandbox, args ...string) string {
	t.Helper()
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), args...)
	out := res.stdout + res.stderr
	if res.err != nil {
		t.Fatalf("nowhook %s: %v\n%s", strings.Join(args, " "), res.err, out)
	}
	t.Logf("nowhook %s:\n%s", strings.Join(args, " "), strings.TrimSpace(out))
	return out
}

// countInBody counts the occurrences of text in the string values of a
// JSON request body.
func countInBody(t *testing.T, body []byte, text string) int {
	t.Helper()
	strs, err := jsonStrings(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v\n%.2000s", err, body)
	}
	n := 0
	for _, s := range strs {
		n += strings.Count(s, text)
	}
	return n
}

// rulesIn names the shape's files whose rule line body holds.
func rulesIn(t *testing.T, body []byte, sh repoShape) string {
	t.Helper()
	var got []string
	for _, file := range []string{"AGENTS.md", "CLAUDE.md"} {
		if rule, ok := sh.rules[file]; ok && bodyContains(t, body, rule) {
			got = append(got, file)
		}
	}
	if len(got) == 0 {
		return "no rule line"
	}
	return strings.Join(got, "+") + " rule"
}

// TestClaudeOnDemandMatrix is the matrix for `setup --yes --agents
// claude=ondemand`, where the kbs-now block is all nowhook gives Claude
// Code: for every shape and start directory, the first request holds the
// team rule lines Claude Code reads before setup (claudeView, measured by
// TestClaudeReadsMatrix) and the block.
func TestClaudeOnDemandMatrix(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	for _, sh := range repoShapes {
		for _, where := range startDirs {
			t.Run(matrixName(sh, where), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				s := newSandbox(t, kbsFixture)
				s.applyShape(t, sh)
				m := newAnthropicMock(t)
				runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude=ondemand")
				s.commitAll(t, "nowhook setup")
				runClaudeSession(t, ctx, bin, claudeEnv(s, m.URL), s.startIn(t, where), []string{"hello"})
				first := m.Requests()[0]
				if lost := missingRules(t, first.Body, claudeView(sh)); len(lost) > 0 {
					t.Errorf("after setup, the first request lacks team rule line(s) Claude Code read before setup: %q", lost)
				}
				block := bodyContains(t, first.Body, kbsNowLine)
				if !block {
					t.Errorf("after setup, the first request lacks nowhook's kbs-now block (%q)", kbsNowLine)
				}
				t.Logf("reads: claude=ondemand %s: first request %s, kbs-now block %v", matrixName(sh, where), rulesIn(t, first.Body, sh), block)
			})
		}
	}
}
