package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/templates"
)

// scriptCmds are the custom testscript commands the scenarios may use.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"wrapper":   cmdWrapper,
	"path-only": cmdPathOnly,
	"gone":      cmdGone,
	"user-hook": cmdUserHook,
	"hold-lock": cmdHoldLock,
	"answers":   cmdAnswers,
}

// heldLocks are the writer locks hold-lock took, by path.
var heldLocks = map[string]*osutil.Lock{}

// cmdHoldLock: hold-lock PATH COMMAND takes the writer lock at PATH in the
// test process, as a running nowhook COMMAND would, until the script ends
// (or "hold-lock -release PATH"), so that a nowhook it runs finds the
// lock held: no timing, with NOWHOOK_LOCK_WAIT=0.
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hold-lock PATH COMMAND | hold-lock -release PATH")
	}
	if args[0] == "-release" {
		path := ts.MkAbs(args[1])
		heldLocks[path].Release()
		delete(heldLocks, path)
		return
	}
	path := ts.MkAbs(args[0])
	l, err := osutil.AcquireLock(path, 0, args[1])
	ts.Check(err)
	heldLocks[path] = l
	ts.Defer(func() {
		l.Release()
		delete(heldLocks, path)
	})
}

// scriptCondition answers the [cond] guards the scenarios use; an unknown
// condition is an error, so a typo cannot silently skip a scenario.
// ([exec:PROG] is testscript's own.)
func scriptCondition(cond string) (bool, error) {
	if cond == "root" { // the test runs as root: it can give files to other users
		return os.Geteuid() == 0, nil
	}
	if cond == "sighup-ignored" {
		return sighupIgnored(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// sighupIgnored reports whether this process ignores SIGHUP (bit 0 of
// SigIgn in /proc/self/status, Linux), which every command a scenario
// runs then inherits: a shell cannot trap a signal ignored on entry.
func sighupIgnored() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&1 != 0
		}
	}
	return false
}

// cmdWrapper: wrapper BUDGET FILE writes the wrapper template rendered for
// the budget, as setup does minus the signature line, with mode 0755.
func cmdWrapper(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wrapper BUDGET FILE")
	}
	budget, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("wrapper: %v", err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(templates.RenderWrapper(budget, "")), 0o755))
}

// cmdPathOnly: path-only [NAME]... sets PATH to a new directory
// holding only links to the named programs, found on the current PATH
// (python3 resolved to the interpreter itself, past launcher shims). It
// simulates machines without nowhook, kbs, python3 or coreutils timeout.
func cmdPathOnly(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: path-only [NAME]...")
	}
	dir, err := os.MkdirTemp(ts.Getenv("WORK"), ".path-")
	ts.Check(err)
	for _, name := range args {
		path := lookPath(ts, name)
		if name == "python3" {
			out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
			ts.Check(err)
			path = strings.TrimSpace(string(out))
		}
		ts.Check(os.Symlink(path, filepath.Join(dir, name)))
	}
	ts.Setenv("PATH", dir)
}

// lookPath finds name on the script's PATH.
func lookPath(ts *testscript.TestScript, name string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return path
		}
	}
	ts.Fatalf("path-only: %s not found on PATH", name)
	return ""
}

// cmdGone: gone PIDFILE waits until every process listed in PIDFILE (one
// pid a line) has ended, and fails if one still runs after 10 seconds.
// A zombie that nobody has reaped yet counts as ended.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pids := strings.Fields(string(b))
	if len(pids) == 0 {
		ts.Fatalf("gone: no pid in %s", args[0])
	}
	end := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		n, err := strconv.Atoi(pid)
		ts.Check(err)
		for running(n) {
			if time.Now().After(end) {
				ts.Fatalf("process %d is still running", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func running(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// "pid (comm) STATE ..."; comm may hold spaces and parentheses.
		s := string(b)
		return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// cmdUserHook: user-hook SETTINGS OUT writes to OUT, as a shell script,
// the command of the user-scope hook in the settings file SETTINGS (the
// SessionStart handler whose command sets NOWHOOK_DEFER), exactly as the
// agent would hand it to its shell; it fails when there is not exactly one.
func cmdUserHook(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: user-hook SETTINGS OUT")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	b = hujsonStandard(ts, b)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	ts.Check(json.Unmarshal(b, &doc))
	var found []string
	for _, g := range doc.Hooks["SessionStart"] {
		for _, h := range g.Hooks {
			if strings.Contains(h.Command, "NOWHOOK_DEFER=") {
				found = append(found, h.Command)
			}
		}
	}
	if len(found) != 1 {
		ts.Fatalf("user-hook: %d user-scope hooks in %s, want 1", len(found), args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(found[0]+"\n"), 0o644))
}

// hujsonStandard strips comments and trailing commas (Qwen's settings may
// have comments).
func hujsonStandard(ts *testscript.TestScript, b []byte) []byte {
	v, err := hujson.Parse(b)
	ts.Check(err)
	v.Standardize()
	return v.Pack()
}
