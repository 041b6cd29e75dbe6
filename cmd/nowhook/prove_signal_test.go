//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeHangingClaude is a Claude Code that answers --version and then,
// for a session, starts what an orphaned `opencode serve` was: a process
// in a session and process group of its own, outside the copy (its
// working directory is /), that ignores SIGTERM, SIGHUP and SIGINT; then
// it says so on the FIFO %[2]s and hangs, ignoring them too. Every
// process of it carries %[1]s in its environment, the marker the test
// finds them by: the client starts itself again with it, since
// /proc/PID/environ shows a process's environment as it was exec'd (an
// export alone shows only in its children).
const fakeHangingClaude = `#!/bin/sh
case "$1" in --version) echo "9.9.9 (Claude Code)"; exit 0 ;; esac
[ -n "$NOWHOOK_TEST_MARK" ] || exec env %[1]s "$0" "$@"
trap '' TERM HUP INT
setsid sh -c 'cd / && echo started >%[2]s && exec sleep 1000' </dev/null >/dev/null 2>&1 &
exec sleep 1000
`

// TestProveStoppedBySignal: doctor --prove sent SIGTERM, SIGHUP or
// SIGINT while a client runs ends every process it started (the client's
// group, and an orphan in a session of its own that ignores SIGTERM) and
// removes its throw-away copy before it exits 128+n, saying so. The
// processes are found by a marker in their environment and the copy by
// the temporary folder the run was given; the signal is sent once the
// orphan said it runs. Nothing here is timed.
func TestProveStoppedBySignal(t *testing.T) {
	nowhook, err := exec.LookPath("nowhook") // testscript.Main's link to this test binary
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT"}[sig]
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			repo, home, tmp, bin := filepath.Join(base, "repo"), filepath.Join(base, "home"), filepath.Join(base, "tmp"), filepath.Join(base, "bin")
			for _, d := range []string{filepath.Join(repo, ".git"), home, tmp, bin} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(repo, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(base, "started")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			mark := fmt.Sprintf("NOWHOOK_TEST_MARK=%s-%d", name, os.Getpid())
			if err := os.WriteFile(filepath.Join(bin, "claude"), fmt.Appendf(nil, fakeHangingClaude, mark, fifo), 0o755); err != nil {
				t.Fatal(err)
			}
			env := []string{"PATH=" + bin + ":" + filepath.Dir(nowhook) + ":/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "NOWHOOK_PROVE_LIMIT=10m"}
			setup := exec.Command(nowhook, "setup", "--yes", "--agents", "claude", "--dir", repo)
			setup.Env = env
			if out, err := setup.CombinedOutput(); err != nil {
				t.Fatalf("setup: %v\n%s", err, out)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			doctor := exec.CommandContext(ctx, nowhook, "doctor", "--prove", "--dir", repo)
			doctor.Env = env
			var stdout, stderr bytes.Buffer
			doctor.Stdout, doctor.Stderr = &stdout, &stderr
			if err := doctor.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- doctor.Wait() }()
			started := make(chan error, 1)
			go func() {
				b, err := os.ReadFile(fifo) // blocks until the orphan writes
				if err == nil && string(b) != "started\n" {
					err = fmt.Errorf("the FIFO said %q", b)
				}
				started <- err
			}()
			select {
			case err := <-started:
				if err != nil {
					t.Fatal(err)
				}
			case err := <-exited:
				os.WriteFile(fifo, nil, 0) // end the reader
				t.Fatalf("doctor --prove ended (%v) before the client started:\n%s%s", err, stdout.String(), stderr.String())
			}
			// The markers find what the run started: the client and the
			// orphan, and the copy.
			if procs := marked(t, mark); len(procs) < 2 {
				t.Fatalf("the marker finds %d processes before the signal, want the client and its orphan", len(procs))
			}
			if copies := entries(t, tmp); !strings.Contains(strings.Join(copies, " "), "nowhook-prove-") {
				t.Fatalf("no throw-away copy in TMPDIR before the signal: %q", copies)
			}

			if err := doctor.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := <-exited
			t.Logf("doctor --prove after %s: %v\nstdout:\n%sstderr:\n%s", name, err, stdout.String(), stderr.String())
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
				t.Errorf("exit %v, want status %d (128+%d)", err, 128+int(sig), int(sig))
			}
			if want := "nowhook doctor: stopped by " + name + ": the clients it started were ended and their throw-away copies removed\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if want := "Claude Code 9.9.9: not proven: doctor --prove was stopped by " + name; !strings.Contains(stdout.String(), want) {
				t.Errorf("the prove.claude row does not say %q", want)
			}
			if procs := marked(t, mark); len(procs) > 0 {
				t.Errorf("still running after doctor --prove exited: %s", strings.Join(procs, "; "))
			}
			if left := entries(t, tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %q", left)
			}
		})
	}
}

// marked lists the live processes (not zombies) whose environment holds
// mark, each as "pid: command line".
func marked(t *testing.T, mark string) []string {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range procs {
		env, err := os.ReadFile("/proc/" + p.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+mark+"\x00")) {
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

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
