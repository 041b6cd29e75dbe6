package generate

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

const codexHooksPath = ".codex/hooks.json"

// CodexHooks is the schema of a Codex hooks.json (project layer).
//
// Codex 0.171.0 parses hooks.json strictly: a comment or a trailing comma
// makes it drop the whole file ("failed to parse hooks config").
var CodexHooks = HookFile{
	Path:    codexHooksPath,
	Agent:   "Codex",
	Event:   "SessionStart",
	Grouped: true,
	Strict:  true,
	Check:   checkCodexHooks,
}

// CodexCommand finds the wrapper from the session's working directory by
// walking up to the nearest directory that has it, so it works when Codex
// was started in a subdirectory and for a project inside a larger git
// repository, without starting git; it exits 0 when the script is missing.
// Codex runs it with /bin/bash -c.
const CodexCommand = `d=$PWD; while [ "$d" != / ] && [ ! -x "$d/` + CodexScript + `" ]; do d=${d%/*}; d=${d:-/}; done; [ ! -x "$d/` + CodexScript + `" ] || exec "$d/` + CodexScript + `"`

// CodexHook is our SessionStart group for Codex.
func CodexHook(budget time.Duration) Hook {
	return compactHook(CodexCommand, CodexScript, budget)
}

const codexDrops = "Codex drops this whole hooks.json with only a warning, so none of its hooks run"

// checkCodexHooks finds what makes Codex drop a whole hooks.json
// (PLATFORMS.md, Codex): an unknown top-level key, a command that is not a
// string, a timeout that is not a number, a handler without type or command.
func checkCodexHooks(doc any) *FileError {
	root, ok := doc.(map[string]any)
	if !ok {
		return &FileError{Path: codexHooksPath, Problem: "the top level is not an object", Consequence: codexDrops, Fix: `make it {"hooks": {...}}`}
	}
	var keys []string
	for k := range root {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "hooks" && k != "description" {
			return &FileError{Path: codexHooksPath, Problem: fmt.Sprintf("has the top-level key %q, which Codex does not accept (only \"hooks\" and \"description\")", k),
				Consequence: codexDrops, Fix: fmt.Sprintf("remove %q from .codex/hooks.json, then run nowhook setup again", k)}
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

func codexHandlerError(at, problem, fix string) *FileError {
	return &FileError{Path: codexHooksPath, Problem: at + " " + problem, Consequence: codexDrops, Fix: fix + " in .codex/hooks.json, then run nowhook setup again"}
}

// CursorHooks is the schema of .cursor/hooks.json.
var CursorHooks = HookFile{
	Path:    ".cursor/hooks.json",
	Agent:   "Cursor",
	Event:   "preCompact",
	NewFile: []Member{{"version", 1}},
}

// CursorNudge is our preCompact handler for Cursor.
func CursorNudge() Hook {
	return Hook{
		Entry: Ordered{{"command", CursorScript}, {"timeout", 10}},
		Ours:  RunsScript(CursorScript),
	}
}
