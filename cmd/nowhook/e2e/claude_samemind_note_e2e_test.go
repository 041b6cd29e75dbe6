package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/internal/fakesamemind"
)

// The e2e test binary is also the samemind stand-in (it is not on the
// registries reachable here): started as `samemind`, it prints the
// documented handoff (cmd/internal/fakesamemind), filing the newest line
// of $OKF_ROOT/inbox/mcp.md into it as samemind files its inbox.
func init() {
	if filepath.Base(os.Args[0]) == "samemind" {
		os.Exit(fakesamemind.Main())
	}
}

// installSamemind puts the stand-in on the sandbox's PATH.
func installSamemind(t *testing.T, s *sandbox) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(s.bin, "samemind")); err != nil {
		t.Fatal(err)
	}
}

const samemindOpenLine = "Quoted from samemind handoff below (the knowledge base at "

var noteRE = regexp.MustCompile(`(?m)^- 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ pre-compact \(nowhook\): session ([0-9a-f-]+), started in .*, is being compacted(; .*)?\.$`)

// TestClaudeSamemindNote: Claude Code with --sources
// rules,kanbus,samemind=note, /compact once. Its PreCompact hook appends
// samemind's pre-compact note to $OKF_ROOT/inbox/mcp.md (one dated line
// naming the session, after the user's own lines, which stay), printing
// nothing; the first request after the compaction holds the handoff, with
// the note samemind filed from its inbox, beside the user's words and the
// board, each once; no request before the compaction holds any of it.
func TestClaudeSamemindNote(t *testing.T) {
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	installSamemind(t, s)
	kb := filepath.Join(s.root, "kb")
	own := "# Inbox\n- 2026-11-30: the user's own note, kept as it is\n"
	writeFile(t, filepath.Join(kb, "inbox", "mcp.md"), own, 0o644)
	m := newAnthropicMock(t)
	env := append(claudeEnv(s, m.URL), "OKF_ROOT="+kb)
	setupSources(t, ctx, s, s.env([]string{"OKF_ROOT=" + kb}), "claude", []string{"--sources", "rules,kanbus,samemind=note"})
	for _, f := range []string{".claude/hooks/samemind-pre-compact-note.sh", ".claude/hooks/kanbus-compaction-right-now.sh"} {
		if _, err := os.Stat(filepath.Join(s.repo, f)); err != nil {
			t.Fatalf("setup did not write %s: %v", f, err)
		}
	}
	sess := runClaudeSession(t, ctx, bin, env, s.repo, []string{retentionFirst, "List the files you would look at.", "/compact", "What next?"})
	if len(sess.compactions) != 1 {
		t.Fatalf("%d compactions, want 1", len(sess.compactions))
	}
	inbox, err := os.ReadFile(filepath.Join(kb, "inbox", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inbox after the compaction:\n%s", inbox)
	if !strings.HasPrefix(string(inbox), own) {
		t.Errorf("the user's own lines did not stay:\n%s", inbox)
	}
	notes := noteRE.FindAllStringSubmatch(string(inbox), -1)
	if len(notes) != 1 || strings.Count(string(inbox), "pre-compact") != 1 {
		t.Fatalf("%d notes in the inbox after one compaction, want 1:\n%s", len(notes), inbox)
	}
	note := strings.TrimPrefix(notes[0][0], "- ")

	reqs := m.Requests()
	after := afterSummaries(t, reqs)
	if len(after) != 1 {
		t.Fatalf("%d requests after a summary, want 1", len(after))
	}
	body := after[0].Body
	for _, c := range []struct {
		what string
		n    int
	}{
		{samemindOpenLine, 1}, {"## Active tasks", 1}, {"## Noted before the compaction", 1}, {note, 1},
		{rulesOpenLine, 1}, {boardOpenLine, 1},
	} {
		if got := countIn(t, body, c.what); got != c.n {
			t.Errorf("the first request after the compaction holds %q %d times, want %d", c.what, got, c.n)
		}
	}
	kept, _, _, size := retained(t, body)
	t.Logf("SAMEMIND NOTE claude: note %q; first request after the compaction: handoff with the note, %d/%d constraints, reminder %d bytes",
		note, kept, len(retentionConstraints), size)
	checkNotQuotedBack(t, body)
	// The note's hook prints nothing: PreCompact output would be in the
	// summary request, as instructions to the summariser.
	for i, r := range reqs {
		if bodyContains(t, r.Body, samemindOpenLine) || bodyContains(t, r.Body, "pre-compact (nowhook)") {
			t.Errorf("request %d (%s), before the first after the compaction, holds the handoff or the note", i, r.Kind)
		}
		if r.Kind == "summary" {
			break
		}
	}
}
