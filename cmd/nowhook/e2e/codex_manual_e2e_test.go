package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// codexManualRun is one `codex app-server` session after setup: a first
// turn, a manual compaction started with thread/compact/start, and a next
// turn, each completed.
type codexManualRun struct {
	s    *sandbox
	reqs []recordedRequest
	// notes is every notification of the session, in order.
	notes []rpcNote
	// firstTurn, compactTurn and nextTurn are the three turns' ids.
	firstTurn, compactTurn, nextTurn string
	// kbsAfterFirst and kbsAfterCompaction count the fake kbs's runs once
	// the first turn had completed, and once the compaction turn had
	// completed with the next turn not yet started.
	kbsAfterFirst, kbsAfterCompaction int
}

// runCodexManual sets up a sandbox with kbs behaving as mode, installs the
// hook with nowhook's real setup and trust path (no trust-bypass flag),
// checks that Codex lists it as trusted, then drives `codex app-server`
// (E2E.md, Codex CLI): thread/start, a turn, thread/compact/start, and a
// next turn. 0.171.0 sends no thread/compacted notification, so the end of
// the compaction is its contextCompaction item/completed followed by the
// compaction turn's turn/completed.
func runCodexManual(t *testing.T, mode kbsMode) codexManualRun {
	t.Helper()
	bin := findClient(t, "CODEX_BIN", "codex")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	s := newSandbox(t, mode)
	m := newPlainResponsesMock(t)
	env := codexEnv(s, codexManualHome(t, s, m))
	clientVersion(t, ctx, env, bin)
	setupCodex(t, ctx, s, bin, env)
	checkCodexTrusted(t, ctx, s, bin, env)

	a := startAppServer(t, ctx, bin, env, s.repo)
	var thread struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	a.call(ctx, "thread/start", map[string]any{
		"cwd":            s.repo,
		"approvalPolicy": "never",
		"sandbox":        "read-only",
	}, &thread)
	threadID := thread.Thread.ID
	if threadID == "" {
		t.Fatal("thread/start returned no thread id")
	}
	run := codexManualRun{s: s}

	run.firstTurn = a.runTurn(ctx, threadID, "hello")
	run.kbsAfterFirst = s.kbsCalls(t)

	run.compactTurn = a.compact(ctx, threadID)
	if run.compactTurn == "" || run.compactTurn == run.firstTurn {
		t.Fatalf("the contextCompaction item belongs to turn %q (the first turn is %q), not to a compaction turn of its own\n%s",
			run.compactTurn, run.firstTurn, a.diagnostics())
	}
	run.kbsAfterCompaction = s.kbsCalls(t)

	run.nextTurn = a.runTurn(ctx, threadID, "What was I working on?")
	a.close()
	run.notes = a.snapshot()
	run.reqs = m.Requests()
	run.log(t)
	return run
}

// turnName names a turn id of the run for the log.
func (r codexManualRun) turnName(id string) string {
	switch id {
	case r.firstTurn:
		return "first"
	case r.compactTurn:
		return "compaction"
	case r.nextTurn:
		return "next"
	case "":
		return "none"
	}
	return id
}

// log records what the run measured: each model request with its turn and
// compaction trigger, the order of turns, compaction items and hook runs,
// and when kbs ran.
func (r codexManualRun) log(t *testing.T) {
	t.Helper()
	for i, q := range r.reqs {
		meta := turnMetadata(t, q.Body)
		turnID, _ := meta["turn_id"].(string)
		line := fmt.Sprintf("request %d: %s %s kind=%s turn=%s", i, q.Method, q.Path, q.Kind, r.turnName(turnID))
		if c, ok := meta["compaction"].(map[string]any); ok {
			line += fmt.Sprintf(" compaction{trigger=%v reason=%v phase=%v}", c["trigger"], c["reason"], c["phase"])
		}
		t.Log(line)
	}
	var events []string
	compacted := 0
	for _, n := range r.notes {
		switch n.Method {
		case "turn/started", "turn/completed":
			events = append(events, fmt.Sprintf("%s(%s)", n.Method, r.turnName(decodeParams[turnParams](t, n).Turn.ID)))
		case "item/completed":
			if p := decodeParams[itemParams](t, n); p.Item.Type == "contextCompaction" || p.Item.Type == "userMessage" {
				events = append(events, fmt.Sprintf("%s(%s in %s)", n.Method, p.Item.Type, r.turnName(p.TurnID)))
			}
		case "hook/started", "hook/completed":
			p := decodeParams[hookParams](t, n)
			turnID := ""
			if p.TurnID != nil {
				turnID = *p.TurnID
			}
			events = append(events, fmt.Sprintf("%s(%s %s in %s)", n.Method, p.Run.EventName, p.Run.Status, r.turnName(turnID)))
		case "thread/compacted":
			compacted++
			events = append(events, n.Method)
		default:
			if strings.HasPrefix(n.Method, "request:") {
				events = append(events, n.Method)
			}
		}
	}
	t.Logf("events: %s", strings.Join(events, ", "))
	t.Logf("thread/compacted notifications: %d", compacted)
	t.Logf("kbs runs: %d after the first turn, %d after the compaction turn completed, %d after the next turn %q",
		r.kbsAfterFirst, r.kbsAfterCompaction, r.s.kbsCalls(t), kbsArgs(t, r.s))
}

