package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
)

// codexManagedDir is Codex's system folder on Linux: requirements.toml,
// config.toml and the legacy managed_config.toml live there.
const codexManagedDir = "/etc/codex"

// codexManaged is a Codex sandbox whose client sees a folder of the
// test's at /etc/codex and another at /usr/local/libexec/nowhook, with a
// user config (CODEX_HOME) that points at a mock and records no trust.
type codexManaged struct {
	s       *sandbox
	m       *responsesMock
	home    string // CODEX_HOME
	env     []string
	etc     string // shown at /etc/codex
	libexec string // shown at /usr/local/libexec/nowhook
	bin     string // codex, run in the view
}

func newCodexManaged(t *testing.T, ctx context.Context, mode kbsMode) *codexManaged {
	t.Helper()
	bin := findClient(t, "CODEX_BIN", "codex")
	s := newSandbox(t, mode)
	c := &codexManaged{s: s, m: newResponsesMock(t), etc: filepath.Join(s.root, "etc-codex"), libexec: filepath.Join(s.root, "libexec-nowhook")}
	c.home = codexHome(t, s, c.m)
	c.env = codexEnv(s, c.home)
	v := newSysView(t, map[string]string{codexManagedDir: c.etc, nowhookLibexec: c.libexec})
	c.bin = v.wrap(t, bin)
	clientVersion(t, ctx, c.env, c.bin)
	return c
}

// file writes a file relative to /etc/codex.
func (c *codexManaged) file(t *testing.T, rel, content string) {
	t.Helper()
	writeFile(t, filepath.Join(c.etc, filepath.FromSlash(rel)), content, 0o644)
}

// list is Codex's own hooks/list for dir, from the app-server in the view.
func (c *codexManaged) list(t *testing.T, ctx context.Context, dir string) *codex.Listing {
	t.Helper()
	hl, err := codex.List(ctx, codex.Options{Codex: c.bin, Env: c.env, Dir: dir, ClientVersion: "nowhook-e2e"}, dir)
	if err != nil {
		t.Fatalf("hooks/list: %v", err)
	}
	for _, h := range hl.Hooks {
		t.Logf("hooks/list: %s event %s source %q sourcePath %s managed %v trust %q enabled %v command %q",
			h.Key, h.EventName, h.Source, h.SourcePath, h.IsManaged, h.TrustStatus, h.Enabled, h.Command)
	}
	if len(hl.Warnings) > 0 || len(hl.Errors) > 0 {
		t.Logf("hooks/list: warnings %v errors %+v", hl.Warnings, hl.Errors)
	}
	return hl
}

// exec runs one `codex exec --strict-config` in dir whose turn compacts
// (no trust flag) and returns the developer messages of the request after
// the compaction request, joined.
func (c *codexManaged) exec(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	run := codexExecIn(t, ctx, c.s, c.m, c.bin, c.env, dir)
	idx := compactionIndex(t, run.reqs)
	return strings.Join(developerTexts(t, run.reqs[idx+1].Body), "\n")
}

// noTrustRecorded fails if the user config records any hook's trust.
func (c *codexManaged) noTrustRecorded(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "trusted_hash") || strings.Contains(string(b), "hooks.state") {
		t.Fatalf("the user config records hook trust; this measurement needs none:\n%s", b)
	}
}

