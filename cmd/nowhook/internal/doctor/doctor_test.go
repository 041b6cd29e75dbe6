package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/scripts"
	"github.com/nowhook/nowhook/templates"
)

// repo is a scratch repository with its own HOME and PATH.
type repo struct {
	t    *testing.T
	root string
	home string
	bin  string // first on PATH
	env  []string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	root := realTemp(t)
	home := realTemp(t)
	bin := realTemp(t)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, root: root, home: home, bin: bin}
	r.env = []string{
		"HOME=" + home,
		"PATH=" + bin + ":/usr/bin:/bin",
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"LANG=C.UTF-8",
	}
	return r
}

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (r *repo) write(rel, content string, mode os.FileMode) string {
	r.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.root, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// kbs puts a fake kbs on PATH that runs body (sh).
func (r *repo) kbs(body string) {
	r.write(filepath.Join(r.bin, "kbs"), "#!/bin/sh\n"+body+"\n", 0o755)
}

// install writes what setup writes for claude or codex (re-inject).
func (r *repo) install(agent string, budget time.Duration) {
	r.t.Helper()
	var schema generate.HookFile
	var hook generate.Hook
	var script string
	switch agent {
	case "claude":
		schema, hook, script = agentpkg.ClaudeSettings, generate.CompactGroup(agentpkg.ClaudeCommand, agentpkg.ClaudeScript, budget), agentpkg.ClaudeScript
		// Compact Instructions: in a CLAUDE.md of the user's, else in the
		// rules file setup creates instead (a CLAUDE.md would hide AGENTS.md).
		file := "CLAUDE.md"
		if r.read(file) == nil {
			file = agentpkg.ClaudeRulesFile
		}
		md, err := generate.MergeBlock(file, r.read(file), generate.Block{Name: "compact-instructions", Version: templates.Version, Body: templates.CompactInstructions, Heading: "Compact Instructions"})
		if err != nil {
			r.t.Fatal(err)
		}
		r.write(file, string(md), 0o644)
	case "codex":
		schema, hook, script = agentpkg.CodexHooks, generate.CompactGroup(agentpkg.CodexCommand, agentpkg.CodexScript, budget), agentpkg.CodexScript
	default:
		r.t.Fatalf("install %s", agent)
	}
	b, err := schema.MergeHook(r.read(schema.Path), hook)
	if err != nil {
		r.t.Fatal(err)
	}
	r.write(schema.Path, string(b), 0o644)
	r.write(script, string(generate.Script(templates.RenderWrapper(budget, ""), templates.Version)), 0o755)
	md, err := generate.MergeBlock("AGENTS.md", r.read("AGENTS.md"), generate.Block{Name: agentpkg.OnDemandBlock.Block.Name, Version: templates.Version, Body: templates.OnDemand})
	if err != nil {
		r.t.Fatal(err)
	}
	r.write("AGENTS.md", string(md), 0o644)
}

func (r *repo) read(rel string) []byte {
	b, _ := os.ReadFile(filepath.Join(r.root, rel))
	return b
}

func (r *repo) run(extraEnv ...string) []Finding {
	r.t.Helper()
	return r.report(extraEnv...).Findings
}

func (r *repo) report(extraEnv ...string) Report {
	r.t.Helper()
	return Run(context.Background(), Options{Root: r.root, Env: append(append([]string(nil), r.env...), extraEnv...), LiveLimit: 10 * time.Second})
}

// runLive is doctor --live: every installed hook run, with its own budget.
func (r *repo) runLive(extraEnv ...string) []Finding {
	r.t.Helper()
	return Run(context.Background(), Options{Root: r.root, Env: append(append([]string(nil), r.env...), extraEnv...), LiveLimit: 10 * time.Second, Live: true}).Findings
}

// agentNamed returns what doctor found of the agent called name.
func agentNamed(t *testing.T, d *doctor, name string) *agent {
	t.Helper()
	for _, a := range d.agents {
		if a.p.Name == name {
			return a
		}
	}
	t.Fatalf("doctor has no agent %s", name)
	return nil
}

// worst is the highest severity among findings.
func worst(fs []Finding) Severity {
	w := OK
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// find returns the findings of one check.
func find(fs []Finding, check string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

func dump(fs []Finding) string {
	var b bytes.Buffer
	WriteTable(&b, fs)
	return b.String()
}

// expectOne asserts that check has exactly one finding of severity sev
// whose message contains every part.
func expectOne(t *testing.T, fs []Finding, check string, sev Severity, parts ...string) Finding {
	t.Helper()
	got := find(fs, check)
	if len(got) != 1 {
		t.Fatalf("want one %s finding, got %d:\n%s", check, len(got), dump(fs))
	}
	f := got[0]
	if f.Severity != sev {
		t.Errorf("%s: severity %s, want %s: %s", check, f.Severity, sev, f.Message)
	}
	for _, p := range parts {
		if !strings.Contains(f.Message, p) {
			t.Errorf("%s: message lacks %q: %s", check, p, f.Message)
		}
	}
	return f
}

// TestEveryAgentHasChecks: doctor derives each agent's checks from its
// row: mode and reach first (with client between them for an agent with a
// pin in scripts/pins.tsv), every row name once, and each of the agent's
// own checks (Doctor.Quirks) named and runnable; where the agent has hook
// files (an agent may have none: OpenCode loads plugins), a hook format
// doctor can read.
func TestEveryAgentHasChecks(t *testing.T) {
	for _, p := range agentpkg.All {
		cs := agentChecks(p)
		first := []string{"mode", "reach"}
		if len(scripts.Proven(p.Name)) > 0 {
			first = []string{"mode", "client", "reach"}
		}
		if got := checkNames(cs); len(got) < len(first) || strings.Join(got[:len(first)], " ") != strings.Join(first, " ") {
			t.Errorf("agent %s: doctor's checks %v do not start with %v", p.Name, got, first)
		}
		seen := map[string]bool{}
		for _, c := range cs {
			if seen[c.Name()] {
				t.Errorf("agent %s: two checks are named %s", p.Name, c.Name())
			}
			seen[c.Name()] = true
		}
		for _, q := range p.Doctor.Quirks {
			if q.Name == "" || q.Run == nil {
				t.Errorf("agent %s: a check of its own has no name or no Run: %+v", p.Name, q)
			}
		}
		if len(p.Hooks.Files) == 0 {
			if len(p.HookEntries()) > 0 {
				t.Errorf("agent %s writes hook entries but lists no hook files", p.Name)
			}
			continue
		}
		switch p.Hooks.Layout {
		case agentpkg.LayoutGrouped, agentpkg.LayoutFlat, agentpkg.LayoutNamed:
		default:
			t.Errorf("agent %s: unknown hook layout %q", p.Name, p.Hooks.Layout)
		}
	}
}

// TestMatcher follows PLATFORMS.md: plain words match exactly and
// case-sensitively, a|b names, * and empty match all, regexes search, an
// invalid regex never matches.
func TestMatcher(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		matcher *string
		match   bool
		others  string // the other sources it selects
	}{
		{nil, true, "startup resume clear fork"},
		{s(""), true, "startup resume clear fork"},
		{s("*"), true, "startup resume clear fork"},
		{s("compact"), true, ""},
		{s("Compact"), false, ""},
		{s("comp"), false, ""},
		{s("compact "), false, ""},
		{s("startup|compact"), true, "startup"},
		{s("startup|resume"), false, ""},
		{s("comp.*"), true, ""},
		{s("^compact$"), true, ""},
		{s("act"), false, ""}, // a plain word, not a search
		{s("a.t"), true, "startup"},
		{s(".*"), true, "startup resume clear fork"},
		{s("(compact"), false, ""},
		{s("[c"), false, ""},
	}
	for _, c := range cases {
		got := matchMatcher(c.matcher, "compact")
		name := "<nil>"
		if c.matcher != nil {
			name = strconv.Quote(*c.matcher)
		}
		if got.matches != c.match || strings.Join(got.others, " ") != c.others {
			t.Errorf("matcher %s: matches=%v others=%q, want %v %q (%s)", name, got.matches, got.others, c.match, c.others, got.why)
		}
		if got.why == "" {
			t.Errorf("matcher %s: no explanation", name)
		}
	}
}

func TestRunsReminder(t *testing.T) {
	yes := []string{
		agentpkg.ClaudeCommand,
		agentpkg.CodexCommand,
		".claude/hooks/kanbus-compaction-right-now.sh",
		"kbs now --json --list",
		"cd x && kanbus now",
		"nowhook reminder --timeout 5s",
		`"$KBS_BIN"; kbs now`,
	}
	no := []string{"echo hello", "kbsnow", "npx kbs-now-helper", "git status", "echo 'now'"}
	for _, c := range yes {
		if !runsReminder(c) {
			t.Errorf("runsReminder(%q) = false", c)
		}
	}
	for _, c := range no {
		if runsReminder(c) {
			t.Errorf("runsReminder(%q) = true", c)
		}
	}
}

func TestSeverityJSON(t *testing.T) {
	for _, s := range []Severity{OK, Info, Warn, Error} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s: %s -> %v (%v)", s, b, back, err)
		}
	}
}

