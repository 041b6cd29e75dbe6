package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
)

// Issue 27, item 4: what nowhook's own `setup --scope managed --root R`
// writes, shown at the system paths (managed_tree_test.go), makes each
// real client put the reminder into the first request after a compaction
// once, with no project or user install, in a session at the repository
// root and in one in a sub-folder; `remove --scope managed --root R` then
// gives R back as it was. The *Layers tests add nowhook's user install
// (for the agents that have one: claude, qwen) and its project install:
// still exactly one reminder, which needs the project and user hooks to
// step aside where the managed layer holds nowhook's managed hook. In
// every session of a *Layers test the fake kbs records which wrapper's
// runtime ran it (kbsTrace): the managed wrapper's alone, so the reminder
// is the managed hook's and the others stepped aside.
//
// Run one client at a time: go test ./cmd/nowhook/e2e -run 'TestClaudeManagedSetup' -v

// The managed files and wrappers setup writes, as the machine has them.
const (
	claudeManagedFile  = claudeManagedDir + "/managed-settings.d/50-nowhook.json"
	codexManagedFile   = codexManagedDir + "/hooks.json"
	geminiManagedFile  = geminiSystemDir + "/settings.json"
	qwenManagedFile    = qwenSystemDir + "/settings.json"
	factoryManagedFile = factorySystemDir + "/settings.json"
)

// claudeSetupManaged is a Claude Code world whose managed layer is the
// tree nowhook's setup --scope managed --agents claude built.
func claudeSetupManaged(t *testing.T, ctx context.Context) (*claudeManaged, *managedTree) {
	t.Helper()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, shapeAgentsOnly)
	tree := newManagedTree(t, s)
	tree.setup(t, ctx, s, "claude", claudeManagedFile, nowhookLibexec+"/claude.sh")
	c := &claudeManaged{s: s, etc: tree.at(claudeManagedDir), libexec: tree.at(nowhookLibexec), real: bin}
	c.bin = tree.view(t, claudeManagedDir, nowhookLibexec).wrap(t, bin)
	return c, tree
}

// claudeOnce runs /compact in each start folder and checks the reminder
// is once in the request after the summary, kbs running once.
func claudeOnce(t *testing.T, ctx context.Context, c *claudeManaged, tree *managedTree, what string) {
	t.Helper()
	reminder := expectedReminder(t)
	for _, st := range []managedStart{{"root", c.s.repo}, {"sub-folder", c.s.startIn(t, startSub)}} {
		t.Run(st.name, func(t *testing.T) {
			kbs := c.s.kbsCalls(t)
			sess, reqs, after := c.compact(t, ctx, st.dir)
			n := onceAfter(t, reqs, after, reminder, c.s.kbsCalls(t)-kbs)
			tree.onlyManagedRan(t)
			t.Logf("%s, session in the %s: compact hooks %d, reminder %d time(s) in the first request after the summary", what, st.name, len(sess.compactHookRuns()), n)
		})
	}
}

// TestClaudeManagedSetup: with the drop-in and wrapper nowhook's setup
// --scope managed --agents claude wrote, and no project or user install,
// Claude Code gets the reminder once after /compact at the root and in a
// sub-folder; remove --scope managed gives the tree back.
func TestClaudeManagedSetup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c, tree := claudeSetupManaged(t, ctx)
	noNowhookInstall(t, c.s.repo, c.s.home)
	claudeOnce(t, ctx, c, tree, "managed install alone")
	tree.remove(t, ctx, c.s)
}

// TestClaudeManagedSetupLayers: nowhook's managed, user and project
// installs together give Claude Code the reminder once, at the root and
// in a sub-folder.
func TestClaudeManagedSetupLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c, tree := claudeSetupManaged(t, ctx)
	writeFile(t, filepath.Join(c.s.home, ".claude", "settings.json"), claudeUserSettings, 0o644)
	runNowhook(t, ctx, c.s, "setup", "--scope", "user", "--yes", "--agents", "claude")
	runNowhook(t, ctx, c.s, "setup", "--yes", "--agents", "claude")
	tree.layered = true
	claudeOnce(t, ctx, c, tree, "managed, user and project installs")
}

