package detect

import (
	"fmt"
	"strings"
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

// Platform is one row of the platform matrix (PLATFORMS.md): what an agent
// can do after compaction, what nowhook installs for it, and why.
type Platform struct {
	Name  string // as given to --agents
	Title string // as shown to people
	// Default is the mode used when --agents names the agent without one.
	Default Mode
	// Supported maps each supported mode to the files setup writes for it.
	Supported map[Mode][]string
	// Refused maps each mode the agent lacks to the reason.
	Refused map[Mode]string
	// Reinject says how re-injection works, or why it cannot ("no: ...").
	Reinject string
	// Markers are the repository paths that show the agent is in use.
	Markers []string
	// Binaries are the commands that show the agent is installed.
	Binaries []string
	// Hooks is how the agent reads hook files (doctor reads them all).
	Hooks HookFormat
}

// HookFormat is how an agent reads its hook files (PLATFORMS.md).
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
	// JSONOutput: hook output whose first non-blank character is { or [
	// is parsed as JSON, and injects nothing when it is not the agent's
	// JSON shape.
	JSONOutput bool
	// WrongEvents maps the hook events that can run a command but cannot
	// put the reminder back after compaction to the reason; a hook there
	// that runs `kbs now` is an error.
	WrongEvents map[string]string
}

// Hook file layouts.
const (
	// LayoutGrouped: {"hooks": {EVENT: [{"matcher", "hooks": [handler...]}]}}.
	LayoutGrouped = "grouped"
	// LayoutFlat: {"hooks": {EVENT: [handler...]}}.
	LayoutFlat = "flat"
	// LayoutNamed: {NAME: {EVENT: [handler...]}}.
	LayoutNamed = "named"
)

const (
	onDemandFile = "AGENTS.md"

	cursorReason      = "Cursor's preCompact hook only observes (its user_message goes to the user, not the agent) and Cursor has no post-compact event"
	antigravityReason = "Antigravity has no compaction event; its PreInvocation hook fires before every model call, which would inject on every turn, not after compaction"
)

// Platforms is the platform matrix. Setup, doctor, the wizard and the README
// read it; a new agent is a new row.
var Platforms = []Platform{
	{
		Name:    "claude",
		Title:   "Claude Code",
		Default: Reinject,
		Supported: map[Mode][]string{
			Reinject: {".claude/settings.json", ".claude/hooks/kanbus-compaction-right-now.sh", "CLAUDE.md", onDemandFile},
			OnDemand: {onDemandFile},
		},
		Refused: map[Mode]string{
			Nudge: "nudge is Cursor's pre-compaction message to the user; Claude Code re-injects the reminder itself (use reinject or ondemand)",
		},
		Reinject: "yes: SessionStart hook with matcher compact; its stdout is added to the next model request",
		Markers:  []string{".claude", "CLAUDE.md"},
		Binaries: []string{"claude"},
		Hooks: HookFormat{
			Files:         []string{".claude/settings.local.json", ".claude/settings.json", "${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json"},
			Layout:        LayoutGrouped,
			Strict:        true,
			Shell:         "/bin/sh",
			ProjectDirEnv: "CLAUDE_PROJECT_DIR",
			WrongEvents: map[string]string{
				"PreCompact":  "Claude Code gives PreCompact output to the summariser as extra instructions, not to the model after compaction; use SessionStart with matcher compact",
				"PostCompact": "Claude Code shows PostCompact output to the user only; use SessionStart with matcher compact",
			},
		},
	},
	{
		Name:    "codex",
		Title:   "Codex CLI",
		Default: Reinject,
		Supported: map[Mode][]string{
			Reinject: {".codex/hooks.json", ".codex/hooks/kanbus-compaction-right-now.sh", onDemandFile},
			OnDemand: {onDemandFile},
		},
		Refused: map[Mode]string{
			Nudge: "nudge is Cursor's pre-compaction message to the user; Codex re-injects the reminder itself (use reinject or ondemand)",
		},
		Reinject: "yes: SessionStart hook with source compact; its stdout becomes a developer message",
		Markers:  []string{".codex"},
		Binaries: []string{"codex"},
		Hooks: HookFormat{
			Files:      []string{".codex/hooks.json", "${CODEX_HOME:-~/.codex}/hooks.json"},
			Layout:     LayoutGrouped,
			Strict:     true, // measured on 0.171.0: a comment drops the file
			Shell:      "/bin/bash",
			JSONOutput: true,
			WrongEvents: map[string]string{
				"PreCompact":  "Codex's PreCompact hooks cannot inject context; use SessionStart with matcher compact",
				"PostCompact": "Codex's PostCompact hooks cannot inject context; use SessionStart with matcher compact",
			},
		},
	},
	{
		Name:    "cursor",
		Title:   "Cursor",
		Default: OnDemand,
		Supported: map[Mode][]string{
			OnDemand: {onDemandFile},
			Nudge:    {onDemandFile, ".cursor/hooks.json", ".cursor/hooks/kanbus-precompact-nudge.sh"},
		},
		Refused: map[Mode]string{
			Reinject: "Cursor cannot re-inject after compaction: " + cursorReason,
		},
		Reinject: "no: " + cursorReason,
		Markers:  []string{".cursor", ".cursorrules"},
		Binaries: []string{"cursor-agent"},
		Hooks: HookFormat{
			Files:  []string{".cursor/hooks.json", "~/.cursor/hooks.json"},
			Layout: LayoutFlat,
			WrongEvents: map[string]string{
				"sessionStart": "Cursor's sessionStart fires at every new conversation, not after compaction, and " + cursorReason,
			},
		},
	},
	{
		Name:    "antigravity",
		Title:   "Antigravity",
		Default: OnDemand,
		Supported: map[Mode][]string{
			OnDemand: {onDemandFile},
		},
		Refused: map[Mode]string{
			Reinject: "Antigravity cannot re-inject after compaction: " + antigravityReason,
			Nudge:    "Antigravity has no compaction event to send a nudge from",
		},
		Reinject: "no: " + antigravityReason,
		Markers:  []string{".agents/rules", ".agents/workflows", ".agents/hooks.json", ".agent", "GEMINI.md"},
		Hooks: HookFormat{
			Files:  []string{".agents/hooks.json", ".agent/hooks.json", "~/.gemini/config/hooks.json"},
			Layout: LayoutNamed,
			Strict: true,
			WrongEvents: map[string]string{
				"PreInvocation": antigravityReason,
			},
		},
	},
}

