#!/bin/sh
# bench-checkpoint.sh [RUNS]: what the checkpoint hook adds to every tool
# call or prompt, in ms per run: the median of RUNS runs (default 300) of
# each case, and its ratio to a bare `true` hook.
#
# Each run is what the agent does for a hook: `/bin/sh -c COMMAND` with the
# PostToolUse payload (a 4 KiB tool response) on stdin, in a project with
# .kanbus.yml, the fake kbs on PATH and a 3 MB Claude Code transcript (or a
# Codex rollout) whose newest reply is at 60% or 90% of the window:
#   true                the bare hook: `true`, the floor (a shell builtin)
#   /bin/true           the cheapest hook that starts a program
#   below (claude)      the wrapper script, nowhook-reminder --checkpoint,
#                       60%: reads the transcript, re-arms, prints nothing
#                       (what almost every call costs)
#   below (codex)       the same on a Codex rollout
#   latched (claude)    90%, already said: reads, finds the latch, nothing
#   below, no wrapper   nowhook-reminder --checkpoint straight
#   below, nowhook only the wrapper with only the full nowhook binary
#   fires (claude)      90% with the latch cleared before each run: runs
#                       kbs and prints the checkpoint (once per climb)
# The runs are timed by a small Go program (built here), one by one, so
# that the median is exact; cases alternate in rounds, so that a busy
# machine weighs on all of them alike.
set -eu

main() {
	runs=${1:-300}
	root=$(cd "$(dirname "$0")/.." && pwd)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT INT TERM
	build "$root" "$work"
	"$work/timer" "$work" "$runs"
}

