package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// managedTree writes, under root, what setup --scope managed writes for
// each agent named (the table's managed artifacts), and returns root.
func managedTree(t *testing.T, root string, names ...string) string {
	t.Helper()
	for _, name := range names {
		p := mustPlatform(t, name)
		for _, art := range p.Scope.Managed.Artifacts(root) {
			cur, _ := os.ReadFile(art.Path())
			e, err := art.Apply(cur, agentpkg.Options{Budget: agentpkg.DefaultBudget})
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Next) == 0 {
				continue
			}
			mode := os.FileMode(0o644)
			if e.Exec {
				mode = 0o755
			}
			writeAbs(t, art.Path(), string(e.Next), mode)
		}
	}
	return root
}

func writeAbs(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// runManaged is doctor --scope managed --root root.
func runManaged(t *testing.T, root string) Report {
	t.Helper()
	return RunManaged(context.Background(), Options{Env: []string{"HOME=" + realTemp(t), "PATH=/usr/bin:/bin"}, ManagedRoot: root, LiveLimit: 10 * time.Second})
}

// TestManagedScopeClean: a tree as setup --scope managed writes it is
// all ok, row by row, for each agent with a managed channel; Factory
// Droid's file, which setup never creates, is info; a tree without a
// record says remove cannot tell what was there before.
func TestManagedScopeClean(t *testing.T) {
	root := managedTree(t, realTemp(t), "claude", "codex", "gemini", "qwen")
	r := runManaged(t, root)
	for _, name := range []string{"claude", "codex", "gemini", "qwen"} {
		for _, row := range []string{"hooks-file", "hook", "script"} {
			expectOne(t, r.Findings, "managed."+name+"."+row, OK)
		}
		expectOne(t, r.Findings, "managed."+name+".record", Warn, filepath.Join(root, agentpkg.ManagedRecord)+" does not exist")
	}
	expectOne(t, r.Findings, "managed.claude.hook", OK, "runs /usr/local/libexec/nowhook/claude.sh")
	for _, name := range []string{"claude", "codex", "qwen"} {
		expectOne(t, r.Findings, "managed."+name+".live", OK, "the managed hook (with "+filepath.Join(root, agentpkg.ManagedDir)+" for "+agentpkg.ManagedDir+")", "in a sub-folder of one it printed the reminder")
	}
	expectOne(t, r.Findings, "managed.gemini.live", Info, "not run")
	expectOne(t, r.Findings, "managed.droid", Info, filepath.Join(root, "etc/factory/settings.json")+" does not exist")
	if r.Failed() {
		t.Errorf("a fresh managed tree fails doctor:\n%s", dump(r.Findings))
	}
}

// TestManagedScopeErrors: each way the managed install does not run is an
// error of its own row, with its fix, and fails the run.
func TestManagedScopeErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		do    func(t *testing.T, root string)
		row   string
		parts []string
		fix   string
	}{
		{name: "wrapper-not-executable", row: "managed.claude.script",
			do: func(t *testing.T, root string) {
				chmod(t, filepath.Join(root, "usr/local/libexec/nowhook/claude.sh"), 0o644)
			},
			parts: []string{"is not executable (mode 0644)"}, fix: "chmod +x "},
		{name: "wrapper-missing", row: "managed.codex.script",
			do:    func(t *testing.T, root string) { remove(t, filepath.Join(root, "usr/local/libexec/nowhook/codex.sh")) },
			parts: []string{"codex.sh is missing: the managed hook's command exits 0 without it"}, fix: "nowhook setup --scope managed --yes --agents codex --root "},
		{name: "drop-in-not-strict-json", row: "managed.claude.hooks-file",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.d/50-nowhook.json"), `{"hooks": {},}`, 0o644)
			},
			parts: []string{"trailing comma", "claude -p exits 1 before its first request"}},
		{name: "codex-hooks-json-unknown-key", row: "managed.codex.hooks-file",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/codex/hooks.json"), `{"hooks": {}, "bogus": 1}`, 0o644)
			},
			parts: []string{`"bogus"`, "Codex drops this whole hooks.json"}, fix: "etc/codex/hooks.json"},
		{name: "organisations-drop-in-broken", row: "managed.claude.layer",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.d/10-org.json"), "{\"env\": {\"A\": \"1\"},}\n", 0o644)
			},
			parts: []string{"10-org.json has a trailing comma", "so every Claude Code session on this machine fails"}, fix: "correct "},
		{name: "organisations-base-file-broken", row: "managed.claude.layer",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), "[]\n", 0o644)
			},
			parts: []string{"managed-settings.json", "not an object", "claude -p exits 1"}},
		{name: "switch-without-the-managed-hook", row: "managed.claude.layer",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), `{"allowManagedHooksOnly": true}`, 0o644)
				chmod(t, filepath.Join(root, "usr/local/libexec/nowhook/claude.sh"), 0o644)
			},
			parts: []string{"allowManagedHooksOnly: true in ", "nowhook's managed hook does not run", "so no Claude Code session on this machine gets the reminder"}},
		{name: "wrapper-prints-nothing", row: "managed.claude.live",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "usr/local/libexec/nowhook/claude.sh"), "#!/bin/sh\nexit 0\n", 0o755)
			},
			parts: []string{"in a sub-folder of a Kanbus project: printed no reminder (kbs ran 0 times)"}, fix: "--scope managed"},
		{name: "wrapper-prints-outside-a-project", row: "managed.codex.live",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "usr/local/libexec/nowhook/codex.sh"), "#!/bin/sh\necho hello\n", 0o755)
			},
			parts: []string{"outside a Kanbus project: printed 6 bytes", "in a sub-folder of a Kanbus project: printed no reminder"}},
		{name: "codex-requirements-broken", row: "managed.codex.layer",
			do: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/codex/requirements.toml"), "allow_managed_hooks_only = \n", 0o644)
			},
			parts: []string{"requirements.toml is not valid TOML", "Codex stops before its first request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := managedTree(t, realTemp(t), "claude", "codex")
			tc.do(t, root)
			r := runManaged(t, root)
			var got []Finding
			for _, f := range find(r.Findings, tc.row) {
				if f.Severity == Error {
					got = append(got, f)
				}
			}
			if len(got) != 1 {
				t.Fatalf("want one error in %s, got:\n%s", tc.row, dump(r.Findings))
			}
			for _, p := range tc.parts {
				if !strings.Contains(got[0].Message, p) {
					t.Errorf("%s: message lacks %q: %s", tc.row, p, got[0].Message)
				}
			}
			if !strings.Contains(got[0].Fix, tc.fix) || got[0].Fix == "" {
				t.Errorf("%s: fix %q, want one with %q", tc.row, got[0].Fix, tc.fix)
			}
			if r.exitStatus() != exitFailed {
				t.Errorf("exit status %d, want %d", r.exitStatus(), exitFailed)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// managedRows is the <agent>.managed rows of a project scope run with the
// managed layers under mroot, the repository set up for claude and codex
// where installed.
func managedRows(t *testing.T, installed bool, mroot string, agent string) []Finding {
	t.Helper()
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.write(".claude/x", "", 0o644)
	r.write(".codex/x", "", 0o644)
	modes := map[string]agentpkg.Mode{}
	if installed {
		r.install("claude", agentpkg.DefaultBudget)
		r.install("codex", agentpkg.DefaultBudget)
		modes = map[string]agentpkg.Mode{"claude": agentpkg.Reinject, "codex": agentpkg.Reinject}
	}
	return find(StaticWith(r.root, []string{agent}, r.env, StaticOptions{Modes: modes, ManagedRoot: mroot}), agent+".managed")
}

// TestManagedLayerInProjectScope: the project scope's <agent>.managed row
// says which layer's hook of nowhook's prints the reminder, and calls an
// error the managed-only switch that drops the project's install (where
// nowhook's managed hook is not there to print it), with the fix.
func TestManagedLayerInProjectScope(t *testing.T) {
	only := `{"allowManagedHooksOnly": true}`
	for _, tc := range []struct {
		name      string
		agent     string
		installed bool
		tree      func(t *testing.T, root string)
		sev       Severity // -1: no row
		parts     []string
		fix       string
	}{
		{name: "nothing-managed", agent: "claude", installed: true, tree: func(*testing.T, string) {}, sev: -1},
		{name: "managed-hook-and-project", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) { managedTree(t, root, "claude") },
			sev:  OK, parts: []string{"managed layer: nowhook's hook in ", "50-nowhook.json prints the reminder; the project's hook in .claude/settings.json steps aside"}},
		{name: "managed-hook-alone", agent: "claude", installed: false,
			tree: func(t *testing.T, root string) { managedTree(t, root, "claude") },
			sev:  OK, parts: []string{"prints the reminder in every Claude Code session on this machine"}},
		{name: "switch-drops-the-project-hook", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), only, 0o644)
			},
			sev: Error, parts: []string{"allowManagedHooksOnly: true in ", "so the project's hook in .claude/settings.json never runs and the work in progress does not come back after a compaction"},
			fix: "nowhook setup --scope managed --yes --agents claude --root "},
		{name: "switch-in-a-drop-in", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.d/20-org.json"), only, 0o644)
			},
			sev: Error, parts: []string{"20-org.json"}},
		{name: "switch-in-a-dot-drop-in-is-not-read", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.d/.org.json"), only, 0o644)
			},
			sev: -1},
		{name: "switch-false", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), `{"allowManagedHooksOnly": false}`, 0o644)
			},
			sev: -1},
		{name: "switch-with-the-managed-hook", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				managedTree(t, root, "claude")
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), only, 0o644)
			},
			sev: OK, parts: []string{"nowhook's managed hook in ", "is one of them and prints the reminder"}},
		{name: "switch-with-a-managed-hook-that-cannot-run", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				managedTree(t, root, "claude")
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), only, 0o644)
				remove(t, filepath.Join(root, "usr/local/libexec/nowhook/claude.sh"))
			},
			sev: Error, parts: []string{"never runs", "nowhook's managed hook does not run either"}},
		{name: "switch-before-any-install", agent: "claude", installed: false,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), only, 0o644)
			},
			sev: Info, parts: []string{"a project or user hook of nowhook's would never run"}, fix: "--scope managed"},
		{name: "codex-switch", agent: "codex", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/codex/requirements.toml"), "allow_managed_hooks_only = true\n", 0o644)
			},
			sev: Error, parts: []string{"allow_managed_hooks_only: true in ", "requirements.toml", "the project's hook in .codex/hooks.json never runs"}, fix: "--agents codex"},
		{name: "codex-switch-in-a-table-is-not-the-switch", agent: "codex", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/codex/requirements.toml"), "[hooks]\nallow_managed_hooks_only = true\n", 0o644)
			},
			sev: -1},
		{name: "codex-switch-in-config-toml-is-ignored", agent: "codex", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/codex/config.toml"), "allow_managed_hooks_only = true\n", 0o644)
			},
			sev: -1},
		{name: "broken-managed-file", agent: "claude", installed: true,
			tree: func(t *testing.T, root string) {
				writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), "{,}\n", 0o644)
			},
			sev: Error, parts: []string{"claude -p exits 1 before its first request"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := realTemp(t)
			tc.tree(t, root)
			rows := managedRows(t, tc.installed, root, tc.agent)
			if tc.sev < 0 {
				if len(rows) != 0 {
					t.Fatalf("want no %s.managed row, got:\n%s", tc.agent, dump(rows))
				}
				return
			}
			f := expectOne(t, rows, tc.agent+".managed", tc.sev, tc.parts...)
			if !strings.Contains(f.Fix, tc.fix) {
				t.Errorf("fix %q, want one with %q", f.Fix, tc.fix)
			}
		})
	}
}