// TestCleanClaude: a fresh install with a working kbs is all ok, and the
// live runs report each scenario.
func TestCleanClaude(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs(`echo '[{"id": "kbs-1", "title": "T", "status": "in_progress", "priority": 1}]'`)
	r.install("claude", time.Second)
	fs := r.run()
	for _, f := range fs {
		// live.claude is judged below, whatever its severity: under the
		// quick runs' 500ms a busy machine's python3 fallback may not
		// reach kbs in time ("printed nothing although kbs lists 1 item").
		if f.Severity > Info && f.Check != "runtime" && f.Check != "subfolders.claude" && f.Check != "live.claude" {
			t.Errorf("unexpected %s %s: %s", f.Severity, f.Check, f.Message)
		}
	}
	// With no start folder below the root, the sub-folder row is advice.
	expectOne(t, fs, "subfolders.claude", Info, "sessions started in a sub-folder get no reminder", "only from the directory it starts in")
	expectOne(t, fs, "claude.hook", OK, `matcher "compact"`, "timeout 6s")
	expectOne(t, fs, "claude.script", OK, fmt.Sprintf("current template (v%d)", templates.Version))
	expectOne(t, fs, "kanbus.query", OK, "1 item")
	live := expectOne(t, fs, "live.claude", find(fs, "live.claude")[0].Severity, "failing kbs", "hanging kbs")
	if !strings.Contains(live.Message, "your kbs") {
		t.Errorf("live: %s", live.Message)
	}
	for _, f := range fs {
		if f.Check == "codex.trust" || strings.HasPrefix(f.Check, "cursor") {
			t.Errorf("reported an agent that is neither set up nor detected: %s", f.Check)
		}
	}
}

