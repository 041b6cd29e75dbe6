package agent

import (
	"path/filepath"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// GitHub Copilot CLI (docs/platforms.md#github-copilot-cli) cannot
// re-inject: its hooks include preCompact but nothing after compaction,
// and sessionStart's sources are startup, resume and new. It reads
// AGENTS.md, so it gets the on-demand block only.
//
// Copilot CLI also reads .claude/settings.json (since 1.0.12) and may start
// our Claude hook at session start; the hook's matcher is compact, and the
// reminder runtime prints nothing for a payload whose source is not
// compact, so it stays silent there.

const copilotReason = "GitHub Copilot CLI has no event after compaction: its preCompact hook runs before it, and sessionStart's sources are startup, resume and new, never compact"

// copilotReads, measured on 1.0.102 (copilot -p against a mock, offline;
// TestReadsCopilot): all four at once, from the root, and from a
// sub-folder the root's and the sub-folder's own AGENTS.md, as GitHub's
// docs say.
var copilotReads = Reads{
	Client: "GitHub Copilot CLI 1.0.102",
	Where:  "the repository root, the session's folder and the folders between them",
	Files: []Instruction{
		{File: ".github/copilot-instructions.md", Known: "measured: in the first request"},
		{File: "AGENTS.md", Known: "measured: in the first request, beside CLAUDE.md and GEMINI.md, from the root and from a sub-folder"},
		{File: "CLAUDE.md", Known: "measured: in the first request, beside AGENTS.md"},
		{File: "GEMINI.md", Known: "measured: in the first request, beside AGENTS.md"},
	},
}

// copilotTeach is the kbs-now block in CLAUDE.md where there is no
// AGENTS.md (setup spares AGENTS.md where it would hide CLAUDE.md from
// another agent).
var copilotTeach = &Unless{Block: &Block{File: "CLAUDE.md", Block: onDemand}, Reads: &copilotReads, Loaded: OnDemandBlock.File}

var copilot = &Agent{
	Name:    "copilot",
	Title:   "GitHub Copilot CLI",
	Default: OnDemand,
	Modes: []ModeSpec{
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or CLAUDE.md, where there is no AGENTS.md) teaches the agent to run kbs now",
			Artifacts: []Artifact{OnDemandBlock, copilotTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Reinject: "GitHub Copilot CLI cannot re-inject after compaction: " + copilotReason,
		Nudge:    "nudge is Cursor's pre-compaction message to the user; GitHub Copilot CLI's preCompact hook is not known to show one (not measured)",
	},
	Reinject: "no: " + copilotReason,
	Markers:  []string{".github/copilot-instructions.md", ".github/hooks"},
	Binaries: []string{"copilot"},
	Reads:    copilotReads,
	// Copilot's own hook files are .github/hooks/*.json (any name) and
	// ~/.copilot/hooks/*.json, whose handlers run "bash" or "powershell"
	// rather than "command"; hooks may also sit inline in its settings
	// files, listed here. nowhook writes none of them, so doctor checks no
	// more than the mode.
	Hooks: HookFormat{
		Files:  []string{".github/copilot/settings.json", ".github/copilot/settings.local.json", "~/.copilot/settings.json"},
		Layout: LayoutFlat,
	},
	Doctor: Doctor{Quirks: []Check{copilotClaudeEntry}},
	Scope:  Scope{ManagedOnly: copilotManagedOnly},
}

// copilotManagedOnly: GitHub Copilot CLI 1.0.102 loads only managed hooks
// and force-enabled plugins' hooks with allowManagedHooksOnly in its
// managed settings (from its package and docs; not run: it needs a GitHub
// sign-in). nowhook writes no hook for Copilot, which cannot re-inject, so
// the switch takes nothing of nowhook's away.
var copilotManagedOnly = &ManagedOnly{
	Files: []string{"/etc/github-copilot/managed-settings.json"},
	Key:   "allowManagedHooksOnly",
	Known: "from GitHub Copilot CLI 1.0.102's package and docs, not run",
}

// The Claude Code entry in other clients (docs/platforms.md, "The Claude
// Code entry in other clients"): GitHub Copilot CLI and Continue CLI load
// .claude/settings.json, and so nowhook's Claude Code hooks there. Each of
// their rows says, in a repository where Claude Code is set up and they
// are used too, what they do with those hooks (measured).

// claudeEntryNames names nowhook's Claude Code hooks by the script each
// runs, for the rows.
var claudeEntryNames = []struct{ script, name string }{
	{ClaudeScript, "the compact hook"},
	{ClaudeCheckpointScript, "the checkpoint"},
	{ClaudeHintScript, "the summary hint"},
}

// claudeEntries lists nowhook's Claude Code hooks that the repository's
// .claude/settings.json and .claude/settings.local.json hold, by name, and
// the file that holds the first.
func claudeEntries(root string) (names []string, file string) {
	for _, rel := range []string{ClaudeSettings.Path, ".claude/settings.local.json"} {
		b, err := diag.ReadBounded(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		for _, art := range claude.Owned() {
			h, ok := art.(*HookEntry)
			if !ok || !h.Present(b) {
				continue
			}
			for _, e := range claudeEntryNames {
				if e.script == h.Script && !contains(names, e.name) {
					names = append(names, e.name)
					if file == "" {
						file = rel
					}
				}
			}
		}
	}
	return names, file
}

// claudeEntryCheck is the row of a client that loads .claude/settings.json:
// what it does with the nowhook hooks there (does, as measured).
func claudeEntryCheck(title, does string) Check {
	return Check{Name: "claude-entry", Run: func(v View) []diag.Finding {
		names, file := claudeEntries(v.Root())
		if len(names) == 0 {
			return nil
		}
		return []diag.Finding{{Severity: diag.Info, Path: file,
			Message: title + " loads " + file + " too, with nowhook's Claude Code hooks in it (" + strings.Join(names, ", ") + "): " + does}}
	}}
}

// copilotClaudeEntry, measured on 1.0.102 (TestCopilotClaudeEntry): it
// runs them all, and each prints nothing there.
var copilotClaudeEntry = claudeEntryCheck("GitHub Copilot CLI",
	"it runs the compact hook at every session start, whatever its matcher, with a source of new, startup or resume, never compact, so it prints nothing; "+
		"the checkpoint at each prompt and tool call and the summary hint before its compaction print nothing there and start no kbs, "+
		"since Copilot takes only a top-level JSON additionalContext (measured on 1.0.102)")
