package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The managed_*_test.go files measure, in the real clients, the managed
// (system) channel of each client that has one: where it is read from,
// how its files merge, whether its hooks run without a trust step, what a
// managed-only switch drops, and what a hook learns that could let a
// managed, a user and a project hook agree on one reminder. Each client
// runs in a sysView (managed_view_test.go), so the machine's /etc is never
// written. docs/platforms.md ("Managed channels") records the results.

// layerProbes are probe hooks for the layers of one run: each run of one
// leaves a folder with what the hook saw (the other probes that had
// started, its environment, its payload), and prints a marker. A probe
// waits, up to 5 s, until want probes have started, so that hooks the
// client runs together all see each other, and a hook the client runs
// before the others does not see them (want 1: no wait). want must be
// every run the session makes: a smaller one lets a later batch stop
// waiting on the earlier batch's runs.
type layerProbes struct {
	dir  string
	want int
}

func newLayerProbes(t *testing.T, want int) *layerProbes {
	t.Helper()
	p := &layerProbes{dir: filepath.Join(t.TempDir(), "probes"), want: want}
	for _, d := range []string{"started", "runs"} {
		if err := os.MkdirAll(filepath.Join(p.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// layerMarker is what the probe of a layer prints.
func layerMarker(label string) string { return "(managed-probe-" + label + ")" }

// script writes the probe of label at path and returns path.
func (p *layerProbes) script(t *testing.T, path, label string) string {
	t.Helper()
	d := shQuote(p.dir)
	writeFile(t, path, fmt.Sprintf(`#!/bin/sh
# managed-channel probe %[1]s: records what it saw, prints its marker
in=$(cat)
run=%[2]s/runs/%[1]s.$$
mkdir -p "$run"
: > %[2]s/started/%[1]s.$$
i=0
while [ "$(ls %[2]s/started | wc -l)" -lt %[3]d ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
ls %[2]s/started > "$run/saw"
env > "$run/env"
printf '%%s' "$in" > "$run/payload"
printf '%%s\n' %[4]s
`, label, d, p.want, shQuote(layerMarker(label))), 0o755)
	return path
}

// layerRun is one run of a probe.
type layerRun struct {
	label   string
	saw     []string // the labels of the probes started while it waited
	env     map[string]string
	payload map[string]any
}

// runs returns the probes' runs, sorted by label.
func (p *layerProbes) runs(t *testing.T) []layerRun {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(p.dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var out []layerRun
	for _, e := range ents {
		dir := filepath.Join(p.dir, "runs", e.Name())
		r := layerRun{label: strings.SplitN(e.Name(), ".", 2)[0], env: map[string]string{}}
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		for _, l := range strings.Fields(read("saw")) {
			r.saw = append(r.saw, strings.SplitN(l, ".", 2)[0])
		}
		sort.Strings(r.saw)
		for _, l := range strings.Split(read("env"), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				r.env[k] = v
			}
		}
		if pl := read("payload"); strings.TrimSpace(pl) != "" {
			if err := json.Unmarshal([]byte(pl), &r.payload); err != nil {
				t.Errorf("probe %s: payload is not a JSON object: %v\n%s", r.label, err, pl)
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].label < out[j].label })
	return out
}

// labels lists the labels of runs, one per run, sorted.
func labels(runs []layerRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.label)
	}
	return out
}

// payloadKeys lists a payload's keys, sorted.
func payloadKeys(pl map[string]any) []string {
	var keys []string
	for k := range pl {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// envWith lists the variables of env whose names start with one of the
// prefixes, as NAME=value, sorted.
func envWith(env map[string]string, prefixes ...string) []string {
	var out []string
	for k, v := range env {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out = append(out, k+"="+v)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkSet fails unless got and want hold the same strings, in any order.
func checkSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !sameSet(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// sameSet reports whether a and b hold the same strings as many times each,
// in any order.
func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, ",") == strings.Join(y, ",")
}

// claudeHooks is a Claude Code settings document: the top-level keys of
// extra (JSON values), then, if commands are given, SessionStart hooks
// (matcher compact) that run them.
func claudeHooks(extra map[string]string, commands ...string) string {
	var keys []string
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var entries []string
	for _, k := range keys {
		entries = append(entries, fmt.Sprintf("  %q: %s", k, extra[k]))
	}
	if len(commands) > 0 {
		var hooks []string
		for _, c := range commands {
			q, _ := json.Marshal(c)
			hooks = append(hooks, fmt.Sprintf(`{"type": "command", "command": %s, "timeout": 30}`, q))
		}
		entries = append(entries, fmt.Sprintf(`  "hooks": {"SessionStart": [{"matcher": "compact", "hooks": [%s]}]}`, strings.Join(hooks, ", ")))
	}
	return "{\n" + strings.Join(entries, ",\n") + "\n}\n"
}
