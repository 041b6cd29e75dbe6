package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/scripts"
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
// them, cut off at project_doc_max_bytes.
var codexReads = Reads{
	Client: "Codex CLI 0.171.0",
	Where:  "each folder from the git root down to the session's, one file per folder",
	Files: []Instruction{
		{File: CodexOverrideFile, Known: "vendor docs (the override is read first)"},
		{File: "AGENTS.md", HiddenBy: []string{CodexOverrideFile}, Limit: "project_doc_max_bytes (32 KiB unless set) cuts it off",
			Known: "measured: in the first request's user instructions; vendor docs: skipped in a folder with AGENTS.override.md"},
	},
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
		Quirks:     []Check{codexConfigCheck, codexFeaturesCheck, codexLayersCheck, codexTrustCheck, codexDocCapCheck},
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
}

// Trust is a step outside the repository that makes an agent run our hook
// at all: Codex's hook trust, recorded in the user's Codex config.
type Trust struct {
	// Hook is the artifact whose entries need trust.
	Hook *HookEntry
	// Hint is printed when the hook was written without the step.
	Hint string
	// Available reports whether the step can run here.
	Available func() error
	// Record records the trust of our hook (and the project) and says what
	// it did.
	Record func(ctx context.Context, root string) (TrustRecorded, error)
	// Keys lists the trust keys of our entries under event in the hook
	// file content cur (positions: compute them before an entry is removed).
	Keys func(root string, cur []byte, event string) []string
	// Forget removes the trust recorded for keys, and the project's trust
	// if Record recorded it (project, from nowhook's record; "" for none)
	// and nothing else of the user's needs it, or says how to, or why it
	// keeps it. forgotten reports that the project's trust is gone.
	Forget func(ctx context.Context, root string, keys []string, project string) (msg string, forgotten bool, err error)
	// Preflight refuses a setup that the agent's other config makes
	// unsafe, before anything is written.
	Preflight func(root string) error
}

// trustTimeout bounds the whole conversation with codex app-server; a real
// run takes one to two seconds.
const trustTimeout = 30 * time.Second

func findCodex() error {
	if _, err := codexpkg.Find(nil, CodexBinary); err != nil {
		return fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	return nil
}

// TrustRecorded is what Record did: its words, and the project whose
// trust it recorded ("" when the project was trusted already), which
// nowhook's record keeps so that remove can forget it again.
type TrustRecorded struct {
	Message, Project string
}

// recordCodexTrust records, through Codex's own app-server, the trust of
// exactly our hook and of the project.
func recordCodexTrust(ctx context.Context, root string) (TrustRecorded, error) {
	msg, project, err := recordCodexTrustAt(ctx, root)
	return TrustRecorded{Message: msg, Project: project}, err
}

func recordCodexTrustAt(ctx context.Context, root string) (msg, trusted string, err error) {
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		return "", "", fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", "", err
	}
	hooksFile, main := CodexHooksFor(canonical)
	project, about := canonical, ""
	if main != "" {
		b, _ := diag.ReadBounded(hooksFile)
		if !codexHook.Present(b) {
			return "", "", fmt.Errorf("%s is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, which has no hook of nowhook's: Codex runs none in this worktree, whatever its own .codex/hooks.json holds. Bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents codex --trust-codex --dir %s", canonical, main, hooksFile, main)
		}
		project, about = main, "; Codex takes this worktree's project hooks and trust from its main checkout, "+main
	}
	ctx, cancel := context.WithTimeout(ctx, trustTimeout)
	defer cancel()
	res, err := codexpkg.Trust(ctx, codexpkg.Options{Codex: bin, Dir: canonical, ClientVersion: "nowhook"}, codexpkg.TrustRequest{
		Root:        canonical,
		Project:     true,
		ProjectRoot: project,
		Select: func(h codexpkg.Hook) bool {
			return h.SourcePath == hooksFile && codexOurs(h.Command)
		},
	})
	if err != nil {
		return "", "", err
	}
	var done []string
	if res.ProjectTrusted {
		done = append(done, "the project "+project)
		trusted = project
	}
	if len(res.Recorded) > 0 {
		done = append(done, "hook "+strings.Join(res.Recorded, ", "))
	}
	where := res.ConfigFile
	if where == "" && res.After != nil {
		where = res.After.UserConfig
	}
	if where == "" {
		where = "your Codex config"
	}
	if len(done) == 0 {
		return "codex: our hook and the project were already trusted in " + where + about, "", nil
	}
	return "codex: trusted " + strings.Join(done, " and ") + " in " + where + about, trusted, nil
}

