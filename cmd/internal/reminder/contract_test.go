//go:build unix

package reminder

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestContractEveryPath holds every path of the wrapper (nowhook-reminder,
// nowhook, the python3 fallback with and without coreutils timeout) to the
// hook's contract whatever kbs does: the wrapper exits 0 (runWrapper fails
// otherwise), prints the same bytes on every path, under the byte cap, and
// leaves no process of kbs's running. A kbs that kills its parent kills
// the shell it runs under, not the hook; the processes a kbs moves out of
// its process group (setsid) are found and killed on Linux, where the hook
// reaps its orphans. Nothing here is timed.
func TestContractEveryPath(t *testing.T) {
	// Not in parallel: the hanging cases end at a one-second budget and
	// the hook waits 100ms for the orphans it kills (maxOrphanWait); a
	// test beside it on a loaded machine would only make those tighter.
	cases := []struct {
		name, mode string
		want       string // expected file, or "" for nothing
		calls      []string
		escapes    bool // a process leaves the group: killed only where the hook can reap
	}{
		{"closes stdout, then hangs", "linger", "basic.expected.txt", []string{plain}, false},
		{"kills its parent", "killparent", "", []string{plain}, false},
		{"hangs", "hang", "", []string{plain}, false},
		{"leaves a child holding stdout", "orphan", "basic.expected.txt", []string{plain}, false},
		{"hangs with a child holding stdout", "hang-orphan", "", []string{plain}, false},
		{"leaves a child in a session of its own", "setsid", "basic.expected.txt", []string{plain}, true},
		{"leaves a child in a session of its own, holding stdout", "setsid-hold", "basic.expected.txt", []string{plain}, true},
		{"hangs with a child in a session of its own", "setsid-hang", "", []string{plain}, true},
	}
	proj := project(t)
	// One second: the hanging cases end at the deadline, too soon to retry.
	wrapper := writeWrapper(t, time.Second)
	bins := map[string]string{}
	for _, wp := range wrapperPaths {
		bins[wp.name] = toolDir(t, wp.tools...)
	}
	payload := abs(t, filepath.Join(fixtures, "basic.json"))
	rawPayload := abs(t, filepath.Join(fixtures, "raw.json"))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.escapes && runtime.GOOS != "linux" {
				t.Skip("only Linux hands the hook the processes that leave kbs's group")
			}
			want := ""
			if c.want != "" {
				want = expected(t, c.want)
			}
			for _, wp := range wrapperPaths {
				tmp := t.TempDir()
				callLog, pidLog := filepath.Join(tmp, "calls"), filepath.Join(tmp, "pids")
				out, stderr := runWrapper(t, wrapper, bins[wp.name], compactPayload,
					"CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_MODE="+c.mode, "FAKE_KBS_PAYLOAD="+payload,
					"FAKE_KBS_RAW_PAYLOAD="+rawPayload, "FAKE_KBS_LOG="+callLog, "FAKE_KBS_PIDS="+pidLog,
					"FAKE_KBS_SLEEP=30s")
				if out != want {
					t.Errorf("wrapper via %s printed:\n%s\nwant:\n%s\nstderr:\n%s", wp.name, out, want, stderr)
				}
				if len(out) >= maxOutBytes {
					t.Errorf("wrapper via %s printed %d bytes", wp.name, len(out))
				}
				if calls := kbsCalls(t, callLog); calls != strings.Join(c.calls, "|") {
					t.Errorf("wrapper via %s: kbs calls %q, want %q\nstderr:\n%s", wp.name, calls, c.calls, stderr)
				}
				pids := readPids(t, pidLog)
				waitGone(t, pids)
				if _, err := os.Stat(pidLog); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestWrapperStopReachesRuntime: the agent stops the hook by signalling
// the process it started, the wrapper, which runs the runtime as a child;
// on Linux the runtime takes its parent's death as a stop, kills kbs's
// group (and the child holding its stdout) and exits, long before its
// 30s budget would have. The 10s bound of waitGone is not a timing
// assertion: without the stop, kbs would run for 30s.
func TestWrapperStopReachesRuntime(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux signals a process when its parent ends")
	}
	proj := project(t)
	wrapper := writeWrapper(t, 30*time.Second)
	for _, wp := range wrapperPaths[:2] { // nowhook-reminder, nowhook
		t.Run(wp.name, func(t *testing.T) {
			t.Parallel()
			pids := filepath.Join(t.TempDir(), "pids")
			cmd := exec.Command("/bin/sh", wrapper)
			cmd.Env = []string{"PATH=" + toolDir(t, wp.tools...), "CLAUDE_PROJECT_DIR=" + proj, "FAKE_KBS_MODE=hang-orphan",
				"FAKE_KBS_PIDS=" + pids, "FAKE_KBS_PAYLOAD=" + abs(t, filepath.Join(fixtures, "basic.json"))}
			cmd.Stdin = strings.NewReader(compactPayload)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if b, _ := os.ReadFile(pids); len(strings.Fields(string(b))) == 2 {
					break
				}
				if time.Now().After(end) {
					cmd.Process.Kill()
					t.Fatal("the fake kbs never started its child")
				}
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // killed by the signal: the agent asked for it
			waitGone(t, readPids(t, pids))
		})
	}
}
