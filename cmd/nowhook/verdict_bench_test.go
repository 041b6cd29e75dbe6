package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/shapes"
)

// benchCheckRepo is a repository with n start folders (packages, every
// other one with a CLAUDE.md of its own, the rest with an AGENTS.md) set
// up for Claude Code and Codex CLI by nowhook setup itself.
func benchCheckRepo(b *testing.B, n int) string {
	b.Helper()
	b.Setenv("HOME", b.TempDir())
	b.Setenv("CODEX_HOME", "")
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := shapes.Monorepo(n).Write(root); err != nil {
		b.Fatal(err)
	}
	kanbusProject(b, root)
	b.Setenv("PATH", hookPath(b)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := setupCmd([]string{"--yes", "--dir", root, "--agents", "claude,codex"}, stdio{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}}); err != nil {
		b.Fatal(err)
	}
	return root
}

// benchSetupCheck is setup --check where setup would change nothing: the
// plan, the judgement of the root and every start folder on it, doctor's
// file checks now and on the plan's shadow.
func benchSetupCheck(b *testing.B, n int) {
	root := benchCheckRepo(b, n)
	args := []string{"--check", "--dir", root, "--agents", "claude,codex"}
	var out bytes.Buffer
	if err := setupCmd(args, stdio{in: strings.NewReader(""), out: &out, err: &out}); err != nil {
		b.Fatalf("setup --check after setup: %v\n%s", err, out.String())
	}
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		if err := setupCmd(args, stdio{in: strings.NewReader(""), out: &out, err: &out}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetupCheck20Folders and BenchmarkSetupCheckRootOnly: setup
// --check on a repository with 20 start folders, and without them.
func BenchmarkSetupCheck20Folders(b *testing.B) { benchSetupCheck(b, 20) }
func BenchmarkSetupCheckRootOnly(b *testing.B)  { benchSetupCheck(b, 0) }
