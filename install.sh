#!/bin/sh
# install.sh builds nowhook from this checkout with `go build` and installs
# it where it will be on PATH for the user running it:
#   root:        /usr/local/bin
#   other users: $HOME/.local/bin (created if needed)
# BINDIR=/some/dir ./install.sh installs there instead. Two binaries:
# nowhook, and nowhook-reminder, the hook runtime alone, which the hooks
# prefer because it starts faster. Both are stamped with the version and
# commit of the checkout (scripts/stamp.sh: the tag, or Go's
# pseudo-version of the commit); NOWHOOK_VERSION=vX.Y.Z ./install.sh names
# the version instead (for a source archive, which has no git history).
set -eu

work=

say() {
	printf 'install.sh: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

cleanup() {
	[ -z "$work" ] || rm -rf "$work"
}

# bindir prints the directory to install into.
bindir() {
	if [ -n "${BINDIR:-}" ]; then
		printf '%s\n' "$BINDIR"
	elif [ "$(id -u)" = 0 ]; then
		printf '%s\n' /usr/local/bin
	else
		printf '%s\n' "$HOME/.local/bin"
	fi
}

# on_path DIR succeeds when DIR is one of PATH's entries.
on_path() {
	case ":$PATH:" in
	*":$1:"*) return 0 ;;
	esac
	return 1
}

# install_binary SRC DEST copies through a temporary name and a rename, so
# a hook running at that moment never sees a half-written binary.
install_binary() {
	cp "$1" "$2.new"
	chmod 0755 "$2.new"
	mv -f "$2.new" "$2"
}

main() {
	command -v go >/dev/null 2>&1 || die "go is not on PATH; install Go 1.26 or later from https://go.dev/dl/ and run ./install.sh again"
	src=$(cd "$(dirname "$0")" && pwd)
	[ -f "$src/go.mod" ] || die "run install.sh from a checkout of nowhook (no go.mod in $src)"
	dir=$(bindir)
	work=$(mktemp -d)
	trap cleanup EXIT INT TERM
	# A cold module cache makes the first build take half a minute: say
	# what is happening at each step rather than sitting silent.
	say "fetching the Go modules nowhook needs (go mod download; quick when they are cached)"
	(cd "$src" && go mod download) || die "go mod download failed in $src; check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY)) and run ./install.sh again"
	# Static binaries (no cgo) start quicker; the hook starts at every
	# compaction. The stamp gives `nowhook version` the version and commit
	# wherever the toolchain's own VCS stamping would not (a git worktree,
	# GOFLAGS=-buildvcs=false), so that stamping is off. -s -w, as the
	# release archives are built (scripts/release.sh): without the symbol
	# table and DWARF the hook's binary is a third smaller, and starts
	# about 0.1 ms sooner (scripts/bench-reminder.sh builds it so too).
	stamp=$(sh "$src/scripts/stamp.sh" "${NOWHOOK_VERSION:-}") || die "scripts/stamp.sh failed in $src"
	say "building nowhook from $src"
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w $stamp" -o "$work/nowhook" ./cmd/nowhook)
	say "building nowhook-reminder, the hook runtime"
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w $stamp" -o "$work/nowhook-reminder" ./cmd/nowhook-reminder)
	mkdir -p "$dir"
	install_binary "$work/nowhook" "$dir/nowhook"
	install_binary "$work/nowhook-reminder" "$dir/nowhook-reminder"
	say "installed $("$dir/nowhook" version | head -n 1) to $dir/nowhook and $dir/nowhook-reminder"
	if ! on_path "$dir"; then
		say "$dir is not on your PATH; add it, e.g.: export PATH=\"$dir:\$PATH\""
	fi
}

main "$@"