// TestManagedFixOnTheMachine: without --root, the fix installs the
// managed hook as root on the machine; with it, in the tree.
func TestManagedFixOnTheMachine(t *testing.T) {
	if got, want := newDoctor(Options{}).managedSetup("claude"), "sudo nowhook setup --scope managed --yes --agents claude"; got != want {
		t.Errorf("on the machine: %q, want %q", got, want)
	}
	if got, want := newDoctor(Options{ManagedRoot: "/tmp/tree"}).managedSetup("codex"), "nowhook setup --scope managed --yes --agents codex --root /tmp/tree"; got != want {
		t.Errorf("with --root: %q, want %q", got, want)
	}
}

// TestManagedCopilotSwitch: Copilot's switch takes nothing of nowhook's
// away (it has no hook of nowhook's); doctor --scope managed says so, as
// info, and names how it knows.
func TestManagedCopilotSwitch(t *testing.T) {
	root := realTemp(t)
	writeAbs(t, filepath.Join(root, "etc/github-copilot/managed-settings.json"), `{"allowManagedHooksOnly": true}`, 0o644)
	r := runManaged(t, root)
	expectOne(t, r.Findings, "managed.copilot", Info, "GitHub Copilot CLI loads only managed hooks", "not run", "takes nothing of nowhook's away")
	if layered(mustPlatform(t, "copilot")) {
		t.Error("the project scope has a copilot.managed row, for an agent nowhook writes no hook for")
	}
}

