package reminder

import (
	"bytes"
	"cmp"
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
	return geminiHistoryListing(proj, session, size, compressed, 0)
}

// geminiHistoryListing is geminiHistory with a first message that also
// holds a folder listing of about listing bytes, as the session context of
// a real repository does (up to 200 entries, and the GEMINI.md files).
func geminiHistoryListing(proj, session string, size int, compressed bool, listing int) []byte {
	var msgs []gmsg
	dir := strings.Repeat("├───internal/a-file-of-the-repository.go\n", listing/44)
	if compressed {
		m := summaryMsg(strings.Repeat("Decisions so far; files touched. ", 200))
		m.Content = dir + m.Content
		msgs = append(msgs, m, ack)
	} else {
		msgs = append(msgs, gmsg{"user", dir + sessionContext + "hello"})
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

// geminiBinaries builds nowhook-reminder and nowhook once, into one folder.
func geminiBinaries(b *testing.B) (bin string) {
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
	})
	if geminiBinErr != nil {
		b.Fatal(geminiBinErr)
	}
	return filepath.Join(geminiBinDir, "bin")
}

// The hook commands, as setup writes them into .gemini/settings.json
// (agent.GeminiTurnCommand): the gate sources the turn script in the bash
// that Gemini CLI starts; before it (template v5), the command exec'd the
// script, which started sh and then the runtime on every request.
const (
	geminiScript        = ".gemini/hooks/kanbus-gemini-turn.sh"
	geminiGateCommand   = `[ ! -r "${GEMINI_PROJECT_DIR}"/` + geminiScript + ` ] || . "${GEMINI_PROJECT_DIR}"/` + geminiScript
	geminiBeforeScript  = ".gemini/hooks/kanbus-gemini-turn-before.sh"
	geminiBeforeCommand = `[ ! -x "${GEMINI_PROJECT_DIR}"/` + geminiBeforeScript + ` ] || exec "${GEMINI_PROJECT_DIR}"/` + geminiBeforeScript
)

// writeGeminiScript writes a turn script, rendered for a 5 s budget and
// the kanbus source, into the project.
func writeGeminiScript(b *testing.B, proj, rel, tmpl string) {
	b.Helper()
	path := filepath.Join(proj, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.NewReplacer("@TIMEOUT@", "5s", "@SOURCES@", "kanbus").Replace(tmpl)), 0o755); err != nil {
		b.Fatal(err)
	}
}

// geminiHookCase is one hook command run the way Gemini CLI runs it:
// `bash -c COMMAND` in the project, the payload on stdin, until it exits.
type geminiHookCase struct {
	name, cmd, session string // session: GEMINI_SESSION_ID, "bench" if ""
	payload            []byte
	times              []time.Duration
}

// BenchmarkGeminiHookVsTrue times, in one run and alternating, a bare
// /bin/true hook, a bare `bash -c true` (the hook's own shell and nothing
// else), and the BeforeModel hook on requests that follow no new
// compression, and reports for each case its median and how far above
// /bin/true's median it lies (ms-above-true, x-true). Each iteration is
// one request of each case. NOWHOOK_BENCH_GEMINI_BEFORE names an older
// turn script (scripts/bench-gemini.sh passes main's), timed with the
// command that ran it then.
func BenchmarkGeminiHookVsTrue(b *testing.B) {
	bin := geminiBinaries(b)
	proj := benchProject(b)
	state := filepath.Join(proj, "home", "state")
	tmpl, err := os.ReadFile("../../../templates/gemini-turn.sh")
	if err != nil {
		b.Fatal(err)
	}
	writeGeminiScript(b, proj, geminiScript, string(tmpl))
	mid, big := 200<<10, 2<<20
	answeredMid, answeredBig := geminiHistory(proj, "bench", mid, true), geminiHistory(proj, "bench", big, true)
	answeredListing := geminiHistoryListing(proj, "bench-listing", big, true, 24<<10)
	for _, data := range [][]byte{answeredMid, answeredBig, answeredListing} {
		pl, _ := scanGemini(data)
		if err := setLatch(latchDir(env("XDG_STATE_HOME", state), compressionLatches), geminiLatchName(pl), "bench", time.Now()); err != nil && !errors.Is(err, errLatched) {
			b.Fatal(err)
		}
	}
	quietMid, quietBig := geminiHistory(proj, "bench", mid, false), geminiHistory(proj, "bench", big, false)
	cases := []*geminiHookCase{
		{name: "/bin/true, 2 MB", cmd: "/bin/true", payload: quietBig},
		{name: "bash -c true, 2 MB", cmd: "true", payload: quietBig},
		{name: "gate, quiet, 200 KB", cmd: geminiGateCommand, payload: quietMid},
		{name: "gate, quiet, 2 MB", cmd: geminiGateCommand, payload: quietBig},
		{name: "gate, answered, 200 KB", cmd: geminiGateCommand, payload: answeredMid},
		{name: "gate, answered, 2 MB", cmd: geminiGateCommand, payload: answeredBig},
		{name: "gate, quiet, 2 MB, 24 KB 1st", cmd: geminiGateCommand, payload: geminiHistoryListing(proj, "bench", big, false, 24<<10)},
		{name: "gate, answered, 2 MB, 24 KB 1st", cmd: geminiGateCommand, payload: answeredListing, session: "bench-listing"},
	}
	if before := os.Getenv("NOWHOOK_BENCH_GEMINI_BEFORE"); before != "" {
		old, err := os.ReadFile(before)
		if err != nil {
			b.Fatal(err)
		}
		writeGeminiScript(b, proj, geminiBeforeScript, string(old))
		cases = append(cases,
			&geminiHookCase{name: "before, quiet, 2 MB", cmd: geminiBeforeCommand, payload: quietBig},
			&geminiHookCase{name: "before, answered, 2 MB", cmd: geminiBeforeCommand, payload: answeredBig})
	}
	run := func(c *geminiHookCase) time.Duration {
		session := cmp.Or(c.session, "bench")
		cmd := exec.Command("bash", "-c", c.cmd)
		cmd.Dir = proj
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + filepath.Join(proj, "home"), "XDG_STATE_HOME=" + state,
			"GEMINI_PROJECT_DIR=" + proj, "CLAUDE_PROJECT_DIR=" + proj, "GEMINI_SESSION_ID=" + session, "KBS=kbs-not-needed"}
		cmd.Stdin = bytes.NewReader(c.payload)
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if err != nil || len(out) > 0 {
			b.Fatalf("%s: %v, printed %q", c.name, err, out)
		}
		return d
	}
	// Warm the page cache; the gate's first answered request hands over
	// once (the runtime's latch is set: it prints nothing) and sets the
	// gate's latch, as in a session.
	for _, c := range cases {
		run(c)
	}
	for _, session := range []string{"bench", "bench-listing"} {
		if _, err := os.Stat(filepath.Join(state, "nowhook", compressionLatches, "gemini-session-"+session)); err != nil {
			b.Fatalf("the gate set no latch on its first answered request, so the answered cases would not time the gate: %v", err)
		}
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
		fmt.Printf("%-34s %10s %10s %10s\n", "case", "median ms", "x true", "+ms")
		for _, c := range cases {
			m := geminiMedian(c.times)
			fmt.Printf("%-34s %10.2f %10.2f %+10.2f\n", c.name, float64(m)/1e6, float64(m)/float64(base), float64(m-base)/1e6)
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
