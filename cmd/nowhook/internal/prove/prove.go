// Package prove is `nowhook doctor --prove`: for each agent set up to
// re-inject whose client is installed, it runs that client headless in a
// throw-away copy of what the agent sees (the repository's files, a
// temporary HOME with none of the user's credentials), pointed at a model
// server it starts on 127.0.0.1 (package mockmodel), forces a compaction,
// and reports whether the Kanbus reminder reached the first model request
// after it, or what it saw instead: no hook ran, the hook ran and printed
// nothing, the output was dropped, the client refused the settings file.
//
// A stand-in kbs that prints a fixed payload (Payload) is first on the
// client's PATH, so the reminder expected is known (Reminder) whatever the
// user's Kanbus holds. Every client runs in its own process group, killed
// when its run ends, and, on Linux where a network namespace can be made,
// off the network (offline.go); each run is bounded (Options.Limit); the
// copy and the temporary HOME are removed after it, and every process
// still running there is killed first (world.sweep). A run whose context
// ends (doctor --prove stopped by a signal: Stopped) ends the same way.
// Nothing in the repository is written: the client, its hooks and kbs
// only ever see the copy.
//
// What each client needs (its settings in the temporary HOME, the way to
// force its compaction, how it reports its hooks) lives in that client's
// file here: claude.go, codex.go, qwen.go, opencode.go.
package prove

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// Options is one prove run.
type Options struct {
	// Root is the repository (scope project); "" with User.
	Root string
	// User proves the hooks setup --scope user installed, from a copy of
	// the user's agent settings, in an empty throw-away Kanbus project.
	User bool
	// Env is the user's environment: PATH finds the clients and nowhook,
	// HOME (and each agent's folder variable) the user's settings. Nothing
	// else of it reaches a client.
	Env []string
	// Self is the nowhook binary the hooks run (`nowhook reminder`).
	Self string
	// Limit bounds each client's run (0: DefaultLimit, or the duration in
	// NOWHOOK_PROVE_LIMIT of Env, for a machine too busy for it).
	Limit time.Duration
}

// DefaultLimit bounds one client's run: its start, the session, the
// compaction and the turn after it.
const DefaultLimit = 30 * time.Second

// standIn says, in every row, where the reminder's payload came from.
const standIn = "a stand-in kbs printed a fixed payload"

// Run proves every driver's agent that is set up, in table order, and
// returns one finding per agent: ok, an error naming what was seen, or
// info when the client is not installed.
func Run(ctx context.Context, o Options) []diag.Finding {
	var out []diag.Finding
	if o.Limit == 0 {
		o.Limit = DefaultLimit
		if v := osutil.Getenv(o.Env, "NOWHOOK_PROVE_LIMIT"); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				o.Limit = d
			} else {
				out = append(out, diag.Finding{Check: "prove.limit", Severity: diag.Info,
					Message: fmt.Sprintf("NOWHOOK_PROVE_LIMIT=%q is not a positive Go duration, so each client gets the default %s", v, DefaultLimit),
					Fix:     "NOWHOOK_PROVE_LIMIT=2m nowhook doctor --prove"})
			}
		}
	}
	out = append(out, undriven(o)...)
	removeStale()
	var net *offline
	defer func() {
		if net != nil {
			net.close()
		}
	}()
	for _, d := range drivers {
		a, ok := agentpkg.Lookup(d.agent)
		if !ok || !o.setUp(a) || ctx.Err() != nil {
			continue
		}
		f := diag.Finding{Check: "prove." + d.agent, Agent: d.agent}
		client := a.Binaries[0]
		bin, found := osutil.LookPath(o.Env, client)
		if abs, err := filepath.Abs(bin); err == nil {
			bin = abs
		}
		if !found {
			f.Severity, f.Message = diag.Info, a.Title+" is set up but "+client+" is not on PATH, so its delivery was not proven"
			f.Fix = "install " + a.Title + " (" + client + "), then run nowhook doctor --prove again"
			out = append(out, f)
			continue
		}
		if net == nil {
			if net = isolate(); net.why != "" {
				out = append(out, diag.Finding{Check: "prove.network", Severity: diag.Info,
					Message: "the clients ran with this machine's network, pointed only at nowhook's model server on 127.0.0.1: " + net.why,
					Fix:     "to keep them off the network, run nowhook doctor --prove where a network namespace can be made (Linux with CAP_SYS_ADMIN: root on a machine, a container that grants it)"})
			}
		}
		f.Severity, f.Message, f.Fix = prove(ctx, o, d, a, bin, net)
		out = append(out, f)
	}
	return out
}