// TestKanbusFailures: each way kbs fails has its own message.
func TestKanbusFailures(t *testing.T) {
	cases := []struct {
		name, body string
		sev        Severity
		want       string
	}{
		{"noai", `for a; do [ "$a" = --raw ] && { echo '[]'; exit 0; }; done; echo 'Error: Right-now summary generation requires ai.provider litellm in .kanbus.yml' >&2; exit 1`, Warn, "falls back to --raw"},
		{"garbage", `echo 'Traceback: oops'`, Error, "not a JSON array"},
		{"object", `echo '{"items": []}'`, Error, "not a JSON array"},
		{"timeout", `exec sleep 30`, Error, "did not answer within"},
		{"fails", `echo 'kbs: kanbus-version mismatch' >&2; exit 1`, Error, "exits 1 (kbs: kanbus-version mismatch)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
			r.write(".claude/settings.json", "{}\n", 0o644)
			r.kbs(c.body)
			d := newDoctor(Options{Root: r.root, Env: r.env})
			d.scan()
			d.slow.query = start(func() kbsQuery {
				return d.runQuery(context.Background(), filepath.Join(r.bin, "kbs"), r.root, 2*time.Second, 2*time.Second)
			})
			fs := d.run(kanbusQueryCheck, nil, "kanbus.query")
			expectOne(t, fs, "kanbus.query", c.sev, c.want)
		})
	}
	t.Run("not installed", func(t *testing.T) {
		r := newRepo(t)
		r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
		r.install("claude", time.Second)
		fs := r.run()
		expectOne(t, fs, "kanbus.cli", Error, "neither kbs nor kanbus is on PATH")
		if len(find(fs, "kanbus.query")) != 0 {
			t.Error("queried a kbs that is not installed")
		}
	})
	t.Run("no config", func(t *testing.T) {
		r := newRepo(t)
		r.kbs("echo '[]'")
		r.install("claude", time.Second)
		fs := r.run()
		expectOne(t, fs, "kanbus.config", Error, "no .kanbus.yml")
		live := expectOne(t, fs, "live.claude", OK, "kbs not called: no .kanbus.yml")
		_ = live
	})
}

// TestLiveHangingWrapper: a wrapper that hangs is stopped at the limit,
// with its processes, and doctor returns. (The row says doctor stopped it,
// never timed; the limit leaves each run room to record its pid first.)
func TestLiveHangingWrapper(t *testing.T) {
	r := newRepo(t)
	r.install("claude", time.Second)
	pidFile := filepath.Join(realTemp(t), "pids")
	r.write(agentpkg.ClaudeScript, "#!/bin/sh\necho $$ >>"+pidFile+"\nexec sleep 30\n", 0o755)
	fs := Run(context.Background(), Options{Root: r.root, Env: r.env, LiveLimit: 5 * time.Second, Live: true}).Findings
	expectOne(t, fs, "live.claude", Error, "stopped by doctor")
	expectOne(t, fs, "claude.script", Warn, "no nowhook signature")
	for _, pid := range readPids(pidFile) {
		if osutil.Running(pid) {
			t.Errorf("the hanging wrapper (pid %d) is still running", pid)
		}
	}
	if n := len(readPids(pidFile)); n != 3 {
		t.Errorf("the wrapper ran %d times, want 3", n)
	}
}

// TestLiveStrayKbs: a wrapper that leaves kbs running is an error, and
// doctor kills what it left.
func TestLiveStrayKbs(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs("echo '[]'")
	r.install("claude", time.Second)
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("needs /usr/bin/setsid to start kbs outside the wrapper's process group")
	}
	// kbs in a session of its own: killing the wrapper's group misses it.
	// The wrapper exits once a fake kbs has recorded its pid (its calls
	// file, beside it), not after a sleep that a busy machine outlasts.
	r.write(agentpkg.ClaudeScript, "#!/bin/sh\n/usr/bin/setsid \"${KBS:-kbs}\" now --json --list >/dev/null 2>&1 &\n"+
		"[ -z \"$KBS\" ] || while [ ! -s \"${KBS%/*}/calls\" ]; do sleep 0.01; done\nexit 0\n", 0o755)
	fs := r.runLive()
	live := expectOne(t, fs, "live.claude", Error, "left kbs running")
	if !strings.Contains(live.Message, "hanging kbs") {
		t.Errorf("live: %s", live.Message)
	}
}

