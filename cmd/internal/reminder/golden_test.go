package reminder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/nowhook/nowhook/templates"
)

// wrapperPaths are the ways the rendered wrapper can run: through
// nowhook-reminder, through nowhook, through the python3 fallback under coreutils timeout, and through the
// fallback alone. Each is a PATH for the wrapper.
type wrapperPath struct {
	name  string
	tools []string
}

var wrapperPaths = []wrapperPath{
	{"nowhook-reminder", []string{"nowhook-reminder", "kbs"}},
	{"nowhook", []string{"nowhook", "kbs"}},
	{"python3+timeout", []string{"python3", "timeout", "kbs"}},
	{"python3", []string{"python3", "kbs"}},
}

// writeWrapper renders the wrapper template, as setup writes it minus the
// signature line, into a temporary file.
func writeWrapper(t *testing.T, budget time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kanbus-compaction-right-now.sh")
	if err := os.WriteFile(path, []byte(templates.RenderWrapper(budget, "")), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runWrapper runs the wrapper with sh, the given PATH and environment, and
// the payload on stdin. It fails the test unless the wrapper exits 0.
func runWrapper(t *testing.T, wrapper, path, stdin string, env ...string) (stdout, stderr string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, wrapper)
	cmd.Env = append([]string{"PATH=" + path, "NOWHOOK_DEBUG=1"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("wrapper: %v\nstderr:\n%s", err, e.String())
	}
	return o.String(), e.String()
}

// fixtureNames lists the payload fixtures.
func fixtureNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); !strings.HasSuffix(n, ".expected.txt") && n != "README.md" {
			names = append(names, n)
		}
	}
	if len(names) < 9 {
		t.Fatalf("only %d fixtures in %s", len(names), fixtures)
	}
	return names
}

// printsNothing are the fixtures that are not a reminder (fixtures README).
var printsNothing = map[string]bool{"empty.json": true, "object.json": true, "garbage.txt": true}

// TestGolden drives the Go path and every wrapper path over every payload
// fixture: byte for byte the .expected.txt where there is one, nothing
// where the README says so, and the same bytes on every path otherwise.
// The in-process Go path of every fixture runs first, one at a time
// (goReminder), then each fixture's wrapper paths run in parallel.
func TestGolden(t *testing.T) {
	proj := project(t)
	wrapper := writeWrapper(t, 5*time.Second)
	bins := map[string]string{}
	for _, wp := range wrapperPaths {
		bins[wp.name] = toolDir(t, wp.tools...)
	}
	for _, name := range fixtureNames(t) {
		payload := abs(t, filepath.Join(fixtures, name))
		fakeEnv(t, "FAKE_KBS_PAYLOAD", payload)
		got, log := goReminder(t, 5*time.Second, strings.NewReader(compactPayload),
			env("CLAUDE_PROJECT_DIR", proj, "KBS", filepath.Join(bins["nowhook"], "kbs")), t.TempDir())
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(strings.TrimSuffix(payload, filepath.Ext(payload)) + ".expected.txt")
			switch {
			case err == nil:
				if got != quoted(string(want)) {
					t.Fatalf("Go path:\n%s\nwant:\n%s\nlog:\n%s", got, want, log)
				}
			case printsNothing[name]:
				if got != "" {
					t.Fatalf("Go path printed for %s:\n%s", name, got)
				}
			default:
				if got == "" {
					t.Fatalf("Go path printed nothing for %s; log:\n%s", name, log)
				}
			}
			for _, wp := range wrapperPaths {
				out, stderr := runWrapper(t, wrapper, bins[wp.name], compactPayload,
					"CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_PAYLOAD="+payload)
				if python := strings.Contains(stderr, "(python3): project: "); python != strings.HasPrefix(wp.name, "python3") {
					t.Errorf("wrapper via %s: python3 fallback ran: %v; stderr:\n%s", wp.name, python, stderr)
				}
				if out != got {
					t.Errorf("wrapper via %s differs from the Go path:\n%s\nGo path:\n%s\nstderr:\n%s", wp.name, out, got, stderr)
				}
			}
		})
	}
}

