package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestStartHook: the one runner runs the command through the agent's
// shell in the run's folder with the payload on stdin, puts the fake kbs
// first on PATH and in KBS, passes the run's settings and the probe
// budget, counts the fake's calls, and keeps each run for the row it is
// for, in the order started; a run with the user's kbs gets the user's
// PATH and KBS.
func TestStartHook(t *testing.T) {
	root := realTemp(t)
	env := []string{"PATH=/usr/bin:/bin", "KBS=/users/kbs", "HOME=" + root}
	d := newDoctor(Options{Root: root, Env: env})
	defer d.endSlow()
	a := &agent{p: &agentpkg.Agent{Name: "test", Title: "Test", Hooks: agentpkg.HookFormat{Shell: "/bin/sh", ProjectDirEnv: "TEST_PROJECT_DIR"}}}
	command := `cat; echo; pwd; echo "$KBS|$TEST_PROJECT_DIR|$NOWHOOK_PROBE_BUDGET|$EXTRA"; kbs now >/dev/null; kanbus now >/dev/null; true`
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	one, two := new(int), new(int)
	faked, err := d.startHook(context.Background(), hookRun{of: one, a: a, command: command, dir: sub,
		payload: compactPayload(sub), scenario: scenario{name: "listing kbs", fake: listingKbs},
		env: []string{"EXTRA=x"}, probe: 250 * time.Millisecond, limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	yours, err := d.startHook(context.Background(), hookRun{of: two, a: a, command: `echo "$KBS|$PATH"`, dir: root,
		payload: compactPayload(root), scenario: scenario{name: "your kbs"}, limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.startHook(context.Background(), hookRun{of: one, a: a, command: "exit 3", dir: root, limit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.ranFor(one); len(got) != 2 || got[0] != faked || got[1] != again {
		t.Errorf("ranFor(one) = %v, want the two runs started for it, in order", got)
	}
	if got := d.ranFor(two); len(got) != 1 || got[0] != yours {
		t.Errorf("ranFor(two) = %v, want the one run started for it", got)
	}

	r := faked.wait()
	if r.res.startErr != nil || r.res.exit != 0 || r.res.killed {
		t.Fatalf("the run with the fake kbs: %+v (stderr %q)", r.res, r.res.stderr)
	}
	lines := strings.Split(string(r.res.stdout), "\n")
	if len(lines) < 4 {
		t.Fatalf("the run printed %q", r.res.stdout)
	}
	if !strings.Contains(lines[0], `"source":"compact"`) || !strings.Contains(lines[0], `"cwd":"`+sub+`"`) {
		t.Errorf("stdin was %q, want the compact SessionStart payload for %s", lines[0], sub)
	}
	if lines[2] != sub {
		t.Errorf("ran in %q, want %s", lines[2], sub)
	}
	vars := strings.Split(lines[3], "|")
	if len(vars) != 4 || !strings.HasSuffix(vars[0], "/kbs") || vars[0] == "/users/kbs" || vars[1] != root || vars[2] != "0.25" || vars[3] != "x" {
		t.Errorf("KBS|TEST_PROJECT_DIR|NOWHOOK_PROBE_BUDGET|EXTRA = %q, want the fake kbs, %s, 0.25 and x", lines[3], root)
	}
	if r.calls != 2 {
		t.Errorf("the fake kbs was called %d times, want 2 (as kbs and as kanbus)", r.calls)
	}
	if r.scenario.name != "listing kbs" {
		t.Errorf("the result's scenario is %q", r.scenario.name)
	}

	y := yours.wait()
	if got := strings.TrimSpace(string(y.res.stdout)); got != "/users/kbs|/usr/bin:/bin" {
		t.Errorf("the run with the user's kbs saw KBS|PATH = %q, want the user's", got)
	}
	if y.calls != 0 {
		t.Errorf("a run without a fake counted %d calls", y.calls)
	}
	if r := again.wait(); r.res.exit != 3 {
		t.Errorf("exit 3 was reported as %d", r.res.exit)
	}
}