// TestCodexTrustRecorded checks the computed trust against the hash the
// real codex 0.171.0 reported for the same hooks.json (testdata/codex-trust).
func TestCodexTrustRecorded(t *testing.T) {
	hooks, err := os.ReadFile("../../../../testdata/codex-trust/ours.hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Hooks []struct{ Key, Command, CurrentHash string } `json:"hooks"`
	}
	b, err := os.ReadFile("../../../../testdata/codex-trust/ours.recorded.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	var key, hash string
	for _, h := range rec.Hooks {
		if strings.Contains(h.Command, "kanbus-compaction-right-now") {
			key, hash = h.Key, h.CurrentHash
		}
	}
	if hash == "" {
		t.Fatal("the recording has no hook of ours")
	}
	cases := []struct {
		name, config string
		sev          Severity
		want         string
		n            int
	}{
		{"no config", "", Info, "has no [projects.", 2},
		{"project only", "[projects.\"$REPO\"]\ntrust_level = \"trusted\"\n", Info, "is not trusted", 1},
		{"trusted", "[projects.\"$REPO\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"" + key + "\"]\ntrusted_hash = \"" + hash + "\"\n", OK, "is trusted", 1},
		{"modified", "[projects.\"$REPO\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:00\"\n", Info, "changed since it was trusted", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write(".codex/hooks.json", string(hooks), 0o644)
			r.write(agentpkg.CodexScript, string(generate.Script(templates.RenderWrapper(time.Second, ""), templates.Version)), 0o755)
			if c.config != "" {
				r.write(filepath.Join(r.home, ".codex", "config.toml"), strings.ReplaceAll(c.config, "$REPO", r.root), 0o600)
			}
			fs := r.run()
			got := find(fs, "codex.trust")
			if len(got) != c.n {
				t.Fatalf("%d codex.trust findings, want %d:\n%s", len(got), c.n, dump(fs))
			}
			found := false
			for _, f := range got {
				found = found || strings.Contains(f.Message, c.want)
				if f.Severity != c.sev || !strings.Contains(f.Message, "computed by nowhook") {
					t.Errorf("got %s %s", f.Severity, f.Message)
				}
				// codex is not on PATH: the fix installs it first.
				if c.sev != OK && f.Fix != "npm install -g @openai/codex@0.171.0 && nowhook setup --yes --agents codex --trust-codex" {
					t.Errorf("fix %q", f.Fix)
				}
			}
			if !found {
				t.Errorf("no finding says %q:\n%s", c.want, dump(got))
			}
		})
	}
}

// realCodex finds the real codex: CODEX_BIN, PATH, or the pinned client
// under the user cache directory; it skips the test without one.
func realCodex(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CODEX_BIN"); bin != "" && osutil.IsExecutable(bin) {
		return bin
	}
	if bin, ok := osutil.LookPath(os.Environ(), "codex"); ok {
		return bin
	}
	if dir, err := os.UserCacheDir(); err == nil {
		bin := filepath.Join(dir, "nowhook", "agents", "codex", "node_modules", ".bin", "codex")
		if osutil.IsExecutable(bin) {
			return bin
		}
	}
	t.Skip("real codex not found (set CODEX_BIN, put codex on PATH, or run scripts/install-agents.sh): skipping")
	return ""
}

