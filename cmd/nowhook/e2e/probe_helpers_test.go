package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The probe_*_test.go files measure, with the real client and no nowhook,
// what the agents of issue 17 (Factory Droid, Cline, Continue CLI, Auggie,
// Crush) read and which of their hooks reach the model: the facts their
// agent rows rest on. Factory Droid, Cline and Continue CLI are pinned in
// scripts/pins.tsv: their tests find them with findClient (DROID_BIN,
// CLINE_BIN, CONTINUE_BIN, or droid, cline, cn on PATH), so CI, which
// installs the pins, runs them. Crush and Auggie cannot be installed or
// run here; their tests find them with probeBin and skip, saying why.

// unpinned says, for the variable of each client that cannot be pinned,
// why CI cannot run it.
var unpinned = map[string]string{
	"CRUSH_BIN": "Crush is not pinned: npm @charmland/crush 0.96.1 downloads its binary from GitHub " +
		"in an install script and the Go module proxy refuses github.com/charmbracelet/crush, so CI " +
		"(npm registry only) cannot install it; set CRUSH_BIN to a crush you built to run this test",
	"AUGGIE_BIN": "Auggie is not pinned: npm @augmentcode/auggie 0.36.0 does not start without an Augment " +
		"login and reaches its models only through Augment's own service, so no mock can stand in; " +
		"set AUGGIE_BIN to an auggie to run this test",
}

// probeBin returns the unpinned client named by envName, or skips the test
// with the reason it is not pinned (also where NOWHOOK_E2E_REQUIRE_AGENTS is
// set: CI cannot install it).
func probeBin(t *testing.T, envName, client string) string {
	t.Helper()
	why, ok := unpinned[envName]
	if !ok {
		t.Fatalf("probeBin(%s): not an unpinned client; a pinned one is found with findClient", envName)
	}
	if os.Getenv(envName) == "" {
		t.Skip(why)
	}
	return findClient(t, envName, client)
}

// probeFiles are the instruction files a probe repository holds, each
// with a marker line "(probe-NAME)" the probes look for in the requests.
var probeFiles = []string{
	"AGENTS.md", "CLAUDE.md", "CRUSH.md", "GEMINI.md", "AGENT.md", ".cursorrules",
	".clinerules/rules.md", ".continue/rules/rules.md", ".augment/rules/rules.md",
	".github/copilot-instructions.md", "svc/AGENTS.md",
}

// probeSub is the sub-folder the probes start a client in.
const probeSub = "svc/api"

// probeMarker is the marker line of one instruction file.
func probeMarker(name string) string { return "(probe-" + name + ")" }

// probeRepo makes a git repository holding the named instruction files
// (all of probeFiles when none are named) and probeSub, committed.
func probeRepo(t *testing.T, ctx context.Context, files ...string) string {
	t.Helper()
	if len(files) == 0 {
		files = probeFiles
	}
	repo := filepath.Join(t.TempDir(), "repo")
	for _, f := range files {
		writeFile(t, filepath.Join(repo, filepath.FromSlash(f)), "# "+f+"\n\nmarker line "+probeMarker(f)+".\n", 0o644)
	}
	writeFile(t, filepath.Join(repo, filepath.FromSlash(probeSub), "main.go"), "package api\n", 0o644)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	for _, args := range [][]string{
		{"git", "init", "-q"},
		{"git", "add", "-A"},
		{"git", "-c", "user.name=probe", "-c", "user.email=probe@example.invalid", "commit", "-qm", "probe"},
	} {
		if res := runCmd(t, ctx, env, repo, "", args[0], args[1:]...); res.err != nil {
			t.Fatalf("%v: %v\n%s%s", args, res.err, res.stdout, res.stderr)
		}
	}
	return repo
}

// probeFound lists the instruction files whose marker is in body.
func probeFound(t *testing.T, body []byte) []string {
	t.Helper()
	var got []string
	for _, f := range probeFiles {
		if bodyContains(t, body, probeMarker(f)) {
			got = append(got, f)
		}
	}
	sort.Strings(got)
	return got
}

// checkProbeFound asserts that body holds the markers of exactly want.
func checkProbeFound(t *testing.T, what string, body []byte, want ...string) {
	t.Helper()
	sort.Strings(want)
	got := probeFound(t, body)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: the first request has the instruction files %v, want %v", what, got, want)
	}
}

