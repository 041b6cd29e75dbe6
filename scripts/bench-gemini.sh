#!/bin/sh
# bench-gemini.sh [RUNS]: what Gemini CLI's BeforeModel hook (nowhook
# reminder --gemini-turn; docs/platforms.md, "Gemini CLI: re-inject
# through BeforeModel") adds to every model request, in ms per request: the median of RUNS runs (default 300) of each
# case, its ratio to a bare /bin/true hook, and how far above it lies.
#
# Each run is what Gemini CLI does for a hook: `bash -c COMMAND` in a
# project with .kanbus.yml, the BeforeModel payload on stdin (the history
# as text: 200 KB, or 2 MB, about what a history holds before its first
# compression), until the hook exits:
#   /bin/true, 2 MB            the cheapest hook that starts a program
#   start only, no payload     nowhook-reminder --gemini-turn with nothing
#                              on stdin: the floor of any Go hook
#   quiet, 200 KB / 2 MB       the wrapper (templates/gemini-turn.sh), no
#                              compression yet: prints nothing
#   answered, 200 KB / 2 MB    compressed, and that compression answered
#                              already (its latch is set): prints nothing
#   quiet, 2 MB, no wrapper    nowhook-reminder --gemini-turn straight
#   quiet, 2 MB, nowhook only  the wrapper with only the full nowhook binary
#   quiet, 2 MB, inline        the wrapper's first branch as the hook
#                              command itself (bash's command -v, no script)
# BenchmarkGeminiHookVsTrue (cmd/internal/reminder/gemini_bench_test.go)
# builds the binaries and times the cases one by one, alternating in
# rounds, so that a busy machine weighs on all of them alike.
set -eu

main() {
	runs=${1:-300}
	root=$(cd "$(dirname "$0")/.." && pwd)
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime) on $(getconf _NPROCESSORS_ONLN) CPUs"
	cd "$root" && go test ./cmd/internal/reminder/ -run '^$' -bench '^BenchmarkGeminiHookVsTrue$' -benchtime "${runs}x" -v |
		sed -n '/^case /,/^(/p'
}

main "$@"