// CodexHooksFor returns the project hooks.json that Codex loads for
// sessions in root, as Codex names it (links resolved): in a linked git
// worktree the main checkout's, never the worktree's own, and main is
// then that checkout; elsewhere root's, and main is "". (Measured on
// 0.171.0: docs/platforms.md, "Codex CLI: git worktrees".)
func CodexHooksFor(root string) (file, main string) {
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		canonical = root
	}
	if top, m, _, ok := detect.Worktree(canonical); ok && top == canonical {
		return filepath.Join(m, filepath.FromSlash(CodexHooks.Path)), m
	}
	return filepath.Join(canonical, filepath.FromSlash(CodexHooks.Path)), ""
}

// codexTrustKeys lists the hooks.state keys of our handlers under event
// in hooks.json. In a git worktree there are none to forget: Codex trusts
// the main checkout's entries, which a change to the worktree's file does
// not touch.
func codexTrustKeys(root string, cur []byte, event string) []string {
	p, err := CodexHooks.ParseHookFile(cur)
	if err != nil || p.Doc == nil {
		return nil
	}
	hooksFile, main := CodexHooksFor(root)
	if main != "" {
		return nil
	}
	doc, _ := p.Doc.(map[string]any)
	events, _ := doc["hooks"].(map[string]any)
	groups, _ := events[event].([]any)
	var keys []string
	for gi, g := range groups {
		group, _ := g.(map[string]any)
		handlers, _ := group["hooks"].([]any)
		for hi, h := range handlers {
			handler, _ := h.(map[string]any)
			if cmd, _ := handler["command"].(string); codexOurs(cmd) {
				keys = append(keys, codexpkg.HookKey(hooksFile, event, gi, hi))
			}
		}
	}
	return keys
}

// forgetCodexTrust removes our hooks' trust through codex app-server when
// codex is found, otherwise says which lines to delete by hand. The
// project's trust goes too when nowhook recorded it (project) and nothing
// else of the user's needs it (codexpkg.ProjectNeeds); a trust the user
// gave stays.
func forgetCodexTrust(ctx context.Context, root string, keys []string, project string) (string, bool, error) {
	config, recorded, projectTrusted := recordedTrust(root, keys, project)
	gone := !projectTrusted // nothing to forget of the project, and nothing to keep
	if gone {
		project = ""
	}
	if len(recorded) == 0 && project == "" {
		return "", gone, nil
	}
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		if !errors.Is(err, codexpkg.ErrCodexNotFound) {
			return "", false, err
		}
		lines := codexpkg.ForgetLines(recorded)
		why := ""
		if project != "" {
			if why = codexpkg.ProjectNeeds(project, nil); why == "" {
				lines += codexpkg.ForgetProjectLines(project)
			}
		}
		msg := "codex is not on PATH, so nowhook cannot forget the trust it recorded; delete these lines from " + config + ":\n" + lines
		if why != "" {
			msg += "\n" + keptProject(project, why)
		}
		return msg, false, nil
	}
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, trustTimeout)
	defer cancel()
	res, err := codexpkg.Forget(ctx, codexpkg.Options{Codex: bin, Dir: canonical, ClientVersion: "nowhook"}, codexpkg.ForgetRequest{Root: canonical, Keys: recorded, Project: project})
	if err != nil {
		return "", false, err
	}
	var done []string
	if len(res.Removed) > 0 {
		done = append(done, "hook "+strings.Join(res.Removed, ", "))
	}
	if res.ProjectForgotten {
		done = append(done, "the project "+project+" (nowhook setup --trust-codex had recorded it)")
	}
	var msg []string
	if len(done) > 0 {
		tail := ""
		if project == "" && res.ProjectTrusted {
			tail = " (the project's own trust stays: nowhook did not record it)"
		}
		msg = append(msg, "codex: forgot the trust of "+strings.Join(done, " and ")+tail)
	}
	if res.ProjectKept != "" {
		msg = append(msg, keptProject(project, res.ProjectKept))
	}
	return strings.Join(msg, "\n"), gone || res.ProjectForgotten, nil
}

// keptProject says why the project trust nowhook recorded stays.
func keptProject(project, why string) string {
	return "codex: kept the trust of the project " + project + " that nowhook setup --trust-codex recorded, because " + why + "; to drop it anyway, delete [projects." + codexpkg.TOMLKey(project) + "] from your Codex config.toml"
}

