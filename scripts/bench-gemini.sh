#!/bin/sh
# bench-gemini.sh [RUNS [REF]]: what Gemini CLI's BeforeModel hook
# (docs/platforms.md, "Gemini CLI: re-inject through BeforeModel") adds to
# every model request that follows no new compression, in ms per request:
# the median of RUNS runs (default 300) of each case, its ratio to a bare
# /bin/true hook, and how far above it lies.
#
# Each run is what Gemini CLI does for a hook: `bash -c COMMAND` in a
# project with .kanbus.yml, the BeforeModel payload on stdin (the history
# as text: 200 KB, or 2 MB, about what a history holds before its first
# compression), until the hook exits:
#   /bin/true, 2 MB            the cheapest hook that starts a program
#   bash -c true, 2 MB         the hook's shell and nothing else
#   gate, quiet                the command setup writes (it sources
#                              templates/gemini-turn.sh), no compression yet
#   gate, answered             compressed, and that compression handed over
#                              already (the gate's latch is set)
#   before, quiet / answered   REF's turn script (default main) with the
#                              command that ran it then, where REF's
#                              script differs from this tree's
# BenchmarkGeminiHookVsTrue (cmd/internal/reminder/gemini_bench_test.go)
# builds the binaries and times the cases one by one, alternating in
# rounds, so that a busy machine weighs on all of them alike.
set -eu

main() {
	runs=${1:-300}
	ref=${2:-main}
	root=$(cd "$(dirname "$0")/.." && pwd)
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime) on $(getconf _NPROCESSORS_ONLN) CPUs"
	before=$(mktemp)
	trap 'rm -f "$before"' EXIT
	if git -C "$root" show "$ref:templates/gemini-turn.sh" >"$before" 2>/dev/null &&
		! cmp -s "$before" "$root/templates/gemini-turn.sh"; then
		echo "before: $ref's templates/gemini-turn.sh ($(git -C "$root" rev-parse --short "$ref"))"
		NOWHOOK_BENCH_GEMINI_BEFORE=$before
		export NOWHOOK_BENCH_GEMINI_BEFORE
	fi
	cd "$root" && go test ./cmd/internal/reminder/ -run '^$' -bench '^BenchmarkGeminiHookVsTrue$' -benchtime "${runs}x" -v |
		sed -n '/^case /,/^(/p'
}

main "$@"