// TestCodexTrustAppServer: with codex available, doctor asks codex
// app-server, says so, and agrees with its own computation.
func TestCodexTrustAppServer(t *testing.T) {
	bin := realCodex(t)
	r := newRepo(t)
	r.install("codex", time.Second)
	codexHome := filepath.Join(r.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	// The npm launcher needs node from the real PATH.
	env := append(append([]string(nil), r.env...), "PATH="+r.bin+":"+os.Getenv("PATH"))
	run := func(withCodex bool) []Finding {
		e := append([]string(nil), env...)
		if withCodex {
			e = append(e, "CODEX_BIN="+bin)
		} else {
			e = append(e, "PATH="+r.bin+":/usr/bin:/bin")
		}
		return Run(context.Background(), Options{Root: r.root, Env: e, LiveLimit: 10 * time.Second, Live: true}).Findings
	}
	verdict := func(fs []Finding, source string) (Severity, string) {
		t.Helper()
		got := find(fs, "codex.trust")
		if len(got) == 0 {
			t.Fatalf("no codex.trust finding:\n%s", dump(fs))
		}
		var msgs []string
		for _, f := range got {
			if !strings.Contains(f.Message, source) {
				t.Errorf("codex.trust does not say %q: %s", source, f.Message)
			}
			msgs = append(msgs, f.Message)
		}
		return worst(got), strings.Join(msgs, "\n")
	}

	// Untrusted project: both sources say Codex skips the hooks.
	sev, msg := verdict(run(true), "reported by codex 0.171.0 app-server hooks/list")
	if sev != Warn || !strings.Contains(msg, "does not load .codex/") {
		t.Errorf("untrusted, from codex: %s %s", sev, msg)
	}
	// Without codex on PATH nothing here skips the hook: info.
	if sev, msg := verdict(run(false), "computed by nowhook"); sev != Info || !strings.Contains(msg, "does not load .codex/") {
		t.Errorf("untrusted, computed: %s %s", sev, msg)
	}

	// Trusted project and hook, with the hash nowhook computes: codex agrees.
	hooks := diag.ReadHookFile(filepath.Join(r.root, ".codex", "hooks.json"), ".codex/hooks.json", false, hookFormat(mustPlatform(t, "codex")))
	h := hooks.Handlers[0]
	hash, err := codex.HookHash(h.Event, h.GroupJSON, h.Index)
	if err != nil {
		t.Fatal(err)
	}
	config := "[projects.\"" + r.root + "\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"" + codex.HookKey(h.File.Abs, h.Event, h.Group, h.Index) + "\"]\ntrusted_hash = \"" + hash + "\"\n"
	r.write(filepath.Join(codexHome, "config.toml"), config, 0o600)
	if sev, msg := verdict(run(true), "reported by codex"); sev != OK || !strings.Contains(msg, "is trusted") {
		t.Errorf("trusted, from codex: %s %s", sev, msg)
	}
	if sev, msg := verdict(run(false), "computed by nowhook"); sev != OK || !strings.Contains(msg, "is trusted") {
		t.Errorf("trusted, computed: %s %s", sev, msg)
	}

	// A hook edited after it was trusted: both say modified.
	b := r.read(".codex/hooks.json")
	r.write(".codex/hooks.json", strings.Replace(string(b), `"timeout": 6`, `"timeout": 7`, 1), 0o644)
	if sev, msg := verdict(run(true), "reported by codex"); sev != Warn || !strings.Contains(msg, "changed since it was trusted") {
		t.Errorf("modified, from codex: %s %s", sev, msg)
	}
	if sev, msg := verdict(run(false), "computed by nowhook"); sev != Info || !strings.Contains(msg, "changed since it was trusted") {
		t.Errorf("modified, computed: %s %s", sev, msg)
	}
}

func mustPlatform(t *testing.T, name string) *agentpkg.Agent {
	t.Helper()
	p, ok := agentpkg.Lookup(name)
	if !ok {
		t.Fatalf("no platform %s", name)
	}
	return p
}

// TestScriptVersions: a signed wrapper of an older or newer template
// version is a warning with the right fix.
func TestScriptVersions(t *testing.T) {
	for _, c := range []struct {
		version int
		want    string
		fix     string
	}{
		{templates.Version - 1, "older than this nowhook's", "nowhook setup --yes --agents claude=reinject"},
		{templates.Version + 1, "newer than this nowhook's", "upgrade nowhook (./install.sh in a current nowhook checkout)"},
	} {
		r := newRepo(t)
		r.install("claude", time.Second)
		r.write(agentpkg.ClaudeScript, string(generate.Script(templates.RenderWrapper(time.Second, ""), c.version)), 0o755)
		d := newDoctor(Options{Root: r.root, Env: r.env})
		d.scan()
		f := expectOne(t, d.run(scriptCheck, agentNamed(t, d, "claude"), "claude.script"), "claude.script", Warn, fmt.Sprintf("template v%d, %s v%d", c.version, c.want, templates.Version))
		if f.Fix != c.fix {
			t.Errorf("v%d: fix %q, want %q", c.version, f.Fix, c.fix)
		}
	}
}

// TestRunnerFillsIn: a check returns only what it found; the runner names
// the row after the agent and the check, sets the agent, keeps each
// message and fix on one line with $HOME as ~, and keeps the worst
// severity (chezmoi's doctor runner).
func TestRunnerFillsIn(t *testing.T) {
	r := newRepo(t)
	r.install("claude", time.Second)
	d := newDoctor(Options{Root: r.root, Env: r.env})
	d.scan()
	c := checkFunc{"probe", func(d *doctor, a *agent) []Finding {
		return []Finding{
			{Severity: Warn, Message: "read " + r.home + "/.claude/settings.json\nand more", Fix: "edit " + r.home + "/x", Path: r.home + "/.claude/settings.json"},
			{Message: "fine"},
		}
	}}
	fs := d.run(c, agentNamed(t, d, "claude"), "claude.probe")
	if len(fs) != 2 {
		t.Fatalf("%d findings", len(fs))
	}
	f := fs[0]
	if f.Check != "claude.probe" || f.Agent != "claude" || f.Severity != Warn {
		t.Errorf("check %q agent %q severity %s", f.Check, f.Agent, f.Severity)
	}
	if f.Message != "read ~/.claude/settings.json and more" || f.Fix != "edit ~/x" {
		t.Errorf("message %q fix %q", f.Message, f.Fix)
	}
	if f.Path != r.home+"/.claude/settings.json" {
		t.Errorf("path %q: --json keeps a path programs can open", f.Path)
	}
	if shared := d.run(c, nil, "probe"); shared[0].Check != "probe" || shared[0].Agent != "" {
		t.Errorf("shared check: %q agent %q", shared[0].Check, shared[0].Agent)
	}

	rep := r.report()
	if want := worst(rep.Findings); rep.Worst != want {
		t.Errorf("Report.Worst = %s, the findings' worst is %s", rep.Worst, want)
	}
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Check, f.Agent+".") && f.Agent != "" && f.Check != "live."+f.Agent && f.Check != "subfolders."+f.Agent {
			t.Errorf("row %s names agent %q", f.Check, f.Agent)
		}
	}
}

