package e2e

// The release, tested the way users install it, offline: scripts/release.sh
// builds the packages of this machine's platform (NOWHOOK_RELEASE_PLATFORMS:
// its archive, the npm launcher and its platform package, as in a release);
// TestReleaseInstallWays installs nowhook each way the README's "Install"
// section names (npm -g and npx from the packed tarballs, go install from
// a file-based module proxy made from this checkout, the unpacked archive,
// install.sh), checks that every way prints one version, and runs the
// hooks that setup writes with a compact payload and a fake kbs
// (cmd/internal/fakekbs), which records which binary called it;
// TestReleaseNpmLauncher checks the launcher's exit codes, signals and
// errors; TestClaudeNpmInstalledNowhook runs Claude Code's compaction hook
// on the npm-installed nowhook. scripts/releasetest builds a whole release
// twice and compares the bytes.
//
// Nothing here reaches a network: npm runs with --offline and an empty
// cache of its own, go with GOPROXY set to file:// folders only.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/fakekbs"
)

// releaseVersion is the version the tests release: semver for npm, with a
// leading v for Go.
const releaseVersion = "0.0.0-test"

// kbsParentEnv names a file to which the fake kbs appends the executable
// of the process that started it (Linux: /proc/PPID/exe), which tells the
// nowhook binary that ran the hook from the python3 fallback.
const kbsParentEnv = "NOWHOOK_TEST_KBS_PARENT"

// init makes this test binary the fake kbs when it runs under that name.
func init() {
	if filepath.Base(os.Args[0]) != "kbs" {
		return
	}
	if f := os.Getenv(kbsParentEnv); f != "" {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
		if err != nil {
			exe = "unknown: " + err.Error()
		}
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(fh, exe)
			fh.Close()
		}
	}
	os.Exit(fakekbs.Main())
}

var (
	releaseOnce sync.Once
	releaseOut  string // the folder release.sh wrote, removed by TestMain
	releaseErr  error
)

// repoRoot is the checkout these tests run in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needReleaseTools skips the test, naming what is missing, unless every
// tool scripts/release.sh needs is on PATH.
func needReleaseTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the release tests build and run the linux packages; this is %s", runtime.GOOS)
	}
	for _, c := range []string{"node", "npm", "npx", "zip", "gzip", "tar", "sha256sum", "bash"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not on PATH: scripts/release.sh needs node and npm (npm pack), GNU tar, gzip, zip and sha256sum", c)
		}
	}
	if out, err := exec.Command("tar", "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU tar")) {
		t.Skip("tar is not GNU tar, which scripts/release.sh needs for reproducible archives")
	}
}

// runRelease runs scripts/release.sh VERSION DIR for this machine's
// platform and returns its output.
func runRelease(ctx context.Context, root, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "release.sh"), releaseVersion, dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NOWHOOK_RELEASE_PLATFORMS=linux/"+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("scripts/release.sh %s %s: %v\n%s", releaseVersion, dir, err, out)
	}
	return string(out), nil
}

// releaseArtifacts runs scripts/release.sh for this machine's platform
// once per package run and returns the folder it wrote.
func releaseArtifacts(t *testing.T) string {
	t.Helper()
	needReleaseTools(t)
	root := repoRoot(t)
	releaseOnce.Do(func() {
		releaseOut, releaseErr = os.MkdirTemp("", "nowhook-release-")
		if releaseErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		var out string
		out, releaseErr = runRelease(ctx, root, releaseOut)
		t.Logf("scripts/release.sh %s took %s:\n%s", releaseVersion, time.Since(start).Round(100*time.Millisecond), strings.TrimSpace(out))
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseOut
}

// removeRelease removes what releaseArtifacts wrote (called by TestMain).
func removeRelease() {
	if releaseOut != "" {
		os.RemoveAll(releaseOut)
	}
}

// npmPlatform is the npm platform package for this machine.
func npmPlatform() string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	return "nowhook-linux-" + arch
}
