package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/shapes"
)

// benchRepo is a repository set up for Claude Code and Codex CLI (re-inject)
// by the real reconcile, with n start folders below its root: packages
// with a package.json, every other one with a CLAUDE.md of its own, the
// rest with an AGENTS.md, as a monorepo has them.
func benchRepo(b *testing.B, n int) (root string, env []string) {
	b.Helper()
	home := b.TempDir()
	b.Setenv("HOME", home)
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := shapes.Monorepo(n).Write(root); err != nil {
		b.Fatal(err)
	}
	var targets []engine.Target
	for _, name := range []string{"claude", "codex"} {
		for _, a := range agentpkg.All {
			if a.Name == name {
				targets = append(targets, engine.Target{Agent: a, Mode: agentpkg.Reinject})
			}
		}
	}
	pl, err := engine.Reconcile(engine.Request{Root: root, Targets: targets, Options: agentpkg.Options{Budget: agentpkg.DefaultBudget}})
	if err != nil {
		b.Fatal(err)
	}
	if err := pl.Write(); err != nil {
		b.Fatal(err)
	}
	return root, []string{"HOME=" + home, "PATH=" + reminderBin(b) + ":/usr/bin:/bin", "CODEX_HOME=" + filepath.Join(home, ".codex"), "LANG=C.UTF-8"}
}

var (
	reminderOnce sync.Once
	reminderDir  string
	reminderErr  error
)

// reminderBin is a folder holding nowhook-reminder, built once, for the
// PATH of a teammate who installed nowhook: the wrappers then run the Go
// hook runtime, which takes doctor's probe budget (the python3 fallback's
// runs get the wrapper's own budget).
func reminderBin(b *testing.B) string {
	b.Helper()
	reminderOnce.Do(func() {
		reminderDir, reminderErr = os.MkdirTemp("", "nowhook-bench-bin-")
		if reminderErr == nil {
			out, err := exec.Command("go", "build", "-o", filepath.Join(reminderDir, "nowhook-reminder"), "github.com/nowhook/nowhook/cmd/nowhook-reminder").CombinedOutput()
			if err != nil {
				reminderErr = fmt.Errorf("go build nowhook-reminder: %v\n%s", err, out)
			}
		}
	})
	if reminderErr != nil {
		b.Fatal(reminderErr)
	}
	return reminderDir
}

// benchDoctor is nowhook doctor (without --live) on a repository with n
// start folders: every file check, the judgement of the root and of each
// start folder, the live probes of the two wrappers (through
// nowhook-reminder, as where nowhook is installed; no kbs on PATH).
func benchDoctor(b *testing.B, n int) {
	root, env := benchRepo(b, n)
	r := Run(context.Background(), Options{Root: root, Env: env})
	if n > 0 && len(find(r.Findings, "subfolders.claude")) < n/2 {
		b.Fatalf("doctor judged fewer start folders than %d: %+v", n, find(r.Findings, "subfolders.claude"))
	}
	b.ResetTimer()
	for b.Loop() {
		Run(context.Background(), Options{Root: root, Env: env})
	}
}

// BenchmarkDoctor20Folders and BenchmarkDoctorRootOnly: doctor on a
// repository with 20 start folders, and on the same setup without them.
func BenchmarkDoctor20Folders(b *testing.B) { benchDoctor(b, 20) }
func BenchmarkDoctorRootOnly(b *testing.B)  { benchDoctor(b, 0) }

// benchStatic is doctor's file checks alone (what setup and setup --check
// ask), with the judgement of every start folder.
func benchStatic(b *testing.B, n int) {
	root, env := benchRepo(b, n)
	b.ResetTimer()
	for b.Loop() {
		Static(root, []string{"claude", "codex"}, env)
	}
}

func BenchmarkStatic20Folders(b *testing.B) { benchStatic(b, 20) }
func BenchmarkStaticRootOnly(b *testing.B)  { benchStatic(b, 0) }