const codexDrops = "Codex drops this whole hooks.json with only a warning, so none of its hooks run"

// checkCodexHooks finds what makes Codex drop a whole hooks.json: an
// unknown top-level key, a command that is not a string, a timeout that is
// not a number, a handler without type or command.
func checkCodexHooks(doc any) *generate.FileError {
	path := codexHooksPath
	root, ok := doc.(map[string]any)
	if !ok {
		return &generate.FileError{Path: path, Problem: "the top level is not an object", Consequence: codexDrops, Fix: `make it {"hooks": {...}}`}
	}
	var keys []string
	for k := range root {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "hooks" && k != "description" {
			return &generate.FileError{Path: path, Problem: fmt.Sprintf("has the top-level key %q, which Codex does not accept (only \"hooks\" and \"description\")", k),
				Consequence: codexDrops, Fix: fmt.Sprintf("remove %q from %s, then run nowhook setup again", k, path)}
		}
	}
	events, _ := root["hooks"].(map[string]any)
	var names []string
	for name := range events {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		groups, _ := events[name].([]any)
		for gi, g := range groups {
			group, _ := g.(map[string]any)
			handlers, _ := group["hooks"].([]any)
			for hi, h := range handlers {
				handler, _ := h.(map[string]any)
				at := fmt.Sprintf("hooks.%s[%d].hooks[%d]", name, gi, hi)
				if handler == nil {
					return codexHandlerError(at, "is not an object", "make it {\"type\": \"command\", \"command\": \"...\"}")
				}
				if _, ok := handler["type"]; !ok {
					return codexHandlerError(at, "has no \"type\"", `add "type": "command"`)
				}
				switch handler["command"].(type) {
				case string:
				case nil:
					return codexHandlerError(at, "has no \"command\"", "add the command as a string")
				case []any:
					return codexHandlerError(at+".command", "is an array, but Codex takes a command string", "join the command into one string")
				default:
					return codexHandlerError(at+".command", "is not a string", "make the command a string")
				}
				if t, ok := handler["timeout"]; ok {
					if _, isNum := t.(json.Number); !isNum {
						if _, isFloat := t.(float64); !isFloat {
							return codexHandlerError(at+".timeout", "is not a number of seconds", "write the timeout as a number, e.g. 10")
						}
					}
				}
			}
		}
	}
	return nil
}

func codexHandlerError(at, problem, fix string) *generate.FileError {
	return &generate.FileError{Path: codexHooksPath, Problem: at + " " + problem, Consequence: codexDrops, Fix: fix + " in " + codexHooksPath + ", then run nowhook setup again"}
}

// checkCodexConfig stops the Codex setup when the project's config.toml
// already defines hooks inline: Codex would load both that and a
// hooks.json and warn. The TOML is only read, never rewritten.
func checkCodexConfig(root string) error {
	project := codexpkg.ReadConfig(nil, root).Project
	var te *codexpkg.TOMLError
	switch {
	case errors.As(project.Err, &te) && te.Line > 0:
		return fmt.Errorf("%s; Codex refuses to start with it. Fix it, then run nowhook setup again", project.Problem(".codex/config.toml"))
	case te != nil:
		return fmt.Errorf("%s; fix it, then run nowhook setup again", project.Problem(".codex/config.toml"))
	case project.Err != nil:
		return nil // unreadable here; doctor's codex.config row says why
	}
	if _, ok := project.Table("hooks"); !ok {
		return errors.New(".codex/config.toml: hooks is not a table; Codex refuses to start with it. Fix it, then run nowhook setup again")
	}
	if inline := project.InlineHooks(); len(inline) > 0 {
		return fmt.Errorf(".codex/config.toml: already defines hooks inline ([hooks.%s]); a .codex/hooks.json beside it would make Codex load both and warn. Move those hooks into .codex/hooks.json (or configure Codex with --agents codex=ondemand), then run nowhook setup again", inline[0])
	}
	return nil
}