// codexRequirementsHooks is a [hooks] table of requirements.toml (or
// config.toml) with the given lines before its groups (managed_dir = ...)
// and one SessionStart group, matcher compact, running the commands.
func codexRequirementsHooks(head string, commands ...string) string {
	var b strings.Builder
	b.WriteString("[hooks]\n" + head)
	b.WriteString("\n[[hooks.SessionStart]]\nmatcher = \"compact\"\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, "\n[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = %q\ntimeout = 30\n", cmd)
	}
	return b.String()
}

// codexHooksJSON is a hooks.json with one SessionStart group, matcher
// compact, running the commands.
func codexHooksJSON(commands ...string) string {
	return claudeHooks(nil, commands...)
}

// managedDirLine is requirements.toml's managed_dir for the wrapper folder.
const managedDirLine = "managed_dir = \"" + nowhookLibexec + "\"\n"

// TestCodexManagedRequirements measures Codex CLI 0.171.0's managed hooks:
// a SessionStart compact group in /etc/codex/requirements.toml's [hooks]
// table is listed by the app-server as source "system", managed, trust
// "managed", enabled, with no trust recorded, and `codex exec` (no trust
// flag, no [hooks.state] in the user config) runs it after the compaction,
// its output in the next request once. managed_dir is optional: it only
// names where the hooks are said to come from (the hook's sourcePath and
// key prefix; without it, requirements.toml itself), and a command outside
// it runs the same.
func TestCodexManagedRequirements(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	for _, tc := range []struct {
		name, head string
		source     string // the sourcePath Codex lists
		exec       bool
	}{
		{name: "managed-dir", head: managedDirLine, source: nowhookLibexec, exec: true},
		{name: "no-managed-dir", head: "", source: codexManagedDir + "/requirements.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCodexManaged(t, ctx, kbsFixture)
			p := newLayerProbes(t, 1)
			inside := p.script(t, filepath.Join(c.libexec, "inside.sh"), "inside")
			outside := p.script(t, filepath.Join(c.s.root, "elsewhere", "outside.sh"), "outside")
			c.file(t, "requirements.toml", codexRequirementsHooks(tc.head, inside, outside))
			hl := c.list(t, ctx, c.s.repo)
			if len(hl.Hooks) != 2 {
				t.Fatalf("hooks/list has %d hooks, want the two of requirements.toml", len(hl.Hooks))
			}
			for i, h := range hl.Hooks {
				if !h.IsManaged || h.TrustStatus != codex.StatusManaged || !h.Enabled || h.Source != "system" || h.SourcePath != tc.source {
					t.Errorf("hooks/list: %s is managed %v, trust %q, enabled %v, source %q, sourcePath %s; want managed, %q, enabled, system, %s",
						h.Command, h.IsManaged, h.TrustStatus, h.Enabled, h.Source, h.SourcePath, codex.StatusManaged, tc.source)
				}
				if want := fmt.Sprintf("%s:session_start:0:%d", tc.source, i); h.Key != want {
					t.Errorf("hooks/list: key %s, want %s", h.Key, want)
				}
			}
			if !tc.exec {
				return
			}
			dev := c.exec(t, ctx, c.s.repo)
			c.noTrustRecorded(t)
			for _, l := range []string{"inside", "outside"} {
				if n := strings.Count(dev, layerMarker(l)); n != 1 {
					t.Errorf("the request after the compaction has the %s hook's output %d times, want once\ndeveloper messages:\n%.2000s", l, n, dev)
				}
			}
			checkSet(t, "probe runs", labels(p.runs(t)), []string{"inside", "outside"})
		})
	}
}

// TestCodexManagedReminder: with nowhook's wrapper in
// /usr/local/libexec/nowhook and a SessionStart compact group running it
// in /etc/codex/requirements.toml, and no project or user install and no
// trust recorded, `codex exec` (no trust flag) puts the reminder into the
// request after its compaction once, kbs running once, in a session at
// the repository root and in one in a sub-folder.
func TestCodexManagedReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c := newCodexManaged(t, ctx, kbsFixture)
	c.s.applyShape(t, shapeAgentsOnly)
	managedWrapper(t, c.libexec)
	c.file(t, "requirements.toml", codexRequirementsHooks(managedDirLine, managedCommand))
	if _, err := os.Stat(filepath.Join(c.s.repo, ".codex")); !os.IsNotExist(err) {
		t.Fatalf(".codex exists in the repository: this measurement is of the managed layer alone")
	}
	reminder := expectedReminder(t)
	for _, tc := range []struct{ name, dir string }{{"root", c.s.repo}, {"sub-folder", c.s.startIn(t, startSub)}} {
		t.Run(tc.name, func(t *testing.T) {
			c.m = newResponsesMock(t)
			c.home = codexHome(t, c.s, c.m)
			kbs := c.s.kbsCalls(t)
			dev := c.exec(t, ctx, tc.dir)
			c.noTrustRecorded(t)
			if n := strings.Count(dev, reminder); n != 1 {
				t.Errorf("the request after the compaction has the reminder %d times in developer messages, want once\n%.2000s", n, dev)
			}
			if k := c.s.kbsCalls(t) - kbs; k != 1 {
				t.Errorf("kbs ran %d times, want once", k)
			}
		})
	}
}

