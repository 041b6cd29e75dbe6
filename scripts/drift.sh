#!/usr/bin/env bash
# drift.sh is the drift run: for each client pinned in scripts/pins.tsv it
# asks npm for the newest release (`npm view PACKAGE version`, the `latest`
# tag), installs it beside the pin (scripts/install-agents.sh
# AGENT@VERSION, into the cache's drift/AGENT), runs that client's
# real-client tests (cmd/nowhook/e2e, the tests named
# Test[Checkpoint|Reads|Shapes]<Agent>..., with only that client's *_BIN set) on
# the pin and on the newest release, and prints one table: client, pinned,
# newest, result. When the newest release is the pin it says so and runs
# the tests once. For a pin that names a binary package (its fifth field;
# Factory Droid's launcher and native binary), pin and newest are
# LAUNCHER/BINARY, each package's version.
#
# A newest release that fails is a WARNING line, not a failure: the pins
# define what nowhook has proven, and a pin is bumped (one line of
# scripts/pins.tsv) once the newest passes. When npm cannot be asked (no
# network), the newest is not checked and a WARNING line says so.
#
# usage: scripts/drift.sh [--pinned-passed] [--strict] [--newest AGENT=VERSION]... [AGENT...]
#
#   AGENT...          only these clients (default: every pin)
#   --pinned-passed   do not run the pins' tests: the caller ran them and
#                     they passed (CI: its main test command runs every pin)
#   --newest A=V      try version V of client A instead of npm's newest
#                     (LAUNCHER/BINARY, or one version for both, where the
#                     pin names a binary package)
#   --strict          a newest release that fails fails the run (exit 1)
#
# Environment: NOWHOOK_DRIFT_TIMEOUT bounds each client's test run in
# seconds (default 900; the whole tree is killed after it, plus 60 s for
# the build); NOWHOOK_DRIFT_BUDGET bounds the whole run (default 2700 s: a
# client run gets at most what is left, and none starts with less than
# 60 s left, a WARNING instead); NOWHOOK_DRIFT_LOGS keeps the logs there
# (default: a new temporary folder, named at the end); NOWHOOK_AGENT_CACHE as in
# install-agents.sh. Under GitHub Actions each client's test output is a
# collapsed group and each warning also a ::warning annotation.
#
# Exit status: 0 when every pin that ran passed; 1 when a pin failed or
# could not be installed (with --strict, also when a newest release
# failed); 2 on usage.
set -euo pipefail

cd "$(dirname "$0")/.."

timeout_s=${NOWHOOK_DRIFT_TIMEOUT:-900}
budget_s=${NOWHOOK_DRIFT_BUDGET:-2700}
pinned_passed=false
strict=false
declare -A newest_override=()
only=()

say() {
	printf 'drift: %s\n' "$*"
}