// recordedTrust returns the user's Codex config, which of keys it records
// trust for, and whether it trusts the project ("" for none asked).
func recordedTrust(root string, keys []string, project string) (string, []string, bool) {
	user := codexpkg.ReadConfig(nil, root).User
	var broken *codexpkg.TOMLError
	if !user.Exists || user.Err != nil && !errors.As(user.Err, &broken) {
		return user.Path, nil, false // absent, or not readable at all
	}
	state, ok := user.Table("hooks", "state")
	if broken != nil || !ok {
		return user.Path, keys, project != "" // unreadable here: say what to look for
	}
	var recorded []string
	for _, k := range keys {
		if _, ok := state[k]; ok {
			recorded = append(recorded, k)
		}
	}
	trusted := false
	if project != "" {
		if p, _ := user.Table("projects", project); p["trust_level"] == "trusted" {
			trusted = true
		}
	}
	return user.Path, recorded, trusted
}

// Doctor's checks of Codex CLI alone (docs/platforms.md#codex-cli): its
// config.toml layers, the [features] flag, hook trust, and the AGENTS.md
// size cap.

// codexLayer is a config.toml layer as doctor shows it.
type codexLayer struct {
	*codexpkg.ConfigFile
	show string
	err  string // why Codex cannot read it, with line:column
}

// codexLayers are the user and project config.toml.
func codexLayers(v View) (user, project *codexLayer) {
	return codexLayersIn(v.Env(), v.Root(), v.Show)
}

// codexLayersIn are the user and project config.toml of env and root,
// each path shown by show.
func codexLayersIn(env []string, root string, show func(abs string) string) (user, project *codexLayer) {
	c := codexpkg.ReadConfig(env, root)
	layer := func(f *codexpkg.ConfigFile) *codexLayer {
		shown := show(f.Path)
		return &codexLayer{ConfigFile: f, show: shown, err: f.Problem(shown)}
	}
	return layer(c.User), layer(c.Project)
}

func tomlTable(doc map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := doc[k].(map[string]any)
		if next == nil {
			return nil
		}
		doc = next
	}
	return doc
}

// codexConfigCheck: the config.toml files Codex reads parse; Codex refuses
// to start with a broken one.
var codexConfigCheck = Check{Name: "config", Run: func(v View) []diag.Finding {
	var out []diag.Finding
	user, project := codexLayers(v)
	for _, t := range []*codexLayer{user, project} {
		if !t.Exists {
			continue
		}
		f := diag.Finding{Path: t.show}
		if t.err != "" {
			f.Severity = diag.Error
			f.Message = t.err + "; Codex refuses to start with it"
			f.Fix = "correct the TOML by hand (codex exec --strict-config names every problem)"
		} else {
			f.Message = t.show + " parses as TOML"
		}
		out = append(out, f)
	}
	if project.Doc != nil && tomlTable(project.Doc, "hooks", "state") != nil {
		out = append(out, diag.Finding{Severity: diag.Warn, Path: project.show,
			Message: project.show + " has [hooks.state] trust entries, which Codex ignores there: trust counts only in " + user.show,
			Fix:     v.SetupFix(v.Agent().Name, "--trust-codex")})
	}
	return out
}}

// codexFeaturesCheck: [features] hooks = false (or the older codex_hooks)
// turns every hook off; the project layer overrides the user layer.
var codexFeaturesCheck = Check{Name: "features", Run: func(v View) []diag.Finding {
	user, project := codexLayers(v)
	var out []diag.Finding
	var effective *codexLayer
	var effectiveKey string
	for _, t := range []*codexLayer{user, project} {
		features := tomlTable(t.Doc, "features")
		for _, key := range []string{"codex_hooks", "hooks"} {
			if on, ok := features[key].(bool); ok {
				if !on {
					effective, effectiveKey = t, key
				} else {
					effective, effectiveKey = nil, ""
				}
			}
		}
	}
	if effective != nil {
		out = append(out, diag.Finding{Severity: diag.Error, Path: effective.show,
			Message: fmt.Sprintf("%s sets [features] %s = false, so Codex runs no hooks at all, the compact hook included", effective.show, effectiveKey),
			Fix:     fmt.Sprintf("delete `%s = false` from [features] in %s", effectiveKey, effective.show)})
	}
	return out
}}

// codexLayersCheck: a layer with both hooks.json and inline [hooks]
// tables makes Codex load both and warn.
var codexLayersCheck = Check{Name: "layers", Run: func(v View) []diag.Finding {
	user, project := codexLayers(v)
	var out []diag.Finding
	for _, t := range []*codexLayer{user, project} {
		inline := t.InlineHooks()
		hooksJSON := filepath.Join(filepath.Dir(t.Path), "hooks.json")
		if _, err := os.Lstat(hooksJSON); len(inline) == 0 || err != nil {
			continue
		}
		out = append(out, diag.Finding{Severity: diag.Warn, Path: t.show,
			Message: fmt.Sprintf("%s and inline [hooks.%s] in %s are in one layer: Codex loads both and warns at every start", v.Show(hooksJSON), strings.Join(inline, "], [hooks."), t.show),
			Fix:     fmt.Sprintf("move the [hooks.%s] tables from %s into %s", strings.Join(inline, "], [hooks."), t.show, v.Show(hooksJSON))})
	}
	return out
}}

