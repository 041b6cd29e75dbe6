#!/bin/sh
# bench-reminder.sh [RUNS] [BASE]: what the compaction hook costs, per run,
# in wall time and CPU time (user + system of every process it waited
# for), against a bare `kbs` call.
#
# Builds nowhook, nowhook-reminder and the fake kbs (the reminder test
# binary, which acts as kbs when started under that name; the same one for
# every case), and, given a git revision BASE (e.g. main), nowhook and
# nowhook-reminder of BASE too, each with the wrapper its own `nowhook
# setup --yes --agents claude` writes. Then it times RUNS rounds (default
# 200) of, on testdata/kanbus/cap31.json, in turn within each round:
#   bare kbs       `kbs now --json --list` alone, the floor
#   nowhook        the wrapper, through nowhook-reminder
#   nowhook only   the wrapper with only the nowhook binary: `nowhook reminder`
#   python3        the wrapper without nowhook: the python3 fallback
#   kanbus-style   a bash wrapper with `timeout 5s kbs ...` piped into an
#                  inline python3 formatter, as Kanbus's documentation shows
# and, with BASE, "nowhook (BASE)" and "python3 (BASE)". Each figure is the
# median of its runs (the first round is not counted: it warms the caches).
# Targets (issue 29): nowhook at most +3 ms wall and +4 ms CPU over bare
# kbs; (issue 3) at least 10 times cheaper than kanbus-style.
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
	base=${2:-}
	root=$(cd "$(dirname "$0")/.." && pwd)
	work=$(mktemp -d)
	trap 'cleanup' EXIT INT TERM
	(cd "$root" && go test -c -o "$work/fake" ./cmd/internal/reminder)
	build "$root" "$work/head"
	if [ -n "$base" ]; then
		git -C "$root" worktree add -q --detach "$work/base-src" "$base"
		build "$work/base-src" "$work/base"
	fi
	marks "$work"
	write_timer "$work"
	ROOT=$root "$work/timer" "$work" "$runs" "$base"
}

cleanup() {
	if [ -d "$work/base-src" ]; then
		git -C "$root" worktree remove --force "$work/base-src" || true
	fi
	rm -rf "$work"
}

# build SRC OUT puts SRC's nowhook, nowhook-reminder, the bin folders each
# case runs with and SRC's wrapper (as its setup writes it) in OUT.
build() {
	src=$1 out=$2
	# Built as install.sh and the release archives build them.
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/nowhook" ./cmd/nowhook &&
		CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/nowhook-reminder" ./cmd/nowhook-reminder)
	mkdir -p "$out/bin-go" "$out/bin-full" "$out/bin-py" "$out/proj/.git"
	: >"$out/proj/.kanbus.yml"
	ln -s "$out/nowhook" "$out/bin-go/nowhook"
	ln -s "$out/nowhook-reminder" "$out/bin-go/nowhook-reminder"
	ln -s "$out/nowhook" "$out/bin-full/nowhook"
	for d in bin-go bin-full bin-py; do ln -s "$work/fake" "$out/$d/kbs"; done
	ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$out/bin-py/python3"
	ln -s "$(command -v timeout)" "$out/bin-py/timeout"
	(cd "$out/proj" && env -i PATH="$out/bin-full:/usr/bin:/bin" HOME="$out" nowhook setup --yes --agents claude >/dev/null)
	cp "$out/proj/.claude/hooks/kanbus-compaction-right-now.sh" "$out/hook.sh"
}

# marks sets up, in $1/all, a repository with every agent's marks.
marks() {
	all=$1/all
	mkdir -p "$all/.git"
	: >"$all/.kanbus.yml"
	: >"$all/.goosehints"
	n=1
	for dir in .claude .codex .qwen .opencode .cursor .agents/rules .gemini .amp .factory .clinerules \
		.continue .github/hooks .crush .augment .kiro .windsurf .junie .kimi-code; do
		mkdir -p "$all/$dir"
		n=$((n + 1))
	done
	agents=$(env -i PATH="$1/head/bin-full" HOME="$1" nowhook setup --yes --dir "$all" | grep -c '^[a-z]')
	if [ "$agents" -ne "$n" ]; then
		echo "bench-reminder: setup --yes set up $agents agents in $all, not the $n marked" >&2
		exit 1
	fi
	env -i PATH="$1/head/bin-full" HOME="$1" nowhook setup --check --dir "$all" >/dev/null || {
		echo "bench-reminder: setup --check finds differences right after setup --yes in $all" >&2
		exit 1
	}
	cat >"$1/kanbus-style.sh" <<'SH'
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
SH
}

