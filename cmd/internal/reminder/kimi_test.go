package reminder

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kimiSession is one Kimi Code session against the fake kbs: its payloads
// are shaped as Kimi Code 2.1.0 sends them (measured: snake-case fields,
// client_type, a UserPromptSubmit prompt given as a list of parts).
type kimiSession struct {
	*gem
	id string
}

func newKimi(t *testing.T, mode string) *kimiSession {
	t.Helper()
	return &kimiSession{gem: newGem(t, mode), id: "session_ccebbb79-8598-4996-872b-da2eb6e87360"}
}

func (k *kimiSession) payload(event string) string {
	head := `{"hook_event_name":"` + event + `","session_id":` + jsonString(k.id) + `,"cwd":` + jsonString(k.proj) + `,"client_type":"kimi_code_cli"`
	switch event {
	case eventUserPromptSubmit:
		return head + `,"prompt":[{"type":"text","text":"next"}],"is_steer":false}`
	case eventPreCompact:
		return head + `,"trigger":"auto","token_count":20387}`
	case eventPostCompact:
		return head + `,"trigger":"auto","estimated_token_count":20689}`
	}
	return head + `,"source":"startup","model":"mock","profile":"agent"}`
}

func (k *kimiSession) hook(t *testing.T, event string) (out, log string) {
	t.Helper()
	var debug bytes.Buffer
	b := kimiTurn(options{budget: 5 * time.Second, stdin: strings.NewReader(k.payload(event)), getenv: k.getenv, wd: t.TempDir(), log: logger{w: &debug, on: true}})
	return string(b), debug.String()
}

// markers lists the files in the session markers' folder.
func (k *kimiSession) markers(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(k.state, "nowhook", kimiMarkers))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestKimiReminderAtFirstPromptAfterCompaction walks a session through
// prompts and two compactions: the reminder at the first prompt after
// each, once, kbs run once each, and nothing at the other prompts, at the
// events themselves or at SessionStart.
func TestKimiReminderAtFirstPromptAfterCompaction(t *testing.T) {
	k := newKimi(t, "")
	rem := basicReminder(t)
	steps := []struct {
		event string
		fires bool
	}{
		{"SessionStart", false},
		{eventUserPromptSubmit, false},
		{eventPreCompact, false},
		{eventPostCompact, false},
		{eventUserPromptSubmit, true},
		{eventUserPromptSubmit, false},
		{eventPreCompact, false},
		{eventPostCompact, false},
		{eventUserPromptSubmit, true},
		{eventUserPromptSubmit, false},
	}
	fired := 0
	for i, s := range steps {
		out, log := k.hook(t, s.event)
		if s.fires {
			fired++
			if strings.TrimRight(out, "\n") != rem {
				t.Fatalf("step %d (%s): printed %q, want the reminder\n%s", i, s.event, out, log)
			}
		} else if out != "" {
			t.Fatalf("step %d (%s): printed %q, want nothing\n%s", i, s.event, out, log)
		}
		if n := k.kbsCalls(); n != fired {
			t.Fatalf("step %d (%s): kbs ran %d times, want %d\n%s", i, s.event, n, fired, log)
		}
	}
	if m := k.markers(t); len(m) != 0 {
		t.Errorf("markers left after the last prompt: %v", m)
	}
}

// TestKimiFailedCompaction: a compaction that began and was never applied
// (it failed, was cancelled, or Kimi Code crashed: no PostCompact) prints
// nothing at the next prompts and starts no kbs; the next compaction that
// is applied brings the reminder back once.
func TestKimiFailedCompaction(t *testing.T) {
	k := newKimi(t, "")
	k.hook(t, eventPreCompact)
	for i := range 2 {
		if out, log := k.hook(t, eventUserPromptSubmit); out != "" || k.kbsCalls() != 0 {
			t.Fatalf("prompt %d after a compaction that was never applied: printed %q, kbs ran %d times\n%s", i, out, k.kbsCalls(), log)
		} else if !strings.Contains(log, "has not been applied") {
			t.Errorf("the debug log does not say why: %s", log)
		}
	}
	k.hook(t, eventPreCompact)
	k.hook(t, eventPostCompact)
	if out, log := k.hook(t, eventUserPromptSubmit); out == "" {
		t.Fatalf("no reminder after the compaction that was applied\n%s", log)
	}
	if out, _ := k.hook(t, eventUserPromptSubmit); out != "" {
		t.Errorf("a second reminder: %q", out)
	}
}

// TestKimiPostCompactAlone: PostCompact without PreCompact (its hook timed
// out) still marks the compaction.
func TestKimiPostCompactAlone(t *testing.T) {
	k := newKimi(t, "")
	k.hook(t, eventPostCompact)
	if out, log := k.hook(t, eventUserPromptSubmit); out == "" {
		t.Fatalf("no reminder\n%s", log)
	}
}