// codexSetupManaged is a Codex world whose managed layer is the tree
// nowhook's setup --scope managed --agents codex built, with a Codex home
// that records no trust.
func codexSetupManaged(t *testing.T, ctx context.Context) (*codexManaged, *managedTree) {
	t.Helper()
	bin := findClient(t, "CODEX_BIN", "codex")
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, shapeAgentsOnly)
	tree := newManagedTree(t, s)
	tree.setup(t, ctx, s, "codex", codexManagedFile, nowhookLibexec+"/codex.sh")
	c := &codexManaged{s: s, m: newResponsesMock(t), etc: tree.at(codexManagedDir), libexec: tree.at(nowhookLibexec)}
	c.home = codexHome(t, s, c.m)
	c.env = codexEnv(s, c.home)
	c.bin = tree.view(t, codexManagedDir, nowhookLibexec).wrap(t, bin)
	clientVersion(t, ctx, c.env, c.bin)
	return c, tree
}

// codexOnce runs one `codex exec` whose turn compacts (no trust flag) in
// each start folder, each against a new mock, and checks the reminder is
// once in the developer messages of the request after the compaction, kbs
// running once. noTrust: also check that nothing in the Codex home
// records trust after it.
func codexOnce(t *testing.T, ctx context.Context, c *codexManaged, tree *managedTree, what string, noTrust bool) {
	t.Helper()
	reminder := expectedReminder(t)
	for _, st := range []managedStart{{"root", c.s.repo}, {"sub-folder", c.s.startIn(t, startSub)}} {
		t.Run(st.name, func(t *testing.T) {
			repointCodex(t, c, newResponsesMock(t))
			kbs := c.s.kbsCalls(t)
			dev := c.exec(t, ctx, st.dir)
			if noTrust {
				noTrustAnywhere(t, c.home)
			}
			n := strings.Count(dev, reminder)
			if n != 1 {
				t.Errorf("the request after the compaction has the reminder %d times in its developer messages, want once\n%.3000s", n, dev)
			}
			if k := c.s.kbsCalls(t) - kbs; k != 1 {
				t.Errorf("kbs ran %d times, want once", k)
			}
			tree.onlyManagedRan(t)
			t.Logf("%s, codex exec in the %s: reminder %d time(s) in the request after the compaction", what, st.name, n)
		})
	}
}

// TestCodexManagedSetup: the hooks.json and wrapper nowhook's setup
// --scope managed --agents codex wrote are listed by Codex's app-server as
// a managed hook (source system, trust "managed", enabled), and `codex
// exec`, with no trust recorded anywhere and no trust flag, gets the
// reminder once after its compaction at the root and in a sub-folder;
// remove --scope managed gives the tree back.
func TestCodexManagedSetup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c, tree := codexSetupManaged(t, ctx)
	noNowhookInstall(t, c.s.repo, c.s.home, c.home)
	noTrustAnywhere(t, c.home)
	hl := c.list(t, ctx, c.s.repo)
	var ours []codex.Hook
	for _, h := range hl.Hooks {
		if strings.Contains(h.Command, nowhookLibexec+"/codex.sh") {
			ours = append(ours, h)
		}
	}
	if len(ours) != 1 {
		t.Fatalf("hooks/list: %d hooks run %s/codex.sh, want the one of %s: %+v", len(ours), nowhookLibexec, codexManagedFile, hl.Hooks)
	}
	if h := ours[0]; !h.IsManaged || h.TrustStatus != codex.StatusManaged || !h.Enabled || h.Source != "system" || h.SourcePath != codexManagedFile {
		t.Errorf("hooks/list: nowhook's managed hook is managed %v, trust %q, enabled %v, source %q, sourcePath %s; want managed, %q, enabled, system, %s",
			h.IsManaged, h.TrustStatus, h.Enabled, h.Source, h.SourcePath, codex.StatusManaged, codexManagedFile)
	}
	if len(hl.Warnings) > 0 || len(hl.Errors) > 0 {
		t.Errorf("hooks/list: warnings %v, errors %+v; want none", hl.Warnings, hl.Errors)
	}
	codexOnce(t, ctx, c, tree, "managed install alone", true)
	tree.remove(t, ctx, c.s)
}

// TestCodexManagedSetupLayers: nowhook's managed install and its project
// install (setup --trust-codex, so that Codex runs the project hook; Codex
// has no user scope in nowhook) give `codex exec` the reminder once, at
// the root and in a sub-folder.
func TestCodexManagedSetupLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	c, tree := codexSetupManaged(t, ctx)
	setupCodex(t, ctx, c.s, c.bin, c.env)
	checkCodexTrustedIn(t, ctx, c.bin, c.env, c.s.repo)
	tree.layered = true
	codexOnce(t, ctx, c, tree, "managed and project installs", false)
}

