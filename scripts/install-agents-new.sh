#!/bin/sh
# install-agents-new.sh installs the pinned clients of the agents issue 17
# adds (Factory Droid, Cline, Auggie, Continue CLI, Crush) with npm into a
# cache directory outside the repository, reuses them when the pinned
# version is already there, and prints the variables the probe tests in
# cmd/nowhook/e2e (probe_*_test.go) read.
#
# Usage:
#   eval "$(scripts/install-agents-new.sh)"   # exports DROID_BIN, CLINE_BIN, AUGGIE_BIN, CONTINUE_BIN (and CRUSH_BIN when it installs)
#
# Cache: $NOWHOOK_AGENT_CACHE, default $HOME/.cache/nowhook/agents, one folder
# per client. Progress goes to stderr; stdout carries only the export lines.
#
# Two packages need more than `npm install PACKAGE@VERSION`:
# - @factory/cli 0.225.1 is a launcher whose platform binary is a separate
#   package; the registry has that package only as 0.225.2, so both are
#   installed side by side and `droid --version` prints 0.225.2.
# - @charmland/crush downloads its binary from GitHub in an install script,
#   which fails where only the npm registry is reachable; the script then
#   says so and exports no CRUSH_BIN (set CRUSH_BIN to a crush you built).
set -eu

DROID_PACKAGE=@factory/cli
DROID_VERSION=0.225.1
DROID_BINARY_VERSION=0.225.2
CLINE_PACKAGE=cline
CLINE_VERSION=3.0.65
AUGGIE_PACKAGE=@augmentcode/auggie
AUGGIE_VERSION=0.36.0
CONTINUE_PACKAGE=@continuedev/cli
CONTINUE_VERSION=1.5.47
CRUSH_PACKAGE=@charmland/crush
CRUSH_VERSION=0.96.1

work=

say() {
	printf 'install-agents-new: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

usage() {
	cat <<USAGE
usage: install-agents-new.sh

Installs $DROID_PACKAGE@$DROID_VERSION, $CLINE_PACKAGE@$CLINE_VERSION,
$AUGGIE_PACKAGE@$AUGGIE_VERSION, $CONTINUE_PACKAGE@$CONTINUE_VERSION and
$CRUSH_PACKAGE@$CRUSH_VERSION with npm into
\${NOWHOOK_AGENT_CACHE:-\$HOME/.cache/nowhook/agents}/{droid,cline,auggie,continue,crush},
reusing them when present, and prints:
  export DROID_BIN='...'
  export CLINE_BIN='...'
  export AUGGIE_BIN='...'
  export CONTINUE_BIN='...'
  export CRUSH_BIN='...'      (only when crush installed)
Use it as: eval "\$(scripts/install-agents-new.sh)"
USAGE
}

# shell_quote VALUE: VALUE quoted for sh.
shell_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# installed_version DIR PACKAGE: the version of PACKAGE installed under DIR,
# or nothing.
installed_version() {
	manifest="$1/node_modules/$2/package.json"
	[ -f "$manifest" ] || return 0
	node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "$manifest" 2>/dev/null || true
}

# binary_version BIN: first line of BIN --version, or nothing. HOME is a
# throwaway folder: some clients write their state on every start.
binary_version() {
	[ -x "$1" ] || return 0
	vhome=$(mktemp -d)
	HOME=$vhome "$1" --version 2>/dev/null | head -n 1 || true
	rm -rf "$vhome"
}

# droid_platform: the npm package holding Factory Droid's binary for this
# machine.
droid_platform() {
	case $(uname -s)-$(uname -m) in
	Linux-x86_64) echo @factory/cli-linux-x64 ;;
	Linux-aarch64 | Linux-arm64) echo @factory/cli-linux-arm64 ;;
	Darwin-arm64) echo @factory/cli-darwin-arm64 ;;
	Darwin-x86_64) echo @factory/cli-darwin-x64 ;;
	*) die "no Factory Droid binary package for $(uname -s) $(uname -m)" ;;
	esac
}

# ensure NAME BINNAME WANT PACKAGE@VERSION...: installs the packages into
# $cache/NAME unless the first one is there at its version and BINNAME
# --version prints WANT; prints the binary's path. Returns 1 (after saying
# why) when npm fails.
ensure() {
	name=$1 binname=$2 want=$3
	shift 3
	dir=$cache/$name
	bin=$dir/node_modules/.bin/$binname
	first=$1
	package=${first%@*}
	version=${first##*@}
	if [ "$(installed_version "$dir" "$package")" = "$version" ]; then
		case $(binary_version "$bin") in
		*"$want"*)
			say "reusing $* in $dir"
			printf '%s\n' "$bin"
			return 0
			;;
		esac
	fi
	say "installing $* into $dir"
	staging=$work/$name
	mkdir -p "$staging"
	printf '{"private": true}\n' >"$staging/package.json"
	if ! npm install --prefix "$staging" --no-audit --no-fund --save-exact --loglevel=error "$@" >&2; then
		say "npm install $* failed"
		return 1
	fi
	got=$(binary_version "$staging/node_modules/.bin/$binname")
	case $got in
	*"$want"*) ;;
	*) die "$* installed, but '$binname --version' says '$got' (want $want)" ;;
	esac
	rm -rf "$dir"
	mv "$staging" "$dir"
	say "installed $name: $got"
	printf '%s\n' "$bin"
}

main() {
	case ${1:-} in
	-h | --help)
		usage
		return 0
		;;
	"") ;;
	*)
		usage >&2
		return 2
		;;
	esac
	command -v npm >/dev/null 2>&1 || die "npm not found on PATH (install Node.js 20 or later)"
	command -v node >/dev/null 2>&1 || die "node not found on PATH (install Node.js 20 or later)"
	cache=${NOWHOOK_AGENT_CACHE:-${HOME:?HOME is not set}/.cache/nowhook/agents}
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd -P)
	# Staging lives inside the cache so the final mv is a rename.
	work=$(mktemp -d "$cache/.install-new.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM

	droid_bin=$(ensure droid droid "$DROID_BINARY_VERSION" \
		"$DROID_PACKAGE@$DROID_VERSION" "$(droid_platform)@$DROID_BINARY_VERSION") || exit 1
	cline_bin=$(ensure cline cline "$CLINE_VERSION" "$CLINE_PACKAGE@$CLINE_VERSION") || exit 1
	auggie_bin=$(ensure auggie auggie "$AUGGIE_VERSION" "$AUGGIE_PACKAGE@$AUGGIE_VERSION") || exit 1
	continue_bin=$(ensure continue cn "$CONTINUE_VERSION" "$CONTINUE_PACKAGE@$CONTINUE_VERSION") || exit 1
	crush_bin=
	if ! crush_bin=$(ensure crush crush "$CRUSH_VERSION" "$CRUSH_PACKAGE@$CRUSH_VERSION"); then
		say "$CRUSH_PACKAGE downloads its binary from GitHub at install time; without that network there is no crush: CRUSH_BIN not set"
		crush_bin=
	fi
	printf 'export DROID_BIN=%s\n' "$(shell_quote "$droid_bin")"
	printf 'export CLINE_BIN=%s\n' "$(shell_quote "$cline_bin")"
	printf 'export AUGGIE_BIN=%s\n' "$(shell_quote "$auggie_bin")"
	printf 'export CONTINUE_BIN=%s\n' "$(shell_quote "$continue_bin")"
	if [ -n "$crush_bin" ]; then
		printf 'export CRUSH_BIN=%s\n' "$(shell_quote "$crush_bin")"
	fi
}

main "$@"