// codexLayers installs a probe in each layer asked for: managed
// (requirements.toml), user ($CODEX_HOME/hooks.json) and project
// (.codex/hooks.json), and records through Codex's own app-server the
// trust of the user and project probes (and the project's), as a person
// reviewing them in /hooks would.
func (c *codexManaged) codexLayers(t *testing.T, ctx context.Context, p *layerProbes, requirementsHead string, layers ...string) {
	t.Helper()
	c.codexLayersRunning(t, ctx, p, requirementsHead, "", layers...)
}

// codexLayersRunning is codexLayers with every layer also running the one
// probe script shared, where shared is not "".
func (c *codexManaged) codexLayersRunning(t *testing.T, ctx context.Context, p *layerProbes, requirementsHead, shared string, layers ...string) {
	t.Helper()
	commands := func(path, label string) []string {
		cmds := []string{p.script(t, path, label)}
		if shared != "" {
			cmds = append(cmds, shared)
		}
		return cmds
	}
	var trust []string
	for _, l := range layers {
		switch l {
		case "managed":
			c.file(t, "requirements.toml", requirementsHead+codexRequirementsHooks(managedDirLine, commands(filepath.Join(c.libexec, "managed.sh"), "managed")...))
		case "user":
			cmds := commands(filepath.Join(c.home, "hooks", "user.sh"), "user")
			writeFile(t, filepath.Join(c.home, "hooks.json"), codexHooksJSON(cmds...), 0o644)
			trust = append(trust, cmds...)
		case "project":
			cmds := commands(filepath.Join(c.s.repo, ".codex", "hooks", "project.sh"), "project")
			writeFile(t, filepath.Join(c.s.repo, ".codex", "hooks.json"), codexHooksJSON(cmds...), 0o644)
			trust = append(trust, cmds...)
		default:
			t.Fatalf("no layer %q", l)
		}
	}
	if len(trust) == 0 {
		return
	}
	res, err := codex.Trust(ctx, codex.Options{Codex: c.bin, Env: c.env, Dir: c.s.repo, ClientVersion: "nowhook-e2e"}, codex.TrustRequest{
		Root: c.s.repo, Project: true,
		Select: func(h codex.Hook) bool {
			for _, s := range trust {
				if h.Command == s {
					return true
				}
			}
			return false
		},
	})
	if err != nil {
		t.Fatalf("recording the probes' trust: %v", err)
	}
	if len(res.Hooks) != len(trust) {
		t.Fatalf("trusted %d hooks, want %d", len(res.Hooks), len(trust))
	}
}

// TestCodexManagedHooksOnly measures allow_managed_hooks_only in Codex CLI
// 0.171.0: top-level in requirements.toml, it drops the user's and the
// project's hooks (trusted though they are) and keeps the managed one;
// with nowhook's own project install (setup --trust-codex) and the switch
// there is no reminder and kbs never runs; in the user's config.toml the
// switch does nothing.
func TestCodexManagedHooksOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	const only = "allow_managed_hooks_only = true\n\n"

	t.Run("requirements", func(t *testing.T) {
		c := newCodexManaged(t, ctx, kbsFixture)
		p := newLayerProbes(t, 1)
		c.codexLayers(t, ctx, p, "", "managed", "user", "project")
		c.file(t, "requirements.toml", only+codexRequirementsHooks(managedDirLine, filepath.Join(c.libexec, "managed.sh")))
		c.list(t, ctx, c.s.repo)
		dev := c.exec(t, ctx, c.s.repo)
		for l, want := range map[string]int{"managed": 1, "user": 0, "project": 0} {
			if n := strings.Count(dev, layerMarker(l)); n != want {
				t.Errorf("with allow_managed_hooks_only, the %s hook's output is %d times in the request after the compaction, want %d", l, n, want)
			}
		}
		checkSet(t, "probe runs", labels(p.runs(t)), []string{"managed"})
	})

	t.Run("user-config", func(t *testing.T) {
		c := newCodexManaged(t, ctx, kbsFixture)
		p := newLayerProbes(t, 1)
		c.codexLayers(t, ctx, p, "", "user", "project")
		cfg := filepath.Join(c.home, "config.toml")
		b, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, cfg, only+string(b), 0o644)
		// --strict-config refuses the key in config.toml, naming it.
		res := runCmd(t, ctx, c.env, c.s.repo, "", c.bin, "exec", "--strict-config", "hello")
		if res.err == nil || !strings.Contains(res.stderr, "unknown configuration field `allow_managed_hooks_only`") {
			t.Errorf("codex exec --strict-config with allow_managed_hooks_only in config.toml: %v, want a failure naming the unknown field\n%s", res.err, res.stderr)
		}
		// Without it the key is ignored: both hooks run.
		res = runCmd(t, ctx, c.env, c.s.repo, "", c.bin, "exec", "hello")
		if res.err != nil {
			t.Fatalf("codex exec: %v\n%s", res.err, res.stderr)
		}
		reqs := c.m.Requests()
		dev := strings.Join(developerTexts(t, reqs[compactionIndex(t, reqs)+1].Body), "\n")
		for _, l := range []string{"user", "project"} {
			if n := strings.Count(dev, layerMarker(l)); n != 1 {
				t.Errorf("with allow_managed_hooks_only in the user's config.toml, the %s hook's output is %d times in the request after the compaction, want once", l, n)
			}
		}
	})

	t.Run("nowhook-project-install", func(t *testing.T) {
		c := newCodexManaged(t, ctx, kbsFixture)
		setupCodex(t, ctx, c.s, c.bin, c.env)
		checkCodexTrustedIn(t, ctx, c.bin, c.env, c.s.repo)
		c.file(t, "requirements.toml", only)
		dev := c.exec(t, ctx, c.s.repo)
		if n := strings.Count(dev, expectedReminder(t)); n != 0 {
			t.Errorf("with allow_managed_hooks_only, nowhook's trusted project hook put the reminder %d times into the request after the compaction, want none", n)
		}
		if k := c.s.kbsCalls(t); k != 0 {
			t.Errorf("with allow_managed_hooks_only, kbs ran %d times: Codex ran the project hook", k)
		}
	})
}

