package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// Codex CLI's file validation before setup writes (hooks.json, the
// project's config.toml), and doctor's checks of its config.toml layers
// and [features] flag (docs/platforms.md#codex-cli).

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
