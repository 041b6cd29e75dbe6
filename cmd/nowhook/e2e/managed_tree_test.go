package e2e

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A managed install made by nowhook itself: `nowhook setup --scope managed
// --root R` writes the tree a package would install at / (the client's
// managed file under R/etc, the wrapper under R/usr/local/libexec/nowhook,
// the record under R/var/lib/nowhook), its commands naming the machine's
// paths. A sysView then shows R's folders at the system paths, so the
// real client runs what setup wrote exactly as it would on a machine
// where the package is installed; remove --scope managed --root R must
// then leave R as it was before setup.

// managedTree is one test's R.
type managedTree struct {
	root    string
	before  string    // R before setup: each path, mode, size and content (hostState)
	wrapper string    // the client's managed wrapper, as the machine has it
	kbs     *kbsTrace // who ran kbs
	layered bool      // nowhook's project or user install is there too
}

// newManagedTree makes an empty R in the sandbox.
func newManagedTree(t *testing.T, s *sandbox) *managedTree {
	t.Helper()
	m := &managedTree{root: filepath.Join(s.root, "managed-root")}
	if err := os.MkdirAll(m.root, 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// at is where the machine's path p is in the tree.
func (m *managedTree) at(p string) string { return filepath.Join(m.root, filepath.FromSlash(p)) }

// managedRecord is the managed scope's record, as the machine has it.
const managedRecord = "/var/lib/nowhook/managed-scope"

// setup records R as it is, traces kbs (install the fake first), runs `nowhook setup --scope managed --agents
// agent --root R --yes` and checks that it wrote file (the client's managed
// file), script (the wrapper) and the record, logging the first two with
// their sizes. Paths are the machine's.
func (m *managedTree) setup(t *testing.T, ctx context.Context, s *sandbox, agent, file, script string) {
	t.Helper()
	m.before, m.wrapper, m.kbs = hostState(t, m.root), script, traceKbs(t, s)
	out := runNowhook(t, ctx, s, "setup", "--scope", "managed", "--agents", agent, "--root", m.root, "--yes")
	for _, p := range []string{file, script, managedRecord} {
		fi, err := os.Stat(m.at(p))
		if err != nil {
			t.Fatalf("setup --scope managed --agents %s --root R did not write R%s: %v", agent, p, err)
		}
		if p == managedRecord {
			continue
		}
		if !strings.Contains(out, m.at(p)) {
			t.Errorf("setup --scope managed does not name %s in its summary:\n%s", m.at(p), out)
		}
		b, err := os.ReadFile(m.at(p))
		if err != nil {
			t.Fatal(err)
		}
		if p == file {
			t.Logf("managed file %s: %d bytes, mode %v, as setup --scope managed --agents %s wrote it:\n%s", p, len(b), fi.Mode(), agent, b)
		} else {
			t.Logf("managed wrapper %s: %d bytes, mode %v", p, len(b), fi.Mode())
		}
	}
}

// view shows the tree's folders at the system paths given.
func (m *managedTree) view(t *testing.T, folders ...string) *sysView {
	t.Helper()
	dirs := map[string]string{}
	for _, f := range folders {
		dirs[f] = m.at(f)
	}
	return newSysView(t, dirs)
}

// remove runs `nowhook remove --scope managed --root R --yes` and fails
// unless R is again as it was before setup, path for path, mode for mode,
// byte for byte.
func (m *managedTree) remove(t *testing.T, ctx context.Context, s *sandbox) {
	t.Helper()
	runNowhook(t, ctx, s, "remove", "--scope", "managed", "--root", m.root, "--yes")
	if after := hostState(t, m.root); after != m.before {
		t.Errorf("remove --scope managed --root R did not give R back as it was before setup:\nbefore:\n%s\nafter:\n%s", m.before, after)
	} else {
		t.Logf("after remove --scope managed, R is as before setup: %s", strings.TrimSpace(strings.ReplaceAll(m.before, m.root, "R")))
	}
}

// noNowhookInstall fails if a file below one of dirs (the repository, the
// HOME, a client's own home) holds a command of nowhook's project or user
// install: the managed tests run with the managed layer alone.
func noNowhookInstall(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && e.Name() == ".git" {
				return filepath.SkipDir
			}
			if !e.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, w := range []string{"kanbus-compaction-right-now", "kanbus-gemini-turn", "nowhook reminder"} {
				if strings.Contains(string(b), w) {
					t.Fatalf("%s holds %q: this test is of nowhook's managed install alone, with no project or user install", p, w)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// noTrustAnywhere fails if a file in the Codex home records a hook's
// trust ([hooks.state], trusted_hash): the managed hook needs none.
func noTrustAnywhere(t *testing.T, home string) {
	t.Helper()
	err := filepath.WalkDir(home, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "trusted_hash") || strings.Contains(string(b), "hooks.state") {
			t.Errorf("%s records hook trust; the managed hook ran with none recorded before:\n%.2000s", p, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// repointCodex points the Codex home's config at a new mock, keeping every
// other byte (the trust a project install recorded there).
func repointCodex(t *testing.T, c *codexManaged, m *responsesMock) {
	t.Helper()
	cfg := filepath.Join(c.home, "config.toml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), c.m.URL) {
		t.Fatalf("%s does not name the mock %s:\n%s", cfg, c.m.URL, b)
	}
	writeFile(t, cfg, strings.ReplaceAll(string(b), c.m.URL, m.URL), 0o644)
	c.m = m
}

// managedStart is a folder a session starts in.
type managedStart struct{ name, dir string }

// onceAfter checks the requests of one session: none up to after-1 holds
// the reminder, the one at after holds it once; and kbs ran once. It
// returns how many times the reminder is in the request at after.
func onceAfter(t *testing.T, reqs []recordedRequest, after int, reminder string, kbs int) int {
	t.Helper()
	if after >= len(reqs) {
		t.Fatalf("no request after the compaction (%d requests)", len(reqs))
	}
	checkNotBefore(t, reqs, after-1, reminder)
	n := countIn(t, reqs[after].Body, reminder)
	if n != 1 {
		t.Errorf("the first request after the compaction has the reminder %d times, want once", n)
	}
	if kbs != 1 {
		t.Errorf("kbs ran %d times in the session, want once", kbs)
	}
	return n
}

// kbsTrace wraps the sandbox's fake kbs so that each call also records the
// command line of the process that ran it: nowhook's runtime, whose
// --script names the wrapper of the hook that is printing. It shows which
// layer's hook gave the reminder where several are installed. The shim
// execs the fake, so the fake's parent stays the runtime.
type kbsTrace struct {
	log  string
	seen int // lines read by callers so far
}

// traceKbs wraps the fake kbs now on the sandbox's PATH (install it first).
func traceKbs(t *testing.T, s *sandbox) *kbsTrace {
	t.Helper()
	kbs, fake := filepath.Join(s.bin, "kbs"), filepath.Join(s.bin, "kbs-fake")
	if err := os.Rename(kbs, fake); err != nil {
		t.Fatal(err)
	}
	k := &kbsTrace{log: filepath.Join(s.root, "kbs.callers")}
	writeFile(t, kbs, "#!/bin/sh\n# Records the command line of the process that runs kbs, then runs the fake kbs (kbsTrace).\n"+
		"{ tr '\\0' ' ' </proc/$PPID/cmdline; echo; } >>"+shQuote(k.log)+" 2>/dev/null\nexec "+shQuote(fake)+" \"$@\"\n", 0o755)
	return k
}

// callers returns the --script of each process that ran kbs since the last
// call, each once, in the order of their first call ("(no --script)" for a
// caller that named none).
func (k *kbsTrace) callers(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(k.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(b) == 0 {
		lines = nil
	}
	fresh := lines[k.seen:]
	k.seen = len(lines)
	var out []string
	seen := map[string]bool{}
	for _, l := range fresh {
		script := "(no --script)"
		if _, after, ok := strings.Cut(l, " --script "); ok {
			script = strings.Fields(after)[0]
		}
		if !seen[script] {
			seen[script] = true
			out = append(out, script)
		}
	}
	return out
}

// onlyManagedRan checks, where the tree's layered is set (nowhook's
// project or user install is there too), that kbs was run since the last
// look by the managed wrapper's runtime alone: the hook that printed is
// the managed one, and the others stepped aside before running kbs.
// Without other layers it only logs who ran kbs (a gate that passes no
// --script, as Gemini CLI's did before the defer change, is not the
// managed test's concern).
func (m *managedTree) onlyManagedRan(t *testing.T) {
	t.Helper()
	got := m.kbs.callers(t)
	if m.layered && (len(got) != 1 || got[0] != m.wrapper) {
		t.Errorf("kbs was run by the runtimes of %v, want the managed wrapper %s alone", got, m.wrapper)
		return
	}
	t.Logf("kbs was run by the runtimes of %v", got)
}
