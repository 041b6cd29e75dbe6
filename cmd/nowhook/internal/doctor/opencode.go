package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The check only OpenCode needs (docs/platforms.md#opencode): it
// re-injects through a plugin that runs the wrapper, not through a hook
// entry in a JSON file, so the hook checks find nothing of it. The agent
// table's opencode row names this check.

func init() {
	register(pluginCheck{})
}

// pluginCheck: the files the agent's re-inject mode owns whole (OpenCode's
// plugin and the wrapper it runs) are present, nowhook's current
// templates and unchanged, and the wrapper is executable.
type pluginCheck struct{}

func (pluginCheck) Name() string { return "plugin" }

// Start, which runs before any check, records the re-inject mode when one
// of those files is ours: doctor's scan finds a mode through hook entries,
// and a plugin is none, so without this the mode row would call a
// plugin set up for re-injection on-demand only.
func (pluginCheck) Start(_ context.Context, d *doctor, a *agent) {
	if a.mode == agentpkg.Reinject {
		return
	}
	for _, s := range ownedWhole(a) {
		if b, err := diag.ReadBounded(filepath.Join(d.root, filepath.FromSlash(s.File))); err == nil && s.Present(b) {
			a.mode = agentpkg.Reinject
			return
		}
	}
}

func (pluginCheck) Run(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, s := range ownedWhole(a) {
		path := filepath.Join(d.root, filepath.FromSlash(s.File))
		if a.mode != agentpkg.Reinject && !exists(path) {
			continue
		}
		out = append(out, d.ownedFinding(a, s, path))
	}
	return out
}

// ownedWhole lists the files the agent's re-inject mode owns whole.
func ownedWhole(a *agent) []*agentpkg.Script {
	spec, ok := a.p.Spec(agentpkg.Reinject)
	if !ok {
		return nil
	}
	var out []*agentpkg.Script
	for _, art := range spec.Artifacts {
		if s, ok := art.(*agentpkg.Script); ok {
			out = append(out, s)
		}
	}
	return out
}

// pluginLimitRE finds the time the plugin gives the wrapper.
var pluginLimitRE = regexp.MustCompile(`(?m)^const limitMs = (\d+) \* 1000$`)

// ownedFinding reports one file the agent's re-inject mode owns whole.
func (d *doctor) ownedFinding(a *agent, s *agentpkg.Script, path string) Finding {
	f := Finding{Path: s.File, Severity: Error}
	setup := d.setupFix(a.p.Name + "=" + string(agentpkg.Reinject))
	what := "the plugin"
	if !s.NotExec {
		what = "the wrapper the plugin runs"
	}
	info, err := os.Stat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		f.Message = fmt.Sprintf("%s (%s) is missing, so %s gets no reminder after compaction", s.File, what, a.p.Title)
		f.Fix = setup
		return f
	case err != nil:
		f.Message = fmt.Sprintf("%s cannot be read: %v", s.File, err)
		return f
	case !info.Mode().IsRegular():
		f.Message = fmt.Sprintf("%s is not a regular file, so %s gets no reminder after compaction", s.File, a.p.Title)
		f.Fix = "move " + s.File + " away, then run " + setup
		return f
	case !s.NotExec && info.Mode()&0o111 == 0:
		f.Message = fmt.Sprintf("%s is not executable (mode %04o): the plugin cannot run it, so %s gets no reminder", s.File, info.Mode().Perm(), a.p.Title)
		f.Fix = "chmod +x " + diag.ShellQuote(d.showFix(path))
		return f
	}
	b, err := diag.ReadBounded(path)
	if err != nil {
		f.Message = fmt.Sprintf("%s cannot be read: %v", s.File, err)
		return f
	}
	state, version := generate.InspectScript(b)
	f.Severity = Warn
	switch {
	case state == generate.ScriptOurs && version == templateVersion:
		f.Severity = OK
		f.Message = fmt.Sprintf("%s (%s) is nowhook's current template (v%d), unchanged", s.File, what, version)
		if budget, ok := diag.ScriptBudget(path); ok {
			f.Message += fmt.Sprintf(", gives kbs %s", budget)
		}
		if m := pluginLimitRE.FindSubmatch(b); m != nil {
			f.Message += fmt.Sprintf(", gives the wrapper %ss", m[1])
		}
	case state == generate.ScriptOurs && version < templateVersion:
		f.Message = fmt.Sprintf("%s is template v%d, older than this nowhook's v%d", s.File, version, templateVersion)
		f.Fix = setup
	case state == generate.ScriptOurs:
		f.Message = fmt.Sprintf("%s is template v%d, newer than this nowhook's v%d", s.File, version, templateVersion)
		f.Fix = "upgrade nowhook (./install.sh in a current nowhook checkout)"
	case state == generate.ScriptModified:
		f.Message = fmt.Sprintf("%s was changed by hand since nowhook wrote it (template v%d): doctor cannot vouch for it, and setup leaves it alone", s.File, version)
		f.Fix = d.setupFix(a.p.Name+"="+string(agentpkg.Reinject), "--force")
	default:
		f.Message = fmt.Sprintf("%s has no nowhook signature line, so it is yours: doctor cannot tell whether %s puts the reminder back", s.File, a.p.Title)
		f.Fix = d.setupFix(a.p.Name+"="+string(agentpkg.Reinject), "--force")
	}
	return f
}
