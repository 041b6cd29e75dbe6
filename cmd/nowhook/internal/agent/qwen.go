package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Qwen Code (docs/platforms.md#qwen-code): a SessionStart hook with
// matcher compact in .qwen/settings.json, Claude Code's shape. Its plain
// stdout joins the system prompt of the next request after a manual
// /compress (Qwen awaits the hook there). After an automatic compression
// Qwen starts the hook without waiting for it, so the reminder arrives one
// request later: with the next tool result of the same turn, or with the
// next prompt. No other hook of 0.24.4 can do better: the hooks that add
// context (UserPromptSubmit, PreToolUse, PostToolUse) all run before the
// request that compresses, PreCompact's output goes to the summariser and
// PostCompact's is dropped (measured).
//
// Qwen reads its settings as JSON with comments but without trailing
// commas, and rewrites the project's settings.json when it starts: it
// adds "$version": 4 where that key is missing (and resets a file it
// cannot parse). A file setup creates therefore starts with "$version": 4,
// so that Qwen leaves it alone and remove can delete it again.

// QwenScript is the wrapper our Qwen Code hook runs.
const QwenScript = ".qwen/hooks/kanbus-compaction-right-now.sh"

// QwenCommand is our hook's command. Qwen runs it with bash -c and sets
// QWEN_PROJECT_DIR to the session's directory, the one whose
// .qwen/settings.json it read; quoted, so that a path with spaces works.
// Where the wrapper is missing it exits 0 and prints nothing.
var QwenCommand = generate.RunIfPresent(`"$QWEN_PROJECT_DIR"/` + QwenScript)

// QwenContextFile is the instruction file Qwen Code is named after; it
// reads AGENTS.md as well by default (measured on 0.24.4), but not when
// the settings' context.fileName names QWEN.md alone.
const QwenContextFile = "QWEN.md"

// qwenSettingsVersion is the "$version" Qwen Code 0.24.4 writes into
// every settings file it loads.
const qwenSettingsVersion = 4

// QwenSettings is the schema of .qwen/settings.json. Not Strict: Qwen
// strips comments before JSON.parse. Trailing commas it does not take;
// qwenLoadable refuses those.
var QwenSettings = generate.HookFile{
	Path:    ".qwen/settings.json",
	Agent:   "Qwen Code",
	Event:   "SessionStart",
	Grouped: true,
	NewFile: []generate.Member{{Key: "$version", Value: qwenSettingsVersion}},
}

var (
	qwenHook = &HookEntry{
		File:   QwenSettings,
		Hook:   func(o Options) generate.Hook { return generate.CompactGroup(QwenCommand, QwenScript, o.Budget) },
		Script: QwenScript,
	}
	qwenWrapper = wrapper(QwenScript)
	// qwenBlock is the on-demand kbs-now block, the same block as
	// AGENTS.md's, in the file Qwen Code always reads.
	qwenBlock = &Block{File: QwenContextFile, Block: onDemand}
	// qwenGuard refuses a settings file Qwen Code cannot load.
	qwenGuard = &qwenLoadable{file: QwenSettings.Path}
)

// Qwen Code's checkpoint (setup --checkpoint; docs/platforms.md,
// "Checkpoint: reading the context use"): a Stop hook, which Qwen Code
// 0.24.4 runs after each turn with the context use at the end of its
// payload (context_limit, input_tokens). Its command sources the script
// in the bash Qwen runs it with, and the script's gate exits in bash
// builtins below the threshold (templates/qwen-checkpoint.sh); above it
// the runtime prints the decision to block the stop with the checkpoint
// as the reason, which Qwen sends the model as the turn's next message
// (measured, TestQwenStopCheckpoint).
const QwenCheckpointScript = ".qwen/hooks/kanbus-checkpoint.sh"

// QwenCheckpointCommand is the Stop hook's command: it sources the script
// where it is readable, and otherwise exits 0 and prints nothing.
var QwenCheckpointCommand = geminiSource(`"$QWEN_PROJECT_DIR"/` + QwenCheckpointScript)

// qwenCheckpointMax caps Qwen Code's threshold: Qwen compresses before a
// request once the context reaches min(85% of the window, the window less
// 33,000 tokens), 83.5% of the 200,000 it gives a model it does not know
// (package: computeThresholds), so a checkpoint at --checkpoint-at's
// default 85 would reach the model after that compression. At 70 it
// comes with 27,000 tokens to spare (measured at 70: TestQwenStopCheckpoint).
const qwenCheckpointMax = 70

var qwenCheckpoint = []Artifact{
	&HookEntry{File: qwenEvent("Stop"), Script: QwenCheckpointScript, Hook: func(o Options) generate.Hook {
		return generate.Group("", QwenCheckpointCommand, QwenCheckpointScript, generate.HookTimeout(o.Budget))
	}},
	&Script{File: QwenCheckpointScript, Body: func(o Options) string {
		at := o.CheckpointAt
		if at == 0 {
			at = DefaultCheckpointAt
		}
		return templates.RenderQwenCheckpoint(min(at, qwenCheckpointMax), reminder.DefaultRefire, o.Budget)
	}},
}

// qwenStopProbe is the Stop payload of the checkpoint's live runs: Qwen
// Code 0.24.4 puts the use in it (context_usage, context_limit,
// input_tokens), so there is no transcript to write.
var qwenStopProbe = &Transcript{
	About:  "a Qwen Code Stop payload carrying the context use of a 200000-token window",
	Window: qwenDefaultWindow,
	Write:  func(int64) []byte { return nil },
	Use: func(pl map[string]any, used int64) {
		pl["stop_hook_active"], pl["last_assistant_message"] = false, "nowhook doctor"
		pl["context_usage"], pl["context_limit"], pl["input_tokens"] = float64(used)/qwenDefaultWindow, qwenDefaultWindow, used
	},
}

// qwenDefaultWindow is the window Qwen Code 0.24.4 gives a model it does
// not know (measured: the Stop payload's context_limit).
const qwenDefaultWindow = 200_000

// qwenEvent is .qwen/settings.json with our entry under event.
func qwenEvent(event string) generate.HookFile {
	f := QwenSettings
	f.Event = event
	return f
}

const qwenNudge = "nudge is Cursor's pre-compaction message to the user; Qwen Code re-injects the reminder itself (use reinject or ondemand)"

var qwen = &Agent{
	Name:    "qwen",
	Title:   "Qwen Code",
	Default: Reinject,
	Modes: []ModeSpec{
		{Mode: Reinject, Words: "re-inject: a hook puts the work in progress back after every compaction (one request late after an automatic one)",
			Artifacts: []Artifact{qwenGuard, qwenHook, qwenWrapper, qwenBlock, OnDemandBlock, KanbusAgentsBlock}},
		{Mode: OnDemand, Words: "on demand: QWEN.md and AGENTS.md teach the agent to run kbs now; no hook",
			Artifacts: append([]Artifact{qwenBlock}, onDemandOnly()...)},
	},
	Refused: map[Mode]string{
		Nudge: qwenNudge,
	},
	Reinject: "yes: SessionStart hook with matcher compact; its stdout joins the system prompt of the next request after /compress, but after an automatic compression only of the request after that, since Qwen Code does not wait for the hook there",
	Markers:  []string{".qwen"},
	Binaries: []string{"qwen"},
	Reads: Reads{
		Client: "Qwen Code 0.24.4",
		Where:  "the session's folder and each folder above it up to the git root",
		// Measured (TestReadsQwenFileNameProbe): context.fileName replaces
		// the list, unlike Gemini CLI's: "TEAM.md" loads TEAM.md alone,
		// ["QWEN.md"] QWEN.md alone, ["AGENTS.md", "TEAM.md"] those two.
		Named: qwenNamed,
		Files: []Instruction{
			{File: QwenContextFile, Setting: "context.fileName", Known: "measured: in the first request's system prompt, unless context.fileName names other files"},
			{File: "AGENTS.md", Setting: "context.fileName", Known: "measured: in the first request's system prompt beside QWEN.md (not when context.fileName names QWEN.md alone)"},
		},
	},
	Hooks: HookFormat{
		Files:         []string{".qwen/settings.json", "${QWEN_HOME:-~/.qwen}/settings.json"},
		Layout:        LayoutGrouped,
		Shell:         "/bin/bash",
		ProjectDirEnv: "QWEN_PROJECT_DIR",
		JSONOutput:    true,
		DisableKey:    "disableAllHooks",
		// Measured on 0.24.4: a team's SessionStart group with matcher
		// "startup|resume" reached the first request after /compress
		// without nowhook, and not beside our compact hook; with
		// "startup|resume|compact" both did.
		OneStartContext: true,
		WrongEvents: map[string]string{
			"PreCompact":       "Qwen Code gives PreCompact output to the summariser as extra instructions, not to the model after compaction; use SessionStart with matcher compact",
			"PostCompact":      "Qwen Code discards PostCompact output; use SessionStart with matcher compact",
			"UserPromptSubmit": "UserPromptSubmit fires at every prompt, which would inject on every turn, not after compaction (and before an automatic compression, not after it)",
		},
	},
	Doctor: Doctor{
		Quirks: []Check{qwenLoadableCheck, qwenTrustCheck, qwenMsTimeoutCheck},
		BlockMisses: map[string]string{
			onDemand.Name: "Qwen Code learns `kbs now` only from AGENTS.md, which it skips when its context.fileName setting names other files",
		},
		Transcript: qwenStopProbe,
		Proved:     true,
	},
	Checkpoint: qwenCheckpoint,
	Scope:      qwenScope,
}

// qwenScope (measured on 0.24.4): like Claude Code, Qwen Code loads
// .qwen/settings.json only from the directory it starts in, and the user's
// ${QWEN_HOME:-~/.qwen}/settings.json in every session; at the root both
// files' hooks run, the project's first.
var qwenScope = Scope{
	Loads: "only from the directory it starts in",
	User: &UserScope{
		Var: "QWEN_HOME", Default: "~/.qwen",
		Settings: userSettings(QwenSettings),
		Script:   "hooks/kanbus-compaction-right-now.sh",
		Defer:    []string{QwenScript, QwenSettings.Path},
		Guard:    func(path string) Artifact { return &qwenLoadable{file: path, user: true} },
	},
	// Qwen Code 0.24.4 runs the system settings' hooks, in a folder it
	// trusts or not (TestQwenManagedReminder). A new file starts with
	// "$version": 4, so that Qwen leaves it byte for byte
	// (TestQwenManagedRewritesSystemFiles).
	Managed: &ManagedScope{
		Folder:   "/etc/qwen-code",
		Settings: userSettings(QwenSettings),
		Script:   "qwen.sh",
		Guard:    func(path string) Artifact { return &qwenLoadable{file: path, user: true} },
	},
}

// qwenLoadable guards .qwen/settings.json: it writes nothing, and refuses
// a file that Qwen Code cannot load (see QwenLoadError), before the hook
// entry is merged into it.
type qwenLoadable struct {
	file string
	user bool // the user's own settings, which Qwen does not reset but fails on
}

func (g *qwenLoadable) Path() string { return g.file }

func (g *qwenLoadable) Apply(cur []byte, _ Options) (Edit, error) {
	if err := QwenLoadError(g.file, cur); err != nil {
		if g.user {
			err.Consequence = "Qwen Code does not start while its user settings have one"
		}
		return Edit{}, err
	}
	return Edit{Next: cur}, nil
}

func (g *qwenLoadable) Remove(cur []byte, _ func(string) bool) (Edit, error) {
	return Edit{Next: cur, Empty: len(bytes.TrimSpace(cur)) == 0}, nil
}

// Present reports whether Qwen Code can load cur: the guard holds nothing
// of its own.
func (g *qwenLoadable) Present(cur []byte) bool { return QwenLoadError(g.file, cur) == nil }

// QwenLoadError reports what in a settings file Qwen Code cannot load,
// as Qwen 0.24.4 reads it (JSON.parse after removing comments and a
// byte order mark): a trailing comma, which hujson, and so nowhook's
// editor, accepts. Other syntax errors are left to the editor, which
// refuses them itself. Nil when Qwen loads the file (or it is empty).
func QwenLoadError(path string, b []byte) *generate.FileError {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	commas := generate.TrailingCommas(b)
	if len(commas) == 0 {
		return nil
	}
	line, col := generate.LineCol(b, commas[0])
	what := "a trailing comma"
	if len(commas) > 1 {
		what = "trailing commas"
	}
	return &generate.FileError{Path: path, Line: line, Col: col,
		Problem:     "has " + what + ", which Qwen Code cannot parse (it takes comments, not trailing commas)",
		Consequence: "at its next start Qwen Code copies the file to " + path + ".corrupted and replaces it with an empty one, so none of its hooks or settings apply",
		Fix:         "remove " + map[bool]string{true: "the trailing comma", false: "every trailing comma"}[len(commas) == 1] + " from " + path + ", then run nowhook setup again"}
}

// Doctor's checks of Qwen Code alone (docs/platforms.md#qwen-code): the
// settings it cannot load, its folder trust, and timeouts it reads as
// milliseconds.

// qwenLoadableCheck: Qwen Code takes comments in its settings files but
// not trailing commas, which nowhook's JSON reader accepts; a project file
// with one is reset at Qwen's next start, a user file stops Qwen.
var qwenLoadableCheck = Check{Name: "loadable", Run: func(v View) []diag.Finding {
	var out []diag.Finding
	for _, f := range v.HookFiles() {
		if f.ReadErr != nil || f.ParseErr != nil {
			continue // hooks-file says why
		}
		fe := QwenLoadError(f.Show, f.Raw)
		if fe == nil {
			continue
		}
		if f.User {
			fe.Consequence = v.Agent().Title + " refuses to start until it is fixed"
		}
		msg, fix := diag.FileErrorText(fe)
		out = append(out, diag.Finding{Severity: diag.Error, Path: f.Show, Message: msg, Fix: fix})
	}
	return out
}}

// qwenLegacyTimeout: Qwen Code reads a hook timeout of 1000 or more as
// milliseconds, its old unit.
const qwenLegacyTimeout = 1000

// qwenMsTimeoutCheck: a hook that runs the reminder with a timeout Qwen
// Code reads as milliseconds (the generic hook check reads seconds).
var qwenMsTimeoutCheck = Check{Name: "ms-timeout", Run: func(v View) []diag.Finding {
	var out []diag.Finding
	budget := v.Budget()
	for _, f := range v.HookFiles() {
		for _, h := range f.Handlers {
			n, ok := h.Obj["timeout"].(json.Number)
			if !ok || !v.RunsReminder(h) {
				continue
			}
			ms, err := strconv.ParseFloat(n.String(), 64)
			if err != nil || ms < qwenLegacyTimeout {
				continue
			}
			limit := time.Duration(ms * float64(time.Millisecond))
			fd := diag.Finding{Path: f.Show, Severity: diag.Info,
				Message: fmt.Sprintf("%s: \"timeout\": %s is %s to %s, which reads values of %d or more as milliseconds", h.Where(), n, limit, v.Agent().Title, qwenLegacyTimeout)}
			if limit < budget {
				fd.Severity = diag.Warn
				fd.Message += fmt.Sprintf("; it cancels the hook before the %s the wrapper gives kbs, so a slow kbs means no reminder", budget)
				fd.Fix = fmt.Sprintf("set the timeout at %s to seconds, e.g. %d", h.Where(), int(budget/time.Second)+5)
			}
			out = append(out, fd)
		}
	}
	return out
}}

// qwenTrustCheck: with folder trust on (security.folderTrust.enabled in
// the user's settings; off unless turned on), Qwen Code loads a project's
// .qwen/settings.json only in a folder its trustedFolders.json trusts; in
// any other folder the compact hook never runs, and a headless run says
// nothing (measured on 0.24.4). The rules are Qwen's: a rule covers its
// folder and everything below (TRUST_PARENT: its parent folder's), the
// deepest rule wins, and DO_NOT_TRUST wins a tie.
var qwenTrustCheck = Check{Name: "folder-trust", Run: func(v View) []diag.Finding {
	if v.Mode() != Reinject {
		return nil
	}
	dir := v.Getenv("QWEN_HOME")
	if dir == "" {
		if v.Home() == "" {
			return nil
		}
		dir = filepath.Join(v.Home(), ".qwen")
	}
	settings := filepath.Join(dir, "settings.json")
	var enabled bool
	for _, f := range v.HookFiles() {
		if f.User && f.Abs == settings {
			sec, _ := f.Doc["security"].(map[string]any)
			ft, _ := sec["folderTrust"].(map[string]any)
			enabled, _ = ft["enabled"].(bool)
		}
	}
	if !enabled {
		return nil
	}
	rulesFile := v.Getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH")
	if rulesFile == "" {
		rulesFile = filepath.Join(dir, "trustedFolders.json")
	}
	rules, err := readQwenTrust(rulesFile)
	show := v.Show(rulesFile)
	if err != nil {
		return []diag.Finding{{Severity: diag.Error, Path: show,
			Message: fmt.Sprintf("%s cannot be read (%v); %s refuses to start until it is fixed", show, err, v.Agent().Title),
			Fix:     "correct " + show}}
	}
	rule, level := qwenTrustFor(rules, v.Root())
	fix := fmt.Sprintf("start qwen in %s and trust the folder when it asks, or add %q: \"TRUST_FOLDER\" to %s", v.Root(), v.Root(), show)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return []diag.Finding{{Path: show,
			Message: fmt.Sprintf("folder trust is on and %s trusts %s (%q: %s), so %s loads .qwen/settings.json here", show, v.Root(), rule, level, v.Agent().Title)}}
	case "DO_NOT_TRUST":
		return []diag.Finding{{Severity: diag.Warn, Path: show,
			Message: fmt.Sprintf("folder trust is on and %s does not trust %s (%q: DO_NOT_TRUST), so %s ignores .qwen/settings.json here and the compact hook never runs (a headless run says nothing)", show, v.Root(), rule, v.Agent().Title),
			Fix:     fix}}
	}
	return []diag.Finding{{Severity: diag.Warn, Path: show,
		Message: fmt.Sprintf("folder trust is on (%s) and no rule in %s trusts %s, so %s ignores .qwen/settings.json here and the compact hook never runs (a headless run says nothing)", v.Show(settings), show, v.Root(), v.Agent().Title),
		Fix:     fix}}
}}

