package agent

import (
	"fmt"
	"path/filepath"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/generate"
)

// Codex CLI (docs/platforms.md#codex-cli): a SessionStart hook with matcher
// compact in .codex/hooks.json; its plain stdout becomes a developer
// message in the next request. Codex runs project hooks only once the user
// config trusts the project and the hook's hash (see codexTrust).

// CodexScript is the wrapper our Codex hook runs.
const CodexScript = ".codex/hooks/kanbus-compaction-right-now.sh"

// CodexCommand finds the wrapper from the session's working directory by
// walking up to the nearest directory that has it, so it works when Codex
// was started in a subdirectory and for a project inside a larger git
// repository, without starting git; it exits 0 when the script is missing.
// Codex runs it with /bin/bash -c.
const CodexCommand = `d=$PWD; while [ "$d" != / ] && [ ! -x "$d/` + CodexScript + `" ]; do d=${d%/*}; d=${d:-/}; done; [ ! -x "$d/` + CodexScript + `" ] || exec "$d/` + CodexScript + `"`

// CodexCheckpointScript is the checkpoint script (setup --checkpoint),
// found the same way. Measured on 0.171.0: a PostToolUse hook's JSON
// additionalContext and a UserPromptSubmit hook's output reach the model;
// each entry needs its own trust. Codex has no summary hint: its
// PreCompact output cannot add instructions.
const CodexCheckpointScript = ".codex/hooks/kanbus-checkpoint.sh"

var codexCheckpointCommand = `d=$PWD; while [ "$d" != / ] && [ ! -x "$d/` + CodexCheckpointScript + `" ]; do d=${d%/*}; d=${d:-/}; done; [ ! -x "$d/` + CodexCheckpointScript + `" ] || exec "$d/` + CodexCheckpointScript + `"`

// codexEvent is .codex/hooks.json with our entry under event.
func codexEvent(event string) generate.HookFile {
	f := CodexHooks
	f.Event = event
	return f
}

var codexCheckpoint = []Artifact{
	&HookEntry{File: codexEvent("PostToolUse"), Script: CodexCheckpointScript, Hook: func(o Options) generate.Hook {
		return generate.Group("*", codexCheckpointCommand, CodexCheckpointScript, generate.HookTimeout(o.Budget))
	}},
	&HookEntry{File: codexEvent("UserPromptSubmit"), Script: CodexCheckpointScript, Hook: func(o Options) generate.Hook {
		return generate.Group("", codexCheckpointCommand, CodexCheckpointScript, generate.HookTimeout(o.Budget))
	}},
	checkpointScript(CodexCheckpointScript),
}

// codexOurs recognises the command of any hook entry of ours.
func codexOurs(command string) bool {
	return generate.RunsScript(CodexScript)(command) || generate.RunsScript(CodexCheckpointScript)(command)
}

// CodexHooks is the schema of a project's .codex/hooks.json. Codex 0.171.0
// parses it strictly, and drops the whole file for a comment, a trailing
// comma or an entry of the wrong shape.
var CodexHooks = generate.HookFile{
	Path:    codexHooksPath,
	Agent:   "Codex",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
	Check:   checkCodexHooks,
}

const codexHooksPath = ".codex/hooks.json"

// CodexBinary is the command that runs Codex.
const CodexBinary = "codex"

var (
	codexHook = &HookEntry{
		File:   CodexHooks,
		Hook:   func(o Options) generate.Hook { return generate.CompactGroup(CodexCommand, CodexScript, o.Budget) },
		Script: CodexScript,
	}
	codexWrapper = wrapper(CodexScript)
	// codexTeach is the kbs-now block in AGENTS.override.md, where that
	// file hides AGENTS.md from Codex.
	codexTeach = &Unless{Block: &Block{File: CodexOverrideFile, Block: onDemand}, Reads: &codexReads, Loaded: OnDemandBlock.File}
)

