#!/usr/bin/env bash
# release.sh builds every artifact of a nowhook release into DIR, from this
# checkout:
#
#   DIR/nowhook_V_OS_ARCH.tar.gz    linux and darwin, amd64 and arm64
#   DIR/nowhook_V_windows_ARCH.zip  windows, amd64 and arm64
#       each: nowhook_V_OS_ARCH/ with nowhook and nowhook-reminder (.exe on
#       Windows), README.md and LICENSE
#   DIR/npm/nowhook-V.tgz           the npm launcher package `nowhook`
#   DIR/npm/nowhook-P-A-V.tgz       one npm package per platform (P linux,
#       darwin or win32; A x64 or arm64) holding both binaries, which the
#       launcher names in optionalDependencies with its own version
#   DIR/nowhook.rb                  the Homebrew formula for the archives
#   DIR/SHA256SUMS                  sha256sum of every file above
#
# usage: scripts/release.sh VERSION DIR
#
# VERSION is semver, with or without the leading v (1.2.3, v1.2.3,
# 0.0.0-test); the binaries print vVERSION, the npm packages carry VERSION.
# DIR must be empty or absent.
#
# Reproducible: the same checkout, Go toolchain and VERSION give the same
# bytes. The binaries are built with -trimpath, -buildvcs=false and a
# stamped version and commit (scripts/stamp.sh), without cgo, with
# GOFLAGS cleared and the GOAMD64/GOARM64 levels fixed; every file put into
# an archive or npm package gets the same mtime (SOURCE_DATE_EPOCH, else
# the commit time of HEAD), mode, owner and order; gzip -n leaves out the
# name and time; zip -X leaves out owners and extra times, under TZ=UTC.
# npm pack sets a fixed mtime of its own, and keeps the modes given here.
# scripts/releasetest builds twice and compares.
#
# Environment:
#   SOURCE_DATE_EPOCH   the files' mtime (default: the commit time of HEAD)
#   NOWHOOK_RELEASE_URL where the Homebrew formula finds the archives
#                       (default: https://github.com/nowhook/nowhook/releases/download/vVERSION)
#   NOWHOOK_RELEASE_PLATFORMS
#                       build only these platforms (GOOS/GOARCH, separated
#                       by spaces), for a quick try of the packages on one
#                       machine; the launcher still names all six platform
#                       packages, and without the four macOS and Linux
#                       archives there is no formula. A release builds all.
#
# Needs go, GNU tar, gzip, zip, npm and sha256sum; git for the commit.
set -euo pipefail

# The platforms of a release, as GOOS/GOARCH.
PLATFORMS=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)

REPOSITORY=https://github.com/nowhook/nowhook
DESCRIPTION="Brings a team's Kanbus work in progress back into coding agents right after every context compaction"

work=

say() {
	printf 'release.sh: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

cleanup() {
	[ -z "$work" ] || rm -rf "$work"
}

# need CMD... fails naming the first command that is not on PATH.
need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "$c is not on PATH; release.sh needs go, GNU tar, gzip, zip, npm and sha256sum"
	done
}

# npm_os and npm_cpu print Node's names (process.platform, process.arch)
# for a GOOS and a GOARCH.
npm_os() {
	case $1 in
	windows) echo win32 ;;
	*) echo "$1" ;;
	esac
}

npm_cpu() {
	case $1 in
	amd64) echo x64 ;;
	*) echo "$1" ;;
	esac
}

# exe prints the executable suffix for a GOOS.
exe() {
	if [ "$1" = windows ]; then
		echo .exe
	fi
}

# normalize DIR gives every file and folder under DIR the release's mtime
# and fixed modes: 0755 for folders and for the files named as
# executables (the rest of the arguments, relative to DIR), 0644 for the
# others.
normalize() {
	local dir=$1 f
	shift
	find "$dir" -type d -exec chmod 0755 {} +
	find "$dir" -type f -exec chmod 0644 {} +
	for f in "$@"; do
		chmod 0755 "$dir/$f"
	done
	find "$dir" -exec touch -h -d "@$epoch" {} +
}

