//go:build unix

package osutil

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLockHeldSaysWho: while one holder has the lock, a second writer
// with no time to wait is told who holds it (pid, command, since); once
// it is released, the second gets it. No timing: a zero wait tries once.
func TestLockHeldSaysWho(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nowhook.lock")
	first, err := AcquireLock(path, 0, "nowhook setup --yes")
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(path, 0, "nowhook remove --yes")
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second AcquireLock = %v, want a LockedError", err)
	}
	if le.Holder.PID != os.Getpid() || le.Holder.Command != "nowhook setup --yes" || le.Holder.Since.IsZero() {
		t.Errorf("holder = %+v, want this process, its command and a time", le.Holder)
	}
	if msg := err.Error(); !strings.Contains(msg, "pid "+strconv.Itoa(os.Getpid())+" (nowhook setup --yes), since ") {
		t.Errorf("message %q does not say who holds the lock", msg)
	}
	first.Release()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there after Release (%v)", err)
	}
	second, err := AcquireLock(path, 0, "nowhook remove --yes")
	if err != nil {
		t.Fatalf("AcquireLock after Release: %v", err)
	}
	if h := ReadHolder(path); h.Command != "nowhook remove --yes" {
		t.Errorf("the lock file names %+v, want the new holder", h)
	}
	second.Release()
}

// TestLockOfAKilledHolderIsTaken: a holder killed with SIGKILL leaves its
// lock file, and the lock is free at once.
func TestLockOfAKilledHolderIsTaken(t *testing.T) {
	if os.Getenv("NOWHOOK_LOCK_HOLDER") != "" {
		if _, err := AcquireLock(os.Getenv("NOWHOOK_LOCK_HOLDER"), 0, "holder"); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		select {}
	}
	path := filepath.Join(t.TempDir(), "nowhook.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockOfAKilledHolderIsTaken$")
	cmd.Env = append(os.Environ(), "NOWHOOK_LOCK_HOLDER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("the holder did not take the lock: %q, %v", buf, err)
	}
	if _, err := AcquireLock(path, 0, "second"); err == nil {
		t.Fatal("the lock was taken while its holder runs")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the killed holder's lock file is gone (%v): the test proves nothing", err)
	}
	l, err := AcquireLock(path, 0, "second")
	if err != nil {
		t.Fatalf("the lock of a killed holder is not free: %v", err)
	}
	l.Release()
}
