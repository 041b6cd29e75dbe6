//go:build linux

package prove

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// isolate makes the network namespace prove's clients run in: a thread
// of this process, locked to one goroutine, leaves the process's network
// namespace for a new one (unshare CLONE_NEWNET, as root or with
// CAP_SYS_ADMIN) whose only interface is the loopback, brought up. What
// that thread creates lives there: the mock model's listener, the
// connections to a client's server, and every client started (a child
// inherits the namespace of the thread that forks it, and passes it on
// to all its descendants). The thread is never unlocked: when close ends
// its goroutine, the runtime ends the thread, so no other goroutine ever
// runs in the namespace. (The runtime starts no thread from a locked one:
// new threads come from its template thread.)
func isolate() *offline {
	n := &offline{calls: make(chan func()), done: make(chan struct{})}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer close(n.done)
		err := syscall.Unshare(syscall.CLONE_NEWNET)
		if err != nil {
			ready <- unshareError(err)
			return
		}
		if err := loopbackUp(); err != nil {
			ready <- errors.New("bringing up the loopback of a new network namespace: " + err.Error())
			return
		}
		id, err := os.Readlink("/proc/thread-self/ns/net")
		if err != nil {
			ready <- err
			return
		}
		n.id = id
		ready <- nil
		for f := range n.calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		return &offline{why: err.Error()}
	}
	return n
}

// unshareError says why unshare failed, and what it needs.
func unshareError(err error) error {
	if errors.Is(err, syscall.EPERM) {
		return errors.New("a network namespace needs CAP_SYS_ADMIN (unshare: " + err.Error() + ")")
	}
	return errors.New("unshare(CLONE_NEWNET): " + err.Error())
}

// ifreq is the kernel's struct ifreq with the flags member of its union
// (40 bytes on 64-bit systems; a larger buffer does no harm elsewhere).
type ifreq struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

// loopbackUp sets the loopback interface of the calling thread's network
// namespace up (a new namespace has it down).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var r ifreq
	copy(r.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&r))); e != 0 {
		return e
	}
	r.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&r))); e != 0 {
		return e
	}
	return nil
}

// netOf is the network namespace of process pid, as its /proc link
// names it ("net:[4026532281]"), or "".
func netOf(pid string) string {
	id, _ := os.Readlink("/proc/" + pid + "/ns/net")
	return id
}

// owned reports whether this user owns the file info describes.
func owned(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
