//go:build unix

package osutil

import (
	"io/fs"
	"os"
	"syscall"
)

// Owner is the owner and group of the file info describes; ok is false
// where the system does not say.
func Owner(info fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// Links is the number of hard links of the file info describes (1 where
// the system does not say).
func Links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// CanOwn reports whether this process can give a file it creates the
// owner uid and the group gid: root can; anyone else only their own uid,
// with their own group or one they belong to.
func CanOwn(uid, gid int) bool {
	if os.Geteuid() == 0 {
		return true
	}
	if uid != os.Geteuid() {
		return false
	}
	if gid == os.Getegid() {
		return true
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == gid {
			return true
		}
	}
	return false
}

// CanWrite reports whether this process may create or change entries in
// the folder dir, as the system judges it (access(2) with W_OK).
func CanWrite(dir string) bool { return syscall.Access(dir, 2) == nil }
