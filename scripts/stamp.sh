#!/bin/sh
# stamp.sh prints the linker flags that stamp a nowhook build with its
# version and commit (cmd/internal/version), for install.sh and
# scripts/release.sh:
#
#   -X github.com/nowhook/nowhook/cmd/internal/version.stamp=VERSION
#   -X github.com/nowhook/nowhook/cmd/internal/version.stampCommit=HASH
#
# usage: sh scripts/stamp.sh [VERSION]
#
# VERSION, when given, is the version (release.sh passes its own). Without
# it, the version is the one the Go toolchain gives a module at this
# commit: the tag vX.Y.Z when the commit has one, otherwise a
# pseudo-version (v0.0.0-YYYYMMDDHHMMSS-HASH12, or vX.Y.(Z+1)-0.… after
# the last tag vX.Y.Z), with +dirty when the work tree has changes. The
# commit is the full hash, with +modified when the work tree has changes.
# Outside a git checkout only a given VERSION is stamped; the rest comes
# from the Go build information ("(devel)", "unknown").
#
# The build stamps the version itself because the toolchain's own VCS
# stamping misses where users build: a git worktree, GOFLAGS=-buildvcs=false,
# a source archive.
set -eu

pkg=github.com/nowhook/nowhook/cmd/internal/version

# in_git succeeds when the checkout this script is in is the top of a git
# work tree (not a source archive unpacked inside someone else's).
in_git() {
	command -v git >/dev/null 2>&1 &&
		[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]
}

# dirty succeeds when the work tree differs from HEAD (untracked files
# that git does not ignore count, as they do for the Go toolchain).
dirty() {
	[ -n "$(git -C "$src" status --porcelain 2>/dev/null)" ]
}

# pseudo prints the Go pseudo-version of HEAD.
pseudo() {
	hash=$(git -C "$src" rev-parse --short=12 HEAD)
	when=$(TZ=UTC git -C "$src" log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)
	if tag=$(git -C "$src" describe --tags --exact-match --match 'v[0-9]*.[0-9]*.[0-9]*' HEAD 2>/dev/null); then
		printf '%s\n' "$tag"
	elif base=$(git -C "$src" describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' HEAD 2>/dev/null); then
		case $base in
		*-*) printf '%s.0.%s-%s\n' "$base" "$when" "$hash" ;;
		*)
			patch=${base##*.}
			printf '%s.%s-0.%s-%s\n' "${base%.*}" "$((patch + 1))" "$when" "$hash"
			;;
		esac
	else
		printf 'v0.0.0-%s-%s\n' "$when" "$hash"
	fi
}

main() {
	src=$(cd "$(dirname "$0")/.." && pwd -P)
	version=${1:-}
	commit=
	if in_git; then
		commit=$(git -C "$src" rev-parse HEAD)
		if [ -z "$version" ]; then
			version=$(pseudo)
			if dirty; then
				version=$version+dirty
			fi
		fi
		if dirty; then
			commit=$commit+modified
		fi
	fi
	flags=
	if [ -n "$version" ]; then
		flags="-X $pkg.stamp=$version"
	fi
	if [ -n "$commit" ]; then
		flags="$flags -X $pkg.stampCommit=$commit"
	fi
	printf '%s\n' "${flags# }"
}

main "$@"
