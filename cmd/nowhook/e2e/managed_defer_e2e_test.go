package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/templates"
)

// The managed wrapper of Claude Code where nowhook's managed install puts
// it, and the command of the drop-in that runs it.
const (
	claudeManagedWrapper = nowhookLibexec + "/claude.sh"
	claudeManagedCommand = `s=` + claudeManagedWrapper + `; [ ! -x "$s" ] || exec "$s"`
)

// TestClaudeManagedOneReminder: with nowhook's hook in all three layers of
// Claude Code 2.1.332 (a managed drop-in,
// /etc/claude-code/managed-settings.d/50-nowhook.json, that runs the
// wrapper /usr/local/libexec/nowhook/claude.sh; nowhook's user-scope
// install, setup --scope user; its project install, setup --yes), a
// session gets the reminder once after /compact, at the repository root
// (where all three run) and in a sub-folder (where the managed and the
// user's run), and kbs runs once: the managed hook prints, and the
// project's and the user's step aside for it. The same with nowhook off
// the client's PATH, where every hook falls back to python3.
func TestClaudeManagedOneReminder(t *testing.T) {
	t.Parallel()
	for _, runtime := range []string{"go", "python3"} {
		// One after the other: a view's executables written while a
		// parallel test forks can fail with "text file busy".
		t.Run(runtime, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
			defer cancel()
			c := newClaudeManaged(t, kbsFixture)
			c.s.applyShape(t, shapeAgentsOnly)
			sub := c.s.startIn(t, startSub)
			writeFile(t, filepath.Join(c.libexec, filepath.Base(claudeManagedWrapper)), templates.RenderWrapper(5*time.Second, ""), 0o755)
			c.file(t, "managed-settings.d/50-nowhook.json", claudeHooks(nil, claudeManagedCommand))
			runNowhook(t, ctx, c.s, "setup", "--scope", "user", "--yes", "--agents", "claude")
			runNowhook(t, ctx, c.s, "setup", "--yes", "--agents", "claude")
			for _, f := range []string{filepath.Join(c.s.repo, ".claude", "settings.json"), filepath.Join(c.s.home, ".claude", "settings.json")} {
				b, err := os.ReadFile(f)
				if err != nil || !strings.Contains(string(b), "kanbus-compaction-right-now.sh") {
					t.Fatalf("%s does not run nowhook's hook after setup: %v\n%s", f, err, b)
				}
			}
			if runtime == "python3" {
				// The client's PATH is the sandbox's bin, node's folder,
				// /usr/bin and /bin: take nowhook out, and check that
				// nothing else there is nowhook.
				if err := os.Remove(filepath.Join(c.s.bin, "nowhook")); err != nil {
					t.Fatal(err)
				}
				for _, dir := range strings.Split(strings.TrimPrefix(c.s.env(nil)[0], "PATH="), ":") {
					for _, name := range []string{"nowhook", "nowhook-reminder"} {
						if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
							t.Skipf("%s is in %s, on the client's PATH: the fallback would not run", name, dir)
						}
					}
				}
			}
			reminder := expectedReminder(t)
			for _, tc := range []struct{ name, dir string }{{"root", c.s.repo}, {"sub-folder", sub}} {
				kbs := c.s.kbsCalls(t)
				// NOWHOOK_DEBUG=1: each hook says on stderr, which Claude
				// Code records with its output, why it printed or not.
				m := newAnthropicMock(t)
				sess := runClaudeSession(t, ctx, c.bin, append(claudeEnv(c.s, m.URL), "NOWHOOK_DEBUG=1"), tc.dir, []string{"hello", "/compact", "What was I working on?"})
				reqs := m.Requests()
				after := summaryIndex(t, reqs) + 1
				for i := 0; i < after; i++ {
					if bodyContains(t, reqs[i].Body, reminder) {
						t.Errorf("%s: request %d (before the first after the summary) already has the reminder", tc.name, i)
					}
				}
				if n := countInBody(t, reqs[after].Body, reminder); n != 1 {
					t.Errorf("%s: the first request after the summary has the reminder %d times, want once", tc.name, n)
				}
				if k := c.s.kbsCalls(t) - kbs; k != 1 {
					t.Errorf("%s: kbs ran %d times, want once", tc.name, k)
				}
				// One hook per layer that holds nowhook's hook: the managed
				// one printed, each other stepped aside for it.
				runs := sess.compactHookRuns()
				wantRuns := map[string]int{"root": 3, "sub-folder": 2}[tc.name]
				printed, aside := 0, 0
				for _, e := range runs {
					// Claude Code records a hook's stdout, its stderr, and
					// what it made of them (output).
					stdout, _ := e["stdout"].(string)
					output, _ := e["output"].(string)
					stderr, _ := e["stderr"].(string)
					said := output + "\n" + stderr
					switch {
					case strings.Contains(stdout, "Kanbus WIP") && strings.Contains(said, "this is Claude Code's managed hook ("+claudeManagedWrapper+")"):
						printed++
					case strings.TrimSpace(stdout) == "" && strings.Contains(said, "Claude Code's managed hook runs here"):
						aside++
					default:
						t.Errorf("%s: a compact hook printed %.200q, saying:\n%s", tc.name, stdout, said)
					}
				}
				if len(runs) != wantRuns || printed != 1 || aside != wantRuns-1 {
					t.Errorf("%s: %d compact hooks ran, %d printed as the managed hook, %d stepped aside; want %d, 1, %d", tc.name, len(runs), printed, aside, wantRuns, wantRuns-1)
				}
				t.Logf("%s, %s: compact hooks run %d, the managed one printed, %d stepped aside", runtime, tc.name, len(runs), aside)
			}
		})
	}
}

