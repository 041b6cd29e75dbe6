// Command testsum runs `go test -json` with its arguments, prints what
// plain `go test` prints (a line per package, and the output of what
// failed), and then one line per skipped test with the reason it gave,
// which plain `go test` hides for a package that passes. For the real-agent
// tests (a package named e2e) it also prints each test's result and the
// client version it logged, so a CI log shows what ran against which
// client. It exits with go test's status. The README's test command is
// `go run ./scripts/testsum ./...`.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// packageTimeout is the -timeout testsum passes when its arguments name
// none, the one .ci/run passes: go test's default of 10 minutes per
// package ended the e2e package at 600 s on a 2-core machine with both
// cores busy, and a test command that fails on a loaded machine fails by
// chance. Each real-client test bounds itself (cmd/nowhook/e2e
// testTimeout); the package bound is above what the whole package takes
// on such a machine (still running at 30 minutes with a load average of
// 20, every test before it passing).
const packageTimeout = "60m"

func run(args []string) int {
	if !hasTimeout(args) {
		args = append([]string{"-timeout", packageTimeout}, args...)
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		return 1
	}
	logs := map[string][]string{} // output per package/test, printed if it fails
	skipped := map[string]string{}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Println(sc.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Print(e.Output)
		case "output":
			if e.Test == "" && isSummary(e.Output) {
				fmt.Print(e.Output)
				continue
			}
			if strings.HasSuffix(e.Package, "/e2e") && e.Test != "" &&
				(strings.HasPrefix(e.Output, "--- ") || strings.Contains(e.Output, "client: ")) {
				fmt.Print(e.Output)
			}
			logs[key] = append(logs[key], e.Output)
		case "skip":
			if e.Test != "" && !strings.Contains(e.Test, "/") {
				skipped[e.Package+"."+e.Test] = reason(logs[key])
			}
			delete(logs, key)
		case "pass":
			delete(logs, key)
		case "fail":
			fmt.Print(strings.Join(logs[key], ""))
			delete(logs, key)
		}
	}
	err = cmd.Wait()
	if len(skipped) > 0 {
		var names []string
		for n := range skipped {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Printf("testsum: %d tests skipped (run them as the reason says):\n", len(names))
		for _, n := range names {
			fmt.Printf("  skip %s: %s\n", n, skipped[n])
		}
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// hasTimeout reports whether args set go test's -timeout.
func hasTimeout(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "timeout" || name == "test.timeout") {
			return true
		}
	}
	return false
}

// isSummary reports whether a package-level output line is the one plain
// go test prints for the package.
func isSummary(line string) bool {
	for _, p := range []string{"ok  \t", "FAIL\t", "?   \t", "--- FAIL", "FAIL\n", "PASS\n", "panic:"} {
		if strings.HasPrefix(line, p) {
			return p != "PASS\n"
		}
	}
	return false
}

// reason finds the skip message in a test's output.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if j := strings.Index(l, ".go:"); j >= 0 {
			if k := strings.Index(l[j:], ": "); k >= 0 {
				return l[j+k+2:]
			}
		}
		return l
	}
	return "(no reason given)"
}