// codexTrustCheck: Codex runs a project hook only when the user's
// config.toml trusts the project and holds the hook's current hash.
// Codex's own answer (app-server hooks/list) is used when codex is on
// PATH; otherwise nowhook computes the hash and reads the config itself.
// It reports the trust of every hook entry of ours: the compact hook's
// and the checkpoint's (each entry is trusted on its own). In a linked git
// worktree Codex loads the project hooks from the main checkout's
// .codex/hooks.json, so those entries are the ones judged.
var codexTrustCheck = Check{Name: "trust",
	Run: func(v View) []diag.Finding {
		return codexTrust(v, nil, "doctor's file checks start no program")
	},
	Start: startCodexTrust,
}

// startCodexTrust asks codex app-server for the hooks' trust, in the
// background, under doctor --live, when our hook is installed and codex
// has been run here before (it writes its state under CODEX_HOME).
// Without --live doctor computes the trust from the user config, as Codex
// does (measured on the pinned client; the client row says whether this
// codex is that one). Without codex on PATH nothing on this machine runs
// the hook: the rows are info, with the command that installs Codex and
// trusts the hook.
func startCodexTrust(ctx context.Context, v View) func() []diag.Finding {
	if len(codexOurHandlers(v.Agent(), v.HookFiles(), false)) == 0 {
		return func() []diag.Finding { return codexTrust(v, nil, "") }
	}
	codexHome := codexpkg.Home(v.Env())
	bin, err := codexpkg.Find(v.Env(), CodexBinary)
	if err != nil {
		return func() []diag.Finding { return codexNotInstalled(codexTrust(v, nil, CodexBinary+" is not on PATH")) }
	}
	if !v.Live() {
		return func() []diag.Finding { return codexTrust(v, nil, "nowhook doctor --live asks codex app-server") }
	}
	if _, err := os.Lstat(codexHome); err != nil {
		return func() []diag.Finding {
			return codexTrust(v, nil, "codex has not been run here ("+codexHome+" does not exist)")
		}
	}
	var res codexListing
	wait := v.Go(func() { res = listCodex(ctx, v, bin) })
	return func() []diag.Finding {
		wait()
		return codexTrust(v, &res, "")
	}
}

// codexNotInstalled makes the trust rows of a machine without codex
// info: no Codex here skips the hook, and each user with Codex trusts it
// on their own machine; the fix installs the pinned Codex first.
func codexNotInstalled(fs []diag.Finding) []diag.Finding {
	install := "npm install -g @openai/codex"
	if pins := scripts.Proven(codexName); len(pins) > 0 {
		install = pins[len(pins)-1].Install()
	}
	for i := range fs {
		if fs[i].Severity == diag.Warn && strings.HasPrefix(fs[i].Fix, "nowhook setup") {
			fs[i].Severity = diag.Info
			fs[i].Message += "; Codex CLI is not installed here, so nothing on this machine skips it yet"
			fs[i].Fix = install + " && " + fs[i].Fix
		}
	}
	return fs
}

// codexTrust reports the trust of our entries: from codex app-server's
// listing when there is one, else computed, skipped saying why codex was
// not asked.
func codexTrust(v View, listing *codexListing, skipped string) []diag.Finding {
	ours := codexOurHandlers(v.Agent(), v.HookFiles(), true)
	if len(ours) == 0 {
		return nil
	}
	fix := v.SetupFix(v.Agent().ArgFor(v.Mode()), "--trust-codex")
	var out []diag.Finding
	if file, main := CodexHooksFor(v.Root()); main != "" {
		var wt diag.Finding
		ours, wt = codexWorktreeHooks(v, ours, file, main)
		out = append(out, wt)
		if wt.Severity == diag.Error {
			return out
		}
	}
	switch {
	case listing != nil && listing.err == nil:
		return append(out, codexTrustFromListing(v, ours, *listing, fix)...)
	case listing != nil:
		return append(out, codexTrustComputed(v, ours, fmt.Sprintf("computed by nowhook: codex app-server failed: %v", listing.err), fix)...)
	}
	return append(out, codexTrustComputed(v, ours, "computed by nowhook from the user config; "+skipped, fix)...)
}