// codexManagedWrapper is Codex CLI's managed wrapper where nowhook's
// managed install puts it.
const codexManagedWrapper = nowhookLibexec + "/codex.sh"

// TestCodexManagedOneReminder: with nowhook's hook in Codex CLI 0.171.0's
// managed layer (/etc/codex/hooks.json running
// /usr/local/libexec/nowhook/codex.sh) and nowhook's project install
// (setup --trust-codex; Codex has no user-scope install), `codex exec`
// whose turn compacts gets the reminder once in the request after the
// compaction, at the root and in a sub-folder, and kbs runs once: Codex
// runs both hooks together and puts each one's output into that request,
// so without the rule it would come twice. Codex gives its hooks no
// project variable; the runtime tells it by its payload.
func TestCodexManagedOneReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	c := newCodexManaged(t, ctx, kbsFixture)
	c.s.applyShape(t, shapeAgentsOnly)
	sub := c.s.startIn(t, startSub)
	writeFile(t, filepath.Join(c.libexec, filepath.Base(codexManagedWrapper)), templates.RenderWrapper(5*time.Second, ""), 0o755)
	// The managed command notes each run, so that one reminder is known to
	// be the managed hook's: it prints whenever it runs.
	ran := filepath.Join(c.s.root, "managed-runs")
	c.file(t, "hooks.json", codexHooksJSON(`printf 'ran\n' >>`+shQuote(ran)+`; s=`+codexManagedWrapper+`; [ ! -x "$s" ] || exec "$s"`))
	setupCodex(t, ctx, c.s, c.bin, c.env)
	reminder := expectedReminder(t)
	for i, tc := range []struct{ name, dir string }{{"root", c.s.repo}, {"sub-folder", sub}} {
		if i > 0 {
			// A new mock: codexHome rewrites the user config, and with it
			// the project hook's trust, which setup records again.
			c.m = newResponsesMock(t)
			c.home = codexHome(t, c.s, c.m)
			if res := runCmd(t, ctx, c.env, c.s.repo, "", filepath.Join(c.s.bin, "nowhook"), "setup", "--yes", "--agents", "codex", "--trust-codex"); res.err != nil {
				t.Fatalf("nowhook setup --trust-codex: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
		}
		// The project hook is trusted where the session starts, so that
		// Codex runs it beside the managed one.
		checkCodexTrustedIn(t, ctx, c.bin, c.env, tc.dir)
		kbs := c.s.kbsCalls(t)
		dev := c.exec(t, ctx, tc.dir)
		if n := strings.Count(dev, reminder); n != 1 {
			t.Errorf("%s: the request after the compaction has the reminder %d times in developer messages, want once\n%.2000s", tc.name, n, dev)
		}
		if k := c.s.kbsCalls(t) - kbs; k != 1 {
			t.Errorf("%s: kbs ran %d times, want once", tc.name, k)
		}
		b, _ := os.ReadFile(ran)
		if n := strings.Count(string(b), "ran\n"); n != map[string]int{"root": 1, "sub-folder": 2}[tc.name] {
			t.Errorf("%s: the managed hook has run %d times in all, want once per session", tc.name, n)
		}
	}
}

// geminiManagedGate is Gemini CLI's managed gate where nowhook's managed
// install puts it, and the command that sources it, as the project's
// command sources the project's.
const (
	geminiManagedGate    = nowhookLibexec + "/gemini-turn.sh"
	geminiManagedCommand = `[ ! -r ` + geminiManagedGate + ` ] || . ` + geminiManagedGate
)

// TestGeminiManagedOneReminder: with nowhook's BeforeModel gate in Gemini
// CLI 0.61.0's managed settings (/etc/gemini-cli/settings.json sourcing
// /usr/local/libexec/nowhook/gemini-turn.sh) and nowhook's project
// install (setup --agents gemini=reinject), both gates run before every
// request, together; the first request after each of two compressions
// gets the reminder once and no other request gets it, kbs running once
// per compression: the managed gate prints, the project's steps aside
// (whichever of them gets to the latches first).
func TestGeminiManagedOneReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	g := newGeminiManaged(t, kbsFixture)
	writeFile(t, filepath.Join(g.libexec, filepath.Base(geminiManagedGate)), templates.RenderGeminiTurn(5*time.Second, ""), 0o755)
	writeFile(t, filepath.Join(g.etc, "settings.json"), geminiHooks(nil, "BeforeModel", geminiManagedCommand), 0o644)
	setupGeminiTurn(t, ctx, g.s)
	m := newGeminiMultiMock(t, 2, 0)
	runGeminiMulti(t, ctx, g.s, m, g.bin, geminiEnv(t, g.s, m))
	reqs := m.Requests()
	onceAfterEachCompression(t, reqs, expectedReminder(t))
	if k := g.s.kbsCalls(t); k != 2 {
		t.Errorf("kbs ran %d times, want 2 (once per compression)", k)
	}
	// Both gates handed the compressions over, each keeping its own latch
	// (templates/gemini-turn.sh): the managed one's says it ran.
	latches := filepath.Join(g.s.home, ".local", "state", "nowhook", "compressions")
	for _, pattern := range []string{"gemini-managed-session-*", "gemini-session-*"} {
		if got, _ := filepath.Glob(filepath.Join(latches, pattern)); len(got) != 1 {
			t.Errorf("%s in %s: %v, want one (the session's)", pattern, latches, got)
		}
	}
}

