#!/bin/sh
# install-agents.sh installs the pinned agent clients (Claude Code, Codex CLI,
# Qwen Code, OpenCode, Gemini CLI) that nowhook's real-agent tests
# (cmd/nowhook/e2e) run, with npm, into a
# cache directory outside the repository, and reuses them when the pinned
# version is already there.
#
# Usage:
#   eval "$(scripts/install-agents.sh)"     # exports CLAUDE_BIN, CODEX_BIN, QWEN_BIN, OPENCODE_BIN, GEMINI_BIN
#
# Cache: $NOWHOOK_AGENT_CACHE, default $HOME/.cache/nowhook/agents, holding
# one folder per client. Progress goes to stderr; stdout carries only the
# export lines.
set -eu

CLAUDE_PACKAGE=@anthropic-ai/claude-code
CLAUDE_VERSION=2.1.332
CODEX_PACKAGE=@openai/codex
CODEX_VERSION=0.171.0
QWEN_PACKAGE=@qwen-code/qwen-code
QWEN_VERSION=0.24.4
OPENCODE_PACKAGE=opencode-ai
OPENCODE_VERSION=1.18.33
GEMINI_PACKAGE=@google/gemini-cli
GEMINI_VERSION=0.61.0

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
usage: install-agents.sh

Installs $CLAUDE_PACKAGE@$CLAUDE_VERSION and $CODEX_PACKAGE@$CODEX_VERSION with npm
into \${NOWHOOK_AGENT_CACHE:-\$HOME/.cache/nowhook/agents}/{claude,codex}, reusing
them when present, and prints:
  export CLAUDE_BIN='...'
  export CODEX_BIN='...'
Use it as: eval "\$(scripts/install-agents.sh)"
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

# binary_version BIN: first line of BIN --version, or nothing.
binary_version() {
	[ -x "$1" ] || return 0
	"$1" --version 2>/dev/null | head -n 1 || true
}

# ensure NAME PACKAGE VERSION BINNAME: installs PACKAGE@VERSION into
# $cache/NAME unless it is there and runs, and prints the binary's path.
ensure() {
	name=$1 package=$2 version=$3 binname=$4
	dir=$cache/$name
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
	staging=$work/$name
	mkdir -p "$staging"
	printf '{"private": true}\n' >"$staging/package.json"
	npm install --prefix "$staging" --no-audit --no-fund --save-exact --loglevel=error \
		"$package@$version" >&2 ||
		die "npm install $package@$version failed"
	got=$(binary_version "$staging/node_modules/.bin/$binname")
	case $got in
	*"$version"*) ;;
	*) die "$package@$version installed, but '$binname --version' says '$got'" ;;
	esac
	rm -rf "$dir"
	mv "$staging" "$dir"
	say "installed $got"
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
	command -v npm >/dev/null 2>&1 || die "npm not found on PATH (install Node.js 18 or later)"
	command -v node >/dev/null 2>&1 || die "node not found on PATH (install Node.js 18 or later)"
	cache=${NOWHOOK_AGENT_CACHE:-${HOME:?HOME is not set}/.cache/nowhook/agents}
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd -P)
	# Staging lives inside the cache so the final mv is a rename.
	work=$(mktemp -d "$cache/.install.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM

	claude_bin=$(ensure claude "$CLAUDE_PACKAGE" "$CLAUDE_VERSION" claude)
	codex_bin=$(ensure codex "$CODEX_PACKAGE" "$CODEX_VERSION" codex)
	qwen_bin=$(ensure qwen "$QWEN_PACKAGE" "$QWEN_VERSION" qwen)
	opencode_bin=$(ensure opencode "$OPENCODE_PACKAGE" "$OPENCODE_VERSION" opencode)
	gemini_bin=$(ensure gemini "$GEMINI_PACKAGE" "$GEMINI_VERSION" gemini)
	printf 'export CLAUDE_BIN=%s\n' "$(shell_quote "$claude_bin")"
	printf 'export CODEX_BIN=%s\n' "$(shell_quote "$codex_bin")"
	printf 'export QWEN_BIN=%s\n' "$(shell_quote "$qwen_bin")"
	printf 'export OPENCODE_BIN=%s\n' "$(shell_quote "$opencode_bin")"
	printf 'export GEMINI_BIN=%s\n' "$(shell_quote "$gemini_bin")"
}

main "$@"