// codexOurHandlers lists our handlers in files (the compact hook's and the
// checkpoint's), each under its entry's event and running its script;
// keyed: only those Codex can key, wrapped in a matcher group.
func codexOurHandlers(a *Agent, files []*diag.HookFile, keyed bool) []diag.Handler {
	var entries []*HookEntry
	for _, mh := range a.HookEntries() {
		entries = append(entries, mh.Hook)
	}
	for _, art := range a.Checkpoint {
		if h, ok := art.(*HookEntry); ok {
			entries = append(entries, h)
		}
	}
	var ours []diag.Handler
	for _, e := range entries {
		runs := generate.RunsScript(e.Script)
		for _, f := range files {
			for _, h := range f.Handlers {
				if h.Event == e.File.Event && runs(h.Command) && (!keyed || h.Wrapped && h.Index >= 0) {
					ours = append(ours, h)
				}
			}
		}
	}
	return ours
}

// codexWorktreeHooks takes, in a linked worktree of main, our handlers
// from main's hooks.json (file) in place of the worktree's own, which
// Codex does not load; the user-level ones stay. The finding says so, and
// is an error when main's file has no hook of ours: Codex then runs none
// in the worktree's sessions.
func codexWorktreeHooks(v View, ours []diag.Handler, file, main string) ([]diag.Handler, diag.Finding) {
	a := v.Agent()
	var kept []diag.Handler
	for _, h := range ours {
		if h.File.User {
			kept = append(kept, h)
		}
	}
	shown := v.Show(file)
	var fromMain []diag.Handler
	if mf := diag.ReadHookFile(file, shown, false, diag.Format{Title: a.Title, Strict: a.Hooks.Strict, Layout: a.Hooks.Layout}); mf != nil {
		fromMain = codexOurHandlers(a, []*diag.HookFile{mf}, true)
	}
	if len(fromMain) == 0 {
		return nil, diag.Finding{Severity: diag.Error, Path: shown,
			Message: fmt.Sprintf("this is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, not from .codex/hooks.json here; that file has no hook of nowhook's, so Codex runs none in sessions started in this worktree", main, shown),
			Fix:     "bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents " + a.Name + " --dir " + diag.ShellQuote(main)}
	}
	return append(fromMain, kept...), diag.Finding{Path: shown,
		Message: fmt.Sprintf("this is a git worktree of %s: Codex loads its project hooks from the main checkout's %s, which has nowhook's hook, and takes its project trust from there too; the trust below is that of the main checkout's entries", main, shown)}
}

// codexListing is what codex app-server said.
type codexListing struct {
	listing   *codexpkg.Listing
	userAgent string
	err       error
}

func listCodex(ctx context.Context, v View, bin string) codexListing {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, err := codexpkg.CanonicalRoot(v.Root())
	if err != nil {
		return codexListing{err: err}
	}
	c, err := codexpkg.Start(ctx, codexpkg.Options{Codex: bin, Env: v.Env(), Dir: root, ClientVersion: "doctor"})
	if err != nil {
		return codexListing{err: err}
	}
	defer c.Close()
	l, err := c.List(ctx, root)
	return codexListing{listing: l, userAgent: c.UserAgent, err: err}
}

// codexHookKey is a handler's [hooks.state] key, with the file as Codex
// sees it.
func codexHookKey(h diag.Handler) string {
	abs := h.File.Abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return codexpkg.HookKey(abs, h.Event, h.Group, h.Index)
}