// geminiSetupManaged is a Gemini CLI world whose system settings are the
// tree nowhook's setup --scope managed --agents gemini built.
func geminiSetupManaged(t *testing.T, ctx context.Context) (*geminiManaged, *managedTree) {
	t.Helper()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	s := newSandbox(t, kbsFixture)
	s.applyShape(t, shapeAgentsOnly)
	tree := newManagedTree(t, s)
	tree.setup(t, ctx, s, "gemini", geminiManagedFile, nowhookLibexec+"/gemini-turn.sh")
	g := &geminiManaged{s: s, etc: tree.at(geminiSystemDir), libexec: tree.at(nowhookLibexec)}
	g.bin = tree.view(t, geminiSystemDir, nowhookLibexec).wrap(t, bin)
	return g, tree
}

// geminiTwice runs `gemini -p hello` in each start folder against a mock
// that makes it compress twice, and checks the reminder is once in the
// first request after each compression and in no other request, kbs
// running once per compression; then check(start, stderr), if set.
func geminiTwice(t *testing.T, ctx context.Context, g *geminiManaged, tree *managedTree, what string, check func(t *testing.T, st managedStart, stderr string)) {
	t.Helper()
	reminder := expectedReminder(t)
	for _, st := range []managedStart{{"root", g.s.repo}, {"sub-folder", g.s.startIn(t, startSub)}} {
		t.Run(st.name, func(t *testing.T) {
			m := newGeminiMultiMock(t, 2, 0)
			env := geminiEnv(t, g.s, m)
			clientVersion(t, ctx, env, g.bin)
			kbs := g.s.kbsCalls(t)
			res := runCmd(t, ctx, env, st.dir, "", g.bin, "-m", geminiModel, "-p", "hello")
			reqs := m.Requests()
			dumpRequests(t, reqs)
			if res.err != nil || !strings.Contains(res.stdout, "from the mock.") {
				t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
			}
			got := onceAfterEachCompression(t, reqs, reminder)
			if k := g.s.kbsCalls(t) - kbs; k != 2 {
				t.Errorf("kbs ran %d times, want 2 (once per compression)", k)
			}
			tree.onlyManagedRan(t)
			if check != nil {
				check(t, st, res.stderr)
			}
			t.Logf("%s, gemini -p in the %s: the reminder %v time(s) in the first request after each compression", what, st.name, got)
		})
	}
}

// TestGeminiManagedSetup: with the system settings and BeforeModel script
// nowhook's setup --scope managed --agents gemini wrote, and no project or
// user hook, Gemini CLI gets the reminder once in the first request after
// each of two compressions, at the root and in a sub-folder, and does not
// warn about the hook; remove --scope managed gives the tree back.
func TestGeminiManagedSetup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	g, tree := geminiSetupManaged(t, ctx)
	noNowhookInstall(t, g.s.repo, g.s.home)
	geminiTwice(t, ctx, g, tree, "managed install alone", func(t *testing.T, _ managedStart, stderr string) {
		if strings.Contains(stderr, "gemini-turn.sh") {
			t.Errorf("Gemini CLI warns about the system settings' hook:\n%s", grepLines(stderr, "gemini-turn.sh"))
		}
	})
	tree.remove(t, ctx, g.s)
}

// TestGeminiManagedSetupLayers: nowhook's managed install and its project
// install (gemini=reinject; Gemini CLI has no user scope in nowhook) give
// the reminder once after each compression, at the root (where Gemini
// runs the project's hook too: it warns about each project hook it runs)
// and in a sub-folder (where it does not).
func TestGeminiManagedSetupLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	g, tree := geminiSetupManaged(t, ctx)
	setupGeminiTurn(t, ctx, g.s)
	tree.layered = true
	geminiTwice(t, ctx, g, tree, "managed and project installs", func(t *testing.T, st managedStart, stderr string) {
		if runs := strings.Contains(stderr, ".gemini/hooks/kanbus-gemini-turn.sh"); runs != (st.dir == g.s.repo) {
			t.Errorf("Gemini CLI names the project's hook in its warning: %v, want %v (it runs the project's hooks in the start folder only)\n%s", runs, st.dir == g.s.repo, stderr)
		} else {
			t.Logf("Gemini CLI runs the project's hook here: %v; %s", runs, grepLines(stderr, "kanbus-gemini-turn.sh"))
		}
	})
}

