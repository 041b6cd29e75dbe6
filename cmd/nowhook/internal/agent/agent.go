// Package agent is the agent table: one file per coding agent declares
// everything nowhook knows about it (how it is detected, the modes it
// allows and why it refuses the others, the artifacts each mode owns and
// how each is rendered, recognised and removed, how it reads hook files,
// what it reads as instructions, steps such as Codex's trust, and the
// checks of `nowhook doctor` that only this agent needs). Setup, remove,
// doctor, the wizard and the README's matrix read the table; nothing
// outside an agent's file branches on its name.
//
// # Doctor's checks
//
// Doctor derives most of its checks of an agent from the row's data, not
// from names: mode and reach for every agent; hooks-file where the hook
// files hold something doctor judges (HookEntries, or
// HookFormat.WrongEvents); hook and script for each hook entry of ours;
// disabled, twice, inject-event and precompact-block from the hook
// format's DisableKey, OnceByCommand, WrongEvents and BlockingEvent; md
// for the blocks Doctor.BlockMisses names; the checkpoint's for an agent
// with Checkpoint artifacts, run live on Doctor.Transcript. What no data
// can say is code in the agent's own file: a Check value in
// Doctor.Quirks (Codex's config layers and trust, Qwen Code's folder
// trust, Gemini CLI's migrated hooks, OpenCode's plugin). A Check sees
// doctor's run through View, which doctor fills (the hook files parsed
// with their handlers, the root, the environment, the setup command of a
// fix, the wrapper's budget, how a path is shown); the hook files and the
// rows are package diag's, which both this package and doctor import, so
// there is no import cycle. A check that asks a program (Codex's
// app-server) starts it in Check.Start and keeps what it needs in that
// closure: no agent's state sits in doctor's shared structs.
//
// # A new agent
//
// A new agent is a new file plus one line: for a Claude-like one (a
// SessionStart compact hook in a JSON settings file), tenth.go declares
// its hook file (a generate.HookFile), its HookEntry, its wrapper Script
// and Blocks, the Modes that own them, Refused, Reads and a HookFormat
// (Files, Layout, Shell, WrongEvents, and DisableKey, OnceByCommand and
// BlockingEvent where the agent has them), with Doctor.BlockMisses for
// its Compact Instructions and, for a checkpoint, Doctor.Transcript; the
// line adds it to All. Setup, remove, the wizard, the README's matrix and
// doctor's whole list of checks follow; doctor's TestTenthAgent builds
// such a row in a test file and shows it. What is left is its "## Title"
// section in docs/platforms.md (TestPlatformsSections names a missing
// one) and `sh scripts/readme-matrix.sh`, which writes the new matrix
// into README.md (TestREADMEMatrix fails until it runs); the scenarios
// take the list and number of agents from All.
package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
)

// Mode is how nowhook serves an agent.
type Mode string

const (
	// Reinject puts the reminder back into the model's context right after
	// every compaction, through a hook.
	Reinject Mode = "reinject"
	// OnDemand teaches the agent to run `kbs now` itself (AGENTS.md).
	OnDemand Mode = "ondemand"
	// Nudge is on-demand plus a message to the user before compaction.
	Nudge Mode = "nudge"
)

// Modes lists every mode in the order help texts show them.
var Modes = []Mode{Reinject, OnDemand, Nudge}

// Options shape what the artifacts render.
type Options struct {
	// Budget is the time the hook gives kbs.
	Budget time.Duration
	// Force replaces scripts at our paths that were changed by hand or
	// are not ours.
	Force bool
	// CheckpointAt is the share of the context window, in percent, at
	// which the checkpoint fires (setup --checkpoint-at).
	CheckpointAt int
	// Sources are the reminder's sources, comma-separated in printing
	// order (setup --sources); "" is the default, the board alone.
	Sources string
}

// DefaultCheckpointAt is the checkpoint's threshold without --checkpoint-at.
const DefaultCheckpointAt = 85

// HintBudget is the time the summary hint gives kbs: it delays the
// compaction while it runs.
const HintBudget = 2 * time.Second

// DefaultBudget is the hook's budget for kbs when --timeout is not given.
const DefaultBudget = 5 * time.Second

