// Package reminder is the hook runtime behind `nowhook reminder`: after a
// context compaction it prints the team's Kanbus work in progress, in the
// format Kanbus documents, and it never breaks, stalls or floods the agent
// session that runs it (README, "The hook runtime").
//
// Two more modes share that runtime (docs/platforms.md, "Checkpoint and
// summary hint"): --checkpoint, run after every tool call or prompt, tells
// the agent once, when its context window is nearly full, to write where it
// stands into its in-progress Kanbus issues; --hint, run before a
// compaction, tells the summariser which issue ids to keep.
//
// It runs after every compaction, tool call or prompt in every session, so
// it stays on the standard library and reads JSON with a small reader of
// its own; of nowhook's packages it uses only detect (the Kanbus lookup
// setup and doctor use too) and cmd/internal/osutil (process groups),
// which stay on the standard library as well (cmd/nowhook-reminder's
// TestHookDependencies fails otherwise).
package reminder

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nowhook/nowhook/detect"
)

const (
	// DefaultBudget is the time `kbs` gets when --timeout is absent.
	DefaultBudget = 5 * time.Second
	// maxBudget bounds --timeout; setup allows 1s to 30s.
	maxBudget = 60 * time.Second
	// maxStdin bounds the hook payload.
	maxStdin = 1 << 20
	// maxCheckpointStdin bounds a checkpoint's payload, which carries the
	// tool's whole response after a tool call.
	maxCheckpointStdin = 4 << 20
	// maxStdinWait bounds the wait for a payload on a pipe that stays open.
	maxStdinWait = 500 * time.Millisecond
	// maxOutput bounds what `kbs` may print; 30 items take some 10 KiB.
	maxOutput = 4 << 20
	// retryMargin is the budget that must be left to retry with --raw.
	retryMargin = time.Second
	// exitGrace is how long the reader waits for end of file after `kbs`
	// exited and its group was killed, in case a process outside the
	// group still holds the pipe.
	exitGrace = 200 * time.Millisecond
)

// Run is `nowhook reminder [--checkpoint [--at P] [--refire P] [--window N]
// | --hint | --gemini-turn | --kimi] [--timeout DURATION]`. It prints the reminder,
// the checkpoint, the hint or Gemini CLI's request with the reminder, or
// nothing, writes to stderr only when NOWHOOK_DEBUG is set, and always
// returns 0.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := logger{w: stderr, on: os.Getenv("NOWHOOK_DEBUG") != ""}
	if log.on {
		// Diagnostics to a reader that went away must not kill the hook.
		signal.Ignore(syscall.SIGPIPE)
	}
	defer func() {
		if r := recover(); r != nil {
			log.printf("internal error, printing nothing: %v", r)
		}
	}()
	cfg, help := parseFlags(args, log)
	cfg.budget = probeBudget(cfg.budget, os.Getenv(ProbeBudgetEnv), log)
	if help && cfg.mode == modeGeminiTurn {
		fmt.Fprint(stdout, geminiUsage)
		return 0
	}
	if help && cfg.mode == modeKimi {
		fmt.Fprint(stdout, kimiUsage)
		return 0
	}
	if help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	// Stopped by the agent, it kills kbs's group rather than leave it; the
	// wrapper's own stop comes as its death (stopWithParent).
	stop := make(chan os.Signal, 1)
	defer watchStops(stop)()
	stopWithParent()
	defer guard(cfg.budget, log)()
	wd, _ := os.Getwd()
	o := options{
		budget:  cfg.budget,
		stdin:   stdin,
		getenv:  os.Getenv,
		wd:      wd,
		stop:    stop,
		log:     log,
		at:      cfg.at,
		refire:  cfg.refire,
		window:  cfg.window,
		script:  cfg.script,
		sysRoot: "/",
		sources: cfg.sources,
	}
	var out []byte
	switch cfg.mode {
	case modeReminder:
		out = remind(o)
	case modeCheckpoint:
		out = checkpoint(o)
	case modeHint:
		out = hint(o)
	case modeGeminiTurn: // Gemini CLI's BeforeModel hook: gemini.go
		out = geminiTurn(o)
	case modeKimi: // Kimi Code's PreCompact, PostCompact and UserPromptSubmit hooks: kimi.go
		out = kimiTurn(o)
	case modeSamemindNote: // the pre-compaction hook of --sources samemind=note: samemind_note.go
		out = samemindNote(o)
	}
	if len(out) > 0 {
		// The agent may have stopped reading: a write error is not a crash.
		signal.Ignore(syscall.SIGPIPE)
		if _, err := stdout.Write(out); err != nil {
			log.printf("writing the output: %v", err)
		}
	}
	return 0
}

