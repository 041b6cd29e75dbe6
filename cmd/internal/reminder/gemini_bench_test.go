package reminder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The cost of Gemini CLI's BeforeModel hook, which runs before every
// request (docs/platforms.md, "Gemini CLI: re-inject through
// BeforeModel"). scripts/bench-gemini.sh runs these.
//
// Sizes: Gemini CLI compresses at half of a 1,048,576-token window
// (0.61.0), so a history grows to some 2 MB of text before its first
// compression; 200 KB is a session well under way.

// geminiHistory is a BeforeModel payload with a history of about size
// bytes, compressed or not.
func geminiHistory(proj, session string, size int, compressed bool) []byte {
	var msgs []gmsg
	if compressed {
		msgs = append(msgs, summaryMsg(strings.Repeat("Decisions so far; files touched. ", 200)), ack)
	} else {
		msgs = append(msgs, gmsg{"user", sessionContext + "hello"})
	}
	pad := strings.Repeat("The tool printed a line of output, and the model read it. ", 18)
	for n := 0; n < size; n += 2 * len(pad) {
		msgs = append(msgs, gmsg{"model", pad}, gmsg{"user", pad})
	}
	b, _ := json.Marshal(msgs)
	return []byte(`{"session_id":` + jsonString(session) + `,"transcript_path":"/tmp/chats/session.jsonl","cwd":` + jsonString(proj) +
		`,"hook_event_name":"BeforeModel","timestamp":"2026-12-01T13:39:01.721Z","llm_request":{"model":"gemini-2.5-flash","messages":` +
		string(b) + `,"config":{"temperature":1,"topP":0.95,"topK":64}}}`)
}

// benchGeminiInProcess is --gemini-turn's own work on one request,
// everything but starting the process.
func benchGeminiInProcess(b *testing.B, size int, compressed bool) {
	proj := benchProject(b)
	state := b.TempDir()
	data := geminiHistory(proj, "bench", size, compressed)
	o := options{budget: 5 * time.Second, getenv: env("XDG_STATE_HOME", state, "KBS", "kbs-not-needed"), wd: proj}
	if compressed { // answered once, so that the loop measures the latched path
		pl, _ := scanGemini(data)
		if err := setLatch(latchDir(o.getenv, compressionLatches), geminiLatchName(pl), "bench", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		o.stdin = &pipeReader{r: bytes.NewReader(data)}
		if out := geminiTurn(o); out != nil {
			b.Fatalf("printed %q", out)
		}
	}
}

// BenchmarkGeminiTurnQuiet: no compression yet, a 2 MB history.
func BenchmarkGeminiTurnQuiet(b *testing.B) { benchGeminiInProcess(b, 2<<20, false) }

// BenchmarkGeminiTurnAnswered: compressed and already answered, a 2 MB
// history after the summary.
func BenchmarkGeminiTurnAnswered(b *testing.B) { benchGeminiInProcess(b, 2<<20, true) }

// benchProject is a git repository root holding .kanbus.yml and home/.
func benchProject(b *testing.B) string {
	b.Helper()
	proj := b.TempDir()
	for _, d := range []string{".git", "home"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return proj
}

// pipeReader hands out at most 64 KiB per read, as a pipe does.
type pipeReader struct {
	r    *bytes.Reader
	read int // bytes handed out
}

func (p *pipeReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b[:min(len(b), 64<<10)])
	p.read += n
	return n, err
}

var (
	geminiBinOnce sync.Once
	geminiBinDir  string
	geminiBinErr  error
)

// geminiBinaries builds nowhook-reminder and nowhook once, into a folder
// that also holds the wrapper written from templates/gemini-turn.sh, and
// one holding only nowhook.
func geminiBinaries(b *testing.B) (bin, full, wrapper string) {
	b.Helper()
	geminiBinOnce.Do(func() {
		geminiBinDir, geminiBinErr = os.MkdirTemp("", "nowhook-bench-gemini-")
		if geminiBinErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for _, p := range []string{"nowhook-reminder", "nowhook"} {
			cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(geminiBinDir, "bin", p), "github.com/nowhook/nowhook/cmd/"+p)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				geminiBinErr = fmt.Errorf("go build %s: %v\n%s", p, err, out)
				return
			}
		}
		full := filepath.Join(geminiBinDir, "full")
		if geminiBinErr = os.MkdirAll(full, 0o755); geminiBinErr != nil {
			return
		}
		if geminiBinErr = os.Symlink(filepath.Join(geminiBinDir, "bin", "nowhook"), filepath.Join(full, "nowhook")); geminiBinErr != nil {
			return
		}
		tmpl, err := os.ReadFile("../../../templates/gemini-turn.sh")
		if err != nil {
			geminiBinErr = err
			return
		}
		geminiBinErr = os.WriteFile(filepath.Join(geminiBinDir, "kanbus-gemini-turn.sh"), []byte(strings.NewReplacer("@TIMEOUT@", "5s", "@SOURCES@", "kanbus").Replace(string(tmpl))), 0o755)
	})
	if geminiBinErr != nil {
		b.Fatal(geminiBinErr)
	}
	return filepath.Join(geminiBinDir, "bin"), filepath.Join(geminiBinDir, "full"), filepath.Join(geminiBinDir, "kanbus-gemini-turn.sh")
}

