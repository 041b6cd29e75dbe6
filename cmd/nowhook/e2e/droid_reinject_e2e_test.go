package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDroidReinjectAfterCompact (Factory Droid 0.225.2): after `nowhook
// setup --yes --agents droid=reinject`, a session driven as the TUI's
// /compact drives it (droid exec --input-format stream-jsonrpc: hello,
// compact into a new session and load it, next prompt) gets the exact
// reminder in the first request after the summary request, once, and in
// no request before; started in a sub-folder too (Droid hands the hook the
// start folder; the command finds the root with git). With kbs failing,
// the hook runs and no request holds any line of a reminder. The setup
// wrote the hook; the client ran it. Run: go test ./cmd/nowhook/e2e/
// -run TestDroidReinjectAfterCompact -v (DROID_BIN from
// scripts/install-agents.sh, or droid on PATH).
func TestDroidReinjectAfterCompact(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	for _, c := range []struct {
		name  string
		kbs   kbsMode
		where string
	}{
		{"root", kbsFixture, "."},
		{"sub-folder", kbsFixture, probeSub},
		{"kbs-fails", kbsFailing, "."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			s := newSandbox(t, c.kbs)
			writeFile(t, filepath.Join(s.repo, filepath.FromSlash(probeSub), "main.go"), "package api\n", 0o644)
			res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "droid=reinject")
			if res.err != nil {
				t.Fatalf("nowhook setup --yes --agents droid=reinject: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			t.Logf("nowhook setup --yes --agents droid=reinject:\n%s", strings.TrimSpace(res.stdout+res.stderr))
			if line := summaryLine(res.stdout, "droid"); !strings.Contains(line, "reinject") || !strings.Contains(line, ".factory/settings.json") {
				t.Fatalf("setup's summary line for droid is %q, want reinject and .factory/settings.json", line)
			}
			m := droidMock(t, &probeChat{})
			home := droidHome(t, m, "")
			env := droidEnv(s, home)
			clientVersion(t, ctx, env, bin)
			dir := filepath.Join(s.repo, filepath.FromSlash(c.where))
			d := startDroidRPC(t, ctx, bin, env, dir)
			d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "e2e", "cwd": dir, "modelId": "custom:mock-model"})
			d.say(ctx, "hello")
			d.compact(ctx)
			d.say(ctx, "What was I working on?")
			reqs := m.Requests()
			reminder := expectedReminder(t)
			if c.kbs == kbsFixture {
				checkOnceAfter(t, reqs, reminder)
				if n := s.kbsCalls(t); n != 1 {
					t.Errorf("kbs ran %d times, want once (the compact hook alone)", n)
				}
				return
			}
			summaryAt(t, reqs)
			for _, l := range strings.Split(reminder, "\n")[:1] {
				checkNowhere(t, reqs, l)
			}
			if n := s.kbsCalls(t); n == 0 {
				t.Errorf("kbs never ran: the compact hook did not run, so the negative control shows nothing")
			}
		})
	}
}
