package reminder

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPty returns the terminal side of a new pseudo-terminal, on which no
// input ever arrives.
func openPty(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Skipf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Skipf("ptsname: %v", errno)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestStdinTerminal: run by hand from a terminal, the reminder must not
// wait for typed input.
func TestStdinTerminal(t *testing.T) {
	t.Parallel()
	tty := openPty(t)
	var log bytes.Buffer
	done := make(chan bool, 1)
	go func() {
		_, proceed := readPayload(tty, time.Hour, nil, logger{w: &log, on: true})
		done <- proceed
	}()
	select {
	case proceed := <-done:
		if !proceed || !strings.Contains(log.String(), "terminal or device: not read") {
			t.Errorf("proceed=%v, log:\n%s", proceed, log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still reading the terminal after 30s")
	}
}
