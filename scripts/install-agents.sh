#!/bin/sh
# install-agents.sh installs the agent clients that nowhook's real-agent
# tests (cmd/nowhook/e2e) run, with npm, into a cache directory outside the
# repository, and reuses a client when that version is already there. The
# pins (which clients, which npm package, which version) are the lines of
# scripts/pins.tsv, the one place they are written down.
#
# Usage:
#   eval "$(sh scripts/install-agents.sh)"   # every pin; exports CLAUDE_BIN, CODEX_BIN, ...
#   sh scripts/install-agents.sh codex@0.172.0   # another version (scripts/drift.sh)
#   sh scripts/install-agents.sh droid@0.226.0/0.226.1   # launcher/binary package
#   sh scripts/install-agents.sh --pins          # the pin table, checked
#
# Cache: $NOWHOOK_AGENT_CACHE, default $HOME/.cache/nowhook/agents, holding
# one folder per pinned client, node<MAJOR> for the Node.js a pin names as
# its runtime (Kimi Code's node22), and drift/AGENT for the one other
# version of each that was asked for last. Progress goes to stderr; stdout carries
# only the export lines.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
pins_file=$here/pins.tsv
tab=$(printf '\t')
work=

say() {
	printf 'install-agents: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

usage() {
	cat <<USAGE
usage: install-agents.sh [AGENT[@VERSION] ...]
       install-agents.sh --pins

Installs the pinned agent clients of scripts/pins.tsv with npm into
\${NOWHOOK_AGENT_CACHE:-\$HOME/.cache/nowhook/agents}/AGENT, reusing them when
present, and prints one line per client:
  export CLAUDE_BIN='...'
Use it as: eval "\$(sh scripts/install-agents.sh)"
With arguments, installs only the agents named, each at its pin or at
VERSION (a version other than the pin goes to .../drift/AGENT, replacing
the one there). For a client whose pin names a binary package (the fifth
field), VERSION is LAUNCHER/BINARY, or one version for both; one whose pin
names a runtime (node:PACKAGE@VERSION) runs under that node, installed
into .../node<MAJOR>, through a launcher in .../AGENT/bin, whatever VERSION
says. --pins prints the pin table (agent, package, version, binary and the
fifth field, if any; tab-separated) after checking it.
USAGE
}

# pins prints the lines of pins.tsv that are not comments or blank, after
# checking that each has four fields or five; otherwise it prints nothing
# and fails naming each bad line.
pins() {
	[ -f "$pins_file" ] || die "$pins_file: missing (it holds the pinned clients)"
	awk -F '\t' -v file="$pins_file" '
		/^#/ || /^[ \t]*$/ { next }
		(NF != 4 && NF != 5) || $1 !~ /^[a-z][a-z0-9]*$/ || $2 == "" || $3 !~ /^[0-9][0-9A-Za-z.+-]*$/ || $4 == "" ||
		(NF == 5 && $5 !~ /^(node:)?@?[^@]+@[0-9][0-9A-Za-z.+-]*$/) {
			printf "install-agents: %s:%d: want four tab-separated fields (agent, npm package, version, binary) and an optional fifth (binary package PACKAGE@VERSION, or runtime node:PACKAGE@VERSION), got: %s\n", file, NR, $0 > "/dev/stderr"
			bad = 1
			next
		}
		{ ok = ok $0 "\n" }
		END {
			if (bad) exit 1
			printf "%s", ok
		}
	' "$pins_file" || exit 1
}

# pin AGENT: the pin line of AGENT in $table, or a failure naming the
# agents pinned.
pin() {
	line=$(printf '%s\n' "$table" | awk -F '\t' -v a="$1" '$1 == a')
	[ -n "$line" ] || die "no pin for '$1' in $pins_file (pinned: $(printf '%s\n' "$table" | cut -f1 | paste -sd ' ' -))"
	printf '%s\n' "$line"
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
# throwaway folder: some clients write their state on every start
# (Continue CLI its logs). XDG_CACHE_HOME is the client's own folder's
# .cache, kept: Copilot CLI unpacks its 235 MB package there at its first
# start (6 s), and would at every check in a fresh one. With $runner set
# (a client pinned with a runtime), BIN runs under that node.
binary_version() {
	[ -x "$1" ] || return 0
	vhome=$(mktemp -d "$work/home.XXXXXX")
	HOME=$vhome XDG_CACHE_HOME=${1%/node_modules/.bin/*}/.cache ${runner:+"$runner"} "$1" --version 2>/dev/null | head -n 1 || true
	rm -rf "$vhome"
}

# all_installed DIR PACKAGE@VERSION...: true when each package is in DIR
# at its version.
all_installed() {
	dir=$1
	shift
	for spec in "$@"; do
		[ "$(installed_version "$dir" "${spec%@*}")" = "${spec##*@}" ] || return 1
	done
}

# ensure DIR BINNAME WANT PACKAGE@VERSION...: installs the packages into
# DIR unless they are there at their versions and BINNAME --version prints
# WANT, and prints the binary's path.
ensure() {
	dir=$1 binname=$2 want=$3
	shift 3
	bin=$dir/node_modules/.bin/$binname
	if all_installed "$dir" "$@"; then
		case $(binary_version "$bin") in
		*"$want"*)
			say "reusing $* in $dir"
			printf '%s\n' "$bin"
			return 0
			;;
		esac
	fi
	say "installing $* into $dir"
	staging=$(mktemp -d "$work/stage.XXXXXX")
	printf '{"private": true}\n' >"$staging/package.json"
	npm install --prefix "$staging" --no-audit --no-fund --save-exact --loglevel=error \
		"$@" >&2 ||
		die "npm install $* failed"
	got=$(binary_version "$staging/node_modules/.bin/$binname")
	case $got in
	*"$want"*) ;;
	*) die "$* installed, but '$binname --version' says '$got' (want $want)" ;;
	esac
	mkdir -p "$(dirname "$dir")"
	rm -rf "$dir"
	mv "$staging" "$dir"
	say "installed $got"
	printf '%s\n' "$bin"
}

# platform: node's platform-arch (linux-x64, darwin-arm64, ...), the `%p`
# of a binary package's name.
platform() {
	node -p 'process.platform + "-" + process.arch'
}

# ensure_runtime PACKAGE@VERSION: installs the node of a runtime pin (the
# fifth field's node:PACKAGE@VERSION, `%p` node's platform-arch) into the
# cache's node<MAJOR> folder unless it is there, and prints its path.
ensure_runtime() {
	rt_name=$(printf '%s' "${1%@*}" | sed "s/%p/$(platform)/g")
	rt_version=${1##*@}
	ensure "$cache/node${rt_version%%.*}" node "v$rt_version" "$rt_name@$rt_version"
}

# write_launcher PATH NODE BIN: PATH becomes a script that runs BIN under
# NODE with its arguments (rewritten every run: it names paths in the cache).
write_launcher() {
	mkdir -p "$(dirname "$1")"
	{
		printf '#!/bin/sh\n'
		printf '# Written by scripts/install-agents.sh: runs %s under the node its pin names.\n' "$(basename "$3")"
		printf 'exec %s %s "$@"\n' "$(shell_quote "$2")" "$(shell_quote "$3")"
	} >"$1.tmp"
	chmod 755 "$1.tmp"
	mv "$1.tmp" "$1"
}

# install AGENT[@VERSION]: installs the client and prints its export line.
install() {
	agent=${1%%@*}
	want=
	case $1 in *@*) want=${1#*@} ;; esac
	line=$(pin "$agent")
	IFS=$tab read -r _ package version binname binpkg <<EOF
$line
EOF
	dir=$cache/$agent
	runner=
	case $binpkg in
	node:*)
		runner=$(ensure_runtime "${binpkg#node:}")
		binpkg=
		;;
	esac
	if [ -z "$binpkg" ]; then
		case $want in */*) die "$agent@$want: the pin of '$agent' names no binary package, so give one version" ;; esac
		if [ -n "$want" ] && [ "$want" != "$version" ]; then
			dir=$cache/drift/$agent
			version=$want
		fi
		set -- "$package@$version"
		reports=$version
	else
		binpkg_name=$(printf '%s' "${binpkg%@*}" | sed "s/%p/$(platform)/g")
		binpkg_version=${binpkg##*@}
		if [ -n "$want" ] && [ "$want" != "$version/$binpkg_version" ]; then
			dir=$cache/drift/$agent
			version=${want%%/*}
			binpkg_version=${want#*/}
		fi
		set -- "$package@$version" "$binpkg_name@$binpkg_version"
		reports=$binpkg_version
	fi
	bin=$(ensure "$dir" "$binname" "$reports" "$@")
	if [ -n "$runner" ]; then
		write_launcher "$dir/bin/$binname" "$runner" "$bin"
		bin=$dir/bin/$binname
	fi
	printf 'export %s_BIN=%s\n' "$(printf '%s' "$agent" | tr '[:lower:]' '[:upper:]')" "$(shell_quote "$bin")"
}

main() {
	case ${1:-} in
	-h | --help)
		usage
		return 0
		;;
	--pins)
		[ $# -eq 1 ] || {
			usage >&2
			return 2
		}
		pins
		return 0
		;;
	-*)
		usage >&2
		return 2
		;;
	esac
	table=$(pins)
	command -v npm >/dev/null 2>&1 || die "npm not found on PATH (install Node.js 18 or later)"
	command -v node >/dev/null 2>&1 || die "node not found on PATH (install Node.js 18 or later)"
	cache=${NOWHOOK_AGENT_CACHE:-${HOME:?HOME is not set}/.cache/nowhook/agents}
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd -P)
	# Staging lives inside the cache so the final mv is a rename.
	work=$(mktemp -d "$cache/.install.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM

	if [ $# -eq 0 ]; then
		# shellcheck disable=SC2046 # agent names are single words
		set -- $(printf '%s\n' "$table" | cut -f1)
	fi
	for a in "$@"; do
		install "$a"
	done
}

main "$@"
