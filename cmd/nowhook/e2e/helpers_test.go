package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// testTimeout bounds each real-agent test: every process it starts is
// killed, with its whole process group, when the deadline passes. It is
// a bound, never a measure: on a 2-core machine with both cores busy and
// other suites running, OpenCode's tests took 135 s of a former 3 minutes.
const testTimeout = 10 * time.Minute

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	removeRelease() // release_test.go
	os.Exit(code)
}

// nowhookBinary builds the nowhook command once per package run (only when
// a test that needs it gets that far) and returns the directory holding it.
func nowhookBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "nowhook-e2e-bin-")
		if buildErr != nil {
			return
		}
		goBin := "go" // the toolchain on PATH, as `go test` was run
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "build", "-o", filepath.Join(buildDir, "nowhook"),
			"github.com/nowhook/nowhook/cmd/nowhook")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build nowhook: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

// findClient returns the path of a real agent client from the environment
// variable envName or PATH, or skips the test with the way to provide one
// (fails instead when NOWHOOK_E2E_REQUIRE_AGENTS is set, as in CI).
func findClient(t *testing.T, envName, name string) string {
	t.Helper()
	if p := os.Getenv(envName); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("%s=%s: %v", envName, p, err)
		}
		return abs
	}
	p, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s not found: set %s or put %s on PATH; .ci/run installs it", name, envName, name)
		if os.Getenv("NOWHOOK_E2E_REQUIRE_AGENTS") != "" {
			t.Fatal(msg + " (NOWHOOK_E2E_REQUIRE_AGENTS is set, so a missing client fails)")
		}
		t.Skip(msg)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// clientVersion logs the client's `bin --version`, so the test output
// names the client version each result was measured with. It runs once
// per client in a package run (the first test to ask runs it, with its
// environment; the others wait for it and log the same line): each run is
// one more Node.js start-up, and the tests of one client run side by side
// (Gemini CLI's --version took 2.5 minutes at a load average of 35). A
// failed run is not kept: the next test tries again, and fails itself.
func clientVersion(t *testing.T, ctx context.Context, env []string, bin string) string {
	t.Helper()
	versionsMu.Lock()
	cv := versions[bin]
	if cv == nil {
		cv = &clientVersionOf{}
		versions[bin] = cv
	}
	versionsMu.Unlock()
	cv.mu.Lock()
	defer cv.mu.Unlock()
	if cv.v == "" {
		res := runCmd(t, ctx, env, "", "", bin, "--version")
		if res.err != nil {
			t.Fatalf("%s --version: %v\n%s%s", bin, res.err, res.stdout, res.stderr)
		}
		cv.v = strings.TrimSpace(res.stdout)
	}
	t.Logf("client: %s (%s)", cv.v, bin)
	return cv.v
}

// clientVersionOf is one client's --version, once it ran.
type clientVersionOf struct {
	mu sync.Mutex
	v  string
}

var (
	versionsMu sync.Mutex
	versions   = map[string]*clientVersionOf{} // by the client's path
)

// kbsMode says how the fake `kbs` on PATH behaves.
type kbsMode int

const (
	kbsFixture kbsMode = iota // prints testdata/kanbus/basic.json
	kbsFailing                // exits 1 with an error, prints nothing on stdout
)

// fixture returns the path of a file in the repository's testdata/kanbus.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "kanbus", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return p
}

// expectedReminder is the exact reminder nowhook prints for basic.json,
// without its last newline: basic.expected.txt quoted as the board's data
// (testdata/reminders/basic.txt, which the reminder package's
// TestQuotedReminders holds to the fixture).
func expectedReminder(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "reminders", "basic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimRight(string(b), "\n")
	if !strings.HasPrefix(s, "Quoted from the Kanbus board") || !strings.Contains(s, "\nKanbus WIP") || strings.Count(s, "\n") < 4 {
		t.Fatalf("testdata/reminders/basic.txt does not look like a reminder: %q", s)
	}
	return s
}

// sandbox is one test's world: a throwaway HOME, a bin directory with the
// fake kbs and nowhook, and a git repository with .kanbus.yml.
type sandbox struct {
	root, home, bin, repo string
	kbsLog                string // the fake kbs appends one line per call
}

func newSandbox(t *testing.T, mode kbsMode) *sandbox {
	t.Helper()
	return newSandboxNamed(t, mode, "repo")
}