// Stopped is the cause of a run's context when a signal stopped doctor
// --prove (context.WithCancelCause): the client running then is ended
// and its copy removed, and no other client starts.
type Stopped struct{ Signal os.Signal }

func (s Stopped) Error() string { return "stopped by " + SignalName(s.Signal) }

// SignalName is a signal's name as a shell user knows it (SIGTERM).
func SignalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// undriven is an info row for each agent set up to re-inject that prove
// has no driver for (Gemini CLI, Factory Droid): silence would read as
// proven.
func undriven(o Options) []diag.Finding {
	driven := map[string]bool{}
	for _, d := range drivers {
		driven[d.agent] = true
	}
	var out []diag.Finding
	for _, a := range agentpkg.All {
		if driven[a.Name] || o.User || a.InstalledIn(o.Root, true).Mode != agentpkg.Reinject {
			continue
		}
		out = append(out, diag.Finding{Check: "prove." + a.Name, Agent: a.Name, Severity: diag.Info,
			Message: a.Title + " is set up to re-inject, but nowhook doctor --prove does not drive its client yet: the real-client tests of nowhook's own CI are its proof (nowhook version lists the versions)"})
	}
	return out
}

// setUp reports whether the agent's re-inject hook is installed in the
// scope proven.
func (o Options) setUp(a *agentpkg.Agent) bool {
	if o.User {
		// The entry in the user's settings, whatever became of its wrapper
		// (a missing one is what the proof then shows).
		if a.Scope.User == nil {
			return false
		}
		dir, err := a.Scope.User.Folder(func(k string) string { return osutil.Getenv(o.Env, k) }, osutil.Getenv(o.Env, "HOME"))
		if err != nil {
			return false
		}
		h := a.UserHook(dir)
		b, err := diag.ReadBounded(h.File.Path)
		return err == nil && h.Present(b)
	}
	return a.InstalledIn(o.Root, true).Mode == agentpkg.Reinject
}

// prove runs one client once and judges what it saw.
func prove(ctx context.Context, o Options, d *driver, a *agentpkg.Agent, bin string, net *offline) (diag.Severity, string, string) {
	ctx, cancel := context.WithTimeout(ctx, o.Limit)
	defer cancel()
	version := clientVersion(ctx, bin, o.Env, net)
	name := a.Title + " " + version
	w, err := newWorld(o, a, bin, net)
	if w != nil {
		defer w.remove()
	}
	if err != nil {
		return diag.Error, name + ": could not prepare the throw-away copy: " + err.Error(), ""
	}
	start := time.Now()
	seen := d.run(ctx, w)
	took := fmt.Sprintf("%.1f s", time.Since(start).Seconds())
	seen.kbsCalls = w.kbsCalls()
	var stopped Stopped
	if errors.As(context.Cause(ctx), &stopped) {
		return diag.Info, fmt.Sprintf("%s: not proven: doctor --prove was %s (after %s); the client was ended and its throw-away copy removed", name, stopped, took), ""
	}
	if ctx.Err() != nil && !seen.reached {
		seen.err = fmt.Errorf("no answer within %s (on a busy machine, set NOWHOOK_PROVE_LIMIT=2m for more)", o.Limit)
	}
	msg, ok := seen.judge(d)
	msg = w.shown(msg, o)
	if ok {
		return diag.OK, fmt.Sprintf("%s: the reminder reached the first request after %s (%s; %s; %s)", name, d.compaction, took, standIn, net.said()), ""
	}
	fix := d.fix(o, a)
	if seen.refused != "" {
		// setup refuses a file the client cannot parse: the file comes first.
		fix = "correct the settings file as " + a.Name + ".hooks-file says, then run nowhook doctor --prove"
		if o.User {
			fix += " --scope user"
		}
	}
	return diag.Error, fmt.Sprintf("%s: %s (%s; %s; %s)", name, msg, took, standIn, net.said()), fix
}

// A driver is what prove knows of one client: the agent it serves (whose
// row names the client's command), how a compaction is forced and run.
type driver struct {
	agent string // the agent table's name
	// compaction is how the row names the compaction forced ("/compact").
	compaction string
	// run starts the mock, runs the client in w and tells what it saw.
	run func(ctx context.Context, w *world) seen
	// unreported, for a client that does not report its hooks' runs, is
	// what "no hook ran" cannot tell apart.
	unreported string
	// fixFor is the command a failure suggests; nil: setup's.
	fixFor func(o Options, a *agentpkg.Agent) string
}