// CodexOverrideFile is the file Codex loads instead of AGENTS.md in a
// folder that has both.
const CodexOverrideFile = "AGENTS.override.md"

// codexReads: Codex CLI 0.171.0 loads one instruction file per folder, from
// the project root (the git root) down to the session's folder, and joins
// them under one project_doc_max_bytes, which cuts the deepest file first
// (measured: TestReadsFoldersProbe, TestReadsCodexBudgetProbe).
var codexReads = Reads{
	Client: "Codex CLI 0.171.0",
	Where:  "each folder from the git root down to the session's, one file per folder, all under one project_doc_max_bytes",
	Budget: codexBudget,
	// Measured (TestReadsBigClaudeMDProbe): with project_doc_fallback_filenames
	// = ["TEAM.md"], TEAM.md loads in a folder without AGENTS.md, not beside one.
	Named:         codexFallbacks,
	NamedHiddenBy: []string{CodexOverrideFile, "AGENTS.md"},
	Files: []Instruction{
		{File: CodexOverrideFile, Known: "measured: read first in its folder, and AGENTS.md there is skipped"},
		{File: "AGENTS.md", HiddenBy: []string{CodexOverrideFile}, Limit: "project_doc_max_bytes (32 KiB unless set) cuts the joined files off",
			Known: "measured: in the first request's user instructions, the root's first and the start folder's last; skipped in a folder with AGENTS.override.md"},
	},
}

// codexBudget is the project_doc_max_bytes Codex applies to a session in
// the repository f shows: the project's .codex/config.toml where Codex
// trusts the project (it ignores the project layer of an untrusted one,
// measured on 0.171.0), else the user's, else Codex's default.
func codexBudget(f Files) Budget {
	return memoized(f, codexMemoKey(f, "codex.budget"), func() Budget { return codexBudgetNow(f) })
}

// codexMemoKey is key, or its own key for the Bare view where the
// project's trust is nowhook's (untrustedWithout): there the project's
// config does not count.
func codexMemoKey(f Files, key string) string {
	if untrustedWithout(f, codexName) {
		return key + ".bare-untrusted"
	}
	return key
}

// codexTrustsProject is codexProjectTrust for the view f: never where the
// project's trust is nowhook's own and f is the repository without nowhook.
func codexTrustsProject(f Files, user *codexLayer, root string) (bool, string) {
	if untrustedWithout(f, codexName) {
		return false, "without nowhook, whose setup --trust-codex recorded it, Codex does not trust the project"
	}
	return codexProjectTrust(user, root)
}

func codexBudgetNow(f Files) Budget {
	b := Budget{Limit: codexDefaultDocMax, Setting: "project_doc_max_bytes", Source: "Codex's default", Fix: "~/.codex/config.toml", Row: "agents-md-cap"}
	s, ok := f.(Sited)
	if !ok {
		return b
	}
	root, env := s.Site()
	if root == "" {
		return b
	}
	show := func(abs string) string { return showIn(root, env, abs) }
	user, project := codexLayersIn(env, root, show)
	b.Fix = user.show
	if n, ok := user.Doc["project_doc_max_bytes"].(int64); ok {
		b.Limit, b.Source = n, "set in "+user.show
	}
	if n, ok := project.Doc["project_doc_max_bytes"].(int64); ok {
		if trusted, state := codexTrustsProject(f, user, root); trusted {
			b.Limit, b.Source = n, "set in "+project.show
		} else {
			b.Ignored = fmt.Sprintf("project_doc_max_bytes = %d in %s counts only once Codex trusts the project, and %s", n, project.show, state)
		}
	}
	return b
}

// codexFallbacks is Reads.Named: the files project_doc_fallback_filenames
// names (the project's config where Codex trusts the project, else the
// user's), which Codex reads in a folder that has neither
// AGENTS.override.md nor AGENTS.md.
func codexFallbacks(f Files, _ string) ([]string, string) {
	type named struct {
		names  []string
		source string
	}
	n := memoized(f, codexMemoKey(f, "codex.fallbacks"), func() named {
		names, source := codexFallbacksNow(f)
		return named{names, source}
	})
	return n.names, n.source
}

