package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeUserSettings is a user's own ~/.claude/settings.json, with keys, a
// SessionStart hook and a layout of their own: setup --scope user must keep
// them, and remove --scope user must give the file back byte for byte.
const claudeUserSettings = `{
	"model": "opus",
	"permissions": {"allow": ["Bash(make lint)"]},
	"hooks": {
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "true"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
	}
}
`

// TestClaudeUserScope runs Claude Code in one repository (AGENTS.md only)
// through the life of `nowhook setup --scope user --agents claude`, each
// step a subtest on the same sandbox:
//   - with the user scope alone, a session started in sub/deeper gets the
//     reminder once after /compact;
//   - with both scopes, sessions at the root, in sub/deeper and in a
//     worktree get it exactly once, and kbs runs once;
//   - in a git repository without .kanbus.yml the hook prints nothing and
//     starts no kbs;
//   - `nowhook remove --scope user --yes` gives ~/.claude/settings.json back
//     byte for byte, and a session in sub/deeper then gets no reminder.
func TestClaudeUserScope(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, shapeAgentsOnly)
	userSettings := filepath.Join(s.home, ".claude", "settings.json")
	writeFile(t, userSettings, claudeUserSettings, 0o644)
	sub := s.startIn(t, startSub)

	ok := t.Run("setup-user", func(t *testing.T) {
		out := runNowhook(t, ctx, s, "setup", "--scope", "user", "--yes", "--agents", "claude")
		if !strings.Contains(out, "~/.claude/settings.json") {
			t.Errorf("setup --scope user does not name ~/.claude/settings.json:\n%s", out)
		}
	})
	if !ok {
		t.FailNow()
	}
	t.Run("user-only/sub-deeper", func(t *testing.T) {
		checkClaudeReminders(t, ctx, bin, s, sub, 1, 1)
	})

	ok = t.Run("setup-project", func(t *testing.T) {
		out := runNowhook(t, ctx, s, "setup", "--yes", "--agents", "claude")
		const want = "sessions started in a sub-folder get the reminder from your user-scope hook in ~/.claude/settings.json"
		if !strings.Contains(out, want) {
			t.Errorf("with the user scope installed, setup's summary does not say %q:\n%s", want, out)
		}
		s.commitAll(t, "nowhook setup")
	})
	if !ok {
		t.FailNow()
	}
	wt := s.startIn(t, startWorktree)
	for _, c := range []struct{ name, dir string }{
		{startRoot, s.repo}, {startSub, sub}, {startWorktree, wt},
	} {
		t.Run("both-scopes/"+strings.ReplaceAll(c.name, "/", "-"), func(t *testing.T) {
			checkClaudeReminders(t, ctx, bin, s, c.dir, 1, 1)
		})
	}

	t.Run("outside-kanbus", func(t *testing.T) {
		other := filepath.Join(s.root, "other")
		writeFile(t, filepath.Join(other, "README.md"), "not a Kanbus project\n", 0o644)
		if res := runCmd(t, ctx, s.env(nil), other, "", "git", "init", "-q"); res.err != nil {
			t.Fatalf("git init: %v\n%s", res.err, res.stderr)
		}
		checkClaudeReminders(t, ctx, bin, s, other, 0, 0)
	})

	t.Run("remove-user", func(t *testing.T) {
		runNowhook(t, ctx, s, "remove", "--scope", "user", "--yes")
		got, err := os.ReadFile(userSettings)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != claudeUserSettings {
			t.Errorf("remove --scope user did not give ~/.claude/settings.json back byte for byte\nwant:\n%s\ngot:\n%s", claudeUserSettings, got)
		}
		// ~/.claude held only settings.json before setup: remove leaves no
		// file or folder that setup created there.
		if _, err := os.Stat(filepath.Join(s.home, ".claude", "hooks")); !os.IsNotExist(err) {
			t.Errorf("remove --scope user left ~/.claude/hooks, which setup created (stat: %v)", err)
		}
		checkClaudeReminders(t, ctx, bin, s, sub, 0, 0)
	})
}

// checkClaudeReminders runs hello, /compact and a follow-up in dir against a
// new mock and asserts that the first request after the summary holds the
// reminder exactly reminders times, that no earlier request holds it, and
// that kbs ran kbsRuns times during the session.
func checkClaudeReminders(t *testing.T, ctx context.Context, bin string, s *sandbox, dir string, reminders, kbsRuns int) {
	t.Helper()
	m := newAnthropicMock(t)
	kbsBefore := s.kbsCalls(t)
	sess := runClaudeSession(t, ctx, bin, claudeEnv(s, m.URL), dir, []string{"hello", "/compact", "What was I working on?"})
	reqs := m.Requests()
	dumpRequests(t, reqs)
	reminder := expectedReminder(t)
	idx := summaryIndex(t, reqs)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, reqs[i].Body, reminder) {
			t.Errorf("request %d (before or at the summary) already contains the reminder", i)
		}
	}
	n := countInBody(t, reqs[idx+1].Body, reminder)
	if n != reminders {
		t.Errorf("the first request after the summary (request %d) holds the reminder %d times, want %d", idx+1, n, reminders)
	}
	if k := s.kbsCalls(t) - kbsBefore; k != kbsRuns {
		t.Errorf("kbs ran %d times during the session, want %d", k, kbsRuns)
	}
	rel, _ := filepath.Rel(s.root, dir)
	t.Logf("scope: claude started in %s: reminders after /compact %d, compact hooks %d, kbs runs %d",
		rel, n, len(sess.compactHookRuns()), s.kbsCalls(t)-kbsBefore)
}
