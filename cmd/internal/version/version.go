// Package version says which nowhook a binary is, for `nowhook version`
// and `nowhook-reminder --version`. It uses the standard library alone:
// the hook binary links it.
//
// A binary learns its version one of three ways:
//   - `go install github.com/nowhook/nowhook/cmd/nowhook@vX.Y.Z`: the Go
//     toolchain records vX.Y.Z as the main module's version in the build
//     information;
//   - scripts/release.sh and install.sh stamp it with the linker:
//     -ldflags "-X github.com/nowhook/nowhook/cmd/internal/version.stamp=vX.Y.Z
//     -X github.com/nowhook/nowhook/cmd/internal/version.stampCommit=HASH";
//   - a plain `go build` in a checkout: Go 1.24 and later record a
//     pseudo-version from the commit (v0.0.0-DATE-HASH, +dirty when the
//     tree has changes), or (devel) where VCS stamping is off.
//
// A stamp wins over the build information: release builds run with
// -buildvcs=false, so that the same inputs give the same bytes.
package version

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Set with -ldflags -X by scripts/release.sh and install.sh; empty
// otherwise. stampCommit may end in "+modified" for a tree with changes.
var (
	stamp       string
	stampCommit string
)

// Info is what a binary knows about its own build.
type Info struct {
	Version  string // vX.Y.Z, a pseudo-version, or (devel)
	Commit   string // the commit hash, or "unknown"
	Modified bool   // the tree had changes the commit does not hold
	Go       string // the toolchain, e.g. go1.26.0
}

// Read returns this binary's Info.
func Read() Info {
	info := Info{Version: "(devel)", Commit: "unknown", Go: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.Go = bi.GoVersion
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if stamp != "" {
		info.Version = stamp
	}
	if stampCommit != "" {
		info.Commit, info.Modified = stampCommit, false
		if c, ok := strings.CutSuffix(stampCommit, "+modified"); ok {
			info.Commit, info.Modified = c, true
		}
	}
	return info
}

// String is the first line of `NAME version`: "NAME vX.Y.Z, commit HASH,
// built with goX.Y.Z", with " (modified)" after the hash for a tree with
// changes.
func (i Info) String(name string) string {
	modified := ""
	if i.Modified {
		modified = " (modified)"
	}
	return fmt.Sprintf("%s %s, commit %s%s, built with %s", name, i.Version, i.Commit, modified, i.Go)
}