// TestCommandFiles: the files a hook command runs, in the shapes found in
// real settings files.
func TestCommandFiles(t *testing.T) {
	r := newRepo(t)
	r.write(".claude/settings.json", "{}\n", 0o644)
	for _, f := range []string{".claude/hooks/a.sh", ".claude/hooks/b.py", "guard.sh", "scripts/c.sh"} {
		r.write(f, "#!/bin/sh\n", 0o755)
	}
	r.write(filepath.Join(r.home, ".claude", "hooks", "u.sh"), "#!/bin/sh\n", 0o755)
	d := newDoctor(Options{Root: r.root, Env: r.env})
	d.scan()
	claude := agentNamed(t, d, "claude")
	abs := func(rel string) string { return filepath.Join(r.root, rel) }
	cases := map[string][]string{
		".claude/hooks/a.sh":                            {abs(".claude/hooks/a.sh")},
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh`:      {abs(".claude/hooks/a.sh")},
		`${CLAUDE_PROJECT_DIR}/.claude/hooks/a.sh arg`:  {abs(".claude/hooks/a.sh")},
		`bash "$CLAUDE_PROJECT_DIR/.claude/hooks/a.sh"`: {abs(".claude/hooks/a.sh")},
		"bash --noprofile --norc .claude/hooks/a.sh":    {abs(".claude/hooks/a.sh")},
		"bash guard.sh":             {abs("guard.sh")},
		"uv run .claude/hooks/b.py": {abs(".claude/hooks/b.py")},
		`cd "$CLAUDE_PROJECT_DIR" && FOO=1 python3 .claude/hooks/b.py || scripts/c.sh`: {abs(".claude/hooks/b.py"), abs("scripts/c.sh")},
		"$(git rev-parse --show-toplevel)/.claude/hooks/a.sh":                          {abs(".claude/hooks/a.sh")},
		"~/.claude/hooks/u.sh":      {filepath.Join(r.home, ".claude/hooks/u.sh")},
		"$HOME/.claude/hooks/u.sh":  {filepath.Join(r.home, ".claude/hooks/u.sh")},
		"guard.sh":                  nil, // a program on PATH, not ./guard.sh
		"$OTHER/.claude/hooks/a.sh": nil,
		"echo hello":                nil,
		".claude/hooks/missing.sh":  nil,
	}
	for cmd, want := range cases {
		if got := d.commandFiles(claude, cmd); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("commandFiles(%q) = %q, want %q", cmd, got, want)
		}
	}
	// Codex sets no project variable: $CLAUDE_PROJECT_DIR means nothing there.
	codex := &agent{p: mustPlatform(t, "codex")}
	if got := d.commandFiles(codex, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh`); got != nil {
		t.Errorf("codex: %q", got)
	}
}

// TestBlocker: what makes a PreCompact hook block compaction, in the
// languages hooks are written in, and what does not.
func TestBlocker(t *testing.T) {
	blocks := map[string]string{
		"exit 2":                                   "exits 2",
		"#!/bin/sh\n[ -e x ] && exit 2\n":          "exits 2",
		"import sys\nsys.exit(2)\n":                "exits 2",
		"raise SystemExit(2)":                      "exits 2",
		"process.exit(2);":                         "exits 2",
		"process.exitCode = 2":                     "exits 2",
		"os.Exit(2)":                               "exits 2",
		`echo '{"decision": "block"}'`:             `prints a "block" decision`,
		`print(json.dumps({"decision": "block"}))`: `prints a "block" decision`,
		`{'decision': 'block'}`:                    `prints a "block" decision`,
		`jq -n '{decision: "block", reason: $r}'`:  `prints a "block" decision`,
	}
	for text, want := range blocks {
		if _, what, ok := blocker([]byte(text)); !ok || what != want {
			t.Errorf("blocker(%q) = %q, %v; want %q", text, what, ok, want)
		}
	}
	if line, _, _ := blocker([]byte("#!/bin/sh\n# exit 2 would block\necho ok\nexit 2\n")); line != 4 {
		t.Errorf("line %d, want 4 (the comment does not count)", line)
	}
	for _, text := range []string{
		"exit 0", "exit 20", "exit 12", "sys.exit(0)", "# exit 2 blocks compaction", `echo '{"decision": "approve"}'`,
		"echo unblocked", "exit $status", "sys.exit(22)",
	} {
		if _, what, ok := blocker([]byte(text)); ok {
			t.Errorf("blocker(%q) = %q, want none", text, what)
		}
	}
}