func codexFallbacksNow(f Files) ([]string, string) {
	s, ok := f.(Sited)
	if !ok {
		return nil, ""
	}
	root, env := s.Site()
	if root == "" {
		return nil, ""
	}
	show := func(abs string) string { return showIn(root, env, abs) }
	user, project := codexLayersIn(env, root, show)
	layers := []*codexLayer{user}
	if trusted, _ := codexTrustsProject(f, user, root); trusted {
		layers = append(layers, project)
	}
	var names []string
	source := ""
	for _, l := range layers {
		if list, ok := l.Doc["project_doc_fallback_filenames"].([]any); ok {
			names, source = nil, "project_doc_fallback_filenames in "+l.show
			for _, x := range list {
				if n, ok := x.(string); ok && n != "" {
					names = append(names, n)
				}
			}
		}
	}
	return names, source
}

// codexProjectTrust reports whether the user config trusts the project
// (its main checkout, in a linked worktree), and otherwise says how it
// stands ("~/.codex/config.toml has no [projects.\"/repo\"] entry").
func codexProjectTrust(user *codexLayer, root string) (bool, string) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	roots := []string{root}
	if _, main := CodexHooksFor(root); main != "" {
		roots = append(roots, main)
	}
	for _, r := range roots {
		if l, ok := tomlTable(user.Doc, "projects", r)["trust_level"].(string); ok {
			if l == "trusted" {
				return true, ""
			}
			return false, fmt.Sprintf("%s sets trust_level = %q for %s", user.show, l, r)
		}
	}
	return false, fmt.Sprintf("%s has no [projects.%s] entry", user.show, codexpkg.TOMLKey(roots[len(roots)-1]))
}

// codexName is Codex's --agents name.
const codexName = "codex"

var codex = &Agent{
	Name:     codexName,
	Title:    "Codex CLI",
	Default:  Reinject,
	Fallback: true,
	Modes: []ModeSpec{
		{Mode: Reinject, Words: "re-inject: a hook puts the work in progress back right after every compaction",
			Artifacts: []Artifact{codexHook, codexWrapper, OnDemandBlock, codexTeach, KanbusAgentsBlock}},
		{Mode: OnDemand, Words: "on demand: AGENTS.md (or AGENTS.override.md, where it hides AGENTS.md) teaches the agent to run kbs now; no hook",
			Artifacts: []Artifact{OnDemandBlock, codexTeach, KanbusAgentsBlock}},
	},
	Refused: map[Mode]string{
		Nudge: "nudge is Cursor's pre-compaction message to the user; Codex re-injects the reminder itself (use reinject or ondemand)",
	},
	Reinject: "yes: SessionStart hook with source compact; its stdout becomes a developer message",
	Markers:  []string{".codex"},
	Binaries: []string{CodexBinary},
	Reads:    codexReads,
	Hooks: HookFormat{
		Files:      []string{".codex/hooks.json", "${CODEX_HOME:-~/.codex}/hooks.json"},
		Layout:     LayoutGrouped,
		Strict:     true,
		Shell:      "/bin/bash",
		JSONOutput: true,
		WrongEvents: map[string]string{
			"PreCompact":  "Codex's PreCompact hooks cannot inject context; use SessionStart with matcher compact",
			"PostCompact": "Codex's PostCompact hooks cannot inject context; use SessionStart with matcher compact",
		},
	},
	Doctor: Doctor{
		Quirks:     []Check{codexConfigCheck, codexFeaturesCheck, codexLayersCheck, codexTrustCheck},
		Transcript: codexRollout,
		Proved:     true,
	},
	Checkpoint: codexCheckpoint,
	Scope:      codexScope,
	Trust: &Trust{
		Hook:      codexHook,
		Hint:      "Codex skips untrusted hooks without a word; to trust ours, run: nowhook setup --yes --agents codex --trust-codex",
		Available: findCodex,
		Record:    recordCodexTrust,
		Keys:      codexTrustKeys,
		Forget:    forgetCodexTrust,
		Preflight: checkCodexConfig,
	},
}

