package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// tenthAgent is a new, Claude-like agent as its one file of the agent
// table would declare it (the walk-through in package agent's comment):
// a SessionStart compact hook in a strict JSON settings file, the wrapper
// it runs, Compact Instructions in its own instruction file, the shared
// kbs-now blocks, and the facts of its hook format. No line of doctor
// names it.
func tenthAgent() *agentpkg.Agent {
	const script = ".tenth/hooks/kanbus-compaction-right-now.sh"
	settings := generate.HookFile{Path: ".tenth/settings.json", Agent: "Tenth", Event: "SessionStart", Grouped: true, Strict: true}
	hook := &agentpkg.HookEntry{File: settings, Script: script, Hook: func(o agentpkg.Options) generate.Hook {
		return generate.CompactGroup(`"$TENTH_PROJECT_DIR"/`+script, script, o.Budget)
	}}
	wrapper := &agentpkg.Script{File: script, Reminder: true, Body: func(o agentpkg.Options) string { return templates.RenderWrapper(o.Budget, o.Sources) }}
	compact := &agentpkg.Block{File: "TENTH.md", Block: generate.Block{Name: "compact-instructions", Version: templates.Version, Body: templates.CompactInstructions, Heading: "Compact Instructions"}}
	return &agentpkg.Agent{
		Name:    "tenth",
		Title:   "Tenth Agent",
		Default: agentpkg.Reinject,
		Modes: []agentpkg.ModeSpec{
			{Mode: agentpkg.Reinject, Words: "re-inject: a hook puts the work in progress back after every compaction",
				Artifacts: []agentpkg.Artifact{hook, wrapper, compact, agentpkg.OnDemandBlock, agentpkg.KanbusAgentsBlock}},
			{Mode: agentpkg.OnDemand, Words: "on demand: AGENTS.md teaches the agent to run kbs now",
				Artifacts: []agentpkg.Artifact{agentpkg.OnDemandBlock, agentpkg.KanbusAgentsBlock}},
		},
		Refused:  map[agentpkg.Mode]string{agentpkg.Nudge: "nudge is Cursor's"},
		Reinject: "yes: SessionStart hook with matcher compact; its stdout is added to the next model request",
		Markers:  []string{".tenth"},
		Reads: agentpkg.Reads{Client: "Tenth 1.0", Where: "the session's folder",
			Files: []agentpkg.Instruction{{File: "TENTH.md", Known: "measured"}, {File: "AGENTS.md", Known: "measured"}}},
		Hooks: agentpkg.HookFormat{
			Files:         []string{".tenth/settings.json", "~/.tenth/settings.json"},
			Layout:        agentpkg.LayoutGrouped,
			Strict:        true,
			Shell:         "/bin/sh",
			ProjectDirEnv: "TENTH_PROJECT_DIR",
			WrongEvents:   map[string]string{"PostCompact": "Tenth shows PostCompact output to the user only"},
			DisableKey:    "disableAllHooks",
			OnceByCommand: true,
			BlockingEvent: "PreCompact",
		},
		Doctor: agentpkg.Doctor{BlockMisses: map[string]string{"compact-instructions": "the compaction summary is not told to keep the Kanbus issue ids"}},
	}
}

func checkNames(cs []check) []string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
	}
	return names
}

// TestTenthAgent: adding a Claude-like agent is one new file of the agent
// table plus one line in agentpkg.All. Doctor derives its checks from the
// row's data, the same as Claude Code's but the checkpoint and the managed
// layer (which the row does not declare), and runs them on a repository set up for it: every
// row ok; and the derived checks bite (disableAllHooks is an error).
func TestTenthAgent(t *testing.T) {
	tenth := tenthAgent()
	claude := mustPlatform(t, "claude")
	// Claude Code's pin in scripts/pins.tsv brings its client row.
	// Its managed layer (Scope.Managed, Scope.ManagedOnly) brings managed.
	want := strings.Replace(strings.TrimSuffix(strings.Join(checkNames(agentChecks(claude)), " "), " managed checkpoint"), " client", "", 1)
	if got := strings.Join(checkNames(agentChecks(tenth)), " "); got != want {
		t.Errorf("a Claude-like row gets the checks %q, Claude Code %q", got, want)
	}

	// The one line: the row joins the table.
	saved := agentpkg.All
	agentpkg.All = append(append([]*agentpkg.Agent(nil), saved...), tenth)
	t.Cleanup(func() { agentpkg.All = saved })

	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	spec, _ := tenth.Spec(agentpkg.Reinject)
	for _, art := range spec.Artifacts {
		e, err := art.Apply(r.read(art.Path()), agentpkg.Options{Budget: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Next) > 0 {
			mode := os.FileMode(0o644)
			if e.Exec {
				mode = 0o755
			}
			r.write(art.Path(), string(e.Next), mode)
		}
	}
	fs := Static(r.root, []string{"tenth"}, r.env)
	for _, name := range []string{"mode", "reach", "hooks-file", "hook", "script", "md"} {
		got := find(fs, "tenth."+name)
		if len(got) != 1 || got[0].Severity != OK {
			t.Errorf("tenth.%s: want one ok row, got:\n%s", name, dump(fs))
		}
	}
	if worst(fs) != OK {
		t.Errorf("a fresh setup of the tenth agent is not all ok:\n%s", dump(fs))
	}

	settings := filepath.Join(r.root, ".tenth", "settings.json")
	r.write(settings, strings.Replace(string(r.read(".tenth/settings.json")), "{", "{\n  \"disableAllHooks\": true,", 1), 0o644)
	expectOne(t, Static(r.root, []string{"tenth"}, r.env), "tenth.disabled", Error, `.tenth/settings.json sets "disableAllHooks": true, so Tenth Agent runs no hooks at all`)
}
