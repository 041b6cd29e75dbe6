package e2e

import (
	"fmt"
	"sort"
	"testing"
)

// The instruction-file matrix for Codex CLI, Qwen Code and OpenCode
// (reads_others_e2e_test.go): what each client reads, measured in its real
// client (TestReadsProbe; docs/platforms.md), and the checks every cell
// makes on what reached the model.

// Two more shapes, each where one client hides a file: Codex reads
// AGENTS.override.md instead of AGENTS.md, and OpenCode reads CLAUDE.md
// only while there is no AGENTS.md (which setup writes).
const overrideRule = "Team rule from AGENTS.override.md: never push to main (rule-override-5310)."

var (
	shapeOverride = repoShape{
		name: "agents-override",
		files: map[string]string{
			"AGENTS.md":          "# Team rules\n\n" + agentsRule + "\n",
			"AGENTS.override.md": "# Local override\n\n" + overrideRule + "\n",
		},
		rules: map[string]string{"AGENTS.md": agentsRule, "AGENTS.override.md": overrideRule},
	}
	shapeClaudeOnly = repoShape{
		name:  "claude-only",
		files: map[string]string{"CLAUDE.md": "# Claude notes\n\n" + claudeRule + "\n"},
		rules: map[string]string{"CLAUDE.md": claudeRule},
	}
)

// readsCell is one cell of a client's matrix.
type readsCell struct {
	sh    repoShape
	where string
}

// readsCells is the matrix (every shape, every start directory) and, at
// the root, the extra shapes: start directories change what the three
// clients load from hooks, not which instruction files they read.
func readsCells(extra ...repoShape) []readsCell {
	var out []readsCell
	for _, sh := range repoShapes {
		for _, where := range startDirs {
			out = append(out, readsCell{sh, where})
		}
	}
	for _, sh := range extra {
		out = append(out, readsCell{sh, startRoot})
	}
	return out
}

// clientReads returns the rule lines of the shape's files that the client
// puts into its first request, measured with no nowhook installed (Codex
// 0.171.0, Qwen Code 0.24.4, OpenCode 1.18.33; the same at the root, in a
// sub-folder and in a worktree): Codex reads AGENTS.md, or
// AGENTS.override.md where there is one, and never CLAUDE.md;
// Qwen Code reads QWEN.md and AGENTS.md, never CLAUDE.md; OpenCode reads
// AGENTS.md, and CLAUDE.md only when there is no AGENTS.md.
func clientReads(client string, sh repoShape) map[string]string {
	var files []string
	switch client {
	case "codex":
		files = []string{"AGENTS.md"}
		if _, ok := sh.files["AGENTS.override.md"]; ok {
			files = []string{"AGENTS.override.md"} // it hides AGENTS.md
		}
	case "qwen":
		files = []string{"QWEN.md", "AGENTS.md"}
	case "opencode":
		files = []string{"AGENTS.md"}
		if _, ok := sh.files["AGENTS.md"]; !ok {
			files = []string{"CLAUDE.md"}
		}
	}
	out := map[string]string{}
	for _, f := range files {
		if rule, ok := sh.rules[f]; ok {
			out[f] = rule
		}
	}
	return out
}

// readsRun is what one cell's session sent to the model.
type readsRun struct {
	first []byte // the first ordinary request of the session
	// upTo are the requests up to and including the compaction request;
	// after is the first request after it (nil when the session never
	// compacted).
	upTo  []recordedRequest
	after []byte
}

// newReadsRun splits a session's requests at its only compaction request
// (of kind compaction); first is the first request of kind turn.
func newReadsRun(t *testing.T, reqs []recordedRequest, compaction string) readsRun {
	t.Helper()
	run := readsRun{first: firstTurnBody(t, reqs)}
	idx := onlyRequest(t, reqs, compaction, "the session never compacted")
	run.upTo = reqs[:idx+1]
	run.after = reqs[idx+1].Body
	return run
}

// firstTurnBody returns the body of the first ordinary request.
func firstTurnBody(t *testing.T, reqs []recordedRequest) []byte {
	t.Helper()
	for _, r := range reqs {
		if r.Kind == "turn" {
			return r.Body
		}
	}
	t.Fatalf("no ordinary request among %d requests", len(reqs))
	return nil
}

// presentRules returns, sorted, the files of rules whose line is in body.
func presentRules(t *testing.T, body []byte, rules map[string]string) []string {
	t.Helper()
	var out []string
	for file, rule := range rules {
		if bodyContains(t, body, rule) {
			out = append(out, file)
		}
	}
	sort.Strings(out)
	return out
}

// checkReadsCell makes one cell's checks and logs its line of the
// shape x start directory x client table (grep READS): the rule lines the
// client read before setup are in the first request, and so is the
// kbs-now block; no request up to the compaction carries the reminder;
// the first request after it carries it wantReminders times.
func checkReadsCell(t *testing.T, client string, sh repoShape, where string, run readsRun, wantReminders int) {
	t.Helper()
	rules := clientReads(client, sh)
	reminder := expectedReminder(t)
	missing := missingRules(t, run.first, repoShape{name: sh.name, rules: rules})
	block := bodyContains(t, run.first, kbsNowLine)
	early := 0
	for _, r := range run.upTo {
		early += countIn(t, r.Body, reminder)
	}
	after := countIn(t, run.after, reminder)
	t.Logf("READS %s %s/%s: rules in the first request %v of %v, kbs-now block %s, reminders before the compaction %d, in the first request after it %d",
		client, sh.name, where, presentRules(t, run.first, rules), sortedKeys(rules), yesNo(block), early, after)
	for _, m := range missing {
		t.Errorf("the first request lacks the team's rule that %s read before setup: %s", client, m)
	}
	if !block {
		t.Errorf("the first request lacks nowhook's kbs-now block (%q)", kbsNowLine)
	}
	if early != 0 {
		t.Errorf("%d reminder(s) before or at the compaction request: what comes after proves nothing", early)
	}
	if after != wantReminders {
		t.Errorf("the first request after the compaction carries the reminder %d time(s), want %d\n%.3000s", after, wantReminders, run.after)
	}
}

// checkReadsBefore asserts that what the client read with no nowhook
// installed is what clientReads says (the facts the cells rely on).
func checkReadsBefore(t *testing.T, client string, sh repoShape, first []byte) {
	t.Helper()
	all := map[string]string{}
	for f, r := range sh.rules {
		all[f] = r
	}
	got := presentRules(t, first, all)
	want := sortedKeys(clientReads(client, sh))
	t.Logf("READS %s %s/root before setup: rules in the first request %v", client, sh.name, got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("before setup %s read %v, the tests' facts say %v: update clientReads and docs/platforms.md", client, got, want)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