// codexRollout is a Codex rollout for the checkpoint's live runs
// (docs/platforms.md, "Checkpoint: reading the context use"): the
// session, a task_started with the model_context_window (95000: what
// Codex 0.171.0 reports for a configured 100000), the function call and
// the token_usage_record of its reply. Codex's payloads add turn_id and
// model.
var codexRollout = &Transcript{
	About:  "a synthetic Codex rollout with model_context_window 95000",
	Window: 95_000,
	ToolID: "call_nowhook_doctor",
	Write: func(used int64) []byte {
		return fmt.Appendf(nil, `{"timestamp":"2026-11-30T00:00:00.000Z","type":"session_meta","payload":{"id":"nowhook-doctor","cwd":"/","originator":"nowhook_doctor","cli_version":"0.171.0"}}
{"timestamp":"2026-11-30T00:00:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"nowhook-doctor","model_context_window":95000}}
{"timestamp":"2026-11-30T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"true\"}","call_id":"call_nowhook_doctor"}}
{"timestamp":"2026-11-30T00:00:01.000Z","type":"token_usage_record","payload":{"thread_id":"nowhook-doctor","turn_id":"nowhook-doctor","response_id":"nowhook-doctor","usage":{"input_tokens":%d,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":%d}}}
`, used-5, used)
	},
	Payload: func(pl map[string]any) {
		pl["turn_id"], pl["model"] = "nowhook-doctor", "gpt-5-codex"
	},
}

// codexScope (measured on 0.171.0): started in a sub-folder, Codex loads the
// project's .codex/ layer and runs our hook, whose command walks up to the
// wrapper; a user-level hook would add nothing.
var codexScope = Scope{
	SubFolders: true,
	Loads:      "from the directory it starts in and the folders above it",
	Refused:    "Codex CLI already runs the project's hook in sessions started in a sub-folder (it loads .codex/ from the folders above the session's directory, and our command walks up to the wrapper)",
	// Codex CLI 0.171.0 lists the hooks of /etc/codex/hooks.json as
	// managed and runs them in codex exec with no trust recorded
	// (TestCodexManagedReminder); it has no drop-in folder, so the file
	// is merged into losslessly, with the project file's schema.
	Managed: &ManagedScope{
		Folder:   "/etc/codex",
		Settings: codexManagedHooks,
		Script:   "codex.sh",
	},
	ManagedOnly: codexManagedOnly,
}

// codexManagedOnly: Codex CLI 0.171.0 with allow_managed_hooks_only = true
// at the top of /etc/codex/requirements.toml drops the user's and the
// project's hooks, trusted or not, and keeps the managed files' hooks; in
// config.toml the key does nothing (TestCodexManagedHooksOnly). A
// requirements.toml it cannot parse stops Codex before its first request.
var codexManagedOnly = &ManagedOnly{
	Files:   []string{"/etc/codex/requirements.toml"},
	Key:     "allow_managed_hooks_only",
	TOML:    true,
	Broken:  "Codex stops before its first request, so every Codex CLI session on this machine fails, measured on Codex CLI 0.171.0",
	Ignored: "in config.toml it does nothing",
	Known:   "measured on Codex CLI 0.171.0",
}

// codexManagedHooks is /etc/codex/hooks.json, in the project file's schema.
var codexManagedHooks = func() generate.HookFile {
	f := CodexHooks
	f.Path = "hooks.json"
	return f
}()

// codexDefaultDocMax is Codex's default project_doc_max_bytes.
const codexDefaultDocMax = 32 << 10

// hasBlock reports whether md holds the managed block name, in any state.
func hasBlock(md []byte, name string) bool {
	_, found, err := generate.FindBlock(md, name)
	return found || err != nil
}