const usage = `Usage: nowhook reminder [--timeout DURATION] [--script PATH]
       nowhook reminder --checkpoint [--at PERCENT] [--refire PERCENT] [--window TOKENS] [--timeout DURATION]
       nowhook reminder --hint [--timeout DURATION]
       nowhook reminder --gemini-turn [--timeout DURATION]
       nowhook reminder --kimi [--timeout DURATION]
       nowhook reminder --samemind-note [--timeout DURATION]

Without a mode, prints the Kanbus work-in-progress reminder for an agent's
SessionStart (compact) hook.

--checkpoint is for PostToolUse and UserPromptSubmit hooks, and Qwen Code's
Stop hook. It reads the context use from the payload where it carries it
(Qwen Code's Stop: input_tokens, context_limit), else from the session's
transcript (transcript_path in the payload), and, once the context window
is PERCENT full, tells the agent to write
where it stands into its in-progress Kanbus issues with kbs comment. It
says so once per session, and again only after the use has dropped below
PERCENT minus the refire margin (after a compaction) and climbed back.
After PostToolUse it prints {"hookSpecificOutput": {"hookEventName":
"PostToolUse", "additionalContext": "..."}}; after Stop {"decision":
"block", "reason": "..."}, which sends the text to the model as the turn's
next message; after UserPromptSubmit, plain text. The latch lives in ${XDG_STATE_HOME:-~/.local/state}/nowhook/checkpoint.

--hint is for Claude Code's PreCompact hook: it prints the ids and titles
of the work in progress for the summary to keep (kbs now --json --list
--raw).

--gemini-turn is for Gemini CLI's BeforeModel hook, which runs before
every request: it adds the reminder to the first request after each
compression (nowhook reminder --gemini-turn --help says more).

--kimi is for Kimi Code's PreCompact, PostCompact and UserPromptSubmit
hooks: it prints the reminder at the first prompt after each compaction
(nowhook reminder --kimi --help says more).

--samemind-note is for the pre-compaction hook (Claude Code's PreCompact)
of setup --sources samemind=note: it appends samemind's dated pre-compact
note (the session, where it started, git's branch, HEAD and changed
files) to $OKF_ROOT/inbox/mcp.md (OKF_ROOT defaults to ~/samemind, which
must exist) and prints nothing.

Every mode reads the hook payload from stdin, runs $KBS, kbs or kanbus
with "now --json --list" under the budget, prints nothing on any failure,
and always exits 0. Set NOWHOOK_DEBUG=1 to see why it printed nothing.
NOWHOOK_PROBE_BUDGET=SECONDS, which only nowhook doctor's quick live runs
set, gives kbs that shorter budget; it never lengthens --timeout's.

Flags:
  --timeout DURATION   the budget for kbs (default 5s; 2s with --hint)
  --script PATH        the wrapper script that runs this hook ("$0"): a
                       NOWHOOK_DEFER naming this very script is ignored, and
                       the client's managed wrapper never steps aside
  --checkpoint         the context-threshold checkpoint
  --at PERCENT         checkpoint when the context window is this full (default 85)
  --refire PERCENT     say it again after the use fell this far below --at (default 15)
  --window TOKENS      the model's context window (default: from the transcript,
                       Claude Code's known models, else 200000)
  --hint               the summary hint for Claude Code's PreCompact hook
  --gemini-turn        the reminder in Gemini CLI's first request after a compression
  --kimi               the reminder at Kimi Code's first prompt after a compaction
  --samemind-note      samemind's pre-compact note in $OKF_ROOT/inbox/mcp.md
`