# build puts the binaries, the fake kbs, the wrapper, the timer and the
# fixtures in $2.
build() {
	root=$1 work=$2
	(cd "$root" && CGO_ENABLED=0 go build -o "$work/nowhook" ./cmd/nowhook &&
		CGO_ENABLED=0 go build -o "$work/nowhook-reminder" ./cmd/nowhook-reminder &&
		go test -c -o "$work/fake" ./cmd/internal/reminder)
	mkdir -p "$work/bin" "$work/bin-full" "$work/proj/.git" "$work/home"
	echo 'project_key: kbs' >"$work/proj/.kanbus.yml"
	ln -s "$work/nowhook-reminder" "$work/bin/nowhook-reminder"
	ln -s "$work/nowhook" "$work/bin/nowhook"
	ln -s "$work/nowhook" "$work/bin-full/nowhook"
	ln -s "$work/fake" "$work/bin/kbs"
	ln -s "$work/fake" "$work/bin-full/kbs"
	cp "$root/testdata/kanbus/basic.json" "$work/basic.json"
	# The wrapper proposed for setup --checkpoint (signature line aside).
	cat >"$work/checkpoint.sh" <<'EOF'
#!/bin/sh
if command -v nowhook-reminder >/dev/null 2>&1; then
	exec nowhook-reminder --checkpoint --at 85 --timeout 5s
fi
if command -v nowhook >/dev/null 2>&1; then
	exec nowhook reminder --checkpoint --at 85 --timeout 5s
fi
exit 0
EOF
	cat >"$work/timer.go" <<'EOF'
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type bench struct {
	name, cmd, path, transcript string
	fires                       bool
	times                       []time.Duration
}

func main() {
	work := os.Args[1]
	runs, _ := strconv.Atoi(os.Args[2])
	claude := filepath.Join(work, "claude.jsonl")
	codex := filepath.Join(work, "codex.jsonl")
	writeClaude(claude+".60", 600_000)
	writeClaude(claude+".90", 900_000)
	writeCodex(codex+".60", 57_000)
	bin, full := filepath.Join(work, "bin"), filepath.Join(work, "bin-full")
	wrapper := "/bin/sh " + filepath.Join(work, "checkpoint.sh")
	cases := []*bench{
		{name: "true", cmd: "true", path: bin, transcript: claude + ".60"},
		{name: "/bin/true", cmd: "/bin/true", path: bin, transcript: claude + ".60"},
		{name: "below (claude)", cmd: wrapper, path: bin, transcript: claude + ".60"},
		{name: "below (codex)", cmd: wrapper, path: bin, transcript: codex + ".60"},
		{name: "latched (claude)", cmd: wrapper, path: bin, transcript: claude + ".90"},
		{name: "below, no wrapper", cmd: "nowhook-reminder --checkpoint --timeout 5s", path: bin, transcript: claude + ".60"},
		{name: "below, nowhook only", cmd: wrapper, path: full, transcript: claude + ".60"},
		{name: "fires (claude)", cmd: wrapper, path: bin, transcript: claude + ".90", fires: true},
	}
	tool := strings.Repeat("x", 4096)
	for round := 0; round < runs; round++ {
		for i, c := range cases {
			state := filepath.Join(work, "state-"+strconv.Itoa(i))
			payload := fmt.Sprintf(`{"session_id":"bench-%s","transcript_path":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat x"},"tool_response":{"stdout":%q,"stderr":""},"tool_use_id":"toolu_bench"}`,
				strings.ReplaceAll(c.name, " ", "-"), c.transcript, filepath.Join(work, "proj"), tool)
			if c.fires {
				os.RemoveAll(state) // re-armed, outside the timing
			}
			cmd := exec.Command("/bin/sh", "-c", c.cmd)
			cmd.Dir = filepath.Join(work, "proj")
			cmd.Env = []string{"PATH=" + c.path + ":/usr/bin:/bin", "HOME=" + filepath.Join(work, "home"), "XDG_STATE_HOME=" + state,
				"CLAUDE_PROJECT_DIR=" + filepath.Join(work, "proj"), "FAKE_KBS_PAYLOAD=" + filepath.Join(work, "basic.json")}
			cmd.Stdin = strings.NewReader(payload)
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", c.name, err)
				os.Exit(1)
			}
			// The latched case fires once, in the first round.
			if fired := strings.Contains(string(out), "Kanbus checkpoint"); fired != c.fires && (round > 0 || !fired) {
				fmt.Fprintf(os.Stderr, "%s: printed %q\n", c.name, out)
				os.Exit(1)
			}
			if round > 0 || runs == 1 { // the first round warms the page cache
				c.times = append(c.times, d)
			}
		}
	}
	base := median(cases[0].times)
	fmt.Printf("%-20s %10s %10s %10s\n", "case", "median ms", "x true", "+ms")
	for _, c := range cases {
		m := median(c.times)
		fmt.Printf("%-20s %10.2f %10.2f %+10.2f\n", c.name, ms(m), float64(m)/float64(base), ms(m-base))
	}
	fmt.Printf("(%d runs each; transcripts %d and %d bytes)\n", len(cases[0].times), size(claude+".60"), size(codex+".60"))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func size(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// writeClaude writes a 3 MB Claude Code transcript: prompts, replies with
// tool calls and 1 KiB tool results; the newest reply reports used tokens
// on claude-opus-5-5 (1,000,000) and asked for toolu_bench.
func writeClaude(path string, used int64) {
	var b strings.Builder
	pad := strings.Repeat("r", 1024)
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, `{"parentUuid":"p%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":%q}]},"uuid":"u%d"}`+"\n", i, i, pad, i)
		fmt.Fprintf(&b, `{"parentUuid":"u%d","isSidechain":false,"message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10}},"requestedModel":"claude-opus-5-5","type":"assistant","uuid":"a%d"}`+"\n", i, i, i+1, 1000+i, i)
		fmt.Fprintf(&b, `{"type":"attachment","attachment":{"type":"hook_success","content":""},"uuid":"h%d"}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"parentUuid":"x","isSidechain":false,"message":{"id":"msg_last","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_bench","name":"Bash","input":{"command":"cat x"}}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}},"requestedModel":"claude-opus-5-5","type":"assistant","uuid":"last"}`+"\n", used)
	os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeCodex writes a 3 MB Codex rollout whose newest reply used tokens of
// a 95,000-token window.
func writeCodex(path string, used int64) {
	var b strings.Builder
	pad := strings.Repeat("r", 1024)
	b.WriteString(`{"type":"event_msg","payload":{"type":"task_started","model_context_window":95000}}` + "\n")
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":%q}}`+"\n", i, pad)
		fmt.Fprintf(&b, `{"type":"token_usage_record","payload":{"usage":{"input_tokens":%d,"output_tokens":5,"total_tokens":%d}}}`+"\n", 1000+i, 1005+i)
		fmt.Fprintf(&b, `{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":%d},"model_context_window":95000}}}`+"\n", 1005+i)
	}
	fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call","call_id":"toolu_bench","name":"exec_command"}}`+"\n")
	fmt.Fprintf(&b, `{"type":"token_usage_record","payload":{"usage":{"total_tokens":%d}}}`+"\n", used)
	os.WriteFile(path, []byte(b.String()), 0o644)
}
EOF
	(cd "$work" && go build -o "$work/timer" "$work/timer.go")
}

main "$@"