// TestCodexManagedSystemLayers measures Codex CLI 0.171.0's other system
// files. A SessionStart compact group in /etc/codex/config.toml's [hooks],
// in /etc/codex/hooks.json (the system config layer's hook file, the
// project hooks.json's schema) and in the legacy
// /etc/codex/managed_config.toml is each listed as managed, trust
// "managed" (source "system", or "legacyManagedConfigFile" for
// managed_config.toml), and runs in `codex exec --strict-config` with no
// trust recorded, under allow_managed_hooks_only = true in
// requirements.toml: all three are managed layers. With both hooks.json
// and inline hooks in config.toml, Codex warns that the layer has two
// representations. A system hooks.json that is not JSON costs only its own
// hooks (a warning); a requirements.toml or config.toml that is not TOML
// stops Codex before its first request.
func TestCodexManagedSystemLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()

	t.Run("three-files", func(t *testing.T) {
		c := newCodexManaged(t, ctx, kbsFixture)
		p := newLayerProbes(t, 1)
		files := map[string]struct{ label, source string }{
			"config.toml":         {"config", "system"},
			"hooks.json":          {"json", "system"},
			"managed_config.toml": {"legacy", "legacyManagedConfigFile"},
		}
		scripts := map[string]string{}
		for file, f := range files {
			script := p.script(t, filepath.Join(c.libexec, f.label+".sh"), f.label)
			scripts[script] = file
			if strings.HasSuffix(file, ".json") {
				c.file(t, file, codexHooksJSON(script))
			} else {
				c.file(t, file, codexRequirementsHooks("", script))
			}
		}
		c.file(t, "requirements.toml", "allow_managed_hooks_only = true\n")
		hl := c.list(t, ctx, c.s.repo)
		const warn = "loading hooks from both /etc/codex/hooks.json and /etc/codex/config.toml"
		if !strings.Contains(strings.Join(hl.Warnings, "\n"), warn) {
			t.Errorf("hooks/list: warnings %v, want %q", hl.Warnings, warn)
		}
		if len(hl.Hooks) != len(files) {
			t.Fatalf("hooks/list: %d hooks, want one from each of %d files", len(hl.Hooks), len(files))
		}
		for _, h := range hl.Hooks {
			file, ok := scripts[h.Command]
			if !ok {
				t.Errorf("hooks/list: a hook %q that is none of the probes", h.Command)
				continue
			}
			if !h.IsManaged || h.TrustStatus != codex.StatusManaged || h.Source != files[file].source || h.SourcePath != codexManagedDir+"/"+file {
				t.Errorf("hooks/list: %s's hook is managed %v, trust %q, source %q, sourcePath %s; want managed, %q, %q, %s/%s",
					file, h.IsManaged, h.TrustStatus, h.Source, h.SourcePath, codex.StatusManaged, files[file].source, codexManagedDir, file)
			}
		}
		dev := c.exec(t, ctx, c.s.repo)
		c.noTrustRecorded(t)
		for file, f := range files {
			if n := strings.Count(dev, layerMarker(f.label)); n != 1 {
				t.Errorf("under allow_managed_hooks_only, %s's hook output is %d times in the request after the compaction, want once", file, n)
			}
		}
	})

	for _, tc := range []struct {
		file, say string
		starts    bool
	}{
		{"hooks.json", "failed to parse hooks config /etc/codex/hooks.json", true},
		{"requirements.toml", "failed to parse requirements layer /etc/codex/requirements.toml", false},
		{"config.toml", "/etc/codex/config.toml:1:1: invalid key-value pair", false},
	} {
		t.Run("broken-"+strings.ReplaceAll(tc.file, ".", "-"), func(t *testing.T) {
			c := newCodexManaged(t, ctx, kbsFixture)
			c.file(t, tc.file, "{ not valid,,\n")
			res := runCmd(t, ctx, c.env, c.s.repo, "", c.bin, "exec", "--strict-config", "hello")
			if started := res.err == nil && len(c.m.Requests()) > 0; started != tc.starts || !strings.Contains(res.stderr, tc.say) {
				t.Errorf("codex exec with a broken /etc/codex/%s: %v, %d requests; want it to start: %v, and to say %q\n%s", tc.file, res.err, len(c.m.Requests()), tc.starts, tc.say, res.stderr)
			}
		})
	}
}

