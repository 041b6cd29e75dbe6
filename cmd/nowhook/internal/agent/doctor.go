package agent

import (
	"context"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// Doctor is what `nowhook doctor` needs of an agent beyond its artifacts
// and its hook format. Doctor derives most of its checks of an agent from
// the row's data (see the package comment); what is here is what no data
// says: the checks of this agent alone, and the synthetic transcript of
// the checkpoint's live runs.
type Doctor struct {
	// Quirks are the checks only this agent needs, in the order their
	// rows appear (after the derived checks, before the checkpoint's).
	Quirks []Check
	// BlockMisses says, for each Markdown block (by its name) that the
	// agent's modes write into a file of the agent's own, besides the
	// kbs-now blocks of AGENTS.md and CONTRIBUTING_AGENT.md that every
	// agent shares, what the agent misses without it. Doctor's md row
	// judges each such block, in the file the table puts it in for the
	// repository as it is.
	BlockMisses map[string]string
	// Transcript writes a session transcript in the agent's format, for
	// the live runs of the checkpoint (Checkpoint); nil where doctor
	// cannot write one (its checkpoint row then says so).
	Transcript *Transcript
	// Proved: `nowhook doctor --prove` drives the agent's real client
	// against a mock model (package prove has a driver for it; prove's
	// tests check that the two agree). Doctor's client row sends a client
	// newer than the proven ones to --prove, the others to --live.
	Proved bool
}

// Check is one of doctor's checks that only one agent needs, written in
// that agent's file. Its rows are named "<agent>.<Name>".
type Check struct {
	Name string
	// Run returns the check's findings from what doctor read (v): the
	// severity, message, fix and path of each; doctor's runner fills in
	// the rest.
	Run func(v View) []diag.Finding
	// Start, when set, begins the slow part of the check (a program it
	// asks) before any check runs, together with doctor's other slow
	// work, and returns the function that reports it in place of Run,
	// waiting for it (start it with v.Go, so that doctor waits for it
	// before it ends). Doctor's file checks (doctor.Static) start
	// nothing and call Run.
	Start func(ctx context.Context, v View) (report func() []diag.Finding)
}

// View is what doctor read of the repository for one agent, and what it
// says in its rows, as an agent's own checks see it.
type View interface {
	// Agent is the row the checks run for.
	Agent() *Agent
	// Mode is what nowhook set up for the agent; "" for nothing.
	Mode() Mode
	// Root is the repository root.
	Root() string
	// Env is the environment the agents would give their hooks; Getenv
	// reads it, and Home is its HOME.
	Env() []string
	Getenv(key string) string
	Home() string
	// HookFiles are the agent's hook files that exist (Hooks.Files), read
	// the way the agent reads them, in the table's order.
	HookFiles() []*diag.HookFile
	// RunsReminder reports whether a handler prints the Kanbus reminder:
	// its command, or a file its command runs.
	RunsReminder(h diag.Handler) bool
	// Budget is the time the installed wrapper gives kbs.
	Budget() time.Duration
	// Show returns how a path is shown in a row; ShowFix, in a fix
	// command.
	Show(abs string) string
	ShowFix(abs string) string
	// SetupFix is the setup command for agents (as --agents lists them;
	// "" for the detected ones) with extra flags.
	SetupFix(agents string, extra ...string) string
	// Block is the row of the managed Markdown block name in the
	// repository's file (present and current, older, edited, broken or
	// missing), purpose saying what is lost without it and fix the
	// command that writes it; has reports whether the file holds the
	// block (or cannot be read, which the row says).
	Block(file, name, purpose, fix string) (row diag.Finding, has bool)
	// HasBlock reports whether the repository's file holds the managed
	// block name, in any state; BlockSpan is where it is, when its
	// markers are sound.
	HasBlock(file, name string) bool
	BlockSpan(file, name string) (span generate.BlockSpan, ok bool)
	// Go runs f in the background; doctor waits for it before it ends.
	// wait waits for it.
	Go(f func()) (wait func())
	// Live reports whether doctor runs with --live: a check may then ask
	// a slow program (Codex's app-server) what it can otherwise judge
	// from files, within the second a doctor run without --live takes.
	Live() bool
}

// Transcript is a synthetic session transcript in an agent's format, for
// the checkpoint's live runs.
type Transcript struct {
	// About describes the transcript for the row.
	About string
	// Window is the context window the transcript implies, in tokens.
	Window int64
	// ToolID is the id of the tool call in the transcript and the payload.
	ToolID string
	// Write returns a transcript whose latest model reply asked for the
	// tool call and had used tokens in its context.
	Write func(used int64) []byte
	// Payload adds the agent's own keys to a hook payload, if any.
	Payload func(pl map[string]any)
	// Use adds the context use, used tokens, to a hook payload where the
	// agent's payload carries it (Qwen Code's Stop), if it does.
	Use func(pl map[string]any, used int64)
}

// ArgFor is the agent as --agents names it in a fix that must keep mode
// m: its name, with the mode when m is set and not the default.
func (a *Agent) ArgFor(m Mode) string {
	if m != "" && m != a.Default {
		return a.Name + "=" + string(m)
	}
	return a.Name
}
