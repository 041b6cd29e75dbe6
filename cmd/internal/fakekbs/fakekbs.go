// Package fakekbs is a stand-in for Kanbus's `kbs` that follows the
// `kbs now --json --list` contract (docs/platforms.md#kanbus) and can misbehave in
// every way a hook must survive. Tests install it as `kbs` on PATH: the
// test binary runs Main when it is started under the name kbs (or kanbus).
//
// Environment:
//
//	FAKE_KBS_PAYLOAD      file printed by `kbs now --json --list`
//	FAKE_KBS_RAW_PAYLOAD  file printed when --raw is given (default: FAKE_KBS_PAYLOAD)
//	FAKE_KBS_MODE         what to do (default ok):
//	  ok           print the payload, exit 0
//	  fail         print an error to stderr, exit 1
//	  printfail    print the payload (a valid one, if FAKE_KBS_PAYLOAD is),
//	               then an error to stderr, exit 1; with --raw too
//	  printfail-raw-ok
//	               without --raw as printfail; with --raw print the raw
//	               payload and exit 0
//	  noai         without --raw fail as Kanbus does with no AI configured;
//	               with --raw print the raw payload
//	  hang         never answer (sleeps FAKE_KBS_SLEEP, default 60s)
//	  orphan       print the payload, start a child that keeps stdout open
//	               (sleeping FAKE_KBS_SLEEP), exit 0
//	  hang-orphan  start such a child, then hang
//	  linger       print the payload, close stdout, then hang
//	  killparent   print the payload, then kill its parent with SIGKILL
//	  setsid       start a child in a session of its own (out of the
//	               hook's process group; sleeping FAKE_KBS_SLEEP), print
//	               the payload, exit 0
//	  setsid-hold  the same, the child keeping stdout open
//	  setsid-hang  start such a child holding stdout, then hang
//	  big          print a valid 20 MB JSON array
//	  noisy        write 256 KiB to stderr, then print the payload
//	FAKE_KBS_DELAY        sleep this long before anything else
//	FAKE_KBS_LOG          append one line per call: "dir=CWD args=ARGS"
//	FAKE_KBS_PIDS         append the pid of every process the fake runs
package fakekbs

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// noAI is what Kanbus prints when right-now summaries need an LLM that is
// not configured (docs/platforms.md#kanbus).
const noAI = "Right-now summary generation requires ai.provider litellm in .kanbus.yml"

// Main runs the fake and returns its exit status.
func Main() int {
	mode := os.Getenv("FAKE_KBS_MODE")
	if mode == "sleeper" { // the child that orphan modes leave behind
		sleep()
		return 0
	}
	appendLine(os.Getenv("FAKE_KBS_PIDS"), fmt.Sprint(os.Getpid()))
	args := os.Args[1:]
	wd, _ := os.Getwd()
	appendLine(os.Getenv("FAKE_KBS_LOG"), "dir="+wd+" args="+strings.Join(args, " "))
	if d, err := time.ParseDuration(os.Getenv("FAKE_KBS_DELAY")); err == nil {
		time.Sleep(d)
	}
	raw, err := checkArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 2
	}
	payload := os.Getenv("FAKE_KBS_PAYLOAD")
	if p := os.Getenv("FAKE_KBS_RAW_PAYLOAD"); raw && p != "" {
		payload = p
	}
	switch mode {
	case "", "ok":
		return printFile(payload)
	case "fail":
		fmt.Fprintln(os.Stderr, "kbs: error: something went wrong")
		return 1
	case "printfail", "printfail-raw-ok":
		// Whatever a failing kbs printed before it failed is not an answer.
		if raw && mode == "printfail-raw-ok" {
			return printFile(payload)
		}
		if code := printFile(payload); code != 0 {
			return code
		}
		fmt.Fprintln(os.Stderr, "kbs: error: failed after printing")
		return 1
	case "noai":
		if !raw {
			fmt.Fprintln(os.Stderr, "Error:", noAI)
			return 1
		}
		return printFile(payload)
	case "hang":
		sleep()
		return 0
	case "orphan":
		if err := orphan(); err != nil {
			fmt.Fprintln(os.Stderr, "fake kbs:", err)
			return 1
		}
		return printFile(payload)
	case "hang-orphan":
		if err := orphan(); err != nil {
			fmt.Fprintln(os.Stderr, "fake kbs:", err)
			return 1
		}
		sleep()
		return 0
	case "linger":
		if code := printFile(payload); code != 0 {
			return code
		}
		os.Stdout.Close()
		sleep()
		return 0
	case "killparent":
		if code := printFile(payload); code != 0 {
			return code
		}
		if p, err := os.FindProcess(os.Getppid()); err == nil {
			_ = p.Kill()
		}
		sleep() // killed with the hook's group, if the hook survived
		return 0
	case "setsid", "setsid-hold", "setsid-hang":
		if err := escape(mode != "setsid"); err != nil {
			fmt.Fprintln(os.Stderr, "fake kbs:", err)
			return 1
		}
		if mode == "setsid-hang" {
			sleep()
			return 0
		}
		return printFile(payload)
	case "big":
		return printBig(20 << 20)
	case "noisy":
		// More than a pipe holds: a reader that stops early blocks us.
		line := strings.Repeat("warning: noise ", 63) + "\n"
		for i := 0; i < 256; i++ {
			if _, err := os.Stderr.WriteString(line); err != nil {
				return 1
			}
		}
		return printFile(payload)
	}
	fmt.Fprintf(os.Stderr, "fake kbs: unknown FAKE_KBS_MODE %q\n", mode)
	return 1
}