// TestNoAgentNamesOutsideTheirFiles: doctor, diag and the codex package
// branch on no agent's name: what concerns one agent lives in its file of
// the agent table (STYLE.md, rule 3).
func TestNoAgentNamesOutsideTheirFiles(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.go", "../diag/*.go", "../codex/*.go"} {
		more, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agentpkg.All {
			if bytes.Contains(b, []byte(`"`+a.Name+`"`)) {
				t.Errorf("%s names the agent %q; that belongs in its file of the agent table, agent/%s.go", f, a.Name, a.Name)
			}
		}
	}
}

// TestStaticStartsNothing: Static runs the named agents' file checks only:
// no kbs, no codex app-server, no hook; and what it finds, doctor finds.
func TestStaticStartsNothing(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	started := filepath.Join(r.home, "started")
	r.kbs("echo kbs >>" + started + "; echo '[]'")
	r.write(filepath.Join(r.bin, "codex"), "#!/bin/sh\necho codex >>"+started+"\nexit 1\n", 0o755)
	if err := os.MkdirAll(filepath.Join(r.home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.install("claude", time.Second)
	r.install("codex", time.Second)
	settings := strings.Replace(string(r.read(".claude/settings.json")), "{", "{\n  \"disableAllHooks\": true,", 1)
	r.write(".claude/settings.json", settings, 0o644)

	fs := Static(r.root, []string{"claude", "codex"}, r.env)
	if b, err := os.ReadFile(started); err == nil {
		t.Errorf("Static started programs: %q", b)
	}
	var disabled bool
	for _, f := range fs {
		if f.Agent != "claude" && f.Agent != "codex" || !strings.HasPrefix(f.Check, f.Agent+".") {
			t.Errorf("Static reported %s for agent %q", f.Check, f.Agent)
		}
		if f.Check == "claude.disabled" && f.Severity == Error {
			disabled = true
		}
	}
	if !disabled {
		t.Errorf("Static does not report disableAllHooks as an error:\n%s", dump(fs))
	}
	if only := Static(r.root, []string{"codex"}, r.env); len(only) == 0 || only[0].Agent != "codex" {
		t.Errorf("Static for codex only:\n%s", dump(only))
	}

	// Every error Static finds, doctor finds in the same words (trust
	// aside: doctor asks codex there).
	all := r.run()
	for _, f := range fs {
		if f.Severity != Error || strings.HasSuffix(f.Check, ".trust") {
			continue
		}
		found := false
		for _, g := range all {
			found = found || g == f
		}
		if !found {
			t.Errorf("Static finds %+v, doctor does not:\n%s", f, dump(all))
		}
	}
}

// TestRefusalInSetupsWords: a value setup refuses (generate's MergeHook)
// is doctor's error, word for word, and not also a warning.
func TestRefusalInSetupsWords(t *testing.T) {
	for _, c := range []struct{ name, file, content string }{
		{"hooks array", ".claude/settings.json", "{\n  \"hooks\": [\n    {\"matcher\": \"compact\"}\n  ]\n}\n"},
		{"event object", ".claude/settings.local.json", "{\n  \"hooks\": {\n    \"SessionStart\": {\"matcher\": \"compact\"}\n  }\n}\n"},
		{"group hooks twice", ".claude/settings.json", "{\"hooks\": {\"SessionStart\": [{\"matcher\": \"compact\", \"hooks\": [], \"hooks\": []}]}}\n"},
		{"top level array", ".claude/settings.json", "[1, 2]\n"},
		{"codex hooks array", ".codex/hooks.json", "{\"hooks\": []}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write(c.file, c.content, 0o644)
			name := strings.Split(strings.TrimPrefix(c.file, "."), "/")[0]
			schema := agentpkg.ClaudeSettings
			if name == "codex" {
				schema = agentpkg.CodexHooks
			}
			schema.Path = c.file
			_, err := schema.MergeHook([]byte(c.content), generate.CompactGroup("x", "x.sh", time.Second))
			fe, ok := err.(*generate.FileError)
			if !ok {
				t.Fatalf("setup does not refuse it: %v", err)
			}
			want, _ := diag.FileErrorText(fe)
			fs := Static(r.root, []string{name}, r.env)
			var hits []Finding
			for _, f := range fs {
				if f.Check == name+".hooks-file" && f.Severity != OK {
					hits = append(hits, f)
				}
			}
			if len(hits) != 1 || hits[0].Severity != Error || hits[0].Message != want {
				t.Errorf("want one error %q, got:\n%s", want, dump(hits))
			}
		})
	}
}

// TestCodexTrustPerKanbusFolder: an untrusted project's hook matters only
// in sessions that find a Kanbus project (shapes: seed 18, a .kanbus.yml
// in a package alone): info at the root, a warning from the package.
func TestCodexTrustPerKanbusFolder(t *testing.T) {
	r := newRepo(t)
	r.install("codex", time.Second)
	r.write("pkg/go.mod", "module example.com/pkg\n", 0o644)
	r.write("pkg/.kanbus.yml", "project_key: kbs\n", 0o644)
	// A codex on PATH: the computed trust is then a warning (codex would
	// skip the hook), not info.
	r.write(filepath.Join(r.bin, "codex"), "#!/bin/sh\necho codex-cli 0.171.0\n", 0o755)
	got := find(r.run(), "codex.trust")
	var root, pkg []Finding
	for _, f := range got {
		switch f.From {
		case ".":
			root = append(root, f)
		case "pkg":
			pkg = append(pkg, f)
		}
	}
	if len(root) == 0 || worst(root) != Info || !strings.Contains(root[0].Message, "no .kanbus.yml is found from the root") {
		t.Errorf("at the root, want info (no Kanbus project from there):\n%s", dump(root))
	}
	if len(pkg) == 0 || worst(pkg) != Warn || !strings.HasPrefix(pkg[0].Message, "started in pkg/: ") {
		t.Errorf("from pkg, want the warning:\n%s", dump(got))
	}
	// doctor --from gives each folder's rows as plain doctor does.
	for _, c := range []struct {
		from string
		sev  Severity
	}{{".", Info}, {"pkg", Warn}} {
		fs := Run(context.Background(), Options{Root: r.root, Env: r.env, Start: filepath.Join(r.root, c.from), LiveLimit: 3 * time.Second}).Findings
		if got := find(fs, "codex.trust"); worst(got) != c.sev {
			t.Errorf("doctor --from %s: want %s:\n%s", c.from, c.sev, dump(got))
		}
	}
	// With a project at the root the warning stays the root's, once.
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	got = find(r.run(), "codex.trust")
	if worst(got) != Warn {
		t.Errorf("with a root .kanbus.yml:\n%s", dump(got))
	}
	for _, f := range got {
		if f.From != "." {
			t.Errorf("a row from %s where the root's stands for every folder: %s", f.From, f.Message)
		}
	}
}

// TestJudgeCallsQuickRun: a quick run of nowhook's own wrapper that spent
// the probe budget before it reached kbs (the python3 fallback starting on
// a busy machine) cannot tell: info, and doctor --live to tell; under
// --live, or a quick run that ended early without kbs, it is a warning.
func TestJudgeCallsQuickRun(t *testing.T) {
	run := func(elapsed time.Duration) liveRun {
		return liveRun{scenario: scenario{name: "failing kbs", fake: failingKbs}, res: procResult{elapsed: elapsed}}
	}
	for _, c := range []struct {
		probe, elapsed time.Duration
		sev            Severity
		recheck        bool
	}{
		{probeBudget, probeBudget + 100*time.Millisecond, Info, true},
		{probeBudget, 90 * time.Millisecond, Warn, false},
		{0, 6 * time.Second, Warn, false},
	} {
		var v verdict
		v.judgeCalls(&liveJob{probe: c.probe}, run(c.elapsed), true)
		if v.sev != c.sev || v.recheck != c.recheck {
			t.Errorf("probe %s, ran %s without calling kbs: %s (recheck %v) %q, want %s (recheck %v)", c.probe, c.elapsed, v.sev, v.recheck, v.notes, c.sev, c.recheck)
		}
	}
}

// TestJudgeManagedStepsAside: on a machine whose managed layer runs
// nowhook's hook for the agent, the project's hook prints nothing and
// never starts kbs in a real session (it steps aside, the managed one
// prints): doctor's run of it that does so is fine, not a warning; without
// the managed hook the same run is a warning.
func TestJudgeManagedStepsAside(t *testing.T) {
	p, _ := agentpkg.Lookup("claude")
	a := &agent{p: p}
	run := liveRun{scenario: scenario{name: "your kbs"}, res: procResult{exit: 0}}
	for _, managed := range []bool{true, false} {
		var v verdict
		job := &liveJob{a: a, managed: managed}
		v.judgeOutput(job, run, 2)
		v.judgeCalls(job, run, true)
		want := Warn
		if managed {
			want = OK
		}
		if v.sev != want {
			t.Errorf("managed %v: a run that printed nothing and called no kbs is %s %q, want %s", managed, v.sev, v.notes, want)
		}
	}
}

// TestUserRunStepsAsideForManaged: a run of the user-scope hook in a
// sub-folder of a Kanbus project that prints nothing and starts no kbs is
// a problem, unless the agent's managed layer runs nowhook's hook (either):
// then the user hook steps aside in a real session, and that is right.
func TestUserRunStepsAsideForManaged(t *testing.T) {
	quiet := liveRun{res: procResult{exit: 0}}
	if p := userRunProblem("in a sub-folder", "", false, quiet, time.Second); p == "" {
		t.Error("without a managed hook, a run that printed no reminder is fine; want a problem")
	}
	if p := userRunProblem("in a sub-folder", "", true, quiet, time.Second); p != "" {
		t.Errorf("with the managed hook, a run that stepped aside is %q; want fine", p)
	}
	if p := userRunProblem("in a sub-folder", "", true, liveRun{res: procResult{exit: 3}}, time.Second); p == "" {
		t.Error("with the managed hook, a run that exits 3 is fine; want a problem")
	}
}