// qwenSetupManaged is a Qwen Code world (the repository trusted) whose
// system settings are the tree nowhook's setup --scope managed --agents
// qwen built.
func qwenSetupManaged(t *testing.T, ctx context.Context) (*qwenManaged, *managedTree) {
	t.Helper()
	bin := findClient(t, "QWEN_BIN", "qwen")
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	qwenHome(t, s)
	if err := os.MkdirAll(s.startIn(t, startSub), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := newManagedTree(t, s)
	tree.setup(t, ctx, s, "qwen", qwenManagedFile, nowhookLibexec+"/qwen.sh")
	q := &qwenManaged{s: s, etc: tree.at(qwenSystemDir), libexec: tree.at(nowhookLibexec)}
	q.bin = tree.view(t, qwenSystemDir, nowhookLibexec).wrap(t, bin)
	return q, tree
}

// qwenOnce runs hello, /compress and a follow-up in each start folder and
// checks the reminder is once in the request after the compression, kbs
// running once.
func qwenOnce(t *testing.T, ctx context.Context, q *qwenManaged, tree *managedTree, what string) {
	t.Helper()
	reminder := expectedReminder(t)
	for _, st := range []managedStart{{"root", q.s.repo}, {"sub-folder", q.s.startIn(t, startSub)}} {
		t.Run(st.name, func(t *testing.T) {
			kbs, _ := q.s.kbsRuns(t)
			reqs, after := q.compress(t, ctx, st.dir)
			k, _ := q.s.kbsRuns(t)
			n := onceAfter(t, reqs, after, reminder, k-kbs)
			tree.onlyManagedRan(t)
			t.Logf("%s, session in the %s: reminder %d time(s) in the first request after /compress", what, st.name, n)
		})
	}
}

// TestQwenManagedSetup: with the system settings and wrapper nowhook's
// setup --scope managed --agents qwen wrote, and no project or user hook,
// Qwen Code gets the reminder once after /compress at the root and in a
// sub-folder; Qwen leaves the file as setup wrote it, and remove --scope
// managed gives the tree back.
func TestQwenManagedSetup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	q, tree := qwenSetupManaged(t, ctx)
	noNowhookInstall(t, q.s.repo, q.s.home)
	written, err := os.ReadFile(tree.at(qwenManagedFile))
	if err != nil {
		t.Fatal(err)
	}
	qwenOnce(t, ctx, q, tree, "managed install alone")
	if b, err := os.ReadFile(tree.at(qwenManagedFile)); err != nil || string(b) != string(written) {
		t.Errorf("Qwen Code changed %s (%v):\nsetup wrote:\n%s\nnow:\n%s", qwenManagedFile, err, written, b)
	}
	tree.remove(t, ctx, q.s)
}

// TestQwenManagedSetupLayers: nowhook's managed, user and project
// installs together give Qwen Code the reminder once after /compress, at
// the root and in a sub-folder.
func TestQwenManagedSetupLayers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	q, tree := qwenSetupManaged(t, ctx)
	res := runCmd(t, ctx, q.s.env(nil), q.s.root, "", filepath.Join(q.s.bin, "nowhook"), "setup", "--scope", "user", "--yes", "--agents", "qwen")
	if res.err != nil {
		t.Fatalf("nowhook setup --scope user: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --scope user --yes --agents qwen:\n%s", strings.TrimSpace(res.stdout+res.stderr))
	setupQwen(t, ctx, q.s, q.s.repo)
	tree.layered = true
	qwenOnce(t, ctx, q, tree, "managed, user and project installs")
}

// droidOrgSettings is an organisation's own /etc/factory/settings.json:
// a setting and a compact hook of its own, in a layout of its own, which
// setup must merge into and remove must give back byte for byte.
const droidOrgSettings = `{
	"commandDenylist": ["rm -rf /", "mkfs"],
	"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "echo '` + droidOrgMarker + `'", "timeout": 5}]}]}
}
`

// droidOrgMarker is what the organisation's hook prints.
const droidOrgMarker = "Organisation policy: keep the build green (org hook)."

