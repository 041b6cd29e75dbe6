#!/bin/sh
# bench-reminder.sh [RUNS]: what the compaction hook costs, per run, in ms.
#
# Builds nowhook and the fake kbs (the reminder test binary, which acts as
# kbs when started under that name), then times RUNS runs (default 200) of:
#   bare kbs       `kbs now --json --list` alone, the floor
#   nowhook        the wrapper that setup writes, through nowhook-reminder
#   nowhook only   the same with only the nowhook binary: `nowhook reminder`
#   python3        the same wrapper without nowhook: the python3 fallback
#   kanbus-style   a bash wrapper with `timeout 5s kbs ...` piped into an
#                  inline python3 formatter, as Kanbus's documentation shows
# on testdata/kanbus/cap31.json. Targets (issue 3): nowhook at most 3 ms
# above bare kbs, and at least 10 times cheaper than kanbus-style.
#
# Then, in a repository with every agent's marks (.claude/, .codex/,
# .qwen/, ... one per agent) set up by `nowhook setup --yes`, what a
# pre-commit hook or a CI step pays for the check, against starting nowhook:
#   nowhook version         starting nowhook, the floor
#   setup --check           detect every agent, plan, compare: no difference
#   setup --check cursor    the same with --agents cursor (one agent)
# Target (issue 18): setup --check under 50 ms.
set -eu

main() {
	runs=${1:-200}
	root=$(cd "$(dirname "$0")/.." && pwd)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT INT TERM
	build "$root" "$work"
	payload="$root/testdata/kanbus/cap31.json"
	printf '%-14s %9s %9s\n' "path" "ms/run" "vs bare"
	bare=$(timed "$runs" "$work" "$payload" "$work/bin-go" "$work/bin-go/kbs now --json --list")
	report "bare kbs" "$bare" "$bare"
	report "nowhook" "$(timed "$runs" "$work" "$payload" "$work/bin-go" "/bin/sh $work/hook.sh")" "$bare"
	report "nowhook only" "$(timed "$runs" "$work" "$payload" "$work/bin-full" "/bin/sh $work/hook.sh")" "$bare"
	report "python3" "$(timed "$runs" "$work" "$payload" "$work/bin-py" "/bin/sh $work/hook.sh")" "$bare"
	report "kanbus-style" "$(timed "$runs" "$work" "$payload" "$work/bin-py" "/bin/bash $work/kanbus-style.sh")" "$bare"
	printf '\n%-14s %9s %9s\n' "setup" "ms/run" "vs start"
	start=$(timed "$runs" "$work" "$payload" "$work/bin-full" "nowhook version")
	report "version" "$start" "$start"
	report "setup --check" "$(timed "$runs" "$work" "$payload" "$work/bin-full" "nowhook setup --check --dir $work/all")" "$start"
	report "... cursor" "$(timed "$runs" "$work" "$payload" "$work/bin-full" "nowhook setup --check --dir $work/all --agents cursor")" "$start"
}

# build puts nowhook, the fake kbs, python3, timeout and the wrappers in $2.
build() {
	root=$1 work=$2
	(cd "$root" && CGO_ENABLED=0 go build -o "$work/nowhook" ./cmd/nowhook &&
		CGO_ENABLED=0 go build -o "$work/nowhook-reminder" ./cmd/nowhook-reminder &&
		go test -c -o "$work/fake" ./cmd/internal/reminder)
	mkdir -p "$work/bin-go" "$work/bin-full" "$work/bin-py" "$work/proj/.git"
	: >"$work/proj/.kanbus.yml"
	ln -s "$work/nowhook" "$work/bin-go/nowhook"
	ln -s "$work/nowhook-reminder" "$work/bin-go/nowhook-reminder"
	ln -s "$work/nowhook" "$work/bin-full/nowhook"
	ln -s "$work/fake" "$work/bin-full/kbs"
	ln -s "$work/fake" "$work/bin-go/kbs"
	ln -s "$work/fake" "$work/bin-py/kbs"
	ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$work/bin-py/python3"
	ln -s "$(command -v timeout)" "$work/bin-py/timeout"
	# The wrapper as setup writes it.
	(cd "$work/proj" && PATH="$work/bin-go:$PATH" nowhook setup --yes --agents claude >/dev/null)
	cp "$work/proj/.claude/hooks/kanbus-compaction-right-now.sh" "$work/hook.sh"
	# Every agent's marks (one each), each agent set up in its default mode.
	mkdir -p "$work/all/.git"
	: >"$work/all/.kanbus.yml"
	: >"$work/all/.goosehints"
	marks=1
	for dir in .claude .codex .qwen .opencode .cursor .agents/rules .gemini .amp .factory .clinerules \
		.continue .github/hooks .crush .augment .kiro .windsurf .junie .kimi-code; do
		mkdir -p "$work/all/$dir"
		marks=$((marks + 1))
	done
	agents=$(env -i PATH="$work/bin-full" nowhook setup --yes --dir "$work/all" | grep -c '^[a-z]')
	if [ "$agents" -ne "$marks" ]; then
		echo "bench-reminder: setup --yes set up $agents agents in $work/all, not the $marks marked" >&2
		exit 1
	fi
	env -i PATH="$work/bin-full" nowhook setup --check --dir "$work/all" >/dev/null || {
		echo "bench-reminder: setup --check finds differences right after setup --yes in $work/all" >&2
		exit 1
	}
	cat >"$work/kanbus-style.sh" <<'EOF'
set -uo pipefail
out="$(timeout 5s kbs now --json --list 2>/dev/null)" || exit 0
printf '%s' "$out" | python3 -c '
import json, sys
items = json.loads(sys.stdin.read())
print("Kanbus WIP (whole project, capped):")
print()
for i in items:
    s = i.get("right_now_summary") or "(no right-now summary)"
    print("- [P%s][%s] %s: %s \u2014 %s" % (i.get("priority", "?"), i.get("status", "?"), i.get("id", "?"), i.get("title", ""), s))
' || exit 0
exit 0
EOF
}

# timed RUNS WORK PAYLOAD PATHDIR COMMAND prints the microseconds per run:
# the best mean of five rounds of RUNS/5, so that a busy machine weighs
# less.
timed() {
	runs=$1 work=$2 payload=$3 dir=$4 cmd=$5
	echo '{"session_id":"b","hook_event_name":"SessionStart","source":"compact"}' >"$work/stdin.json"
	per=$(((runs + 4) / 5))
	best=
	round=0
	while [ "$round" -lt 5 ]; do
		start=$(date +%s%N)
		i=0
		while [ "$i" -lt "$per" ]; do
			# shellcheck disable=SC2086 # $cmd is a command line
			env -i PATH="$dir" CLAUDE_PROJECT_DIR="$work/proj" FAKE_KBS_PAYLOAD="$payload" \
				$cmd <"$work/stdin.json" >"$work/out" 2>/dev/null
			i=$((i + 1))
		done
		end=$(date +%s%N)
		mean=$(((end - start) / per / 1000))
		if [ -z "$best" ] || [ "$mean" -lt "$best" ]; then
			best=$mean
		fi
		round=$((round + 1))
	done
	[ -s "$work/out" ] || { echo "no output from: $cmd" >&2; exit 1; }
	echo "$best"
}

# report NAME US BARE_US prints one row in ms.
report() {
	awk -v n="$1" -v t="$2" -v b="$3" 'BEGIN { printf "%-14s %9.2f %+9.2f\n", n, t / 1000, (t - b) / 1000 }'
}

main "$@"