// TestFailuresEveryPath drives the Go path and every wrapper path over the
// ways kbs fails: each must print exactly the same bytes and make the same
// calls. A kbs that prints a valid payload and then exits non-zero has
// failed: its output is never used, and --raw is tried; when --raw then
// succeeds, its items are what prints. The in-process Go path of every
// case runs first, one at a time (goReminder), then each case's wrapper
// paths run in parallel.
func TestFailuresEveryPath(t *testing.T) {
	cases := []struct {
		name, mode string
		want       string // expected file, or "" for nothing
		calls      []string
	}{
		{"ok", "ok", "basic.expected.txt", []string{plain}},
		{"exit 1, --raw too", "fail", "", []string{plain, raw}},
		{"no AI, then --raw", "noai", "raw.expected.txt", []string{plain, raw}},
		{"valid payload then exit 1, --raw too", "printfail", "", []string{plain, raw}},
		{"valid payload then exit 1, then --raw succeeds", "printfail-raw-ok", "raw.expected.txt", []string{plain, raw}},
	}
	proj := project(t)
	wrapper := writeWrapper(t, 5*time.Second)
	bins := map[string]string{}
	for _, wp := range wrapperPaths {
		bins[wp.name] = toolDir(t, wp.tools...)
	}
	payload := abs(t, filepath.Join(fixtures, "basic.json"))
	rawPayload := abs(t, filepath.Join(fixtures, "raw.json"))
	for _, c := range cases {
		goCallLog := filepath.Join(t.TempDir(), "calls")
		fakeEnv(t, "FAKE_KBS_MODE", c.mode, "FAKE_KBS_PAYLOAD", payload,
			"FAKE_KBS_RAW_PAYLOAD", rawPayload, "FAKE_KBS_LOG", goCallLog)
		got, log := goReminder(t, 5*time.Second, strings.NewReader(compactPayload),
			env("CLAUDE_PROJECT_DIR", proj, "KBS", filepath.Join(bins["nowhook"], "kbs")), t.TempDir())
		goCalls := kbsCalls(t, goCallLog)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := ""
			if c.want != "" {
				want = expected(t, c.want)
			}
			if got != want {
				t.Errorf("Go path printed:\n%s\nwant:\n%s\nlog:\n%s", got, want, log)
			}
			if goCalls != strings.Join(c.calls, "|") {
				t.Errorf("Go path: kbs calls %q, want %q\nlog:\n%s", goCalls, c.calls, log)
			}
			callLog := filepath.Join(t.TempDir(), "calls")
			for _, wp := range wrapperPaths {
				if err := os.Remove(callLog); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				out, stderr := runWrapper(t, wrapper, bins[wp.name], compactPayload,
					"CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_MODE="+c.mode, "FAKE_KBS_PAYLOAD="+payload,
					"FAKE_KBS_RAW_PAYLOAD="+rawPayload, "FAKE_KBS_LOG="+callLog)
				if python := strings.Contains(stderr, "(python3): project: "); python != strings.HasPrefix(wp.name, "python3") {
					t.Errorf("wrapper via %s: python3 fallback ran: %v; stderr:\n%s", wp.name, python, stderr)
				}
				if out != want {
					t.Errorf("wrapper via %s printed:\n%s\nwant:\n%s\nstderr:\n%s", wp.name, out, want, stderr)
				}
				if calls := kbsCalls(t, callLog); calls != strings.Join(c.calls, "|") {
					t.Errorf("wrapper via %s: kbs calls %q, want %q\nstderr:\n%s", wp.name, calls, c.calls, stderr)
				}
			}
		})
	}
}

