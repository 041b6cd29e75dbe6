package reminder

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSources(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want string
		bad  []string
	}{
		{"", "kanbus", nil},
		{"kanbus", "kanbus", nil},
		{"git, rules ,kanbus,samemind", "rules,kanbus,samemind,git", nil},
		{"rules,rules", "rules", nil},
		{"rules,nope,,git", "rules,git", []string{"nope"}},
	} {
		set, bad := parseSources(c.in)
		if set.String() != c.want || strings.Join(bad, ",") != strings.Join(c.bad, ",") {
			t.Errorf("parseSources(%q) = %q, bad %q; want %q, bad %q", c.in, set, bad, c.want, c.bad)
		}
	}
}

// fixedPart renders text when it fits, else its first limit bytes ending
// in "~" (a part that can shrink), or nil when shrink is false.
func fixedPart(text string, floor, want int, shrink bool) part {
	return part{floor: floor, want: want, render: func(limit int) []byte {
		if len(text) <= limit {
			return []byte(text)
		}
		if !shrink || limit < 2 {
			return nil
		}
		return []byte(text[:limit-1] + "~")
	}}
}

// TestAssemble: the parts print in order, separated by one blank line,
// within the total; floors first, then the room left in order; a part
// that cannot fit its room is left out, and so is its gap.
func TestAssemble(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("a", 9) + "\n"
	b := strings.Repeat("b", 19) + "\n"
	c := strings.Repeat("c", 29) + "\n"
	if got := string(assemble([]part{fixedPart(a, 5, 100, true), fixedPart(b, 5, 100, true), fixedPart(c, 5, 100, true)}, 1000)); got != a+"\n"+b+"\n"+c {
		t.Errorf("room enough: %q", got)
	}
	// 40 bytes: 2 gaps, floors 5+5+5, then 23 more in order: a whole (5
	// more), b whole (15 more), c the 3 left over its floor.
	got := string(assemble([]part{fixedPart(a, 5, 100, true), fixedPart(b, 5, 100, true), fixedPart(c, 5, 100, true)}, 40))
	if want := a + "\n" + b + "\n" + "ccccccc~"; got != want || len(got) > 40 {
		t.Errorf("40 bytes: %q, want %q", got, want)
	}
	// A part that cannot shrink and does not fit goes, with its gap.
	got = string(assemble([]part{fixedPart(a, 10, 100, false), fixedPart(c, 5, 100, false)}, 25))
	if got != a {
		t.Errorf("no room for c: %q", got)
	}
	// A part with nothing to say takes no room.
	got = string(assemble([]part{fixedPart("", 10, 100, true), fixedPart(b, 5, 100, true)}, 20))
	if got != b {
		t.Errorf("an empty part: %q", got)
	}
}

// gitRepo makes a repository with one commit, a sub-folder, an upstream
// two commits behind, and changes.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	up := filepath.Join(root, "up")
	repo := filepath.Join(root, "repo")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(up, 0o755)
	run(up, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(up, "a.txt"), []byte("a\n"), 0o644)
	run(up, "add", ".")
	run(up, "commit", "-qm", "first")
	run(root, "clone", "-q", up, repo)
	os.WriteFile(filepath.Join(up, "b.txt"), []byte("b\n"), 0o644)
	run(up, "add", ".")
	run(up, "commit", "-qm", "upstream moved")
	run(repo, "fetch", "-q")
	os.MkdirAll(filepath.Join(repo, "svc", "api"), 0o755)
	os.WriteFile(filepath.Join(repo, "svc", "api", "x.go"), []byte("package api\n"), 0o644)
	run(repo, "add", ".")
	run(repo, "commit", "-qm", "Fix the \x1b[31mlogin\x1b[0m bug")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("changed\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644)
	return repo
}

// slowGit gives the git calls room enough on a busy machine: the tests
// check what is read, not how fast.
var slowGit = gitOptions{factsMax: time.Minute, statusMax: time.Minute}

func TestGitFacts(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	f, ok := readGitFacts(filepath.Join(repo, "svc", "api"), time.Now().Add(time.Minute), slowGit, nil, logger{})
	if !ok {
		t.Fatal("no facts")
	}
	if f.branch != "main" || f.upstream != "origin/main" || f.track != "ahead 1, behind 1" || f.changed != 2 || !f.counted ||
		f.start != "svc/api" || len(f.hash) < 7 || !strings.Contains(f.subject, "login") {
		t.Errorf("facts %+v", f)
	}
	got := string(renderGit(f, 2000))
	for _, want := range []string{gitOpen, "- branch: main (ahead 1, behind 1 of origin/main)\n",
		"- HEAD: " + f.hash + " \"Fix the login bug\"\n", "- changed files (git status): 2\n",
		"- the session started in: svc/api (from the repository's root)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("an escape reached the render: %q", got)
	}
	if renderGit(f, 50) != nil {
		t.Errorf("renders into too small a room")
	}
}