// kbsArgs returns the arguments of each run of the fake kbs, in order.
func kbsArgs(t *testing.T, s *sandbox) []string {
	t.Helper()
	b, err := os.ReadFile(s.kbsLog)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// sessionStartRuns returns the hook/completed notifications of
// SessionStart hooks.
func (r codexManualRun) sessionStartRuns(t *testing.T) []hookParams {
	t.Helper()
	var out []hookParams
	for _, n := range r.notes {
		if n.Method == "hook/completed" {
			if p := decodeParams[hookParams](t, n); p.Run.EventName == "sessionStart" {
				out = append(out, p)
			}
		}
	}
	return out
}

// manualCompactionIndex returns the index of the only compaction request,
// after checking that it is the manual compaction of the compaction turn
// and that the request after it is the first request of the next turn.
func (r codexManualRun) manualCompactionIndex(t *testing.T) int {
	t.Helper()
	idx := compactionIndex(t, r.reqs)
	meta := turnMetadata(t, r.reqs[idx].Body)
	c, _ := meta["compaction"].(map[string]any)
	if c["trigger"] != "manual" {
		t.Errorf("the compaction request's metadata has compaction %v, want trigger manual", meta["compaction"])
	}
	if meta["turn_id"] != r.compactTurn {
		t.Errorf("the compaction request belongs to turn %v, want the compaction turn %s", meta["turn_id"], r.compactTurn)
	}
	for i := 0; i < idx; i++ {
		if id := turnMetadata(t, r.reqs[i].Body)["turn_id"]; id != r.firstTurn {
			t.Errorf("request %d (before the compaction) belongs to turn %v, want the first turn %s", i, id, r.firstTurn)
		}
	}
	if id := turnMetadata(t, r.reqs[idx+1].Body)["turn_id"]; id != r.nextTurn {
		t.Fatalf("the request after the compaction request belongs to turn %v, want the next turn %s", id, r.nextTurn)
	}
	return idx
}

// TestCodexManualCompactReinjects: after a manual compaction started with
// thread/compact/start, the first model request of the next turn carries
// the exact reminder as a developer message and no earlier request has it;
// the compact SessionStart hook runs once, when the next turn starts, not
// at the compaction, and kbs runs once.
func TestCodexManualCompactReinjects(t *testing.T) {
	t.Parallel()
	run := runCodexManual(t, kbsFixture)
	reminder := expectedReminder(t)
	idx := run.manualCompactionIndex(t)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, run.reqs[i].Body, reminder) {
			t.Errorf("request %d (before or at the compaction) already contains the reminder", i)
		}
	}
	exact, within := false, false
	for _, text := range developerTexts(t, run.reqs[idx+1].Body) {
		exact = exact || text == reminder
		within = within || strings.Contains(text, reminder)
	}
	switch {
	case within && !exact:
		t.Errorf("the first request of the next turn (request %d) has the reminder inside a longer developer message, not as one of its own", idx+1)
	case !within:
		t.Errorf("the first request of the next turn (request %d of %d) has no developer message with the reminder\nwant:\n%s\nbody:\n%.4000s",
			idx+1, len(run.reqs), reminder, run.reqs[idx+1].Body)
	}

	runs := run.sessionStartRuns(t)
	if len(runs) != 1 {
		t.Fatalf("SessionStart hooks completed %d times, want 1 (the compact hook after the compaction)", len(runs))
	}
	h := runs[0]
	if h.TurnID == nil || *h.TurnID != run.nextTurn {
		t.Errorf("the compact SessionStart hook ran in turn %v, want the next turn %s (docs/platforms.md: after a manual compaction it runs when the following turn begins)",
			run.turnName(deref(h.TurnID)), run.nextTurn)
	}
	if h.Run.Status != "completed" || len(h.Run.Entries) != 1 || h.Run.Entries[0].Kind != "context" || h.Run.Entries[0].Text != reminder {
		t.Errorf("the compact hook run is %q with entries %+v, want completed with one context entry holding the reminder", h.Run.Status, h.Run.Entries)
	}
	if run.kbsAfterFirst != 0 || run.kbsAfterCompaction != 0 {
		t.Errorf("kbs ran %d times by the end of the first turn and %d by the end of the compaction turn, want 0 and 0 (the hook runs when the next turn starts)",
			run.kbsAfterFirst, run.kbsAfterCompaction)
	}
	if n := run.s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1", n)
	}
}

// TestCodexManualFailingKbsInjectsNothing is the negative control: with kbs
// failing, the trusted compact hook still runs after the manual compaction
// and reaches kbs, no request carries any reminder line, and the next turn
// completes.
func TestCodexManualFailingKbsInjectsNothing(t *testing.T) {
	t.Parallel()
	run := runCodexManual(t, kbsFailing) // fails unless every turn completed
	run.manualCompactionIndex(t)
	checkNoReminder(t, run.reqs, expectedReminder(t))
	runs := run.sessionStartRuns(t)
	if len(runs) != 1 {
		t.Fatalf("SessionStart hooks completed %d times, want 1: without the hook running the control proves nothing", len(runs))
	}
	if h := runs[0]; h.Run.Status != "completed" || len(h.Run.Entries) != 0 {
		t.Errorf("the compact hook run is %q with entries %+v, want completed with none", h.Run.Status, h.Run.Entries)
	}
	if n := run.s.kbsCalls(t); n == 0 {
		t.Errorf("the failing kbs never ran: the control proves nothing")
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
