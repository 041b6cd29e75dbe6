#!/bin/sh
# install.sh builds nowhook from this checkout with `go build` and installs
# the binary where it will be on PATH for the user running it:
#   root:        /usr/local/bin/nowhook
#   other users: $HOME/.local/bin/nowhook (created if needed)
# BINDIR=/some/dir ./install.sh installs there instead.
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

main() {
	command -v go >/dev/null 2>&1 || die "go is not on PATH; install Go 1.26 or later from https://go.dev/dl/ and run ./install.sh again"
	src=$(cd "$(dirname "$0")" && pwd)
	[ -f "$src/go.mod" ] || die "run install.sh from a checkout of nowhook (no go.mod in $src)"
	dir=$(bindir)
	work=$(mktemp -d)
	trap cleanup EXIT INT TERM
	say "building nowhook from $src"
	(cd "$src" && go build -trimpath -o "$work/nowhook" ./cmd/nowhook)
	mkdir -p "$dir"
	# Install through a temporary name and a rename, so a running hook
	# never sees a half-written binary.
	cp "$work/nowhook" "$dir/.nowhook.new"
	chmod 0755 "$dir/.nowhook.new"
	mv -f "$dir/.nowhook.new" "$dir/nowhook"
	say "installed $("$dir/nowhook" version) to $dir/nowhook"
	if ! on_path "$dir"; then
		say "$dir is not on your PATH; add it, e.g.: export PATH=\"$dir:\$PATH\""
	fi
}

main "$@"