usage() {
	sed -n '/^# usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

# warn keeps one WARNING line for the end of the run, after the table.
warnings=()
warn() {
	warnings+=("$*")
}

# group and endgroup fold a client's test output under GitHub Actions.
group() {
	if [ "${GITHUB_ACTIONS:-}" = true ]; then
		printf '::group::%s\n' "$*"
	else
		say "$*"
	fi
}

endgroup() {
	if [ "${GITHUB_ACTIONS:-}" = true ]; then
		printf '::endgroup::\n'
	fi
}

# newest_release PACKAGE sets $release to npm's newest release of PACKAGE,
# or to nothing and $npm_error to the reason when npm cannot tell (offline;
# after one such failure npm is not asked again, in $npm_down).
npm_down=
newest_release() {
	local out
	release=
	npm_error=
	if [ -n "$npm_down" ]; then
		npm_error="npm not asked again: it failed above"
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		npm_error="npm not found on PATH"
		npm_down=$npm_error
		return 0
	fi
	if ! out=$(timeout -k 5 60 npm view "$1" version --fetch-retries=1 --fetch-timeout=20000 \
		--fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 </dev/null 2>&1); then
		npm_error="npm view $1 version failed: $(printf '%s\n' "$out" | grep -m 1 -i 'err' || printf '%s\n' "$out" | tail -n 1)"
		# The registry is down or out of reach: do not wait on it again.
		npm_down=$npm_error
		return 0
	fi
	out=$(printf '%s\n' "$out" | tail -n 1)
	if [[ ! $out =~ ^[0-9][0-9A-Za-z.+-]*$ ]]; then
		npm_error="npm view $1 version printed '$out', not a version"
		return 0
	fi
	release=$out
}

# install AGENT[@VERSION]: installs the client with install-agents.sh and
# prints the binary's path; its progress goes to $logs/install.log, and
# when it fails the end of that log goes to stderr.
install() {
	local line mark
	mark=$(wc -l <"$logs/install.log")
	if ! line=$(sh scripts/install-agents.sh "$1" </dev/null 2>>"$logs/install.log"); then
		say "install-agents.sh $1 failed:" >&2
		tail -n +$((mark + 1)) "$logs/install.log" | tail -n 20 | sed 's/^/    /' >&2
		return 1
	fi
	line=${line#*=\'}
	printf '%s\n' "${line%\'}"
}

# top_level RESULT LOG prints the names of the top-level tests that LOG
# (testsum's output) reports with RESULT (PASS, FAIL, SKIP), once each.
top_level() {
	awk -v want="--- $1:" 'index($0, want) == 1 && $3 !~ /\// && !seen[$3]++ { print $3 }' "$2"
}

# indent copies stdin to stdout four spaces in, a line as soon as it comes
# (sed would hold it in a buffer when stdout is a file, as in CI).
indent() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		printf '    %s\n' "$line"
	done
}

# reap DIR kills what a test run left running in DIR (its TMPDIR, where
# each test's sandbox lives): a client the tests start in a process group
# of its own outlives the test binary when go test's -timeout ends it
# before the test's cleanup runs. Linux only (it reads /proc); elsewhere it
# does nothing.
reap() {
	local p cwd n=0
	for p in /proc/[0-9]*; do
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		case $cwd in
		"$1" | "$1"/*)
			kill -KILL "${p#/proc/}" 2>/dev/null && n=$((n + 1))
			;;
		esac
	done
	[ "$n" -eq 0 ] || say "killed $n processes the tests left running in $1"
}

# unfinished PATTERN LOG names the tests PATTERN selects that LOG reports
# no result for: the first is the one a timeout ended (the tests run one
# after another), the rest never started.
unfinished() {
	local -a left=()
	local name
	while IFS= read -r name; do
		case $name in
		Test*) grep -qE "^--- [A-Z]+: $name " "$2" || left+=("$name") ;;
		esac
	done < <(timeout 120 go test -list "$1" ./cmd/nowhook/e2e/ 2>/dev/null)
	case ${#left[@]} in
	0) printf 'no test left unfinished' ;;
	1) printf '%s' "${left[0]}" ;;
	*) printf '%s (not reached: %s)' "${left[0]}" "${left[*]:1}" ;;
	esac
}

# run_tests AGENT VERSION BIN LABEL runs AGENT's real-client tests on BIN
# and sets $result (pass, fail, timeout, none or budget) and $detail.
run_tests() {
	local agent=$1 version=$2 bin=$3 label=$4
	local var pattern log start rc a passed skipped failed bound tmp
	local -a env_args=()
	bound=$((budget_s - (SECONDS - run_start)))
	if [ "$bound" -lt 60 ]; then
		result=budget
		detail="not run: the drift run's budget of ${budget_s}s is spent (NOWHOOK_DRIFT_BUDGET)"
		return 0
	fi
	[ "$bound" -le "$timeout_s" ] || bound=$timeout_s
	var=${agent^^}_BIN
	pattern="^Test(Checkpoint|Reads|Shapes)?${agent^}"
	log=$logs/$agent-$label-${version//\//+}.log
	for a in "${agents[@]}"; do
		env_args+=(-u "${a^^}_BIN")
	done
	# A short TMPDIR of the run's own (socket paths have a length limit).
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/drift.XXXX")
	group "$agent $version ($label): $var=$bin go test -run '$pattern' ./cmd/nowhook/e2e/ (bound: ${bound}s)"
	start=$SECONDS
	set +e
	env "${env_args[@]}" "$var=$bin" NOWHOOK_E2E_REQUIRE_AGENTS=1 TMPDIR="$tmp" \
		timeout -k 30 $((bound + 60)) "$testsum" -count=1 -timeout "${bound}s" \
		-run "$pattern" ./cmd/nowhook/e2e/ </dev/null 2>&1 | tee "$log" | indent
	rc=${PIPESTATUS[0]}
	set -e
	reap "$tmp"
	rm -rf "$tmp"
	endgroup
	# Top-level tests only: testsum also prints parallel subtests' lines.
	passed=$(top_level PASS "$log" | wc -l)
	skipped=$(top_level SKIP "$log" | wc -l)
	failed=$(top_level FAIL "$log" | paste -sd ' ' -)
	local took=$((SECONDS - start))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || grep -q '^panic: test timed out' "$log" ||
		{ [ "$rc" -ne 0 ] && [ -z "$failed" ] && [ "$took" -ge "$bound" ]; }; then
		# testsum prints no line for a test that go test's -timeout ended.
		result=timeout
		detail="timed out after ${took}s in $(unfinished "$pattern" "$log") (bound ${bound}s; log $log)"
	elif [ "$rc" -eq 0 ] && [ "$passed" -gt 0 ]; then
		result=pass
		detail="passed ($passed tests, ${took}s)"
		[ "$skipped" -eq 0 ] || detail="passed ($passed tests, $skipped skipped, ${took}s)"
	elif [ "$rc" -eq 0 ]; then
		result=none
		detail="no test matched $pattern (log $log)"
	else
		result=fail
		detail="FAILED ${failed:-to build or run} ($passed passed, ${took}s; log $log)"
	fi
}

# row prints one line of the table: client, pinned, newest, ok?, result
# (a pin with a binary package is LAUNCHER/BINARY, 15 characters).
row() {
	printf '%-9s %-15s %-15s %-5s %s' "$@"
}

# older A B: true when version A sorts before version B.
older() {
	[ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]
}

# newest_of PACKAGE BINPKG sets $newest to npm's newest release of PACKAGE
# or, when the pin names a binary package BINPKG (its fifth field,
# PACKAGE@VERSION, `%p` node's platform-arch), to LAUNCHER/BINARY, each
# package's newest; to nothing when npm cannot tell ($npm_error says why).
newest_of() {
	local launcher name
	newest_release "$1"
	newest=$release
	[ -n "$newest" ] && [ -n "$2" ] || return 0
	launcher=$newest
	name=${2%@*}
	newest_release "${name//%p/$(node -p 'process.platform + "-" + process.arch')}"
	newest=
	[ -z "$release" ] || newest=$launcher/$release
}

# drift_one AGENT PACKAGE VERSION BINPKG fills rows[] for one client; its
# pin is VERSION, or VERSION/BINARY where BINPKG names a binary package.
drift_one() {
	local agent=$1 package=$2 pin=$3 binpkg=$4
	local newest pin_text newest_text bin status=ok
	[ -z "$binpkg" ] || pin=$pin/${binpkg##*@}
	# The pin.
	if $pinned_passed; then
		pin_text="pin passed in the main test run"
	elif ! bin=$(install "$agent"); then
		pin_text="pin FAILED to install (see $logs/install.log)"
		status=FAIL
	else
		run_tests "$agent" "$pin" "$bin" pin
		pin_text="pin $detail"
		if [ "$result" = budget ]; then
			warn "$agent $pin (pin) $detail"
			status=WARN
		elif [ "$result" != pass ]; then
			status=FAIL
		fi
	fi
	# The newest release.
	if [ -n "${newest_override[$agent]:-}" ]; then
		newest=${newest_override[$agent]}
	else
		newest_of "$package" "$binpkg"
	fi
	if [ -z "$newest" ]; then
		newest_text="newest not checked ($npm_error)"
		unchecked+=("$agent")
		newest="?"
		[ "$status" = FAIL ] || status=WARN
	elif [ "$newest" = "$pin" ]; then
		newest_text="newest is the pin: not run twice"
	elif ! bin=$(install "$agent@$newest"); then
		newest_text="newest FAILED to install (see $logs/install.log)"
		warn "$agent $newest (newest) could not be installed with npm; see $logs/install.log"
		[ "$status" = FAIL ] || status=WARN
	else
		run_tests "$agent" "$newest" "$bin" newest
		newest_text="newest $detail"
		if [ -n "${newest_override[$agent]:-}" ]; then
			newest_text="$newest_text (version given with --newest)"
		elif older "$newest" "$pin"; then
			newest_text="$newest_text (npm's latest is older than the pin)"
		fi
		if [ "$result" != pass ]; then
			warn "$agent $newest (newest; pinned $pin) $detail: the pin still passes and defines what is proven; fix before bumping scripts/pins.tsv"
			[ "$status" = FAIL ] || status=WARN
			if $strict; then
				newest_failed=true
			fi
		fi
	fi
	if [ "$status" = FAIL ]; then
		pin_failed=true
	fi
	rows+=("$(row "$agent" "$pin" "$newest" "$status" "$pin_text; $newest_text")")
}

main() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help)
			usage
			return 0
			;;
		--pinned-passed) pinned_passed=true ;;
		--strict) strict=true ;;
		--newest)
			if [ $# -lt 2 ] || [[ $2 != ?*=?* ]]; then
				usage >&2
				return 2
			fi
			newest_override[${2%%=*}]=${2#*=}
			shift
			;;
		--newest=?*=?*)
			local kv=${1#--newest=}
			newest_override[${kv%%=*}]=${kv#*=}
			;;
		-*)
			usage >&2
			return 2
			;;
		*) only+=("$1") ;;
		esac
		shift
	done
	if [[ ! $timeout_s =~ ^[1-9][0-9]*$ ]] || [[ ! $budget_s =~ ^[1-9][0-9]*$ ]]; then
		echo "drift: NOWHOOK_DRIFT_TIMEOUT=$timeout_s, NOWHOOK_DRIFT_BUDGET=$budget_s: want numbers of seconds" >&2
		return 2
	fi

	local table
	table=$(sh scripts/install-agents.sh --pins)
	mapfile -t agents < <(printf '%s\n' "$table" | cut -f1)
	local a
	for a in "${only[@]}" "${!newest_override[@]}"; do
		if ! printf '%s\n' "${agents[@]}" | grep -qx -- "$a"; then
			echo "drift: no pin for '$a' in scripts/pins.tsv (pinned: ${agents[*]})" >&2
			return 2
		fi
	done

	logs=${NOWHOOK_DRIFT_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/nowhook-drift.XXXXXX")}
	mkdir -p "$logs"
	: >>"$logs/install.log"
	testsum=$logs/testsum
	go build -o "$testsum" ./scripts/testsum

	run_start=$SECONDS
	local agent package pin binpkg line
	rows=()
	unchecked=()
	pin_failed=false
	newest_failed=false
	say "the real-client tests on each pin and on npm's newest release (bound: ${timeout_s}s per client run, ${budget_s}s in all)"
	local -a lines
	mapfile -t lines <<<"$table"
	for line in "${lines[@]}"; do
		IFS=$'\t' read -r agent package pin _ binpkg <<<"$line"
		# A runtime (node:PACKAGE@VERSION) stays at its pin; only the
		# client drifts.
		case $binpkg in node:*) binpkg= ;; esac
		if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx -- "$agent"; then
			continue
		fi
		drift_one "$agent" "$package" "$pin" "$binpkg"
	done

	echo
	say "$(row client pinned newest 'ok?' result)"
	local r
	for r in "${rows[@]}"; do
		say "$r"
	done
	say "took $((SECONDS - run_start))s; logs in $logs"
	if [ ${#unchecked[@]} -gt 0 ]; then
		warn "newest release not checked for ${unchecked[*]} ($npm_down; offline?): the pins are what is proven"
	fi
	local w
	for w in "${warnings[@]}"; do
		say "WARNING: $w"
		if [ "${GITHUB_ACTIONS:-}" = true ]; then
			printf '::warning title=drift run::%s\n' "$w"
		fi
	done
	if $pin_failed; then
		say "FAILED: a pinned client fails its real-client tests (table above)"
		return 1
	fi
	if $newest_failed; then
		say "FAILED (--strict): a newest release fails its real-client tests (table above)"
		return 1
	fi
}

main "$@"