// Agent is one row of the table.
type Agent struct {
	Name  string // as given to --agents
	Title string // as shown to people
	// Default is the mode used when --agents names the agent without one.
	Default Mode
	// Modes are the modes the agent allows, each with what it owns.
	Modes []ModeSpec
	// Refused maps each mode the agent lacks to the platform's reason.
	Refused map[Mode]string
	// Reinject says how re-injection works ("yes: ..."), or why it
	// cannot ("no: ..."), for the matrix.
	Reinject string
	// OptIn says why re-inject, which the agent allows, is not its
	// default, for setup's summary, doctor and the wizard; "" where
	// re-inject is the default or refused.
	OptIn string
	// Fallback: configured by `setup --yes` when no agent is detected.
	Fallback bool
	// Markers are repository paths whose presence shows the agent is used;
	// Globs are patterns with the evidence a match gives.
	Markers []string
	Globs   []Glob
	// Binaries are commands whose presence on PATH shows it is installed.
	Binaries []string
	// Hooks is how the agent reads hook files (doctor reads them all).
	Hooks HookFormat
	// Doctor is what doctor needs beyond the artifacts and the hook
	// format: the agent's own checks, and its checkpoint transcript
	// (doctor.go).
	Doctor Doctor
	// Trust is a step that makes the agent run our hook at all (Codex's
	// hook trust), or nil.
	Trust *Trust
	// Reads is what the agent loads as instructions (reads.go).
	Reads Reads
	// Checkpoint are the artifacts `setup --checkpoint` adds, in any mode:
	// hooks that tell the agent to write its progress into Kanbus before
	// the context fills (and, where the agent has one, a summary hint);
	// none for an agent without a hook that can add context mid-session.
	Checkpoint []Artifact
	// Note are the artifacts of samemind's pre-compact note (setup
	// --sources samemind=note; samemind.go), kept in re-inject mode where
	// the sources choose it; none for an agent whose pre-compaction hook
	// does not run it.
	Note []Artifact
	// Scope is where the agent loads a project's hooks from, and its
	// user-level install (setup --scope user), if any (scope.go).
	Scope Scope
}

// Glob is a pattern, relative to the repository root, that shows an agent
// is used when it matches, and what to say when it does.
type Glob struct{ Pattern, Evidence string }

// ModeSpec is one mode an agent allows.
type ModeSpec struct {
	Mode Mode
	// Words say what the mode does, for the wizard.
	Words string
	// Artifacts are what nowhook writes for the mode, in the order they
	// are written (and removed in reverse).
	Artifacts []Artifact
}

// HookFormat is how an agent reads its hook files.
type HookFormat struct {
	// Files are the files the agent loads hooks from: repository paths,
	// then user paths, where a leading "~/" and "${VAR:-default}" expand.
	Files []string
	// Layout is the shape of a file: LayoutGrouped, LayoutFlat or LayoutNamed.
	Layout string
	// Strict: one comment, trailing comma or syntax error drops the whole file.
	Strict bool
	// Shell runs a hook's command string with -c, in the project directory.
	Shell string
	// ProjectDirEnv is the variable that hands hooks the project
	// directory, if the agent sets one.
	ProjectDirEnv string
	// TimeoutMillis: the agent counts a hook's "timeout" in milliseconds
	// (Gemini CLI), not seconds.
	TimeoutMillis bool
	// JSONOutput: hook output whose first non-blank character is { or [
	// is parsed as JSON, and injects nothing when it is not the agent's
	// JSON shape.
	JSONOutput bool
	// WrongEvents maps the hook events that can run a command but cannot
	// put the reminder back after compaction to the reason; a hook there
	// that runs `kbs now` is an error.
	WrongEvents map[string]string
	// DisableKey is a top-level key of a hook file that, set to true,
	// turns every hook off ("disableAllHooks"), if the agent has one.
	DisableKey string
	// OnceByCommand: the agent runs a byte-identical command found in
	// several hook files once, and every other spelling of it again.
	OnceByCommand bool
	// OneStartContext: after a compaction the agent keeps only the text of
	// the start hooks that ran for it, so the reminder replaces what the
	// team's own startup hooks added (Qwen Code 0.24.4, measured by
	// TestReadsQwenStartupContextProbe), unless their matcher selects
	// compact too.
	OneStartContext bool
	// BlockingEvent is the event whose hooks can stop a compaction (by
	// exiting 2 or printing {"decision": "block"}), if the agent has one.
	BlockingEvent string
}

// Hook file layouts (diag reads them).
const (
	// LayoutGrouped: {"hooks": {EVENT: [{"matcher", "hooks": [handler...]}]}}.
	LayoutGrouped = diag.LayoutGrouped
	// LayoutFlat: {"hooks": {EVENT: [handler...]}}.
	LayoutFlat = diag.LayoutFlat
	// LayoutNamed: {NAME: {EVENT: [handler...]}}.
	LayoutNamed = diag.LayoutNamed
)