// mode is what Run does.
type mode int

const (
	modeReminder mode = iota
	modeCheckpoint
	modeHint
	modeGeminiTurn
	modeKimi
	modeSamemindNote
	modeNone // conflicting flags: print nothing
)

const (
	// DefaultAt is the context use, in percent of the window, at which the
	// checkpoint fires.
	DefaultAt = 85
	// DefaultRefire is how far, in percentage points, the use must fall
	// below --at before the checkpoint can fire again.
	DefaultRefire = 15
	// DefaultHintBudget is the time `kbs` gets in --hint mode when
	// --timeout is absent: a PreCompact hook delays the compaction.
	DefaultHintBudget = 2 * time.Second
)

// config is what the flags say.
type config struct {
	mode       mode
	budget     time.Duration
	at, refire int
	window     int64
	script     string // --script: the wrapper that runs this hook
	sources    sourceSet
}

func parseFlags(args []string, log logger) (cfg config, help bool) {
	fs := flag.NewFlagSet("reminder", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	timeout := fs.Duration("timeout", DefaultBudget, "")
	checkpoint := fs.Bool("checkpoint", false, "")
	hint := fs.Bool("hint", false, "")
	gemini := fs.Bool("gemini-turn", false, "")
	kimi := fs.Bool("kimi", false, "")
	note := fs.Bool("samemind-note", false, "")
	at := fs.Int("at", DefaultAt, "")
	refire := fs.Int("refire", DefaultRefire, "")
	window := fs.Int64("window", 0, "")
	script := fs.String("script", "", "")
	sources := fs.String("sources", DefaultSources, "")
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		log.printf("ignoring arguments: %v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var bad []string
	cfg.sources, bad = parseSources(*sources)
	if len(bad) > 0 {
		log.printf("--sources: %s unknown (known: %s), left out", strings.Join(bad, ", "), strings.Join(SourceNames(), ", "))
	}
	switch n := btoi(*checkpoint) + btoi(*hint) + btoi(*gemini) + btoi(*kimi) + btoi(*note); {
	case n > 1:
		log.printf("--checkpoint, --hint, --gemini-turn, --kimi and --samemind-note exclude each other: printing nothing")
		cfg.mode = modeNone
	case *checkpoint:
		cfg.mode = modeCheckpoint
	case *hint:
		cfg.mode = modeHint
	case *gemini:
		cfg.mode = modeGeminiTurn
	case *kimi:
		cfg.mode = modeKimi
	case *note:
		cfg.mode = modeSamemindNote
	}
	if errors.Is(err, flag.ErrHelp) {
		return cfg, true
	}
	def := DefaultBudget
	if cfg.mode == modeHint || cfg.mode == modeSamemindNote {
		def = DefaultHintBudget
	}
	cfg.budget = *timeout
	switch {
	case !set["timeout"]:
		cfg.budget = def
	case *timeout <= 0 || *timeout > maxBudget:
		log.printf("--timeout %s out of range, using %s", *timeout, def)
		cfg.budget = def
	}
	cfg.at, cfg.refire, cfg.window, cfg.script = *at, *refire, *window, *script
	if cfg.at < 1 || cfg.at > 100 {
		log.printf("--at %d out of range (1 to 100), using %d", cfg.at, DefaultAt)
		cfg.at = DefaultAt
	}
	if cfg.refire < 1 || cfg.refire >= cfg.at {
		r := min(DefaultRefire, cfg.at-1)
		if cfg.refire != DefaultRefire || set["refire"] {
			log.printf("--refire %d out of range (1 to %d), using %d", cfg.refire, cfg.at-1, r)
		}
		cfg.refire = r
	}
	if cfg.window < 0 {
		log.printf("--window %d out of range, reading it from the transcript", cfg.window)
		cfg.window = 0
	}
	return cfg, false
}

// guardGrace is how long after its budget, or after a stop signal, the
// hook ends whatever it is blocked in.
const guardGrace = time.Second

// guard ends the hook, exit 0, guardGrace after its budget or after a stop
// signal, if it is still running then: kbs's group is killed, and the
// process exits without printing. The work's own paths end sooner; this is
// for what they cannot see, a read that blocks (a FIFO, a hung file
// system). It returns the function that disarms it.
func guard(budget time.Duration, log logger) (disarm func()) {
	hard := make(chan os.Signal, 1)
	unwatch := watchStops(hard)
	timer := time.NewTimer(budget + guardGrace)
	quit := make(chan struct{})
	go func() {
		select {
		case <-timer.C:
			log.printf("still running %s after the budget of %s: killing kbs's group, exiting", guardGrace, budget)
		case s := <-hard:
			select {
			case <-time.After(guardGrace):
				log.printf("still running %s after %v: killing kbs's group, exiting", guardGrace, s)
			case <-quit:
				return
			}
		case <-quit:
			return
		}
		if pid := running.Load(); pid != 0 {
			killGroup(int(pid))
		}
		os.Exit(0)
	}()
	return func() {
		unwatch()
		timer.Stop()
		close(quit)
	}
}

// ProbeBudgetEnv names the variable through which nowhook doctor's quick
// live runs give kbs a shorter budget than the wrapper's --timeout: a
// number of seconds ("0.5"). Only doctor sets it. It can only shorten the
// budget: a value that is not a positive number below --timeout's is
// ignored, so a stray setting never makes a hook wait longer. (The
// wrapper's python3 fallback reads it by the same rule.)
const ProbeBudgetEnv = "NOWHOOK_PROBE_BUDGET"

// probeBudget is the budget once ProbeBudgetEnv's value (probe) is
// applied to the flags' budget.
func probeBudget(budget time.Duration, probe string, log logger) time.Duration {
	if probe == "" {
		return budget
	}
	secs, err := strconv.ParseFloat(probe, 64)
	if err != nil || !(secs > 0 && secs < budget.Seconds()) || time.Duration(secs*float64(time.Second)) <= 0 {
		log.printf("%s=%s ignored: it may only shorten the budget of %s, to a positive number of seconds", ProbeBudgetEnv, probe, budget)
		return budget
	}
	p := time.Duration(secs * float64(time.Second))
	log.printf("budget %s (%s; --timeout gives %s)", p, ProbeBudgetEnv, budget)
	return p
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// options is everything remind reads from its environment.
type options struct {
	budget time.Duration
	stdin  io.Reader
	getenv func(string) string
	wd     string
	stop   <-chan os.Signal // a signal here ends the run at once
	log    logger
	// The checkpoint's flags (zero in the other modes).
	at, refire int
	window     int64
	// script is the wrapper that runs this hook (--script "$0"), "" when
	// it does not say: the defer rule never defers a wrapper to itself.
	script string
	// sysRoot is the system root the managed layer is read under (the
	// defer rule, deferral.go): "/" for a hook, a test's folder in the
	// tests, "" to leave the managed layer out.
	sysRoot string
	// sources are the parts of the reminder (--sources; sources.go).
	sources sourceSet
	// catchUp, when set, replaces catchUpFor's wait for a transcript
	// behind the hook (tests: the reply written meanwhile, or no wait).
	catchUp func(stop <-chan os.Signal) (again bool, stopped os.Signal)
}

// project finds the Kanbus project for a session in cwd the way every
// mode does: from CLAUDE_PROJECT_DIR, cwd, then the working directory.
func (o options) project(cwd string) string {
	starts := []string{o.getenv("CLAUDE_PROJECT_DIR"), cwd, o.wd}
	dir := findProject(o.log, starts...)
	if dir == "" {
		o.log.printf("no .kanbus.yml found: printing nothing")
		if o.log.on {
			explainNoProject(o.log, starts)
		}
	}
	return dir
}

// kbs finds the Kanbus CLI: $KBS, else kbs, else kanbus.
func (o options) kbs() string { return findKbs(o.getenv("KBS"), o.wd, o.log) }

// remind does the work of Run and returns what to print.
func remind(o options) []byte {
	deadline := time.Now().Add(o.budget)
	wait := min(o.budget/4, maxStdinWait)
	pl, proceed := readPayload(o.stdin, wait, o.stop, o.log)
	if !proceed || o.foreign(pl) || deferred(o.getenv, pl, o.wd, o.script, o.sysRoot, o.log) {
		return nil
	}
	dir, ok := o.kanbusProject(pl.cwd)
	if !ok {
		return nil
	}
	return o.fromSources(dir, pl.cwd, pl.sourcePayload(), deadline)
}

// inProgress runs the Kanbus CLI in dir for the work in progress, with
// `--raw` alone when raw is set, else with queryRetry; prog is the CLI it
// ran. ok is false when there is no CLI or the call failed.
func (o options) inProgress(dir string, deadline time.Time, raw bool) (items []item, prog string, ok bool) {
	prog = o.kbs()
	if prog == "" {
		return nil, "", false
	}
	var err error
	if raw {
		items, err = query(prog, dir, true, deadline, o.stop, o.log)
	} else {
		items, err = queryRetry(prog, dir, deadline, o.stop, o.log)
	}
	if err != nil {
		return nil, prog, false
	}
	if len(items) == 0 {
		o.log.printf("nothing in progress: printing nothing")
	}
	return items, prog, true
}

// queryRetry runs `kbs now --json --list` and, when that fails with at
// least retryMargin of the budget left, once more with --raw.
func queryRetry(prog, dir string, deadline time.Time, stop <-chan os.Signal, log logger) ([]item, error) {
	items, err := query(prog, dir, false, deadline, stop, log)
	if err != nil && !errors.Is(err, errNoStart) && !errors.Is(err, errStopped) {
		if left := time.Until(deadline); left >= retryMargin {
			log.printf("retrying with --raw (%s left)", left.Round(time.Millisecond))
			items, err = query(prog, dir, true, deadline, stop, log)
		}
	}
	return items, err
}

// readPayload reads the hook payload and applies the guards. proceed is
// false when the payload is not a compaction's, comes from Cursor, or is
// not a JSON object; no payload at all proceeds.
func readPayload(r io.Reader, wait time.Duration, stop <-chan os.Signal, log logger) (pl payload, proceed bool) {
	data, err := readStdin(r, wait, maxStdin, stop, log)
	if err != nil {
		log.printf("stdin: %v: printing nothing", err)
		return pl, false
	}
	if isBlank(data) {
		return pl, true
	}
	pl, ok := parsePayload(data)
	switch {
	case !ok:
		log.printf("stdin is not a JSON object: printing nothing")
		return pl, false
	case pl.cursorVersion:
		log.printf("payload carries cursor_version (Cursor runs Claude hooks at every conversation): printing nothing")
		return pl, false
	case pl.hasSource && (!pl.sourceString || pl.source != "compact"):
		log.printf("payload source is %q, not compact: printing nothing", pl.source)
		return pl, false
	}
	return pl, true
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// readStdin reads at most limit bytes. It does not read a terminal or
// other device, and it stops waiting on a pipe after wait, or as soon as a
// whole JSON value has arrived when the writer keeps the pipe open.
func readStdin(r io.Reader, wait time.Duration, limit int, stop <-chan os.Signal, log logger) (data []byte, err error) {
	if r == nil {
		return nil, nil
	}
	if f, isFile := r.(*os.File); isFile {
		fi, err := f.Stat()
		if err != nil {
			log.printf("no stdin: %v", err)
			return nil, nil
		}
		if fi.Mode()&os.ModeCharDevice != 0 {
			log.printf("stdin is a terminal or device: not read")
			return nil, nil
		}
		if fi.Mode().IsRegular() {
			data, err = io.ReadAll(io.LimitReader(f, int64(limit)+1))
			if err != nil {
				log.printf("reading stdin: %v", err)
			}
			return data, tooLarge(data, limit)
		}
	}
	chunks := readChunks(r, limit+1)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case c, open := <-chunks:
			if !open {
				return data, tooLarge(data, limit)
			}
			data = append(data, c...)
			if err := tooLarge(data, limit); err != nil {
				return data, err
			}
			// Only a value that ends the data can be whole: checking
			// every chunk of a large payload would read it many times.
			if endsValue(data) && validJSON(data) {
				return data, nil // the writer may never close stdin
			}
		case <-timer.C:
			log.printf("stdin still open after %s: using the %d bytes read", wait, len(data))
			return data, nil
		case s := <-stop:
			return nil, fmt.Errorf("%w by %v", errStopped, s)
		}
	}
}

func tooLarge(data []byte, limit int) error {
	if len(data) > limit {
		return fmt.Errorf("payload over %d bytes", limit)
	}
	return nil
}

// endsValue reports whether data, blanks aside, ends with a character
// that can end a JSON object or array.
func endsValue(data []byte) bool {
	for i := len(data) - 1; i >= 0; i-- {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '}', ']':
			return true
		}
		return false
	}
	return false
}

// readChunks reads r in a goroutine until end of file, an error or limit
// bytes, sending what it reads; the channel closes at the end. The caller
// may stop receiving at any time: the process exits soon after.
func readChunks(r io.Reader, limit int) <-chan []byte {
	return readChunksThen(r, limit, false)
}

// readHead is readChunks that goes on reading, and dropping, past limit,
// so that the writer never blocks on a full pipe.
func readHead(r io.Reader, limit int) <-chan []byte {
	return readChunksThen(r, limit, true)
}

func readChunksThen(r io.Reader, limit int, discardRest bool) <-chan []byte {
	c := make(chan []byte, 64)
	go func() {
		defer close(c)
		defer func() { _ = recover() }()
		for n := 0; n < limit; {
			buf := make([]byte, 64<<10)
			k, err := r.Read(buf)
			if k > 0 {
				if k > limit-n {
					k = limit - n
				}
				n += k
				c <- buf[:k]
			}
			if err != nil {
				return
			}
		}
		if discardRest {
			_, _ = io.Copy(io.Discard, r)
		}
	}()
	return c
}

// findProject returns the directory holding .kanbus.yml, searched from
// each start in turn as setup and doctor search (detect.FindKanbusConfig:
// up to the git root, the start as given and then its real path).
func findProject(log logger, starts ...string) string {
	for _, start := range starts {
		if start == "" {
			continue
		}
		if config, ok := detect.FindKanbusConfig(start); ok {
			found := filepath.Dir(config)
			log.printf("project: %s", found)
			return found
		}
	}
	return ""
}

// explainNoProject says, for NOWHOOK_DEBUG, where the lookup went from
// the first start and which Kanbus projects lie below the repository root
// it stopped at (a repository whose projects all live in sub-folders;
// detect.KanbusProjects, the search doctor makes): a session started in
// one of them finds its project, one started at the root none.
func explainNoProject(log logger, starts []string) {
	for _, start := range starts {
		if start == "" {
			continue
		}
		dir, err := filepath.Abs(start)
		if err != nil {
			continue
		}
		top, ok := detect.GitTop(dir)
		if !ok {
			top = dir
		}
		projects, _ := detect.KanbusProjects(top)
		if len(projects) == 0 {
			log.printf("looked from %s up to %s, and found no Kanbus project below %s either", dir, top, top)
			return
		}
		below := make([]string, len(projects))
		for i, p := range projects {
			below[i] = p.Dir + "/"
		}
		log.printf("looked from %s up to %s; the Kanbus projects are below it, in %s: a session started in one of them finds its project, one started here none", dir, top, strings.Join(below, ", "))
		return
	}
}

// findKbs resolves $KBS when it is set, else kbs, else kanbus, to an
// absolute path; "" when none is installed.
func findKbs(kbsEnv, wd string, log logger) string {
	names := []string{"kbs", "kanbus"}
	if kbsEnv != "" {
		names = []string{kbsEnv}
	}
	for _, name := range names {
		path, err := exec.LookPath(name)
		if err != nil && !errors.Is(err, exec.ErrDot) {
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd, path)
		}
		return path
	}
	log.printf("%v not found on PATH: printing nothing", names)
	return ""
}

type logger struct {
	w  io.Writer
	on bool
}

func (l logger) printf(format string, args ...any) {
	if l.on && l.w != nil {
		fmt.Fprintf(l.w, "nowhook reminder: "+format+"\n", args...)
	}
}
