//go:build !linux

package prove

import "os"

// isolate keeps the clients off the network only on Linux.
func isolate() *offline {
	return &offline{why: "nowhook keeps the clients off the network only on Linux (a network namespace with loopback only)"}
}

// netOf is "" where there are no network namespaces.
func netOf(string) string { return "" }

// owned is false where prove does not check ownership: a stale copy is
// left alone there.
func owned(os.FileInfo) bool { return false }