// droidSetupManaged is a Factory Droid world whose /etc/factory is the
// tree nowhook's setup --scope managed --agents droid built over the
// organisation's settings. It first checks that setup refuses where the
// file does not exist, writing nothing.
func droidSetupManaged(t *testing.T, ctx context.Context) (*droidManaged, *managedTree) {
	t.Helper()
	bin := findClient(t, "DROID_BIN", "droid")
	s := newSandbox(t, kbsFixture)
	writeFile(t, filepath.Join(s.repo, filepath.FromSlash(probeSub), "main.go"), "package api\n", 0o644)
	tree := newManagedTree(t, s)
	empty := hostState(t, tree.root)
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--scope", "managed", "--agents", "droid", "--root", tree.root, "--yes")
	if res.err == nil || !strings.Contains(res.stdout+res.stderr, tree.at(factoryManagedFile)+" does not exist") {
		t.Errorf("setup --scope managed --agents droid with no %s: %v, want a refusal naming the file\n%s%s", factoryManagedFile, res.err, res.stdout, res.stderr)
	}
	if after := hostState(t, tree.root); after != empty {
		t.Errorf("the refused setup --scope managed --agents droid wrote into R:\n%s", after)
	}
	t.Logf("setup --scope managed --agents droid with no %s: %v\n%s", factoryManagedFile, res.err, strings.TrimSpace(res.stdout+res.stderr))
	writeFile(t, tree.at(factoryManagedFile), droidOrgSettings, 0o640)
	t.Logf("the organisation's %s before setup: %d bytes, mode 0640", factoryManagedFile, len(droidOrgSettings))
	tree.setup(t, ctx, s, "droid", factoryManagedFile, nowhookLibexec+"/droid.sh")
	d := &droidManaged{s: s, etc: tree.at(factorySystemDir), libexec: tree.at(nowhookLibexec)}
	d.bin = tree.view(t, factorySystemDir, nowhookLibexec).wrap(t, bin)
	return d, tree
}

// droidOnce runs hello, /compact and a follow-up in each start folder,
// each against a new mock and HOME, and checks that the reminder and the
// organisation hook's output are each once in the first request after the
// summary, kbs running once.
func droidOnce(t *testing.T, ctx context.Context, d *droidManaged, tree *managedTree, what string) {
	t.Helper()
	reminder := expectedReminder(t)
	for _, st := range []managedStart{{"root", d.s.repo}, {"sub-folder", filepath.Join(d.s.repo, filepath.FromSlash(probeSub))}} {
		t.Run(st.name, func(t *testing.T) {
			d.m = droidMock(t, &probeChat{})
			d.home = droidHome(t, d.m, "")
			noNowhookInstall(t, d.home)
			kbs := d.s.kbsCalls(t)
			reqs := d.session(t, ctx, st.dir)
			checkOnceAfter(t, reqs, reminder)
			checkOnceAfter(t, reqs, droidOrgMarker)
			if k := d.s.kbsCalls(t) - kbs; k != 1 {
				t.Errorf("kbs ran %d times, want once", k)
			}
			tree.onlyManagedRan(t)
			idx := summaryAt(t, reqs)
			t.Logf("%s, session in the %s: reminder %d time(s), the organisation's hook %d time(s) in the first request after the summary",
				what, st.name, countIn(t, reqs[idx+1].Body, reminder), countIn(t, reqs[idx+1].Body, droidOrgMarker))
		})
	}
}

// TestDroidManagedSetup: setup --scope managed --agents droid refuses
// where /etc/factory/settings.json does not exist; where the organisation
// keeps one (a setting and its own compact hook), setup merges nowhook's
// hook into it, and with no project or user install Factory Droid gets the
// reminder once after /compact, the organisation's hook still running
// once, at the root and in a sub-folder; remove --scope managed gives the
// organisation's file back byte for byte (and its mode), and the tree as
// it was.
func TestDroidManagedSetup(t *testing.T) {
	t.Parallel()
	ctx := probeCtx(t)
	d, tree := droidSetupManaged(t, ctx)
	noNowhookInstall(t, d.s.repo, d.s.home)
	droidOnce(t, ctx, d, tree, "managed install alone")
	tree.remove(t, ctx, d.s)
	b, err := os.ReadFile(tree.at(factoryManagedFile))
	if err != nil || string(b) != droidOrgSettings {
		t.Errorf("after remove --scope managed, the organisation's %s is not as it was (%v):\n%s", factoryManagedFile, err, b)
	}
}

// TestDroidManagedSetupLayers: nowhook's managed install and its project
// install (droid=reinject; Droid has no user scope in nowhook) give
// Factory Droid the reminder once after /compact, at the root and in a
// sub-folder.
func TestDroidManagedSetupLayers(t *testing.T) {
	t.Parallel()
	ctx := probeCtx(t)
	d, tree := droidSetupManaged(t, ctx)
	runNowhook(t, ctx, d.s, "setup", "--yes", "--agents", "droid=reinject")
	tree.layered = true
	droidOnce(t, ctx, d, tree, "managed and project installs")
}