// All is the agent table, in the order people see it.
var All = []*Agent{claude, codex, qwen, opencode, cursor, antigravity, gemini, copilot, amp, droid, cline, crush, continueCLI, auggie, kiro, windsurf, goose, kimi, junie}

// Lookup returns the agent named name.
func Lookup(name string) (*Agent, bool) {
	for _, a := range All {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// Names lists the agents' names.
func Names() []string {
	names := make([]string, len(All))
	for i, a := range All {
		names[i] = a.Name
	}
	return names
}

// Spec returns the agent's spec for mode m.
func (a *Agent) Spec(m Mode) (ModeSpec, bool) {
	for _, s := range a.Modes {
		if s.Mode == m {
			return s, true
		}
	}
	return ModeSpec{}, false
}

// ModeNames lists the agent's modes, the default first.
func (a *Agent) ModeNames() []Mode {
	modes := []Mode{a.Default}
	for _, s := range a.Modes {
		if s.Mode != a.Default {
			modes = append(modes, s.Mode)
		}
	}
	return modes
}

// Owned lists every artifact any of the agent's modes owns, once each, in
// the order of the modes and their artifacts.
func (a *Agent) Owned() []Artifact {
	var out []Artifact
	for _, s := range a.Modes {
		for _, art := range s.Artifacts {
			if !containsArtifact(out, art) {
				out = append(out, art)
			}
		}
	}
	for _, art := range append(a.Checkpoint[:len(a.Checkpoint):len(a.Checkpoint)], a.Note...) {
		if !containsArtifact(out, art) {
			out = append(out, art)
		}
	}
	return out
}

// Wants reports whether mode m of the agent owns art.
func (a *Agent) Wants(m Mode, art Artifact) bool {
	s, ok := a.Spec(m)
	return ok && containsArtifact(s.Artifacts, art)
}

// CheckpointIn reports whether content is a checkpoint script of ours and
// the threshold it was rendered with.
func CheckpointIn(content []byte) (at int, ok bool) {
	m := checkpointAtRE.FindSubmatch(content)
	if m == nil {
		return 0, false
	}
	at, err := strconv.Atoi(string(m[1]))
	return at, err == nil
}

// SourcesIn reads the reminder's sources from a wrapper or turn script
// nowhook wrote (--sources LIST); ok is false for one that names none
// (a wrapper of template v5 or older: the board alone).
func SourcesIn(content []byte) (sources string, ok bool) {
	m := sourcesRE.FindSubmatch(content)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

var sourcesRE = regexp.MustCompile(`(?m)^\s*(?:run |exec )?nowhook(?:-| )reminder --timeout \S+ --sources ([a-z,=]+) `)

var checkpointAtRE = regexp.MustCompile(`(?m)^\s*(?:exec )?nowhook(?:-| )reminder --checkpoint --at (\d+) `)

func containsArtifact(list []Artifact, art Artifact) bool {
	for _, x := range list {
		if x == art {
			return true
		}
	}
	return false
}

// OnDemandOnly is the reason the agent cannot re-inject, or "".
func (a *Agent) OnDemandOnly() string { return a.Refused[Reinject] }

// Choice is one agent and the mode to configure it in.
type Choice struct {
	Agent *Agent
	Mode  Mode
}

// Choose returns the choice of mode for a; without a mode, a's default.
func (a *Agent) Choose(mode Mode, hasMode bool) (Choice, error) {
	if !hasMode {
		return Choice{Agent: a, Mode: a.Default}, nil
	}
	if _, ok := a.Spec(mode); ok {
		return Choice{Agent: a, Mode: mode}, nil
	}
	if reason, ok := a.Refused[mode]; ok {
		return Choice{}, fmt.Errorf("%s=%s is refused: %s", a.Name, mode, reason)
	}
	var known []string
	for _, m := range Modes {
		known = append(known, string(m))
	}
	return Choice{}, fmt.Errorf("unknown mode %q for %s (modes: %s)", mode, a.Name, strings.Join(known, ", "))
}

// ParseAgents parses an --agents list `agent[=mode],...`. A mode the
// agent lacks is refused with the platform's reason.
func ParseAgents(list string) ([]Choice, error) {
	var choices []Choice
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, mode, hasMode := strings.Cut(item, "=")
		a, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("agent %q is listed twice", name)
		}
		seen[name] = true
		c, err := a.Choose(Mode(mode), hasMode)
		if err != nil {
			return nil, err
		}
		choices = append(choices, c)
	}
	if len(choices) == 0 {
		return nil, fmt.Errorf("--agents lists no agent (known: %s)", strings.Join(Names(), ", "))
	}
	return choices, nil
}

// Found is what detection found of one agent.
type Found struct {
	Agent    *Agent
	Evidence []string // e.g. ".claude/ exists", "claude on PATH"
	// Marks are the marker paths that exist, and Binaries the commands
	// found, behind the evidence.
	Marks, Binaries []string
}

// Present reports whether anything shows the agent is used.
func (f Found) Present() bool { return len(f.Evidence) > 0 }

// Detect looks at root's known paths and at PATH, for every agent: the
// agents' marks go to detect.Look as data.
func Detect(root string) []Found {
	marks := make([]detect.Marks, len(All))
	for i, a := range All {
		m := detect.Marks{Paths: a.Markers, Binaries: a.Binaries}
		for _, g := range a.Globs {
			m.Globs = append(m.Globs, detect.Glob{Pattern: g.Pattern, Evidence: g.Evidence})
		}
		marks[i] = m
	}
	out := make([]Found, len(All))
	for i, s := range detect.Look(root, marks) {
		out[i] = Found{Agent: All[i], Evidence: s.Evidence, Marks: s.Paths, Binaries: s.Binaries}
	}
	return out
}

// Markers lists every agent's markers, for messages, each once (Gemini
// CLI and Antigravity both take GEMINI.md as a sign of use).
func Markers() []string {
	var m []string
	for _, a := range All {
		for _, mark := range a.Markers {
			if !contains(m, mark) {
				m = append(m, mark)
			}
		}
	}
	return m
}

// Matrix renders the agent table as a Markdown table, for the README:
// scripts/readme-matrix.sh writes it there, and TestREADMEMatrix fails
// when the README's copy differs.
func Matrix() string {
	var b strings.Builder
	b.WriteString("| agent | `--agents` name | modes (default first) | re-inject after compaction | files nowhook writes (default mode) | session started in a sub-folder | facts from |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, a := range All {
		var modes []string
		for _, m := range a.ModeNames() {
			modes = append(modes, string(m))
		}
		spec, _ := a.Spec(a.Default)
		always := map[string]bool{}
		for _, art := range spec.Artifacts {
			if _, cond := art.(Conditional); !cond {
				always[art.Path()] = true
			}
		}
		var files []string
		for _, art := range spec.Artifacts {
			f := "`" + art.Path() + "`"
			if b, ok := art.(*Block); ok && b.IfPresent {
				f += " (where it exists)"
			}
			if u, ok := art.(*Unless); ok && !always[art.Path()] {
				f += " (where it is read instead of `" + u.Loaded + "`)"
			}
			if o, ok := art.(*OnlyIf); ok && o.Where != "" {
				f += " (" + o.Where + ")"
			}
			if !contains(files, f) {
				files = append(files, f)
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %s |\n", a.Title, a.Name, strings.Join(modes, ", "), a.Reinject, strings.Join(files, ", "), a.SubFolderCell(), a.Known())
	}
	return b.String()
}

// Known says, for the matrix, how the row's facts were known: measured in
// the real client (with its version), or read in the vendor's
// documentation or in reports without running it (Reads.Client says
// which).
func (a *Agent) Known() string {
	c := a.Reads.Client
	switch {
	case strings.Contains(c, "vendor docs"):
		return "vendor docs (not run here)"
	case strings.Contains(c, "reported"):
		return "reports (not run here)"
	case c == "":
		return "not recorded"
	}
	return "measured: " + c
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// HookEntries lists the agent's hook entries, with the mode that owns
// each (the first mode that does).
func (a *Agent) HookEntries() []ModeHook {
	var out []ModeHook
	seen := map[*HookEntry]bool{}
	for _, s := range a.Modes {
		for _, art := range s.Artifacts {
			if h, ok := art.(*HookEntry); ok && !seen[h] {
				seen[h] = true
				out = append(out, ModeHook{Mode: s.Mode, Hook: h})
			}
		}
	}
	return out
}

// ModeHook is a hook entry and the mode that owns it.
type ModeHook struct {
	Mode Mode
	Hook *HookEntry
}

// ReminderScripts lists the scripts of every agent's hook entries that
// print the reminder (the nudge prints a message, not the reminder).
func ReminderScripts() []string {
	var out []string
	for _, a := range All {
		for _, art := range a.Owned() {
			if s, ok := art.(*Script); ok && s.Reminder && !contains(out, s.File) {
				out = append(out, s.File)
			}
		}
	}
	return out
}