// TestManagedLayerBothInstalls: with nowhook's managed hook, the project's
// and the user-scope install, the project's row names both as stepping
// aside, and the user scope's names the user-scope hook.
func TestManagedLayerBothInstalls(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.install("claude", agentpkg.DefaultBudget)
	p := mustPlatform(t, "claude")
	for _, art := range p.Scope.User.Artifacts(filepath.Join(r.home, ".claude")) {
		cur, _ := os.ReadFile(art.Path())
		e, err := art.Apply(cur, agentpkg.Options{Budget: agentpkg.DefaultBudget})
		if err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if e.Exec {
			mode = 0o755
		}
		writeAbs(t, art.Path(), string(e.Next), mode)
	}
	root := managedTree(t, realTemp(t), "claude")
	fs := StaticWith(r.root, []string{"claude"}, r.env, StaticOptions{Modes: map[string]agentpkg.Mode{"claude": agentpkg.Reinject}, ManagedRoot: root})
	expectOne(t, fs, "claude.managed", OK, "prints the reminder; the project's hook in .claude/settings.json and your user-scope hook in ~/.claude/settings.json step aside")
	u := RunUser(context.Background(), Options{Env: r.env, ManagedRoot: root, LiveLimit: 10 * time.Second})
	expectOne(t, u.Findings, "user.claude.managed", OK, "prints the reminder; your user-scope hook in ~/.claude/settings.json steps aside")
}