# build GOOS GOARCH compiles both binaries into $work/bin/GOOS_GOARCH.
build() {
	local goos=$1 goarch=$2 dest=$work/bin/$1_$2
	mkdir -p "$dest"
	(cd "$src" && env GOFLAGS= CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" GOAMD64=v1 GOARM64=v8.0 \
		go build -trimpath -buildvcs=false -ldflags "-s -w $stamp" -o "$dest/" ./cmd/nowhook ./cmd/nowhook-reminder) ||
		die "go build for $goos/$goarch failed"
}

# archive GOOS GOARCH writes the tar.gz (zip for Windows) of one platform.
archive() {
	local goos=$1 goarch=$2 x name stage
	x=$(exe "$goos")
	name=nowhook_${version}_${goos}_${goarch}
	stage=$work/archive/$name
	mkdir -p "$stage"
	cp "$work/bin/${goos}_$goarch/nowhook$x" "$work/bin/${goos}_$goarch/nowhook-reminder$x" "$stage/"
	cp "$src/README.md" "$src/LICENSE" "$stage/"
	normalize "$stage" "nowhook$x" "nowhook-reminder$x"
	if [ "$goos" = windows ]; then
		(cd "$work/archive" && TZ=UTC zip -q -X -9 "$out/$name.zip" \
			"$name/LICENSE" "$name/README.md" "$name/nowhook-reminder$x" "$name/nowhook$x")
	else
		tar --sort=name --format=ustar --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
			-C "$work/archive" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
	fi
}

# npm_platform GOOS GOARCH writes the npm package of one platform.
npm_platform() {
	local goos=$1 goarch=$2 x os cpu pkg dir
	x=$(exe "$goos")
	os=$(npm_os "$goos")
	cpu=$(npm_cpu "$goarch")
	pkg=nowhook-$os-$cpu
	dir=$work/npm/$pkg
	mkdir -p "$dir/bin"
	cp "$work/bin/${goos}_$goarch/nowhook$x" "$work/bin/${goos}_$goarch/nowhook-reminder$x" "$dir/bin/"
	cp "$src/LICENSE" "$dir/"
	# preferUnplugged: Yarn's Plug'n'Play keeps packages zipped unless
	# told otherwise, and a binary inside a zip cannot be run.
	cat >"$dir/package.json" <<EOF
{
  "name": "$pkg",
  "version": "$version",
  "description": "nowhook's binaries for $os on $cpu; install the package nowhook, which picks this one",
  "license": "MIT",
  "homepage": "$REPOSITORY",
  "repository": {
    "type": "git",
    "url": "git+$REPOSITORY.git"
  },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/"],
  "preferUnplugged": true
}
EOF
	cat >"$dir/README.md" <<EOF
# $pkg

The \`nowhook\` and \`nowhook-reminder\` binaries of [nowhook]($REPOSITORY) $version
for $os on $cpu. Install the package \`nowhook\` (\`npm install -g nowhook\`, or
\`npx nowhook setup\`): it lists this package in its optionalDependencies, npm
installs the one that fits the machine, and its launcher runs the binary.
EOF
	normalize "$dir" "bin/nowhook$x" "bin/nowhook-reminder$x"
	pack "$dir"
}

# npm_launcher writes the launcher package nowhook, whose
# optionalDependencies are the platform packages of the same version.
npm_launcher() {
	local dir=$work/npm/nowhook p goos goarch deps=
	mkdir -p "$dir"
	cp -R "$src/scripts/npm/nowhook/." "$dir/"
	cp "$src/README.md" "$src/LICENSE" "$dir/"
	for p in "${PLATFORMS[@]}"; do
		goos=${p%/*}
		goarch=${p#*/}
		deps="$deps${deps:+,
}    \"nowhook-$(npm_os "$goos")-$(npm_cpu "$goarch")\": \"$version\""
	done
	cat >"$dir/package.json" <<EOF
{
  "name": "nowhook",
  "version": "$version",
  "description": "$DESCRIPTION",
  "keywords": ["claude-code", "codex", "kanbus", "hooks", "compaction", "agents"],
  "license": "MIT",
  "homepage": "$REPOSITORY",
  "repository": {
    "type": "git",
    "url": "git+$REPOSITORY.git"
  },
  "bin": {
    "nowhook": "bin/nowhook.js",
    "nowhook-reminder": "bin/nowhook-reminder.js"
  },
  "files": ["bin/", "lib/"],
  "engines": {
    "node": ">=16"
  },
  "optionalDependencies": {
$deps
  }
}
EOF
	normalize "$dir" bin/nowhook.js bin/nowhook-reminder.js
	pack "$dir"
}

# pack DIR runs npm pack on a package folder into $out/npm, without
# scripts (the packages have none) and without asking the registry.
pack() {
	(cd "$work" && npm pack --ignore-scripts --offline --silent --pack-destination "$out/npm" "$1" >/dev/null) ||
		die "npm pack $1 failed"
}

# sum FILE prints the sha256 of FILE.
sum() {
	sha256sum "$1" | cut -d ' ' -f 1
}

# formula_entry GOOS GOARCH prints the url and sha256 lines of one archive.
formula_entry() {
	local name=nowhook_${version}_$1_$2.tar.gz
	printf '      url "%s/%s"\n      sha256 "%s"\n' "$url" "$name" "$(sum "$out/$name")"
}

# formula writes the Homebrew formula for the four macOS and Linux archives.
formula() {
	local url=${NOWHOOK_RELEASE_URL:-$REPOSITORY/releases/download/v$version}
	local f=$out/nowhook.rb
	{
		printf '# Generated by scripts/release.sh from the archives of nowhook %s.\n' "$version"
		printf 'class Nowhook < Formula\n'
		printf '  desc "Re-injects Kanbus work in progress into coding agents after compaction"\n'
		printf '  homepage "%s"\n' "$REPOSITORY"
		printf '  version "%s"\n' "$version"
		printf '  license "MIT"\n\n'
		printf '  on_macos do\n    on_arm do\n'
		formula_entry darwin arm64
		printf '    end\n    on_intel do\n'
		formula_entry darwin amd64
		printf '    end\n  end\n\n'
		printf '  on_linux do\n    on_arm do\n'
		formula_entry linux arm64
		printf '    end\n    on_intel do\n'
		formula_entry linux amd64
		printf '    end\n  end\n\n'
		printf '  def install\n    bin.install "nowhook", "nowhook-reminder"\n  end\n\n'
		printf '  test do\n'
		# shellcheck disable=SC2016 # Ruby interpolation, not shell
		printf '    assert_match "nowhook v#{version},", shell_output("#{bin}/nowhook version")\n'
		# shellcheck disable=SC2016
		printf '    assert_match "nowhook-reminder v#{version},", shell_output("#{bin}/nowhook-reminder --version")\n'
		printf '  end\nend\n'
	} >"$f"
}

main() {
	[ $# -eq 2 ] || die "usage: scripts/release.sh VERSION DIR (VERSION like 1.2.3 or v1.2.3; DIR empty or absent)"
	version=${1#v}
	[[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] ||
		die "VERSION $1 is not semver (MAJOR.MINOR.PATCH with an optional -PRERELEASE, such as 1.2.3 or 0.0.0-test)"
	export LC_ALL=C # one order for globs and sorts, whoever runs it
	need go tar gzip zip npm sha256sum
	tar --version 2>/dev/null | grep -q 'GNU tar' || die "tar is not GNU tar (--sort=name and --mtime are needed for reproducible archives); install GNU tar (gtar)"
	src=$(cd "$(dirname "$0")/.." && pwd)
	mkdir -p "$2"
	out=$(cd "$2" && pwd)
	[ -z "$(ls -A "$out")" ] || die "$out is not empty; give an empty or new folder"
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		epoch=$SOURCE_DATE_EPOCH
	else
		epoch=$(git -C "$src" log -1 --format=%ct HEAD 2>/dev/null) ||
			die "no git commit to take the files' time from; set SOURCE_DATE_EPOCH"
	fi
	stamp=$(sh "$src/scripts/stamp.sh" "v$version")
	case $stamp in
	*+modified*) say "warning: the work tree has changes that are not committed; the binaries say so (commit …+modified)" ;;
	esac
	work=$(mktemp -d)
	trap cleanup EXIT INT TERM
	mkdir -p "$out/npm"
	local p built
	read -r -a built <<<"${NOWHOOK_RELEASE_PLATFORMS:-${PLATFORMS[*]}}"
	for p in "${built[@]}"; do
		[[ " ${PLATFORMS[*]} " == *" $p "* ]] || die "NOWHOOK_RELEASE_PLATFORMS: $p is not one of ${PLATFORMS[*]}"
		say "building ${p%/*}/${p#*/}"
		build "${p%/*}" "${p#*/}"
		archive "${p%/*}" "${p#*/}"
		npm_platform "${p%/*}" "${p#*/}"
	done
	npm_launcher
	if [ -f "$out/nowhook_${version}_darwin_arm64.tar.gz" ] && [ -f "$out/nowhook_${version}_darwin_amd64.tar.gz" ] &&
		[ -f "$out/nowhook_${version}_linux_arm64.tar.gz" ] && [ -f "$out/nowhook_${version}_linux_amd64.tar.gz" ]; then
		formula
	else
		say "no Homebrew formula: NOWHOOK_RELEASE_PLATFORMS left out a macOS or Linux archive"
	fi
	(cd "$out" && shopt -s nullglob && sha256sum -- *.tar.gz *.zip *.rb npm/*.tgz >SHA256SUMS)
	say "wrote nowhook $version to $out:"
	(cd "$out" && shopt -s nullglob && for f in *.tar.gz *.zip *.rb SHA256SUMS npm/*.tgz; do
		printf '  %10s  %s\n' "$(wc -c <"$f")" "$f"
	done) >&2
}

main "$@"
