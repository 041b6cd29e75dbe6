package e2e

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOpencodeManualCompactReinjects: in one session of `opencode serve`
// (hello, a summarize call as the TUI's /compact makes, next, third), the
// first request after the summary request carries the exact reminder as a
// system message, no other request has any line of it, and kbs ran once.
// Every turn request carries AGENTS.md's kbs-now block, which OpenCode
// reads on every request. Then nowhook remove takes the plugin and the wrapper away and leaves
// what OpenCode wrote into .opencode/ itself, and the folder with it.
func TestOpencodeManualCompactReinjects(t *testing.T) {
	t.Parallel()
	run := runOpencode(t, kbsFixture, true)
	checkOpencodeReinjected(t, run, expectedReminder(t))
	checkOpencodeReadsAgentsMD(t, run)
	if n := run.s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1 (once per compaction)", n)
	}

	own := opencodeOwnFiles(t, run.s.repo)
	var names []string
	for name := range own {
		names = append(names, name)
	}
	t.Logf("OpenCode wrote into .opencode/ itself: %s", strings.Join(names, ", "))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res := runCmd(t, ctx, run.s.env(nil), run.s.repo, "", filepath.Join(run.s.bin, "nowhook"), "remove", "--yes")
	if res.err != nil {
		t.Fatalf("nowhook remove: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook remove --yes:\n%s", strings.TrimSpace(res.stdout))
	for _, f := range []string{opencodePluginFile, opencodeWrapperFile} {
		if opencodeExists(filepath.Join(run.s.repo, f)) {
			t.Errorf("remove left %s", f)
		}
	}
	if after := opencodeOwnFiles(t, run.s.repo); !reflect.DeepEqual(after, own) {
		t.Errorf("remove changed what OpenCode wrote into .opencode/:\nbefore %v\nafter  %v", own, after)
	}
	if len(own) > 0 && !opencodeExists(filepath.Join(run.s.repo, ".opencode")) {
		t.Errorf("remove deleted .opencode/, which holds OpenCode's own files")
	}
}

// TestOpencodeAutoCompactReinjects: the mock's first turn reply fills the
// context window, so OpenCode compacts on its own and sends the automatic
// "continue" request; that request, the first after the summary request,
// carries the exact reminder as a system message, no other request has any
// line of it, and kbs ran once.
func TestOpencodeAutoCompactReinjects(t *testing.T) {
	t.Parallel()
	run := runOpencode(t, kbsFixture, false)
	next := checkOpencodeReinjected(t, run, expectedReminder(t))
	if last := run.reqs[next].LastUserText(); !strings.Contains(last, "Continue if you have next steps") {
		t.Errorf("the request after the summary is not OpenCode's automatic continue request; its last user message: %q", last)
	}
	if n := run.s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want 1 (once per compaction)", n)
	}
}

// TestOpencodeFailingKbsInjectsNothing is the negative control: with kbs
// failing, the plugin runs the wrapper after the compaction (kbs is
// reached), every turn completes, and no request carries any line of a
// reminder.
func TestOpencodeFailingKbsInjectsNothing(t *testing.T) {
	t.Parallel()
	run := runOpencode(t, kbsFailing, true)
	idx := onlyRequest(t, run.rec, "summary", "OpenCode never compacted")
	if turns := len(run.reqs) - idx - 1; turns < 2 {
		t.Errorf("%d requests after the summary, want the session to go on (next, third)", turns)
	}
	checkNoReminder(t, run.rec, expectedReminder(t))
	if n := run.s.kbsCalls(t); n == 0 {
		t.Errorf("the failing kbs never ran: the control proves nothing")
	}
}