// qwenManagedWrapper is Qwen Code's managed wrapper where nowhook's
// managed install puts it.
const qwenManagedWrapper = nowhookLibexec + "/qwen.sh"

// TestQwenManagedOneReminder: with nowhook's hook in Qwen Code 0.24.4's
// managed settings (/etc/qwen-code/settings.json running
// /usr/local/libexec/nowhook/qwen.sh), its user-scope install and its
// project install, which Qwen runs together, a session gets the reminder
// once after /compress at the repository root (all three run) and in a
// sub-folder (the managed and the user's), and kbs runs once. Qwen Code
// gives its hooks GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR as well as
// QWEN_PROJECT_DIR: taken for Gemini CLI, the project's and the user's
// hooks looked at Gemini CLI's managed layer and printed too.
func TestQwenManagedOneReminder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()
	q := newQwenManaged(t)
	writeFile(t, filepath.Join(q.libexec, filepath.Base(qwenManagedWrapper)), templates.RenderWrapper(5*time.Second, ""), 0o755)
	writeFile(t, filepath.Join(q.etc, "settings.json"), qwenSettingsWith(nil, `s=`+qwenManagedWrapper+`; [ ! -x "$s" ] || exec "$s"`), 0o644)
	runNowhook(t, ctx, q.s, "setup", "--scope", "user", "--yes", "--agents", "qwen")
	runNowhook(t, ctx, q.s, "setup", "--yes", "--agents", "qwen")
	sub := q.s.startIn(t, startSub)
	reminder := expectedReminder(t)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir string }{{"root", q.s.repo}, {"sub-folder", sub}} {
		before, _ := q.s.kbsRuns(t)
		reqs, after := q.compress(t, ctx, tc.dir)
		checkNotBefore(t, reqs, after-1, reminder)
		if n := countIn(t, reqs[after].Body, reminder); n != 1 {
			t.Errorf("%s: the first request after the compression has the reminder %d times, want once", tc.name, n)
		}
		if now, _ := q.s.kbsRuns(t); now-before != 1 {
			t.Errorf("%s: kbs ran %d times, want once", tc.name, now-before)
		}
	}
}

// droidManagedWrapper is Factory Droid's managed wrapper where nowhook's
// managed install puts it.
const droidManagedWrapper = nowhookLibexec + "/droid.sh"

// TestDroidManagedOneReminder: with nowhook's hook in Factory Droid
// 0.225.2's managed settings (/etc/factory/settings.json running
// /usr/local/libexec/nowhook/droid.sh) and nowhook's project install
// (setup --agents droid=reinject; Droid has no user-scope install), which
// Droid runs together, each output reaching the next request, a session
// at the root gets the reminder once after /compact, and kbs runs once.
func TestDroidManagedOneReminder(t *testing.T) {
	t.Parallel()
	ctx := probeCtx(t)
	d := newDroidManaged(t)
	writeFile(t, filepath.Join(d.libexec, filepath.Base(droidManagedWrapper)), templates.RenderWrapper(5*time.Second, ""), 0o755)
	writeFile(t, filepath.Join(d.etc, "settings.json"), claudeHooks(nil, `s=`+droidManagedWrapper+`; [ ! -x "$s" ] || exec "$s"`), 0o644)
	runNowhook(t, ctx, d.s, "setup", "--yes", "--agents", "droid=reinject")
	reqs := d.session(t, ctx, d.s.repo)
	checkOnceAfter(t, reqs, expectedReminder(t))
	if n := d.s.kbsCalls(t); n != 1 {
		t.Errorf("kbs ran %d times, want once", n)
	}
}