// newSandboxNamed is newSandbox with the repository in a folder of that
// name (a name with quotes, spaces or a "!").
func newSandboxNamed(t *testing.T, mode kbsMode, name string) *sandbox {
	t.Helper()
	root := t.TempDir()
	s := &sandbox{
		root:   root,
		home:   filepath.Join(root, "home"),
		bin:    filepath.Join(root, "bin"),
		repo:   filepath.Join(root, name),
		kbsLog: filepath.Join(root, "kbs.log"),
	}
	for _, d := range []string{s.home, s.bin, s.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var script string
	switch mode {
	case kbsFixture:
		script = fmt.Sprintf("#!/bin/sh\n# fake kbs: prints a fixed `kbs now --json --list` payload\necho \"$*\" >> %s\ncase \"$*\" in\n*now*--json*) exec cat %s ;;\nesac\necho \"fake kbs: unsupported: $*\" >&2\nexit 1\n",
			shQuote(s.kbsLog), shQuote(fixture(t, "basic.json")))
	case kbsFailing:
		script = fmt.Sprintf("#!/bin/sh\n# fake kbs that always fails\necho \"$*\" >> %s\necho 'Right-now summary generation requires ai.provider litellm in .kanbus.yml' >&2\nexit 1\n",
			shQuote(s.kbsLog))
	}
	writeFile(t, filepath.Join(s.bin, "kbs"), script, 0o755)
	if os.Getenv("E2E_DEV_NOBUILD") == "" { // DEV
		nowhook := filepath.Join(nowhookBinary(t), "nowhook")
		if err := os.Symlink(nowhook, filepath.Join(s.bin, "nowhook")); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(s.repo, ".kanbus.yml"), "project_directory: project\nproject_key: kbs\n", 0o644)
	env := s.env(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"git", "init", "-q"},
		{"git", "add", ".kanbus.yml"},
		{"git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "init"},
	} {
		if res := runCmd(t, ctx, env, s.repo, "", args[0], args[1:]...); res.err != nil {
			t.Fatalf("%v: %v\n%s%s", args, res.err, res.stdout, res.stderr)
		}
	}
	return s
}

// kbsCalls returns how many times the fake kbs ran.
func (s *sandbox) kbsCalls(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(s.kbsLog)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// env builds a client environment from scratch (env -i style): nothing of
// the test runner's environment leaks in except the location of node and
// the basic system directories.
func (s *sandbox) env(extra []string) []string {
	path := []string{s.bin}
	if node, err := exec.LookPath("node"); err == nil {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/bin", "/bin")
	env := []string{
		"PATH=" + strings.Join(path, ":"),
		"HOME=" + s.home,
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
	}
	return append(env, extra...)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// result is what a finished command left behind.
type result struct {
	stdout, stderr string
	err            error
}

// prepare returns a command that runs in its own process group, is killed
// with the whole group when ctx ends, and is cleaned up with the test.
func prepare(t *testing.T, ctx context.Context, env []string, dir, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	t.Cleanup(func() { killGroup(cmd) })
	return cmd
}

// startPiped starts cmd with a pipe to its stdin and one from its stdout;
// what it writes on stderr is kept in the builder it returns.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *strings.Builder) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout, &stderr
}

// killGroup kills the command's process group, children included.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// runCmd runs a command to completion under ctx and reaps its group.
func runCmd(t *testing.T, ctx context.Context, env []string, dir, stdin, name string, args ...string) result {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, name, args...)
	var out, errb strings.Builder
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	killGroup(cmd) // leave no hook or helper process behind
	if ctx.Err() != nil {
		err = fmt.Errorf("%v (deadline: %v)", err, ctx.Err())
	}
	return result{out.String(), errb.String(), err}
}

// jsonStrings returns every string value inside a JSON document, decoded.
func jsonStrings(body []byte) ([]string, error) { return mockmodel.Strings(body) }

// bodyContains reports whether some string value in the JSON body contains
// text, after JSON decoding (so escapes such as \u2014 do not matter).
func bodyContains(t *testing.T, body []byte, text string) bool {
	t.Helper()
	strs, err := jsonStrings(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v\n%.2000s", err, body)
	}
	for _, s := range strs {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// jsonLines decodes a stream of JSON objects, one per line, skipping lines
// that are not JSON.
func jsonLines(r io.Reader, fn func(map[string]any)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			fn(m)
		}
	}
	return sc.Err()
}

// onlyRequest returns the index of the only request of kind, which must be
// followed by another request; why says what its absence means.
func onlyRequest(t *testing.T, reqs []recordedRequest, kind, why string) int {
	t.Helper()
	idx := -1
	for i, r := range reqs {
		if r.Kind == kind {
			if idx >= 0 {
				t.Fatalf("more than one %s request (%d and %d)", kind, idx, i)
			}
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no %s request among %d requests: %s", kind, len(reqs), why)
	}
	if idx+1 >= len(reqs) {
		t.Fatalf("no request after the %s request (%d requests)", kind, len(reqs))
	}
	return idx
}
