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
#   sh scripts/install-agents.sh --pins          # the pin table, checked
#
# Cache: $NOWHOOK_AGENT_CACHE, default $HOME/.cache/nowhook/agents, holding
# one folder per pinned client, and drift/AGENT for the one other version
# of each that was asked for last. Progress goes to stderr; stdout carries
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
the one there). --pins prints the pin table (agent, package, version,
binary; tab-separated) after checking it.
USAGE
}

# pins prints the lines of pins.tsv that are not comments or blank, after
# checking that each has four fields; otherwise it prints nothing and fails
# naming each bad line.
pins() {
	[ -f "$pins_file" ] || die "$pins_file: missing (it holds the pinned clients)"
	awk -F '\t' -v file="$pins_file" '
		/^#/ || /^[ \t]*$/ { next }
		NF != 4 || $1 !~ /^[a-z][a-z0-9]*$/ || $2 == "" || $3 !~ /^[0-9][0-9A-Za-z.+-]*$/ || $4 == "" {
			printf "install-agents: %s:%d: want four tab-separated fields (agent, npm package, version, binary), got: %s\n", file, NR, $0 > "/dev/stderr"
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

# binary_version BIN: first line of BIN --version, or nothing.
binary_version() {
	[ -x "$1" ] || return 0
	"$1" --version 2>/dev/null | head -n 1 || true
}

# ensure DIR PACKAGE VERSION BINNAME: installs PACKAGE@VERSION into DIR
# unless it is there and runs, and prints the binary's path.
ensure() {
	dir=$1 package=$2 version=$3 binname=$4
	bin=$dir/node_modules/.bin/$binname
	if [ "$(installed_version "$dir" "$package")" = "$version" ]; then
		case $(binary_version "$bin") in
		*"$version"*)
			say "reusing $package@$version in $dir"
			printf '%s\n' "$bin"
			return 0
			;;
		esac
	fi
	say "installing $package@$version into $dir"
	staging=$(mktemp -d "$work/stage.XXXXXX")
	printf '{"private": true}\n' >"$staging/package.json"
	npm install --prefix "$staging" --no-audit --no-fund --save-exact --loglevel=error \
		"$package@$version" >&2 ||
		die "npm install $package@$version failed"
	got=$(binary_version "$staging/node_modules/.bin/$binname")
	case $got in
	*"$version"*) ;;
	*) die "$package@$version installed, but '$binname --version' says '$got'" ;;
	esac
	mkdir -p "$(dirname "$dir")"
	rm -rf "$dir"
	mv "$staging" "$dir"
	say "installed $got"
	printf '%s\n' "$bin"
}

# install AGENT[@VERSION]: installs the client and prints its export line.
install() {
	agent=${1%%@*}
	want=
	case $1 in *@*) want=${1#*@} ;; esac
	line=$(pin "$agent")
	IFS=$tab read -r _ package version binname <<EOF
$line
EOF
	dir=$cache/$agent
	if [ -n "$want" ] && [ "$want" != "$version" ]; then
		version=$want
		dir=$cache/drift/$agent
	fi
	bin=$(ensure "$dir" "$package" "$version" "$binname")
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
