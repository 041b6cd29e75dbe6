package reminder

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/fakekbs"
	"github.com/nowhook/nowhook/cmd/internal/fakesamemind"
)

// TestMain lets the test binary stand in for the programs the reminder and
// the wrapper run: started as kbs or kanbus it is the fake Kanbus CLI,
// started as nowhook it is `nowhook reminder`, and as nowhook-reminder
// the lean hook binary.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "kbs", "kanbus":
		os.Exit(fakekbs.Main())
	case "samemind":
		os.Exit(fakesamemind.Main())
	case "nowhook":
		if len(os.Args) > 1 && os.Args[1] == "reminder" {
			ExitsAfterRun()
			os.Exit(Run(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		}
		os.Exit(2)
	case "nowhook-reminder":
		ExitsAfterRun()
		os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "watching-hook": // TestStopsCaughtOnceAChildRuns: watching for a stop, with a child or not
		c := make(chan os.Signal, 1)
		watchStops(c)
		if os.Args[1] == "child" {
			armStops()
		}
		fmt.Println("watching")
		fmt.Println(<-c)
		os.Exit(0)
	case "blocked-hook": // TestGuardEndsABlockedHook: a hook stuck in a read
		budget, _ := time.ParseDuration(os.Args[1])
		guard(budget, logger{w: os.Stderr, on: true})
		armStops() // as once kbs runs: the stop signals are caught
		fmt.Println("guarded")
		_, _ = io.ReadAll(os.Stdin) // the test never closes it
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// fixtures is the repository's copy of the shared Kanbus payload fixtures.
const fixtures = "../../../testdata/kanbus"

// compactPayload is what Claude Code sends to a SessionStart hook after a
// compaction.
const compactPayload = `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/nonexistent","hook_event_name":"SessionStart","source":"compact"}`

// toolDir returns a directory holding links named after each tool: "kbs",
// "kanbus", "nowhook" and "nowhook-reminder" run this test binary in that role, anything else
// is found on the current PATH. A "new=old" entry names the link new.
func toolDir(t *testing.T, tools ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tool := range tools {
		name, target, renamed := strings.Cut(tool, "=")
		if !renamed {
			target = name
		}
		switch target {
		case "kbs", "kanbus", "nowhook", "nowhook-reminder", "blocked-hook", "watching-hook", "samemind":
			if renamed {
				t.Fatalf("toolDir: rename the role, not the test binary: %q", tool)
			}
			target = self
		case "python3":
			target = realPython(t)
		default:
			path, err := exec.LookPath(target)
			if err != nil {
				t.Skipf("%s is not installed: %v", target, err)
			}
			target = path
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// realPython is the python3 interpreter itself, not a launcher script
// (pyenv's shim needs bash and more on PATH).
func realPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3 is not installed: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// project returns a git repository root holding .kanbus.yml.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, ".git"))
	writeFile(t, filepath.Join(dir, ".kanbus.yml"), "project_key: kbs\n")
	return dir
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeEnv sets the fake kbs's environment for this test; the fake runs as
// a child, so it reads the process environment.
func fakeEnv(t *testing.T, kv ...string) {
	t.Helper()
	for _, k := range []string{"FAKE_KBS_PAYLOAD", "FAKE_KBS_RAW_PAYLOAD", "FAKE_KBS_MODE", "FAKE_KBS_DELAY", "FAKE_KBS_LOG", "FAKE_KBS_PIDS", "FAKE_KBS_SLEEP"} {
		t.Setenv(k, "")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

// env is a getenv over a fixed map.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// goReminder runs the Go path in-process against the fake kbs with the
// given fixture and returns what it printed and its debug log.
//
// Never from a parallel test, nor beside parallel subtests: an in-process
// kbs call makes the test process the reaper of its orphans and, on Linux,
// kills and reaps every process still below it (killOrphans), those of a
// test running beside it included. The same holds for every in-process
// run that starts kbs or samemind (checkpoint, geminiTurn, kimiTurn, hint,
// the sources); fakeEnv's t.Setenv refuses a parallel test anyway. Tests
// that only start the wrapper or the runtime as a child process, with its
// environment given explicitly, run in parallel.
func goReminder(t *testing.T, budget time.Duration, stdin io.Reader, getenv func(string) string, wd string) (out, log string) {
	t.Helper()
	var debug bytes.Buffer
	b := remind(options{
		budget: budget,
		stdin:  stdin,
		getenv: getenv,
		wd:     wd,
		log:    logger{w: &debug, on: true},
	})
	return string(b), debug.String()
}

// abs returns the absolute path of a file under the fixtures directory.
func abs(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readPids returns the pids the fake recorded.
func readPids(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake recorded no pid: %v", err)
	}
	return strings.Fields(string(b))
}