// checkArgs accepts what the hook contract allows: `now --json --list`,
// optionally with --raw, and no issue ids.
func checkArgs(args []string) (raw bool, err error) {
	if len(args) == 0 || args[0] != "now" {
		return false, fmt.Errorf("fake kbs only knows `now`, got %q", args)
	}
	var json, list bool
	for _, a := range args[1:] {
		switch a {
		case "--json":
			json = true
		case "--list":
			list = true
		case "--raw":
			raw = true
		default:
			if strings.HasPrefix(a, "-") {
				return false, fmt.Errorf("unexpected argument '%s' found", a)
			}
			return false, fmt.Errorf("not found: %s", a)
		}
	}
	if !json || !list {
		return false, fmt.Errorf("the fake only prints `now --json --list`, got %q", args)
	}
	return raw, nil
}

func printFile(path string) int {
	if path == "" {
		fmt.Fprintln(os.Stderr, "fake kbs: FAKE_KBS_PAYLOAD is not set")
		return 1
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake kbs:", err)
		return 1
	}
	defer f.Close()
	if _, err := io.Copy(os.Stdout, f); err != nil {
		return 1
	}
	return 0
}

// printBig prints a valid JSON array of at least n bytes.
func printBig(n int) int {
	entry := `{"id": "kbs-big", "title": "` + strings.Repeat("b", 1000) + `", "type": "task", "status": "in_progress", "priority": 2, "updated_at": "2026-03-01T00:00:00.000Z", "right_now_summary": null, "parent": null}`
	chunk := []byte(strings.Repeat(entry+",\n", 64))
	if _, err := os.Stdout.WriteString("[\n"); err != nil {
		return 1
	}
	for written := 0; written < n; written += len(chunk) {
		if _, err := os.Stdout.Write(chunk); err != nil {
			return 1
		}
	}
	if _, err := os.Stdout.WriteString(entry + "\n]\n"); err != nil {
		return 1
	}
	return 0
}

// orphan starts a child that inherits stdout and outlives this process.
func orphan() error { return sleeper(true, false) }

// escape starts a child that outlives this process in a session of its
// own, out of the process group the hook kills; with stdout when hold is
// set.
func escape(hold bool) error { return sleeper(hold, true) }

// sleeper starts the child of orphan and escape: the fake in sleeper mode,
// with this stdout when hold is set, in a new session when setsid is.
func sleeper(hold, setsid bool) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Args = []string{"kbs"} // the test binary dispatches on its name
	cmd.Env = append(slices.Clip(os.Environ()), "FAKE_KBS_MODE=sleeper")
	if hold {
		cmd.Stdout = os.Stdout
	}
	if setsid {
		cmd.SysProcAttr = newSession()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	appendLine(os.Getenv("FAKE_KBS_PIDS"), fmt.Sprint(cmd.Process.Pid))
	return nil
}

func sleep() {
	d, err := time.ParseDuration(os.Getenv("FAKE_KBS_SLEEP"))
	if err != nil {
		d = 60 * time.Second
	}
	time.Sleep(d)
}

// appendLine appends line to the file at path, if path is set.
func appendLine(path, line string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
