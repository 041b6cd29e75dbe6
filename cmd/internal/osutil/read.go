package osutil

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadBounded reads the file at path (links followed) the one way nowhook
// reads a file it does not own: anything that is not a regular file is
// refused before it is opened (a named pipe would block the read until
// someone writes to it, a device may never end), and a file larger than
// limit bytes is refused before a byte of it is read. The errors are a
// *NotRegularError, a *TooLargeError, or the *fs.PathError of a file that
// cannot be opened or read, for the caller to put after the file's name.
func ReadBounded(path string, limit int) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := Regular(info); err != nil {
		return nil, err
	}
	if info.Size() > int64(limit) {
		return nil, &TooLargeError{Size: info.Size(), Limit: int64(limit)}
	}
	// O_NONBLOCK: were the file swapped for a named pipe since the Stat,
	// opening it still returns at once, and the second check refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := Regular(info); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, int64(limit)+1)); err != nil {
		return nil, err
	}
	if b.Len() > limit {
		return nil, &TooLargeError{Size: int64(b.Len()), Limit: int64(limit), More: true}
	}
	return b.Bytes(), nil
}

// Regular refuses, as a *NotRegularError, anything info describes that is
// not a regular file.
func Regular(info fs.FileInfo) error {
	if info.Mode().IsRegular() {
		return nil
	}
	return &NotRegularError{Kind: KindOf(info.Mode())}
}

// KindOf names what a file mode is, for messages: "a named pipe (FIFO)",
// "a directory", ...
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// NotRegularError is a path that holds something other than a regular
// file (a directory, a named pipe, a socket, a device), which nowhook
// never opens for reading.
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string { return "is " + e.Kind + ", not a regular file" }

// TooLargeError is a file larger than what nowhook reads of it.
type TooLargeError struct {
	Size, Limit int64
	// More: the file grew past the limit while it was read (Size is then
	// only what was read).
	More bool
}

func (e *TooLargeError) Error() string {
	if e.More {
		return fmt.Sprintf("is larger than the %s nowhook reads of a file (it grew while being read)", Bytes(e.Limit))
	}
	size := Bytes(e.Size)
	if size == Bytes(e.Limit) {
		size = fmt.Sprintf("%d bytes", e.Size)
	}
	return fmt.Sprintf("is %s, larger than the %s nowhook reads of a file", size, Bytes(e.Limit))
}

// Bytes writes a size as people read it: "512 bytes", "12.5 KiB", "50 MiB".
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	case n < 1<<30:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<30))) + " GiB"
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