// TestKimiSessionsApart: a compaction of one session brings no reminder to
// another, whose own marker is untouched.
func TestKimiSessionsApart(t *testing.T) {
	a := newKimi(t, "")
	b := &kimiSession{gem: a.gem, id: "session_other"}
	a.hook(t, eventPreCompact)
	a.hook(t, eventPostCompact)
	if out, _ := b.hook(t, eventUserPromptSubmit); out != "" {
		t.Fatalf("the other session got %q", out)
	}
	if out, _ := a.hook(t, eventUserPromptSubmit); out == "" {
		t.Fatalf("the compacted session got no reminder")
	}
}

// TestKimiPromptsRace: of prompts racing after one compaction, exactly one
// prints the reminder.
func TestKimiPromptsRace(t *testing.T) {
	k := newKimi(t, "")
	k.hook(t, eventPreCompact)
	k.hook(t, eventPostCompact)
	const n = 8
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = string(kimiTurn(options{budget: 5 * time.Second, stdin: strings.NewReader(k.payload(eventUserPromptSubmit)), getenv: k.getenv, wd: t.TempDir()}))
		}()
	}
	wg.Wait()
	printed := 0
	for _, o := range outs {
		if o != "" {
			printed++
		}
	}
	if printed != 1 {
		t.Errorf("%d of %d racing prompts printed the reminder, want 1", printed, n)
	}
}

// TestKimiKbsFails: a failing kbs prints nothing, and the marker is spent
// (one try per compaction, as Gemini CLI's), so the next prompt runs no kbs.
func TestKimiKbsFails(t *testing.T) {
	k := newKimi(t, "fail")
	k.hook(t, eventPreCompact)
	k.hook(t, eventPostCompact)
	if out, log := k.hook(t, eventUserPromptSubmit); out != "" {
		t.Fatalf("printed %q with a failing kbs\n%s", out, log)
	}
	calls := k.kbsCalls()
	if calls == 0 {
		t.Fatalf("kbs did not run")
	}
	k.hook(t, eventUserPromptSubmit)
	if n := k.kbsCalls(); n != calls {
		t.Errorf("the next prompt ran kbs again (%d calls, then %d)", calls, n)
	}
}

// TestKimiNoSessionOrState: without a session id, or without anywhere to
// keep the marker, every event prints nothing and writes nothing.
func TestKimiNoSessionOrState(t *testing.T) {
	k := newKimi(t, "")
	k.id = ""
	for _, e := range []string{eventPreCompact, eventPostCompact, eventUserPromptSubmit} {
		if out, _ := k.hook(t, e); out != "" {
			t.Errorf("%s without a session id printed %q", e, out)
		}
	}
	if m := k.markers(t); len(m) != 0 {
		t.Errorf("markers written without a session id: %v", m)
	}
	k = newKimi(t, "")
	k.getenv = env("KBS", k.getenv("KBS"))
	for _, e := range []string{eventPreCompact, eventPostCompact, eventUserPromptSubmit} {
		if out, log := k.hook(t, e); out != "" {
			t.Errorf("%s without HOME or XDG_STATE_HOME printed %q\n%s", e, out, log)
		}
	}
}

// TestKimiRun: the flag, through Run, as the hook command runs it; --kimi
// excludes the other modes.
func TestKimiRun(t *testing.T) {
	k := newKimi(t, "")
	t.Setenv("KBS", k.getenv("KBS"))
	t.Setenv("XDG_STATE_HOME", k.state)
	run := func(args []string, event string) string {
		var out bytes.Buffer
		if code := Run(args, strings.NewReader(k.payload(event)), &out, &bytes.Buffer{}); code != 0 {
			t.Fatalf("Run %v: exit %d", args, code)
		}
		return out.String()
	}
	run([]string{"--kimi"}, eventPreCompact)
	run([]string{"--kimi"}, eventPostCompact)
	if out := run([]string{"--kimi", "--checkpoint"}, eventUserPromptSubmit); out != "" {
		t.Errorf("--kimi --checkpoint printed %q", out)
	}
	if out := run([]string{"--kimi", "--timeout", "3s"}, eventUserPromptSubmit); strings.TrimRight(out, "\n") != basicReminder(t) {
		t.Errorf("--kimi printed %q, want the reminder", out)
	}
	var help bytes.Buffer
	Run([]string{"--kimi", "--help"}, nil, &help, &bytes.Buffer{})
	if !strings.HasPrefix(help.String(), "Usage: nowhook reminder --kimi") {
		t.Errorf("--kimi --help printed %q", help.String())
	}
}