func codexTrustComputed(v View, ours []diag.Handler, source, fix string) []diag.Finding {
	user, _ := codexLayers(v)
	if user.err != "" {
		return []diag.Finding{{Severity: diag.Warn, Path: user.show,
			Message: "cannot tell whether Codex trusts the hook: " + user.err + " (" + source + ")", Fix: "correct " + user.show}}
	}
	var out []diag.Finding
	root := v.Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	needsProject := false
	for _, h := range ours {
		if !h.File.User {
			needsProject = true
		}
	}
	if needsProject {
		// In a linked worktree Codex reads the worktree's own entry
		// first, then the main checkout's (measured, 0.171.0).
		roots := []string{root}
		if _, main := CodexHooksFor(v.Root()); main != "" {
			roots = append(roots, main)
		}
		level, at := "", roots[len(roots)-1]
		for _, r := range roots {
			if l, ok := tomlTable(user.Doc, "projects", r)["trust_level"].(string); ok {
				level, at = l, r
				break
			}
		}
		if level != "trusted" {
			state := "has no [projects." + codexpkg.TOMLKey(at) + "] entry"
			if at != root {
				state += " (the main checkout of this worktree, whose trust Codex applies to it)"
			}
			if level != "" {
				state = fmt.Sprintf("sets trust_level = %q for it", level)
				if at != root {
					state = fmt.Sprintf("sets trust_level = %q for %s, the main checkout of this worktree", level, at)
				}
			}
			out = append(out, diag.Finding{Severity: diag.Warn, Path: user.show,
				Message: fmt.Sprintf("Codex does not load .codex/ here: %s %s, so Codex skips every project hook without a word (%s)", user.show, state, source),
				Fix:     fix})
		}
	}
	states := tomlTable(user.Doc, "hooks", "state")
	for _, h := range ours {
		key := codexHookKey(h)
		hash, err := codexpkg.HookHash(h.Event, h.GroupJSON, h.Index)
		if err != nil {
			out = append(out, diag.Finding{Severity: diag.Error, Path: h.File.Show,
				Message: fmt.Sprintf("%s: Codex cannot load this hook: %v", h.Where(), err), Fix: v.SetupFix(v.Agent().Name)})
			continue
		}
		recorded, _ := tomlTable(states, key)["trusted_hash"].(string)
		f := diag.Finding{Path: h.File.Show, Severity: diag.Warn, Fix: fix}
		switch {
		case recorded == "":
			f.Message = fmt.Sprintf("%s is not trusted: %s has no [hooks.state.%s], so Codex skips the hook without a word (%s)", h.Where(), user.show, codexpkg.TOMLKey(key), source)
		case recorded != hash:
			f.Message = fmt.Sprintf("%s changed since it was trusted: %s holds %s, the hook's hash is now %s, so Codex skips it without a word (%s)", h.Where(), user.show, shortHash(recorded), shortHash(hash), source)
		default:
			f.Severity, f.Fix = diag.OK, ""
			f.Message = fmt.Sprintf("%s is trusted: %s holds its current hash %s (%s)", h.Where(), user.show, shortHash(hash), source)
		}
		out = append(out, f)
	}
	return out
}

func shortHash(hash string) string {
	if len(hash) > len("sha256:")+12 {
		return hash[:len("sha256:")+12] + "…"
	}
	return hash
}

func codexTrustFromListing(v View, ours []diag.Handler, res codexListing, fix string) []diag.Finding {
	l := res.listing
	source := "reported by codex app-server hooks/list"
	if m := codexVersionRE.FindStringSubmatch(res.userAgent); m != nil {
		source = "reported by codex " + m[1] + " app-server hooks/list"
	}
	var out []diag.Finding
	for _, w := range l.Warnings {
		out = append(out, diag.Finding{Severity: diag.Warn, Message: "codex warns: " + w})
	}
	for _, e := range l.Errors {
		out = append(out, diag.Finding{Severity: diag.Error, Path: v.Show(e.Path), Message: "codex reports an error in " + v.Show(e.Path) + ": " + e.Message})
	}
	if l.ConfigError != "" {
		out = append(out, diag.Finding{Severity: diag.Error, Message: "codex cannot read its configuration: " + l.ConfigError})
	}
	layer, hasLayer := l.ProjectLayer(filepath.Join(l.Root, ".codex"))
	projectSkipped := hasLayer && !layer.Trusted()
	if projectSkipped {
		out = append(out, diag.Finding{Severity: diag.Warn, Path: ".codex",
			Message: fmt.Sprintf("Codex does not load .codex/ here, so it skips every project hook without a word: %s (%s)", layer.DisabledReason, source),
			Fix:     fix})
	}
	for _, h := range ours {
		key := codexHookKey(h)
		f := diag.Finding{Path: h.File.Show, Severity: diag.Warn, Fix: fix}
		listed, ok := l.Hook(key)
		switch {
		case !ok && projectSkipped && !h.File.User:
			continue // said above
		case !ok:
			f.Message = fmt.Sprintf("%s: codex does not list this hook (key %s), so it never runs it (%s)", h.Where(), key, source)
			f.Fix = ""
			if len(l.Warnings) == 0 {
				f.Severity = diag.Error
			}
		case listed.TrustStatus == codexpkg.StatusTrusted || listed.TrustStatus == codexpkg.StatusManaged:
			f.Severity, f.Fix = diag.OK, ""
			f.Message = fmt.Sprintf("%s is %s (%s)", h.Where(), listed.TrustStatus, source)
		case listed.TrustStatus == codexpkg.StatusModified:
			f.Message = fmt.Sprintf("%s changed since it was trusted, so Codex skips it without a word (%s)", h.Where(), source)
		default:
			f.Message = fmt.Sprintf("%s is %s: Codex skips it without a word (%s)", h.Where(), listed.TrustStatus, source)
		}
		out = append(out, f)
	}
	return out
}

