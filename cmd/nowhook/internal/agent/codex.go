package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/detect"
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

var codex = &Agent{
	Name:     "codex",
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
	Checks:     []string{"mode", "reach", "hooks-file", "config", "hook", "script", "inject-event", "features", "layers", "trust", "agents-md-cap", "checkpoint"},
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
	Record func(ctx context.Context, root string) (string, error)
	// Keys lists the trust keys of our entries under event in the hook
	// file content cur (positions: compute them before an entry is removed).
	Keys func(root string, cur []byte, event string) []string
	// Forget removes the trust recorded for keys, or says how to.
	Forget func(ctx context.Context, root string, keys []string) (string, error)
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

// recordCodexTrust records, through Codex's own app-server, the trust of
// exactly our hook and of the project.
func recordCodexTrust(ctx context.Context, root string) (string, error) {
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		return "", fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", err
	}
	hooksFile, main := CodexHooksFor(canonical)
	project, about := canonical, ""
	if main != "" {
		b, _ := os.ReadFile(hooksFile)
		if !codexHook.Present(b) {
			return "", fmt.Errorf("%s is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, which has no hook of nowhook's: Codex runs none in this worktree, whatever its own .codex/hooks.json holds. Bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents codex --trust-codex --dir %s", canonical, main, hooksFile, main)
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
		return "", err
	}
	var done []string
	if res.ProjectTrusted {
		done = append(done, "the project "+project)
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
		return "codex: our hook and the project were already trusted in " + where + about, nil
	}
	return "codex: trusted " + strings.Join(done, " and ") + " in " + where + about, nil
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
// project's own trust stays: the user may rely on it for other hooks.
func forgetCodexTrust(ctx context.Context, root string, keys []string) (string, error) {
	if len(keys) == 0 {
		return "", nil
	}
	config, recorded := recordedTrust(root, keys)
	if len(recorded) == 0 {
		return "", nil // nothing to forget
	}
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		if errors.Is(err, codexpkg.ErrCodexNotFound) {
			return "codex is not on PATH, so nowhook cannot forget the trust of the hook it removed; delete these lines from " + config + ":\n" + codexpkg.ForgetLines(recorded), nil
		}
		return "", err
	}
	keys = recorded
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, trustTimeout)
	defer cancel()
	res, err := codexpkg.Forget(ctx, codexpkg.Options{Codex: bin, Dir: canonical, ClientVersion: "nowhook"}, codexpkg.ForgetRequest{Root: canonical, Keys: keys})
	if err != nil {
		return "", err
	}
	if len(res.Removed) == 0 {
		return "", nil
	}
	return "codex: forgot the trust of hook " + strings.Join(res.Removed, ", ") + " (the project's own trust stays)", nil
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

// recordedTrust returns the user's Codex config and which of keys it
// records trust for.
func recordedTrust(root string, keys []string) (string, []string) {
	user := codexpkg.ReadConfig(nil, root).User
	var broken *codexpkg.TOMLError
	if !user.Exists || user.Err != nil && !errors.As(user.Err, &broken) {
		return user.Path, nil // absent, or not readable at all
	}
	state, ok := user.Table("hooks", "state")
	if broken != nil || !ok {
		return user.Path, keys // unreadable here: say what to look for
	}
	var recorded []string
	for _, k := range keys {
		if _, ok := state[k]; ok {
			recorded = append(recorded, k)
		}
	}
	return user.Path, recorded
}