// kbsCalls returns the arguments of each call in the fake's call log,
// joined by "|"; "" when kbs never ran.
func kbsCalls(t *testing.T, callLog string) string {
	t.Helper()
	b, err := os.ReadFile(callLog)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, args, _ := strings.Cut(l, " args=")
		calls = append(calls, args)
	}
	return strings.Join(calls, "|")
}

// TestSharedFixturesCopy checks that testdata/kanbus is still the shared
// fixture set it was copied from.
func TestSharedFixturesCopy(t *testing.T) {
	t.Parallel()
	shared := "../../../../shared/kanbus/fixtures"
	entries, err := os.ReadDir(shared)
	if err != nil {
		t.Skipf("shared fixtures not available (%v): nothing to compare", err)
	}
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		a, err := os.ReadFile(filepath.Join(shared, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(fixtures, e.Name()))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("testdata/kanbus/%s differs from the shared fixture (%v)", e.Name(), err)
		}
	}
}

// TestGoMatchesPython feeds payloads that the fixtures do not cover to the
// Go path and the python3 fallback and requires the same bytes: decoding,
// sanitising, caps, priorities and what counts as invalid. The in-process
// Go path of every case runs first, one at a time (goReminder), then the
// fallback of each case runs in parallel.
func TestGoMatchesPython(t *testing.T) {
	obj := func(fields string) string { return "{" + fields + "}" }
	many := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	cases := map[string]string{
		"invalid utf-8": "[{\"id\":\"a\xe2\x82\",\"title\":\"b\xed\xa0\x80c\",\"status\":\"\xf0\x9f\x9a\",\"right_now_summary\":\"\x80\xff\xc0\xafz\xf4\x90\x80\x80\"}]",
		"surrogates":    `[{"id":"\ud83d","title":"\ude80x\ud83d\u0041\ud83d\ud83d\ude80","status":"a\udbff\udfffb","right_now_summary":"\\ud83d"}]`,
		"key escapes":   `[{"\u0069d":"esc","t\u0069tle":"T","status":"s","priority":1}]`,
		"duplicates":    `[{"id":"one","id":"two","priority":1,"priority":"x","title":"T","title":5}]`,
		"bom":           "\ufeff" + `[{"id":"b","title":"BOM"}]`,
		"blank fields":  `[{"id":"  ","title":" \t ","status":"\n","right_now_summary":" \u2028 "}]`,
		"controls":      `[{"id":"c\u0085d","title":"a\u0000b\u001fc\u007fd\u009fe\u2029f\u00a0g","status":"x\r\ny","right_now_summary":"  lead and trail  "}]`,
		"priorities": many(12, func(i int) string {
			return obj(fmt.Sprintf(`"id":"p%d","priority":%s`, i, []string{"1.0", "-0", "1e2", "true", "123456789012345678901234", `"2"`, "9223372036854775807", "-9223372036854775808", "-9223372036854775809", "null", "[1]", "4"}[i]))
		}),
		"nested": `[{"id":"n","meta":{"a":[1,{"b":null}],"c":"\"}"},"title":"after nested"}, [1,2], "s", 3, null, {"title":"no id"}]`,
		"wide lines cap": many(30, func(i int) string {
			return obj(fmt.Sprintf(`"id":"w%d","title":"%s","right_now_summary":"%s"`, i, strings.Repeat("é", 200), strings.Repeat("🚀", 200)))
		}),
		"many items": many(1000, func(i int) string {
			return obj(fmt.Sprintf(`"id":"m%d","title":"Item %d","status":"in_progress","priority":%d`, i, i, i%5))
		}),
		"exactly 30": many(30, func(i int) string { return obj(fmt.Sprintf(`"id":"e%d"`, i)) }),
		"31 with junk": many(40, func(i int) string {
			if i%4 == 0 {
				return "1"
			}
			return obj(fmt.Sprintf(`"id":"j%d"`, i))
		}),
		"only junk": `[1, "a", null, [], true]`,
		"cut at 300": many(2, func(i int) string {
			return obj(fmt.Sprintf(`"id":"c%d","title":"%s"`, i, strings.Repeat("x", 270+i*20)))
		}),
		"cut inside an emoji sequence": many(8, func(i int) string {
			return obj(fmt.Sprintf(`"id":"z%d","title":"%s%s"`, i, strings.Repeat("x", 250+i), strings.Repeat("👨‍👩‍👧‍👦", 12)))
		}),
		"cut before a combining accent": many(4, func(i int) string {
			return obj(fmt.Sprintf(`"id":"a%d","title":"%s%s"`, i, strings.Repeat("x", 270+i), strings.Repeat("e\u0301", 40)))
		}),
		"whitespace":        " \r\n\t[ {\"id\" : \"ws\" } ] \n",
		"trailing garbage":  `[{"id":"t"}] x`,
		"two values":        `[{"id":"t"}][]`,
		"nan":               `[{"id":"n","priority":NaN}]`,
		"infinity":          `[{"id":"n","x":-Infinity}]`,
		"leading zero":      `[{"id":"z","priority":01}]`,
		"bad escape":        `[{"id":"\x"}]`,
		"short unicode":     `[{"id":"\u12"}]`,
		"raw control":       "[{\"id\":\"a\tb\"}]",
		"unterminated":      `[{"id":"u"`,
		"trailing comma":    `[{"id":"u"},]`,
		"single quotes":     `[{'id':'q'}]`,
		"bare minus":        `[{"id":"m","priority":-}]`,
		"fraction no digit": `[{"id":"m","priority":1.}]`,
		"deep":              "[" + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,{"id":"deep"}]`,
		"empty input":       "",
		"null":              "null",
		"100 KB title":      "[" + obj(`"id":"long","title":"`+strings.Repeat("title ", 100_000/6)+`","right_now_summary":"the summary shows"`) + "]",
	}
	// Each escape form and class of invisible character, and every
	// invisible character, between letters.
	// wants holds the reminder such cases print, on both paths.
	wants := map[string]string{}
	for _, c := range cleanCases {
		f, _ := json.Marshal(c.in)
		cases["clean: "+c.name] = "[" + obj(fmt.Sprintf(`"id":"c","title":%s,"status":%s,"right_now_summary":%s`, f, f, f)) + "]"
		status, summary := c.want, c.want
		if c.want == "" {
			status, summary = "?", noSummary
		}
		wants["clean: "+c.name] = quoted(header + "- [P?][" + status + "] c: " + c.want + " — " + summary + "\n")
	}
	var all []string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if invisible(r) {
			all = append(all, string(r))
		}
	}
	n := len(all)/200 + 1
	cases["every invisible character"] = many(n, func(i int) string {
		f, _ := json.Marshal("a" + strings.Join(all[i*200:min(len(all), i*200+200)], "") + "b")
		return obj(fmt.Sprintf(`"id":"i%d","title":%s`, i, f))
	})
	every := header
	for i := range n {
		every += fmt.Sprintf("- [P?][?] i%d: ab — %s\n", i, noSummary)
	}
	wants["every invisible character"] = quoted(every)
	wants["100 KB title"] = quoted(header + "- [P?][?] long: " + strings.Repeat("title ", 30) + "tit… — the summary shows\n")
	proj := project(t)
	wrapper := writeWrapper(t, 5*time.Second)
	bin := toolDir(t, "python3", "timeout", "kbs")
	dir := t.TempDir()
	for name, content := range cases {
		payload := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		writeFile(t, payload, content)
		fakeEnv(t, "FAKE_KBS_PAYLOAD", payload)
		got, log := goReminder(t, 5*time.Second, strings.NewReader(compactPayload),
			env("CLAUDE_PROJECT_DIR", proj, "KBS", filepath.Join(bin, "kbs")), t.TempDir())
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, stderr := runWrapper(t, wrapper, bin, compactPayload,
				"CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_PAYLOAD="+payload)
			if !strings.Contains(stderr, "(python3): project: ") {
				t.Fatalf("the python3 fallback did not run; stderr:\n%s", stderr)
			}
			if out != got {
				t.Fatalf("python3 fallback:\n%q\nGo path:\n%q\nGo log:\n%s\npython stderr:\n%s", out, got, log, stderr)
			}
			if want, ok := wants[name]; ok && got != want {
				t.Fatalf("both paths printed:\n%q\nwant:\n%q", got, want)
			}
			if len(got) >= maxOutBytes {
				t.Fatalf("%d bytes, want under %d", len(got), maxOutBytes)
			}
		})
	}
}

// TestSymlinkedStartBothPaths checks that a start directory reached through
// a symlink into a subdirectory of the project is found by every path.
func TestSymlinkedStartBothPaths(t *testing.T) {
	t.Parallel()
	proj := project(t)
	mkdir(t, filepath.Join(proj, "sub", "deeper"))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(proj, "sub", "deeper"), link); err != nil {
		t.Fatal(err)
	}
	payload := "FAKE_KBS_PAYLOAD=" + abs(t, filepath.Join(fixtures, "basic.json"))
	want := expected(t, "basic.expected.txt")
	wrapper := writeWrapper(t, 5*time.Second)
	for _, wp := range wrapperPaths {
		out, errOut := runWrapper(t, wrapper, toolDir(t, wp.tools...), compactPayload, "CLAUDE_PROJECT_DIR="+link, payload)
		if out != want {
			t.Errorf("%s, CLAUDE_PROJECT_DIR a symlink into the project: got %q, want the reminder\n%s", wp.name, out, errOut)
		}
	}
}

// TestProbeBudgetEveryPath: on every path of the wrapper, nowhook
// doctor's NOWHOOK_PROBE_BUDGET shortens the budget that a hanging kbs
// meets, and a value above the wrapper's --timeout leaves it as it is.
// The debug log names the budget the run kept (never timed). The python3
// fallback says its budget only when it runs out of time, which under
// coreutils timeout is a race on a busy machine: timeout's backstop is
// counted from before python3 started, python3's budget from its own
// start. So on that path timeout is a stand-in that records its
// arguments (the wrapper's backstop, its budget + 2 s, never the probe's)
// and runs python3 without a deadline of its own.
func TestProbeBudgetEveryPath(t *testing.T) {
	t.Parallel()
	proj := project(t)
	wrapper := writeWrapper(t, time.Second)
	for _, c := range []struct {
		probe, goLog, pythonLog string
	}{
		{"0.3", "budget 300ms (" + ProbeBudgetEnv, "(budget 0.3s)"},
		{"30", ProbeBudgetEnv + "=30 ignored", "(budget 1s)"},
	} {
		for _, wp := range wrapperPaths {
			t.Run(wp.name+" "+ProbeBudgetEnv+"="+c.probe, func(t *testing.T) {
				t.Parallel()
				bin, timeoutLog := toolDir(t, wp.tools...), ""
				if slices.Contains(wp.tools, "timeout") {
					bin, timeoutLog = recordingTimeout(t, wp.tools)
				}
				_, stderr := runWrapper(t, wrapper, bin, compactPayload,
					"CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_MODE=hang", ProbeBudgetEnv+"="+c.probe)
				want := c.goLog
				if strings.HasPrefix(wp.name, "python3") {
					want = c.pythonLog
				}
				if !strings.Contains(stderr, want) {
					t.Errorf("wrapper via %s, %s=%s: the debug log does not say %q:\n%s", wp.name, ProbeBudgetEnv, c.probe, want, stderr)
				}
				if timeoutLog != "" {
					if b, err := os.ReadFile(timeoutLog); err != nil || string(b) != "-k 1 3 python3\n" {
						t.Errorf("wrapper via %s: timeout ran with %q (%v), want the wrapper's own backstop, two seconds after its 1s budget: -k 1 3 python3", wp.name, b, err)
					}
				}
			})
		}
	}
}

// reminders holds the reminder the hook prints for each fixture with an
// .expected.txt, for the scenarios under testdata/script ($REMINDERS).
const reminders = "../../../testdata/reminders"

// TestQuotedReminders checks that testdata/reminders/NAME.txt is, for
// every fixture's NAME.expected.txt, that exact reminder quoted, and
// nothing else is there.
func TestQuotedReminders(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".expected.txt")
		if !ok {
			continue
		}
		want[name+".txt"] = true
		b, err := os.ReadFile(filepath.Join(reminders, name+".txt"))
		if err != nil {
			t.Errorf("%s has no quoted reminder: %v", e.Name(), err)
			continue
		}
		if string(b) != expected(t, e.Name()) {
			t.Errorf("testdata/reminders/%s.txt is not %s quoted:\n%s", name, e.Name(), b)
		}
	}
	got, err := os.ReadDir(reminders)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if !want[e.Name()] {
			t.Errorf("testdata/reminders/%s has no fixture", e.Name())
		}
	}
}

// TestClientGoMatchesPython: the python3 fallback tells GitHub Copilot CLI
// apart as the Go runtime does (client.go): COPILOT_CLI=1 and a payload
// with a timestamp print nothing, unless another client's own project
// variable says the session is not Copilot's.
func TestClientGoMatchesPython(t *testing.T) {
	t.Parallel()
	proj := project(t)
	wrapper := writeWrapper(t, 5*time.Second)
	payload := abs(t, filepath.Join(fixtures, "basic.json"))
	want := expected(t, "basic.expected.txt")
	withStamp := `{"session_id":"s1","timestamp":"2026-12-01T21:48:05.375Z","hook_event_name":"SessionStart","source":"compact"}`
	for _, c := range []struct {
		name, stdin string
		env         []string
		prints      bool
	}{
		{"Copilot", withStamp, []string{"COPILOT_CLI=1"}, false},
		{"a timestamp without COPILOT_CLI", withStamp, nil, true},
		{"COPILOT_CLI inherited, Claude Code's payload", compactPayload, []string{"COPILOT_CLI=1"}, true},
		{"COPILOT_CLI inherited by Qwen Code", withStamp, []string{"COPILOT_CLI=1", "QWEN_PROJECT_DIR=" + proj}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var outs []string
			for _, wp := range []wrapperPath{wrapperPaths[0], wrapperPaths[3]} {
				out, stderr := runWrapper(t, wrapper, toolDir(t, wp.tools...), c.stdin,
					append([]string{"CLAUDE_PROJECT_DIR=" + proj, "FAKE_KBS_PAYLOAD=" + payload}, c.env...)...)
				if (out == want) != c.prints || (out != want && out != "") {
					t.Errorf("%s printed %q; want the reminder: %v\nstderr:\n%s", wp.name, out, c.prints, stderr)
				}
				outs = append(outs, out)
			}
			if outs[0] != outs[1] {
				t.Errorf("Go path %q, python3 %q", outs[0], outs[1])
			}
		})
	}
}

// recordingTimeout is toolDir(tools) with a stand-in for coreutils
// timeout, which appends its first four arguments to the file it returns
// and runs the command after the duration without a deadline.
func recordingTimeout(t *testing.T, tools []string) (bin, log string) {
	t.Helper()
	bin = toolDir(t, slices.DeleteFunc(slices.Clone(tools), func(s string) bool { return s == "timeout" })...)
	log = filepath.Join(t.TempDir(), "timeout-args")
	script := "#!/bin/sh\n# stand-in timeout: records its arguments, then runs the command with no deadline\n" +
		"echo \"$1 $2 $3 $4\" >>" + log + "\n[ \"$1\" = -k ] && shift 2\nshift\nexec \"$@\"\n"
	writeFile(t, filepath.Join(bin, "timeout"), script)
	if err := os.Chmod(filepath.Join(bin, "timeout"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}