// readQwenTrust reads Qwen's trustedFolders.json: folder -> trust level.
func readQwenTrust(path string) (map[string]string, error) {
	b, err := diag.ReadBounded(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := hujson.Parse(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if err != nil {
		return nil, err
	}
	v.Standardize()
	var rules map[string]string
	if err := json.Unmarshal(v.Pack(), &rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// qwenTrustFor returns the rule that decides root's trust, and its level.
func qwenTrustFor(rules map[string]string, root string) (rule, level string) {
	locations := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != locations[0] {
		locations = append(locations, real)
	}
	best := -1
	for path, lvl := range rules {
		covered := filepath.Clean(path)
		switch lvl {
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		case "TRUST_PARENT":
			covered = filepath.Dir(covered)
		default:
			continue
		}
		variants := []string{covered}
		if real, err := filepath.EvalSymlinks(covered); err == nil && real != covered {
			variants = append(variants, real)
		}
		for _, loc := range locations {
			for _, c := range variants {
				if loc != c && !strings.HasPrefix(loc, strings.TrimSuffix(c, string(filepath.Separator))+string(filepath.Separator)) {
					continue
				}
				depth := len(strings.FieldsFunc(c, func(r rune) bool { return r == filepath.Separator }))
				if depth > best || (depth == best && lvl == "DO_NOT_TRUST" && level != "DO_NOT_TRUST") {
					best, rule, level = depth, path, lvl
				}
			}
		}
	}
	return rule, level
}

// qwenNamed is Reads.Named: the files context.fileName names for a session
// started in from (the start folder's .qwen/settings.json, else the
// user's), else Qwen Code's default, QWEN.md and AGENTS.md.
func qwenNamed(f Files, from string) ([]string, string) {
	rel := path.Join(from, ".qwen/settings.json")
	if b, ok := f.Read(rel); ok {
		if names := geminiSettingsNames(b); len(names) > 0 {
			return names, "context.fileName in " + rel
		}
	}
	if s, ok := f.(Sited); ok {
		_, env := s.Site()
		dir := osutil.Getenv(env, "QWEN_HOME")
		if dir == "" && osutil.Getenv(env, "HOME") != "" {
			dir = filepath.Join(osutil.Getenv(env, "HOME"), ".qwen")
		}
		if dir != "" {
			if b, err := os.ReadFile(filepath.Join(dir, "settings.json")); err == nil {
				if names := geminiSettingsNames(b); len(names) > 0 {
					return names, "context.fileName in ~/.qwen/settings.json"
				}
			}
		}
	}
	return []string{QwenContextFile, "AGENTS.md"}, qwenDefaultSource
}

const qwenDefaultSource = "its default context files"