# write_timer builds the timer: each case run by run, alternating in
# rounds, wall time and the CPU time wait4 reports for the process and
# everything it waited for.
write_timer() {
	mkdir -p "$1/timer-src"
	cat >"$1/timer-src/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type bench struct {
	name, dir string   // dir: the build the case runs
	args      []string // the command
	path      string   // PATH
	want      string   // a string the output must hold
	wall, cpu []time.Duration
	start     bool // the floor of its table
}

func main() {
	work, base := os.Args[1], os.Args[3]
	runs, _ := strconv.Atoi(os.Args[2])
	head := filepath.Join(work, "head")
	payload := filepath.Join(os.Getenv("ROOT"), "testdata/kanbus/cap31.json")
	hook := func(name, dir, bin string) *bench {
		return &bench{name: name, dir: dir, args: []string{"/bin/sh", filepath.Join(dir, "hook.sh")}, path: filepath.Join(dir, bin), want: "kbs-cap-30"}
	}
	cases := []*bench{
		{name: "bare kbs", dir: head, args: []string{filepath.Join(head, "bin-go", "kbs"), "now", "--json", "--list"}, path: filepath.Join(head, "bin-go"), want: "kbs-cap-30", start: true},
		hook("nowhook", head, "bin-go"),
	}
	if base != "" {
		cases = append(cases, hook("nowhook ("+base+")", filepath.Join(work, "base"), "bin-go"))
	}
	cases = append(cases, hook("nowhook only", head, "bin-full"), hook("python3", head, "bin-py"))
	if base != "" {
		cases = append(cases, hook("python3 ("+base+")", filepath.Join(work, "base"), "bin-py"))
	}
	cases = append(cases, &bench{name: "kanbus-style", dir: head, args: []string{"/bin/bash", filepath.Join(work, "kanbus-style.sh")}, path: filepath.Join(head, "bin-py") + ":/usr/bin:/bin", want: "kbs-cap-30"})
	all := filepath.Join(work, "all")
	full := filepath.Join(head, "bin-full")
	checks := []*bench{
		{name: "version", dir: head, args: []string{filepath.Join(full, "nowhook"), "version"}, path: full, start: true},
		{name: "setup --check", dir: head, args: []string{filepath.Join(full, "nowhook"), "setup", "--check", "--dir", all}, path: full},
		{name: "... cursor", dir: head, args: []string{filepath.Join(full, "nowhook"), "setup", "--check", "--dir", all, "--agents", "cursor"}, path: full},
	}
	stdin := []byte(`{"session_id":"b","hook_event_name":"SessionStart","source":"compact"}`)
	for round := 0; round <= runs; round++ {
		for _, c := range append(slices.Clone(cases), checks...) {
			cmd := exec.Command(c.args[0], c.args[1:]...)
			cmd.Dir = filepath.Join(c.dir, "proj")
			cmd.Env = []string{"PATH=" + c.path, "HOME=" + work, "CLAUDE_PROJECT_DIR=" + filepath.Join(c.dir, "proj"), "FAKE_KBS_PAYLOAD=" + payload}
			cmd.Stdin = strings.NewReader(string(stdin))
			t0 := time.Now()
			out, err := cmd.Output()
			wall := time.Since(t0)
			if err != nil || !strings.Contains(string(out), c.want) {
				fmt.Fprintf(os.Stderr, "%s: %v, printed %q\n", c.name, err, out)
				os.Exit(1)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			if round > 0 {
				c.wall, c.cpu = append(c.wall, wall), append(c.cpu, cpu)
			}
		}
	}
	table("path", cases)
	fmt.Println()
	table("setup", checks)
	fmt.Printf("(%d rounds, cases alternated in each; medians)\n", runs)
}

func table(title string, cases []*bench) {
	var w0, c0 time.Duration
	fmt.Printf("%-18s %9s %9s %9s %9s\n", title, "wall ms", "+ms", "cpu ms", "+ms")
	for _, c := range cases {
		w, u := median(c.wall), median(c.cpu)
		if c.start {
			w0, c0 = w, u
		}
		fmt.Printf("%-18s %9.2f %+9.2f %9.2f %+9.2f\n", c.name, ms(w), ms(w-w0), ms(u), ms(u-c0))
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
GO
	(cd "$1/timer-src" && printf 'module timer\n\ngo 1.22\n' >go.mod && go build -o "$1/timer" .)
}

main "$@"
