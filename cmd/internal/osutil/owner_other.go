//go:build !unix

package osutil

import "io/fs"

// Owner: this system does not say (ok is false).
func Owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// Links: this system does not say; 1.
func Links(fs.FileInfo) uint64 { return 1 }

// CanOwn: files here have no Unix owner to keep.
func CanOwn(uid, gid int) bool { return true }

// CanWrite: this system does not say; true (a write then says why not).
func CanWrite(string) bool { return true }