// TestCodexManagedThreeLayers measures what Codex CLI 0.171.0 does with a
// SessionStart compact hook in each of three layers (requirements.toml,
// the user's hooks.json, the project's hooks.json, the last two trusted
// through Codex's app-server), and one more command all three hold byte
// for byte, which the one-reminder rule rests on:
//   - the shared command is not merged: it runs three times and its output
//     is three times in the next request;
//   - all six run together (each saw the others started), each with one
//     payload (session_id, transcript_path, cwd, hook_event_name
//     SessionStart, source compact, model, permission_mode) and no
//     variable naming the project (CODEX_HOME only).
func TestCodexManagedThreeLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	c := newCodexManaged(t, ctx, kbsFixture)
	p := newLayerProbes(t, 6)
	same := p.script(t, filepath.Join(c.libexec, "same.sh"), "same")
	c.codexLayersRunning(t, ctx, p, "", same, "managed", "user", "project")
	dev := c.exec(t, ctx, c.s.repo)
	var order []string
	for l, want := range map[string]int{"managed": 1, "user": 1, "project": 1, "same": 3} {
		if n := strings.Count(dev, layerMarker(l)); n != want {
			t.Errorf("the %s hook's output is %d times in the request after the compaction, want %d", l, n, want)
		}
		order = append(order, fmt.Sprintf("%s@%d", l, strings.Index(dev, layerMarker(l))))
	}
	all := []string{"managed", "project", "same", "same", "same", "user"}
	runs := p.runs(t)
	checkSet(t, "probe runs", labels(runs), all)
	for _, r := range runs {
		checkSet(t, r.label+" hook: the probes started while it ran", r.saw, all)
		if r.payload["source"] != "compact" || r.payload["hook_event_name"] != "SessionStart" || r.payload["cwd"] != c.s.repo {
			t.Errorf("%s hook: payload %v, want source compact, hook_event_name SessionStart, cwd %s", r.label, r.payload, c.s.repo)
		}
		for _, k := range []string{"session_id", "transcript_path"} {
			if r.payload[k] == nil || r.payload[k] != runs[0].payload[k] {
				t.Errorf("%s hook: payload %s = %v, %s hook's %v: the layers do not share it", r.label, k, r.payload[k], runs[0].label, runs[0].payload[k])
			}
		}
		if v := envWith(r.env, "CODEX_PROJECT", "CLAUDE_PROJECT"); len(v) > 0 {
			t.Errorf("%s hook: the environment names the project now: %v", r.label, v)
		}
		t.Logf("%s hook: payload keys %v; env %v", r.label, payloadKeys(r.payload), envWith(r.env, "CODEX_HOME"))
	}
	t.Logf("where each output first starts in the developer messages: %v", order)
}