// probeHook is a hook script for the probes: it appends its first argument
// and its stdin to a log, prints out (a marker, or JSON carrying one) and
// exits with code.
type probeHook struct {
	path, log string
}

// writeProbeHook writes the script at path; its runs go to a log beside the
// test's temporary files.
func writeProbeHook(t *testing.T, path, out string, code int) probeHook {
	t.Helper()
	h := probeHook{path: path, log: filepath.Join(t.TempDir(), "hook.log")}
	script := "#!/bin/sh\n# probe hook: logs its run, prints a marker\nin=$(cat)\n" +
		"printf '%s\\t%s\\t%s\\n' \"$1\" \"$(pwd)\" \"$in\" >> " + shQuote(h.log) + "\n" +
		"printf '%s\\n' " + shQuote(out) + "\n"
	if code != 0 {
		script += "exit " + strconv.Itoa(code) + "\n"
	}
	writeFile(t, path, script, 0o755)
	return h
}

// runs returns the hook's runs, one line each: argument, cwd, stdin.
func (h probeHook) runs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(h.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// probeChat answers the chat requests of a probe: a summary where the last
// user message asks for one (summaryPhrases), otherwise a short text; the
// first turn may report a prompt close to a 1M window (highFirst) or call a
// tool once (tool).
type probeChat struct {
	summaryPhrases []string
	highFirst      bool
	tool           *chatToolCall

	mu    sync.Mutex
	turns int
}

func (p *probeChat) reply(r *chatRequest) chatReply {
	last := r.LastUserText()
	for _, s := range p.summaryPhrases {
		if strings.Contains(last, s) {
			return chatReply{Kind: "summary", Text: "<summary>The user greeted the assistant; nothing else happened.</summary>",
				PromptTokens: 100, CompletionTokens: 8}
		}
	}
	p.mu.Lock()
	p.turns++
	n := p.turns
	p.mu.Unlock()
	reply := chatReply{Kind: "turn", Text: "Reply " + strconv.Itoa(n) + " from the mock.", PromptTokens: 100, CompletionTokens: 8}
	if n == 1 && p.highFirst {
		reply.PromptTokens = 990000
	}
	if n == 1 && p.tool != nil {
		reply.Text = ""
		reply.ToolCalls = []chatToolCall{*p.tool}
	}
	return reply
}

// summaryAt returns the index of the only summary request and fails the
// test unless one follows it.
func summaryAt(t *testing.T, reqs []*chatRequest) int {
	t.Helper()
	var rec []recordedRequest
	for _, r := range reqs {
		rec = append(rec, r.Request)
	}
	return onlyRequest(t, rec, "summary", "the client did not compact")
}

// checkOnceAfter asserts that marker is in no request before the one after
// the summary request and exactly once in that one.
func checkOnceAfter(t *testing.T, reqs []*chatRequest, marker string) {
	t.Helper()
	idx := summaryAt(t, reqs)
	for i := 0; i <= idx; i++ {
		if bodyContains(t, reqs[i].Body, marker) {
			t.Errorf("request %d (before or at the summary request %d) already has %q", i, idx, marker)
		}
	}
	if n := countIn(t, reqs[idx+1].Body, marker); n != 1 {
		t.Errorf("the first request after the summary request has %q %d times, want once\n%.3000s", marker, n, reqs[idx+1].Body)
	}
}

// checkNowhere asserts that no request carries marker.
func checkNowhere(t *testing.T, reqs []*chatRequest, marker string) {
	t.Helper()
	for i, r := range reqs {
		if bodyContains(t, r.Body, marker) {
			t.Errorf("request %d has %q, want it in none", i, marker)
		}
	}
}

// probeCtx is a test-bounded context.
func probeCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// probeEnv is a client environment from scratch: a throwaway HOME, node
// on PATH for the clients that are node scripts.
func probeEnv(home string, extra ...string) []string {
	path := []string{}
	if node, err := exec.LookPath("node"); err == nil {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	env := []string{"PATH=" + strings.Join(path, ":"), "HOME=" + home, "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	return append(env, extra...)
}
