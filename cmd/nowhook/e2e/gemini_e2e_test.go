package e2e

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// TestGeminiContextBlockAfterCompression: after `nowhook setup --yes
// --agents gemini`, Gemini CLI puts the kbs-now block of GEMINI.md into the
// first request (inside the first user message's session context) and,
// after it compresses the history, into the first request after the
// compression (the CLI rebuilds that context), next to the summary.
func TestGeminiContextBlockAfterCompression(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newGeminiMock(t, true)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)

	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "gemini")
	if res.err != nil {
		t.Fatalf("nowhook setup --yes --agents gemini: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("nowhook setup --yes --agents gemini:\n%s", strings.TrimSpace(res.stdout+res.stderr))
	if !strings.Contains(res.stdout, "GEMINI.md (created)") {
		t.Fatalf("setup did not create GEMINI.md:\n%s", res.stdout)
	}

	run := runGemini(t, ctx, s, m, bin, env)
	want := geminiBlockLines()
	turns := geminiTurns(run.reqs)
	if len(turns) == 0 || turns[0] != 0 {
		t.Fatalf("the first request is not a turn: turns at %v", turns)
	}
	first := geminiContents(t, run.reqs[0])
	if len(first) == 0 || first[0].Role != "user" {
		t.Fatalf("the first request has no user message first: %+v", first)
	}
	if miss := geminiMissing(first[0].Text(), want); len(miss) > 0 {
		t.Errorf("the first request's first user message lacks %d lines of the kbs-now block, e.g. %q\n%.3000s", len(miss), miss[0], first[0].Text())
	}

	summaryAt, after := geminiTurnAfterCompression(t, run.reqs)
	contents := geminiContents(t, run.reqs[after])
	if len(contents) == 0 || contents[0].Role != "user" {
		t.Fatalf("request %d (the first after the compression) has no user message first: %+v", after, contents)
	}
	if miss := geminiMissing(contents[0].Text(), want); len(miss) > 0 {
		t.Errorf("request %d, the first after the compression, lacks %d lines of the kbs-now block in its first user message, e.g. %q\n%.3000s",
			after, len(miss), miss[0], contents[0].Text())
	}
	summary := false
	for _, c := range contents {
		if strings.Contains(c.Text(), mockmodel.GeminiSummary) {
			summary = true
		}
		if c.Role == "user" && c.Text() == "hello" {
			t.Errorf("request %d still holds the original prompt: the history was not compressed", after)
		}
	}
	if !summary {
		t.Errorf("request %d does not hold the compression's summary: it is not the history after the compression", after)
	}
	if !t.Failed() {
		t.Logf("the kbs-now block (%d lines) is in request 0 and in request %d, the first after the summary (request %d)", len(want), after, summaryAt)
	}
}

// TestGeminiRefusedModeNoBlock is the negative control: `nowhook setup
// --yes --agents gemini=nudge`, a mode Gemini CLI lacks, exits 2 with
// Gemini CLI's reason and writes nothing, and then no request Gemini CLI
// sends, before or after a compression, carries any line of the kbs-now
// block, while the project's own GEMINI.md does reach the model through
// the same channel.
func TestGeminiRefusedModeNoBlock(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	const own = "The build uses make; run make test before every commit."
	writeFile(t, filepath.Join(s.repo, "GEMINI.md"), "# Project notes\n\n"+own+"\n", 0o644)
	m := newGeminiMock(t, true)
	env := geminiEnv(t, s, m)
	clientVersion(t, ctx, env, bin)

	before := geminiRepoTree(t, s.repo)
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), "setup", "--yes", "--agents", "gemini=nudge")
	var exit *exec.ExitError
	if !errors.As(res.err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("nowhook setup --agents gemini=nudge: %v, want exit status 2\n%s%s", res.err, res.stdout, res.stderr)
	}
	for _, w := range []string{"gemini=nudge is refused: Gemini CLI's PreCompress hook fires on every turn", "Nothing was written."} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("the refusal does not say %q:\n%s", w, res.stderr)
		}
	}
	t.Logf("nowhook setup --yes --agents gemini=nudge (exit 2):\n%s", strings.TrimSpace(res.stderr))
	if after := geminiRepoTree(t, s.repo); after != before {
		t.Errorf("the refused setup changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	run := runGemini(t, ctx, s, m, bin, env)
	_, idx := geminiTurnAfterCompression(t, run.reqs) // it compressed and asked again
	for _, i := range []int{0, idx} {
		if c := geminiContents(t, run.reqs[i]); len(c) == 0 || !strings.Contains(c[0].Text(), own) {
			t.Errorf("request %d does not carry the project's own GEMINI.md: the control proves nothing", i)
		}
	}
	for i, r := range run.reqs {
		for _, l := range geminiBlockLines() {
			if bodyContains(t, r.Body, l) {
				t.Errorf("request %d (%s) contains kbs-now block line %q", i, r.Kind, l)
			}
		}
	}
}

// geminiRepoTree lists every file under dir except .git, with its content, for
// comparing before and after a command.
func geminiRepoTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, path)
		b.WriteString(rel)
		if !d.IsDir() {
			c, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b.WriteString(": " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
