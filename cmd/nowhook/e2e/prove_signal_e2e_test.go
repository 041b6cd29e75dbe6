package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpencodeDoctorProveStopped: `nowhook doctor --prove` sent SIGTERM
// while the real `opencode serve` runs (the process that outlived such a
// signal before, ignoring SIGTERM) ends it and everything else it
// started, and removes its throw-away copy, before it exits 143. The
// processes are found by the copy's marker in their environment
// (NOWHOOK_PROVE_COPY, under this test's TMPDIR), the copy by that
// TMPDIR; the signal is sent once the marker shows opencode serve
// running. Nothing is timed.
func TestOpencodeDoctorProveStopped(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "OPENCODE_BIN", "opencode")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	tmp := filepath.Join(s.root, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := s.env([]string{"PATH=" + s.bin + ":" + filepath.Dir(bin) + ":" + pathOf(s.env(nil)), "NOWHOOK_PROVE_LIMIT=10m", "TMPDIR=" + tmp})
	if res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "opencode"); res.err != nil {
		t.Fatalf("nowhook setup: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	doctor := prepare(t, ctx, env, s.repo, filepath.Join(s.bin, "nowhook"), "doctor", "--prove")
	var stdout, stderr bytes.Buffer
	doctor.Stdout, doctor.Stderr = &stdout, &stderr
	if err := doctor.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- doctor.Wait() }()
	marker := "NOWHOOK_PROVE_COPY=" + tmp + string(filepath.Separator)
	for serving := false; !serving; {
		for _, p := range markedProcs(marker) {
			serving = serving || strings.Contains(p, "serve")
		}
		select {
		case err := <-exited:
			t.Fatalf("doctor --prove ended (%v) before opencode serve ran:\n%s%s", err, stdout.String(), stderr.String())
		case <-ctx.Done():
			t.Fatalf("opencode serve never ran: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := doctor.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	t.Logf("doctor --prove after SIGTERM: %v\nstdout:\n%sstderr:\n%s", err, stdout.String(), stderr.String())
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Errorf("exit %v, want status 143", err)
	}
	if !strings.Contains(stdout.String(), "not proven: doctor --prove was stopped by SIGTERM") {
		t.Errorf("the prove.opencode row does not say it was stopped")
	}
	if left := markedProcs(marker); len(left) > 0 {
		t.Errorf("still running after doctor --prove exited: %s", strings.Join(left, "; "))
	}
	if es, _ := os.ReadDir(tmp); len(es) > 0 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %q", names)
	}
}

// markedProcs lists the live processes (not zombies) with an environment
// variable that starts with marker, each as "pid: command line".
func markedProcs(marker string) []string {
	procs, _ := os.ReadDir("/proc")
	var out []string
	for _, p := range procs {
		env, err := os.ReadFile("/proc/" + p.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+marker)) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + p.Name() + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		out = append(out, p.Name()+": "+strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return out
}
