package reminder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// age sets the modification time of the session's marker with suffix to
// d ago: the tests move the marker's clock, not the wall clock.
func (k *kimiSession) age(t *testing.T, suffix string, d time.Duration) {
	t.Helper()
	path := filepath.Join(k.state, "nowhook", kimiMarkers, latchName(k.id, "")+suffix)
	when := time.Now().Add(-d)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestKimiMarkerExpires: a compaction's ready marker that no prompt took
// within kimiMarkerMaxAge (the session closed or was killed right after
// it) has expired: the next prompt removes it, prints nothing and starts
// no kbs, and the prompt after finds nothing. One just inside the age is
// delivered, once.
func TestKimiMarkerExpires(t *testing.T) {
	k := newKimi(t, "")
	k.hook(t, eventPreCompact)
	k.hook(t, eventPostCompact)
	k.age(t, kimiReady, kimiMarkerMaxAge+time.Hour)
	out, log := k.hook(t, eventUserPromptSubmit)
	if out != "" || k.kbsCalls() != 0 {
		t.Fatalf("an expired marker printed %q and ran kbs %d times\n%s", out, k.kbsCalls(), log)
	}
	if !strings.Contains(log, "has expired") {
		t.Errorf("the debug log does not say why: %s", log)
	}
	if m := k.markers(t); len(m) != 0 {
		t.Errorf("markers left after the expired one: %v", m)
	}
	if out, _ := k.hook(t, eventUserPromptSubmit); out != "" {
		t.Errorf("the next prompt printed %q", out)
	}

	k.hook(t, eventPreCompact)
	k.hook(t, eventPostCompact)
	k.age(t, kimiReady, kimiMarkerMaxAge-time.Hour)
	if out, log := k.hook(t, eventUserPromptSubmit); strings.TrimRight(out, "\n") != basicReminder(t) {
		t.Fatalf("a marker inside its age printed %q\n%s", out, log)
	}
	if out, _ := k.hook(t, eventUserPromptSubmit); out != "" || k.kbsCalls() != 1 {
		t.Errorf("a second reminder %q (kbs ran %d times)", out, k.kbsCalls())
	}
}

// TestKimiMarkerAgeFromCompaction: a pending marker left long ago by a
// compaction that never finished does not age the next one: its
// PostCompact makes a ready marker as old as the compaction's end.
func TestKimiMarkerAgeFromCompaction(t *testing.T) {
	k := newKimi(t, "")
	k.hook(t, eventPreCompact)
	k.age(t, kimiPending, 3*kimiMarkerMaxAge)
	k.hook(t, eventPostCompact)
	if out, log := k.hook(t, eventUserPromptSubmit); strings.TrimRight(out, "\n") != basicReminder(t) {
		t.Fatalf("printed %q after a compaction applied now\n%s", out, log)
	}
}