// Lookup returns the platform named name.
func Lookup(name string) (Platform, bool) {
	for _, p := range Platforms {
		if p.Name == name {
			return p, true
		}
	}
	return Platform{}, false
}

// Names lists the platforms' names.
func Names() []string {
	names := make([]string, len(Platforms))
	for i, p := range Platforms {
		names[i] = p.Name
	}
	return names
}

// Choice is one agent and the mode to configure it in.
type Choice struct {
	Platform Platform
	Mode     Mode
}

// ParseAgents parses the --agents list `agent[=mode],...`. A mode the
// platform lacks is refused with the platform's reason.
func ParseAgents(list string) ([]Choice, error) {
	var choices []Choice
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, mode, hasMode := strings.Cut(item, "=")
		p, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("agent %q is listed twice", name)
		}
		seen[name] = true
		c, err := p.Choose(Mode(mode), hasMode)
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

// Choose returns the choice of mode for p; without a mode, p's default.
func (p Platform) Choose(mode Mode, hasMode bool) (Choice, error) {
	if !hasMode {
		return Choice{Platform: p, Mode: p.Default}, nil
	}
	if _, ok := p.Supported[mode]; ok {
		return Choice{Platform: p, Mode: mode}, nil
	}
	if reason, ok := p.Refused[mode]; ok {
		return Choice{}, fmt.Errorf("%s=%s is refused: %s", p.Name, mode, reason)
	}
	var known []string
	for _, m := range Modes {
		known = append(known, string(m))
	}
	return Choice{}, fmt.Errorf("unknown mode %q for %s (modes: %s)", mode, p.Name, strings.Join(known, ", "))
}

// SupportedModes lists p's modes in the order of Modes.
func (p Platform) SupportedModes() []Mode {
	var modes []Mode
	for _, m := range Modes {
		if _, ok := p.Supported[m]; ok {
			modes = append(modes, m)
		}
	}
	return modes
}

// Matrix renders the platform matrix as a Markdown table, for the README
// (a test keeps the README's copy equal to it).
func Matrix() string {
	var b strings.Builder
	b.WriteString("| agent | `--agents` name | modes (default first) | re-inject after compaction | files nowhook writes (default mode) |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, p := range Platforms {
		modes := []string{string(p.Default)}
		for _, m := range p.SupportedModes() {
			if m != p.Default {
				modes = append(modes, string(m))
			}
		}
		var files []string
		for _, f := range p.Supported[p.Default] {
			files = append(files, "`"+f+"`")
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", p.Title, p.Name, strings.Join(modes, ", "), p.Reinject, strings.Join(files, ", "))
	}
	return b.String()
}