// fix is the fix line of a failed proof.
func (d *driver) fix(o Options, a *agentpkg.Agent) string {
	if d.fixFor != nil {
		return d.fixFor(o, a)
	}
	if o.User {
		return "nowhook setup --scope user --yes --agents " + a.Name + " (then nowhook doctor --prove --scope user)"
	}
	return "nowhook setup --yes --agents " + a.Name + " (then nowhook doctor --prove)"
}

// drivers are the clients prove can run, in the agent table's order.
var drivers = []*driver{claudeDriver, codexDriver, qwenDriver, opencodeDriver}

// seen is what one run of a client showed.
type seen struct {
	// compacted: the mock received the client's summary (compaction)
	// request, and a request after it.
	compacted bool
	// reached: the first request after the summary carries the reminder.
	reached bool
	// kbsCalls is how often the stand-in kbs ran.
	kbsCalls int
	// hookReported: the client reports its hooks' runs (hookRuns and
	// hookOutput are then known).
	hookReported bool
	hookRuns     int
	hookOutput   string
	// hookFailed is a hook's failure as the client reported it.
	hookFailed string
	// refused is the client's complaint about a settings file.
	refused string
	// skipped is why the client says it runs no hook (Codex's trust).
	skipped string
	// err is why the run itself failed.
	err error
	// stderr is the end of what the client printed on stderr.
	stderr string
}

// judge turns what was seen into the row's words; ok when proven.
func (s seen) judge(d *driver) (string, bool) {
	switch {
	case s.reached:
		return "", true
	case s.refused != "":
		return "the client refused the settings file: " + s.refused, false
	case s.err != nil && !s.compacted:
		return "the run failed before a compaction: " + s.err.Error() + tail(s.stderr), false
	case !s.compacted:
		return "the client never compacted (no summary request reached the mock model after " + d.compaction + ")" + tail(s.stderr), false
	case s.skipped != "":
		return "no hook ran after " + d.compaction + ": " + s.skipped, false
	case s.hookFailed != "":
		return "the hook ran and failed: " + s.hookFailed, false
	case s.hookReported && s.hookRuns == 0:
		return "no hook ran after " + d.compaction + " (the stand-in kbs was never called)", false
	case !s.hookReported && s.kbsCalls == 0:
		return "no hook ran after " + d.compaction + " (the stand-in kbs was never called; " + d.unreported + ")", false
	case s.hookReported && strings.TrimSpace(s.hookOutput) == "" && s.kbsCalls == 0:
		return "the hook ran and printed nothing, and never called kbs: its script is missing or fails before it (see the script row)", false
	case s.hookReported && strings.TrimSpace(s.hookOutput) == "":
		return "the hook ran and printed nothing (the stand-in kbs was called " + times(s.kbsCalls) + ")", false
	}
	return "the output was dropped: the hook ran (the stand-in kbs was called " + times(s.kbsCalls) + ") but the first request after " + d.compaction + " lacks the reminder", false
}

// times says n times in words.
func times(n int) string {
	switch n {
	case 0:
		return "no time"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// tail is the last line the client printed on stderr, for a message.
func tail(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		if len(last) > 200 {
			last = last[:200] + "..."
		}
		return "; it said: " + last
	}
	return ""
}

// clientVersion is the version `bin --version` names, as doctor's client
// rows read it, or "(version unknown)". It runs in net with a HOME of its
// own, removed after: a client may write there (logs, caches).
func clientVersion(ctx context.Context, bin string, env []string, net *offline) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", copyPrefix()+"version-")
	if err != nil {
		return "(version unknown)"
	}
	defer os.RemoveAll(home)
	cmd := command(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + osutil.Getenv(env, "PATH"), "HOME=" + home, "LANG=C.UTF-8", markerEnv + "=" + home}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	net.do(func() { err = cmd.Start() })
	if err == nil {
		err = cmd.Wait()
	}
	killGroup(cmd)
	sweep(home, net)
	if err != nil {
		return "(version unknown)"
	}
	// A client may print its version on stderr (doctor's client row reads
	// both the same way).
	for _, out := range [][]byte{stdout.Bytes(), stderr.Bytes()} {
		if v := diag.ClientVersion(out); v != "" {
			return v
		}
	}
	return "(version unknown)"
}

// command is a client's command: its own process group, killed whole
// when ctx ends.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = osutil.GroupAttr()
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// killGroup kills the command's process group, children included.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		osutil.KillGroup(cmd.Process)
	}
}
