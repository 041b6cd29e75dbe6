package osutil

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadBounded reads a file of exactly the limit and refuses one byte
// more as too large (not as unreadable), naming both sizes.
func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	const limit = 1 << 20
	if err := os.WriteFile(path, make([]byte, limit), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadBounded(path, limit); err != nil || len(b) != limit {
		t.Fatalf("ReadBounded of %d bytes with limit %d = %d bytes, %v; want all of it", limit, limit, len(b), err)
	}
	if err := os.WriteFile(path, make([]byte, limit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadBounded(path, limit)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "is 1048577 bytes, larger than the 1 MiB nowhook reads of a file" {
		t.Fatalf("ReadBounded of %d bytes with limit %d: err %v, want a TooLargeError", limit+1, limit, err)
	}
	if err := os.Truncate(path, 50<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBounded(path, limit); err == nil || err.Error() != "is 50 MiB, larger than the 1 MiB nowhook reads of a file" {
		t.Fatalf("ReadBounded of 50 MiB: %v", err)
	}
	if _, err := ReadBounded(filepath.Join(dir, "missing"), limit); !os.IsNotExist(err) {
		t.Fatalf("ReadBounded of a missing file: %v, want not-exist", err)
	}
}

// TestReadBoundedRefusesSpecialFiles: a named pipe nobody writes to would
// block a read forever (this test would hang), a socket cannot be read, a
// device may never end, a directory is not a file; each is refused before
// it is opened, and a link to one is refused like it. A link to a regular
// file is read through.
func TestReadBoundedRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	defer l.Close()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link-to-fifo": fifo, "link-to-file": file} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for path, kind := range map[string]string{
		fifo:                               "a named pipe (FIFO)",
		filepath.Join(dir, "link-to-fifo"): "a named pipe (FIFO)",
		sock:                               "a socket",
		"/dev/null":                        "a character device",
		"/dev/zero":                        "a character device",
		dir:                                "a directory",
	} {
		_, err := ReadBounded(path, 1<<20)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Kind != kind {
			t.Errorf("ReadBounded(%s) = %v, want it refused as %s", path, err, kind)
		}
	}
	if b, err := ReadBounded(filepath.Join(dir, "link-to-file"), 10); err != nil || string(b) != "x" {
		t.Errorf("ReadBounded through a link to a file = %q, %v", b, err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 8 << 20: "8 MiB", 52428834: "50 MiB", 3 << 30: "3 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