// geminiInline is the wrapper's first branch as the hook command itself,
// with no script: bash's own command -v finds the binary, one exec fewer.
const geminiInline = "command -v nowhook-reminder >/dev/null 2>&1 && exec nowhook-reminder --gemini-turn --timeout 5s; exit 0"

// geminiHookCase is one hook command run the way Gemini CLI runs it:
// `bash -c COMMAND` in the project, the payload on stdin, until it exits.
type geminiHookCase struct {
	name, cmd, path string
	payload         []byte
	times           []time.Duration
}

// BenchmarkGeminiHookVsTrue times, in one run and alternating, a bare
// /bin/true hook and the BeforeModel hook on quiet requests, and reports
// for each case its median and how far above /bin/true's median it lies
// (ms-above-true, x-true). Each iteration is one request of each case.
func BenchmarkGeminiHookVsTrue(b *testing.B) {
	bin, full, wrapper := geminiBinaries(b)
	proj := benchProject(b)
	state := filepath.Join(proj, "home", "state")
	mid, big := 200<<10, 2<<20
	answered := func(size int) []byte {
		data := geminiHistory(proj, "bench", size, true)
		pl, _ := scanGemini(data)
		if err := setLatch(latchDir(env("XDG_STATE_HOME", state), compressionLatches), geminiLatchName(pl), "bench", time.Now()); err != nil && !errors.Is(err, errLatched) {
			b.Fatal(err)
		}
		return data
	}
	quietMid, quietBig := geminiHistory(proj, "bench", mid, false), geminiHistory(proj, "bench", big, false)
	cases := []*geminiHookCase{
		{name: "/bin/true, 2 MB", cmd: "/bin/true", path: bin, payload: quietBig},
		{name: "start only, no payload", cmd: filepath.Join(bin, "nowhook-reminder") + " --gemini-turn --timeout 5s", path: bin},
		{name: "quiet, 200 KB", cmd: wrapper, path: bin, payload: quietMid},
		{name: "quiet, 2 MB", cmd: wrapper, path: bin, payload: quietBig},
		{name: "answered, 200 KB", cmd: wrapper, path: bin, payload: answered(mid)},
		{name: "answered, 2 MB", cmd: wrapper, path: bin, payload: answered(big)},
		{name: "quiet, 2 MB, no wrapper", cmd: filepath.Join(bin, "nowhook-reminder") + " --gemini-turn --timeout 5s", path: bin, payload: quietBig},
		{name: "quiet, 2 MB, nowhook only", cmd: wrapper, path: full, payload: quietBig},
		{name: "quiet, 2 MB, inline", cmd: geminiInline, path: bin, payload: quietBig},
	}
	run := func(c *geminiHookCase) time.Duration {
		cmd := exec.Command("bash", "-c", c.cmd)
		cmd.Dir = proj
		cmd.Env = []string{"PATH=" + c.path + ":/usr/bin:/bin", "HOME=" + filepath.Join(proj, "home"), "XDG_STATE_HOME=" + state,
			"GEMINI_PROJECT_DIR=" + proj, "CLAUDE_PROJECT_DIR=" + proj}
		cmd.Stdin = bytes.NewReader(c.payload)
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if err != nil || len(out) > 0 {
			b.Fatalf("%s: %v, printed %q", c.name, err, out)
		}
		return d
	}
	for _, c := range cases { // warm the page cache
		run(c)
	}
	for b.Loop() {
		for _, c := range cases {
			c.times = append(c.times, run(c))
		}
	}
	base := geminiMedian(cases[0].times)
	for _, c := range cases {
		m := geminiMedian(c.times)
		key := strings.NewReplacer(" ", "-", ",", "", "/", "").Replace(c.name)
		b.ReportMetric(float64(m)/1e6, "ms:"+key)
		if c != cases[0] {
			b.ReportMetric(float64(m-base)/1e6, "ms-above-true:"+key)
		}
	}
	if testing.Verbose() {
		fmt.Printf("%-28s %10s %10s %10s\n", "case", "median ms", "x true", "+ms")
		for _, c := range cases {
			m := geminiMedian(c.times)
			fmt.Printf("%-28s %10.2f %10.2f %+10.2f\n", c.name, float64(m)/1e6, float64(m)/float64(base), float64(m-base)/1e6)
		}
		fmt.Printf("(%d runs each, alternating; payloads %d and %d bytes)\n", len(cases[0].times), len(quietMid), len(quietBig))
	}
}

func geminiMedian(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