// TestManagedSwitchSubFolderFix: under a managed-only switch, a user-scope
// hook would be dropped too, so the sub-folder rows' fix is the managed
// install, not setup --scope user.
func TestManagedSwitchSubFolderFix(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.install("claude", agentpkg.DefaultBudget)
	root := realTemp(t)
	fs := find(Files(r.root, []string{"claude"}, r.env, FilesOptions{StaticOptions: StaticOptions{Modes: map[string]agentpkg.Mode{"claude": agentpkg.Reinject}, ManagedRoot: root}}), "subfolders.claude")
	if len(fs) != 1 || fs[0].Fix != "nowhook setup --scope user --agents claude" {
		t.Fatalf("without the switch, want one subfolders.claude row with the user-scope fix, got:\n%s", dump(fs))
	}
	writeAbs(t, filepath.Join(root, "etc/claude-code/managed-settings.json"), `{"allowManagedHooksOnly": true}`, 0o644)
	fs = find(Files(r.root, []string{"claude"}, r.env, FilesOptions{StaticOptions: StaticOptions{Modes: map[string]agentpkg.Mode{"claude": agentpkg.Reinject}, ManagedRoot: root}}), "subfolders.claude")
	if want := "nowhook setup --scope managed --yes --agents claude --root " + root; len(fs) != 1 || fs[0].Fix != want {
		t.Errorf("with allowManagedHooksOnly, want one subfolders.claude row with the fix %q, got:\n%s", want, dump(fs))
	}
}
