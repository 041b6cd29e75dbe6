package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The instruction-file matrix: repositories shaped like users' (the
// team's own AGENTS.md, a CLAUDE.md beside it that does not import it, the
// two linked), each started at the root, in a sub-folder and in a git
// worktree. Every user file carries a rule line of its own, so a test can
// say which of the team's files reached the model.

// Rule lines of the team's own instruction files.
const (
	agentsRule = "Team rule from AGENTS.md: run make lint before every commit (rule-agents-4821)."
	claudeRule = "Team rule from CLAUDE.md: keep commits small (rule-claude-7093)."
)

// repoShape is how a repository holds its instruction files before setup.
type repoShape struct {
	name  string
	files map[string]string // path -> content
	links map[string]string // path -> symlink target, relative to the link
	// rules are the rule lines the shape's files hold, by file.
	rules map[string]string
}

var (
	shapeAgentsOnly = repoShape{
		name:  "agents-only",
		files: map[string]string{"AGENTS.md": "# Team rules\n\n" + agentsRule + "\n"},
		rules: map[string]string{"AGENTS.md": agentsRule},
	}
	shapeClaudeAndAgents = repoShape{
		name: "claude-no-import",
		files: map[string]string{
			"AGENTS.md": "# Team rules\n\n" + agentsRule + "\n",
			"CLAUDE.md": "# Claude notes\n\n" + claudeRule + "\n",
		},
		rules: map[string]string{"AGENTS.md": agentsRule, "CLAUDE.md": claudeRule},
	}
	shapeLinked = repoShape{
		name:  "linked",
		files: map[string]string{"AGENTS.md": "# Team rules\n\n" + agentsRule + "\n"},
		links: map[string]string{"CLAUDE.md": "AGENTS.md"},
		rules: map[string]string{"AGENTS.md": agentsRule},
	}
	repoShapes = []repoShape{shapeAgentsOnly, shapeClaudeAndAgents, shapeLinked}
)

// Where a session starts.
const (
	startRoot     = "root"       // the repository root
	startSub      = "sub/deeper" // a sub-folder two levels down
	startWorktree = "worktree"   // the root of a git worktree of the repository
)

var startDirs = []string{startRoot, startSub, startWorktree}

// subDir is the sub-folder sessions start in; it holds a tracked file so
// that a worktree has it too.
const subDir = "sub/deeper"

// applyShape writes the shape's files and links into the repository, with
// a tracked file in the sub-folder, and commits them.
func (s *sandbox) applyShape(t *testing.T, sh repoShape) {
	t.Helper()
	for name, content := range sh.files {
		writeFile(t, filepath.Join(s.repo, name), content, 0o644)
	}
	for name, target := range sh.links {
		if err := os.Symlink(target, filepath.Join(s.repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(s.repo, filepath.FromSlash(subDir), "main.go"), "package deeper\n", 0o644)
	s.commitAll(t, "the team's files: "+sh.name)
}

// commitAll commits everything in the repository (after setup, so that a
// worktree made afterwards holds what setup wrote, as a teammate's would).
func (s *sandbox) commitAll(t *testing.T, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"git", "add", "-A"},
		{"git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", msg, "--allow-empty"},
	} {
		if res := runCmd(t, ctx, s.env(nil), s.repo, "", args[0], args[1:]...); res.err != nil {
			t.Fatalf("%v: %v\n%s%s", args, res.err, res.stdout, res.stderr)
		}
	}
}

// startIn returns the directory a session starts in: the root, the
// sub-folder, or the root of a new worktree of the repository's HEAD
// (commit first: a worktree holds only what is committed).
func (s *sandbox) startIn(t *testing.T, where string) string {
	t.Helper()
	switch where {
	case startRoot:
		return s.repo
	case startSub:
		return filepath.Join(s.repo, filepath.FromSlash(subDir))
	case startWorktree:
		wt := filepath.Join(s.root, "worktree")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if res := runCmd(t, ctx, s.env(nil), s.repo, "", "git", "worktree", "add", "-q", "-b", "wt", wt); res.err != nil {
			t.Fatalf("git worktree add: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		return wt
	}
	t.Fatalf("unknown start %q", where)
	return ""
}

// missingRules lists the shape's rule lines that body (a request) lacks.
func missingRules(t *testing.T, body []byte, sh repoShape) []string {
	t.Helper()
	var out []string
	for file, rule := range sh.rules {
		if !bodyContains(t, body, rule) {
			out = append(out, file+": "+rule)
		}
	}
	return out
}

// kbsNowLine is a line of the kbs-now block that setup writes (its first
// bullet), to find the block in a request.
const kbsNowLine = "`kbs now` - the in-progress issues of the whole project as a tree."

// matrixName names one cell of the matrix in a subtest.
func matrixName(sh repoShape, where string) string {
	return sh.name + "/" + strings.ReplaceAll(where, "/", "-")
}

// worktreeAt adds a git worktree of the repository's HEAD at name under
// the sandbox root, on a new branch of that name (startIn makes the
// matrix's own worktree; this one is for a measurement before setup).
func (s *sandbox) worktreeAt(t *testing.T, name string) string {
	t.Helper()
	wt := filepath.Join(s.root, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res := runCmd(t, ctx, s.env(nil), s.repo, "", "git", "worktree", "add", "-q", "-b", name, wt); res.err != nil {
		t.Fatalf("git worktree add %s: %v\n%s%s", name, res.err, res.stdout, res.stderr)
	}
	return wt
}