var codexVersionRE = regexp.MustCompile(`/(\d+\.\d+\.\d+\S*) `)

// codexDefaultDocMax is Codex's default project_doc_max_bytes.
const codexDefaultDocMax = 32 << 10

// codexDocCapCheck: Codex reads AGENTS.md only up to project_doc_max_bytes;
// a block beyond the cap is never seen. Doctor judges the file as it is,
// setup the file as it would write it (Check.Files), by one function, so
// that the two never disagree: where doctor would call the block lost,
// setup refuses before writing anything, since appending the block at the
// end is where the merge rules put it, and moving it up into the first
// project_doc_max_bytes would push as many bytes of the user's own text
// out of what Codex reads.
var codexDocCapCheck = Check{Name: "agents-md-cap",
	Run: func(v View) []diag.Finding {
		read := func(rel string) ([]byte, bool) {
			b, err := diag.ReadBounded(filepath.Join(v.Root(), filepath.FromSlash(rel)))
			return b, err == nil
		}
		return codexDocCap(Judged{Root: v.Root(), Env: v.Env(), Read: read, Before: read, Show: v.Show})
	},
	Files: codexDocCap,
}

// hasBlock reports whether md holds the managed block name, in any state.
func hasBlock(md []byte, name string) bool {
	_, found, err := generate.FindBlock(md, name)
	return found || err != nil
}

// codexDocCap judges where AGENTS.md's kbs-now block lies against the
// effective project_doc_max_bytes (the project layer's, else the user
// layer's, else Codex's default): beyond it, an error; cut by it, a
// warning; within it, ok. A block that j.Before does not hold yet (setup
// is about to append it) cannot be moved by hand, so the fix says what
// can be done instead.
func codexDocCap(j Judged) []diag.Finding {
	b, ok := j.Read(OnDemandBlock.File)
	if !ok {
		return nil
	}
	span, found, err := generate.FindBlock(b, OnDemandBlock.Block.Name)
	if !found || err != nil {
		return nil
	}
	user, project := codexLayersIn(j.Env, j.Root, j.Show)
	limit, source := int64(codexDefaultDocMax), "Codex's default"
	for _, t := range []*codexLayer{user, project} {
		if n, ok := t.Doc["project_doc_max_bytes"].(int64); ok {
			limit, source = n, "set in "+t.show
		}
	}
	fix := "move the nowhook kbs-now block (with its markers) nearer the top of AGENTS.md, or raise project_doc_max_bytes in " + user.show
	if before, _ := j.Before(OnDemandBlock.File); !hasBlock(before, OnDemandBlock.Block.Name) {
		fix = fmt.Sprintf("raise project_doc_max_bytes in %s to at least %d (project_doc_max_bytes = %d), or shorten AGENTS.md by at least %d bytes", user.show, span.End, span.End, int64(span.End)-limit)
	}
	f := diag.Finding{Path: "AGENTS.md"}
	switch {
	case int64(span.Start) >= limit:
		f.Severity = diag.Error
		f.Message = fmt.Sprintf("the kbs-now block starts at byte %d of AGENTS.md, beyond project_doc_max_bytes = %d (%s): Codex never sees it", span.Start, limit, source)
		f.Fix = fix
	case int64(span.End) > limit:
		f.Severity = diag.Warn
		f.Message = fmt.Sprintf("the kbs-now block ends at byte %d of AGENTS.md, beyond project_doc_max_bytes = %d (%s): Codex sees it cut", span.End, limit, source)
		f.Fix = fix
	default:
		f.Message = fmt.Sprintf("the kbs-now block (bytes %d-%d of AGENTS.md) is within project_doc_max_bytes = %d (%s)", span.Start, span.End, limit, source)
	}
	return []diag.Finding{f}
}