// TestGitFactsStatusCut: a status that does not answer in its bound costs
// only the count.
func TestGitFactsStatusCut(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	f, ok := readGitFacts(repo, time.Now().Add(time.Minute), gitOptions{factsMax: time.Minute, statusMax: time.Nanosecond}, nil, logger{})
	if !ok || f.counted || f.branch != "main" || f.start != "." {
		t.Fatalf("facts %+v, ok %v", f, ok)
	}
	if got := string(renderGit(f, 2000)); strings.Contains(got, "changed files") || !strings.Contains(got, "the repository's root") {
		t.Errorf("render:\n%s", got)
	}
}

// TestGitFactsLargeIndex: a repository whose index holds more than
// maxStatusEntries files is not asked for its status; the other facts
// stay.
func TestGitFactsLargeIndex(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	index := filepath.Join(repo, ".git", "index")
	n := maxStatusEntries + 1
	header := []byte{'D', 'I', 'R', 'C', 0, 0, 0, 2, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	if err := os.WriteFile(index, header, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	f, ok := readGitFacts(repo, time.Now().Add(time.Minute), slowGit, nil, logger{w: &log, on: true})
	if !ok || f.counted || f.branch != "main" || f.hash == "" {
		t.Fatalf("ok %v, %+v", ok, f)
	}
	if !strings.Contains(log.String(), fmt.Sprintf("the index holds %d files", n)) {
		t.Errorf("log:\n%s", log.String())
	}
	if got, ok := indexEntries(filepath.Join(repo, ".git")); !ok || got != n {
		t.Errorf("indexEntries = %d, %v", got, ok)
	}
}

func TestGitFactsNone(t *testing.T) {
	t.Parallel()
	if _, ok := readGitFacts(t.TempDir(), time.Now().Add(time.Minute), slowGit, nil, logger{}); ok {
		t.Errorf("facts outside a repository")
	}
	if _, ok := readGitFacts("", time.Now().Add(time.Minute), slowGit, nil, logger{}); ok {
		t.Errorf("facts without a folder")
	}
}

// withSamemind puts the stand-in on PATH in mode, with OKF_ROOT at a new
// knowledge base, and returns the root.
func withSamemind(t *testing.T, mode string) string {
	t.Helper()
	t.Setenv("PATH", toolDir(t, "samemind"))
	root := t.TempDir()
	t.Setenv("OKF_ROOT", root)
	t.Setenv("FAKE_SAMEMIND_MODE", mode)
	return root
}

func TestHandoff(t *testing.T) {
	root := withSamemind(t, "ok")
	os.MkdirAll(filepath.Join(root, "inbox"), 0o755)
	os.WriteFile(filepath.Join(root, "inbox", "mcp.md"), []byte("- 2026-12-01 pre-compact: the user wants the docs first\n"), 0o644)
	h := readHandoff(t.TempDir(), time.Now().Add(time.Minute), nil, logger{})
	got := string(renderHandoff(h, root, samemindWant))
	for _, want := range []string{samemindOpen + root + samemindOpen2, "## Active tasks\n", "- [blocked] auth-migration:",
		"## Open questions\n", "- 2026-12-01 pre-compact: the user wants the docs first\n", samemindClose} {
		if !strings.Contains(got, want) {
			t.Errorf("handoff lacks %q:\n%s", want, got)
		}
	}
	small := renderHandoff(h, root, 400)
	if len(small) > 400 || !bytes.Contains(small, []byte("more lines: run samemind handoff]\n")) || !bytes.HasSuffix(small, []byte(samemindClose)) {
		t.Errorf("cut handoff (%d bytes):\n%s", len(small), small)
	}
}

// TestHandoffFailures: samemind failing, hanging, printing nothing, or no
// knowledge base: nothing, within the deadline; garbage is sanitised; a
// huge handoff is cut.
func TestHandoffFailures(t *testing.T) {
	for _, mode := range []string{"fail", "hang", "empty"} {
		t.Run(mode, func(t *testing.T) {
			withSamemind(t, mode)
			start := time.Now()
			if h := readHandoff(t.TempDir(), time.Now().Add(300*time.Millisecond), nil, logger{}); h != nil {
				t.Errorf("handoff %q", h)
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("took %s", d) // the deadline ends it; a minute only catches a hang
			}
		})
	}
	t.Run("no-knowledge-base", func(t *testing.T) {
		withSamemind(t, "ok")
		t.Setenv("OKF_ROOT", filepath.Join(t.TempDir(), "missing"))
		if h := readHandoff(t.TempDir(), time.Now().Add(time.Minute), nil, logger{}); h != nil {
			t.Errorf("handoff %q", h)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		root := withSamemind(t, "garbage")
		h := readHandoff(t.TempDir(), time.Now().Add(time.Minute), nil, logger{})
		out := renderHandoff(h, root, samemindWant)
		if bytes.ContainsAny(out, "\x00\x1b\x07") || !utf8Valid(out) {
			t.Errorf("garbage reached the render: %q", out)
		}
	})
	t.Run("big", func(t *testing.T) {
		withSamemind(t, "big")
		if h := readHandoff(t.TempDir(), time.Now().Add(time.Minute), nil, logger{}); h != nil {
			t.Errorf("an 8 MB handoff was taken (%d bytes)", len(h))
		}
	})
}
