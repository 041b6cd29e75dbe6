package e2e

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// install is nowhook installed one way.
type install struct {
	way  string
	bin  string   // the folder holding nowhook and nowhook-reminder, for PATH
	root string   // everything the install wrote (its size is measured)
	path []string // what else the commands need on PATH (node for npm's launcher)
	took time.Duration
}

// TestReleaseInstallWays installs nowhook every way the README's "Install"
// section names, offline, each into a fresh folder: npm install -g from
// the packed tarballs (and npx on that install), npx with nothing
// installed, go install …@v0.0.0-test from a file-based module proxy built
// from this checkout, the linux archive unpacked into a bin folder as
// /usr/local/bin would be, and install.sh. Every way prints the same
// version for both binaries; after `nowhook setup --yes` in a repository,
// the hooks setup wrote, run as the agents run them (a compact payload on
// stdin), print the reminder, and the fake kbs was started by that way's
// nowhook-reminder, not by the python3 fallback.
func TestReleaseInstallWays(t *testing.T) {
	t.Parallel()
	dir := releaseArtifacts(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	kbsDir := fakeKbsDir(t, tmp)

	ways := []install{
		npmGlobal(t, ctx, dir, tmp),
		goInstall(t, ctx, tmp),
		unpackArchive(t, ctx, dir, tmp),
		installScript(t, ctx, tmp),
	}
	for _, w := range ways {
		t.Run(w.way, func(t *testing.T) {
			t.Logf("installed in %s, %s on disk (%s)", w.took.Round(10*time.Millisecond), size(t, w.root), w.root)
			env := append(w.env(tmp, kbsDir), "PATH="+w.pathVar(kbsDir))
			checkVersions(t, ctx, env, w.bin)
			repo := newRepo(t, ctx, filepath.Join(tmp, "repo-"+w.way))
			res := runCmd(t, ctx, env, repo, "", filepath.Join(w.bin, "nowhook"), "setup", "--yes")
			if res.err != nil {
				t.Fatalf("nowhook setup --yes: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			t.Logf("nowhook setup --yes:\n%s", strings.TrimSpace(res.stdout))
			checkHooks(t, ctx, env, repo, w.root)
		})
	}
	t.Run("npx", func(t *testing.T) { npxWithoutInstall(t, ctx, dir, tmp, kbsDir) })
}

// pathVar is the PATH of one way's commands: its bin folder, the fake
// kbs, what the way needs besides (node) and the system's folders, and no
// other nowhook.
func (w install) pathVar(kbsDir string) string {
	dirs := append([]string{w.bin, kbsDir}, w.path...)
	return strings.Join(append(dirs, "/usr/bin", "/bin"), ":")
}

// env is the environment of one way's commands, without PATH.
func (w install) env(tmp, kbsDir string) []string {
	return []string{
		"HOME=" + filepath.Join(tmp, "home-"+w.way),
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"FAKE_KBS_PAYLOAD=" + filepath.Join(kbsDir, "payload.json"),
		"FAKE_KBS_LOG=" + filepath.Join(kbsDir, "kbs.log"),
		kbsParentEnv + "=" + filepath.Join(kbsDir, "parents-"+w.way),
	}
}

// fakeKbsDir makes a folder with this test binary as kbs (init runs the
// fake) and the payload it prints.
func fakeKbsDir(t *testing.T, tmp string) string {
	t.Helper()
	dir := filepath.Join(tmp, "kbs-bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "kbs")); err != nil {
		t.Fatal(err)
	}
	payload, err := os.ReadFile(fixture(t, "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "payload.json"), string(payload), 0o644)
	return dir
}

// toolDir returns the folder of a command on the test's PATH.
func toolDir(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not on PATH", name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(abs)
}

// timed runs a command that installs nowhook, fails the test if it fails,
// and returns how long it took.
func timed(t *testing.T, ctx context.Context, env []string, dir, name string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	res := runCmd(t, ctx, env, dir, "", name, args...)
	took := time.Since(start)
	if res.err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), res.err, res.stdout, res.stderr)
	}
	t.Logf("%s %s (%s)", filepath.Base(name), strings.Join(args, " "), took.Round(10*time.Millisecond))
	return took
}

// npmEnv is the environment npm runs with: its own HOME (so no user
// configuration) and an empty cache of its own, which --offline keeps
// from asking the registry anything.
func npmEnv(tmp, name string, path ...string) []string {
	return []string{
		"PATH=" + strings.Join(append(path, "/usr/bin", "/bin"), ":"),
		"HOME=" + filepath.Join(tmp, "home-"+name),
		"npm_config_cache=" + filepath.Join(tmp, "npm-cache-"+name),
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
	}
}

// npmTarballs returns the launcher's and this machine's platform
// package's tarballs in a release folder.
func npmTarballs(dir string) (launcher, platform string) {
	return filepath.Join(dir, "npm", "nowhook-"+releaseVersion+".tgz"),
		filepath.Join(dir, "npm", npmPlatform()+"-"+releaseVersion+".tgz")
}

// npmGlobal installs the launcher and this machine's platform package
// with npm install -g into a fresh prefix, from the tarballs (npm would
// fetch the platform package named in optionalDependencies from the
// registry; offline it skips the five it cannot fetch and takes the
// tarball given beside the launcher), and runs `npx nowhook version` on
// that install.
func npmGlobal(t *testing.T, ctx context.Context, dir, tmp string) install {
	t.Helper()
	node := toolDir(t, "node")
	npm := toolDir(t, "npm")
	prefix := filepath.Join(tmp, "npm-prefix")
	launcher, platform := npmTarballs(dir)
	env := npmEnv(tmp, "npm", node, npm)
	took := timed(t, ctx, env, tmp, filepath.Join(npm, "npm"), "install", "-g", "--offline", "--prefix", prefix, launcher, platform)
	for _, f := range []string{"bin/nowhook", "bin/nowhook-reminder", "lib/node_modules/nowhook/package.json", "lib/node_modules/" + npmPlatform() + "/bin/nowhook-reminder"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Fatalf("npm install -g: %v", err)
		}
	}
	// npx finds the package installed in the global prefix and asks no
	// registry: the same version.
	env = append(npmEnv(tmp, "npm", filepath.Join(prefix, "bin"), node, npm), "NPM_CONFIG_PREFIX="+prefix)
	work := filepath.Join(tmp, "npx-work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	res := runCmd(t, ctx, env, work, "", filepath.Join(npm, "npx"), "--offline", "nowhook", "version")
	if res.err != nil {
		t.Fatalf("npx nowhook version: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("npx nowhook version (after npm install -g):\n%s", strings.TrimSpace(res.stdout))
	if got := printedVersion(t, "nowhook", res.stdout); got != "v"+releaseVersion {
		t.Errorf("npx nowhook version printed %s, want v%s", got, releaseVersion)
	}
	return install{way: "npm", bin: filepath.Join(prefix, "bin"), root: prefix, path: []string{node}, took: took}
}

// npxWithoutInstall runs `npx nowhook setup --yes` with nothing installed,
// the packages coming from the tarballs into npx's own (fresh) cache:
// setup works and says that the hooks need nowhook installed. Kanbus is
// installed (the fake kbs on PATH): without it setup exits 1 after
// writing, naming doctor's kanbus.cli error.
func npxWithoutInstall(t *testing.T, ctx context.Context, dir, tmp, kbsDir string) {
	node := toolDir(t, "node")
	npm := toolDir(t, "npm")
	launcher, platform := npmTarballs(dir)
	env := npmEnv(tmp, "npx", node, npm, kbsDir)
	repo := newRepo(t, ctx, filepath.Join(tmp, "repo-npx"))
	npx := []string{"--yes", "--offline", "--package", launcher, "--package", platform, "--", "nowhook"}
	start := time.Now()
	res := runCmd(t, ctx, env, repo, "", filepath.Join(npm, "npx"), append(npx, "version")...)
	took := time.Since(start)
	if res.err != nil {
		t.Fatalf("npx nowhook version: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("npx nowhook version, nothing installed (%s, npx cache %s):\n%s", took.Round(10*time.Millisecond),
		size(t, filepath.Join(tmp, "npm-cache-npx")), strings.TrimSpace(res.stdout))
	if got := printedVersion(t, "nowhook", res.stdout); got != "v"+releaseVersion {
		t.Errorf("npx nowhook version printed %s, want v%s", got, releaseVersion)
	}
	res = runCmd(t, ctx, env, repo, "", filepath.Join(npm, "npx"), append(npx, "setup", "--yes")...)
	if res.err != nil {
		t.Fatalf("npx nowhook setup --yes: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	t.Logf("npx nowhook setup --yes:\n%s%s", res.stderr, strings.TrimSpace(res.stdout))
	if !strings.Contains(res.stderr, "npm install -g nowhook@"+releaseVersion) {
		t.Errorf("npx nowhook setup, with no nowhook on PATH, does not say to install it for the hooks; stderr:\n%s", res.stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, ".claude", "settings.json")); err != nil {
		t.Errorf("npx nowhook setup --yes wrote no .claude/settings.json: %v", err)
	}
}

// goInstall serves this checkout as github.com/nowhook/nowhook
// v0.0.0-test from a file-based module proxy, the dependencies from the
// module cache's download folder (a proxy layout too), and runs go install
// for both commands into a fresh GOBIN, with a fresh module cache.
func goInstall(t *testing.T, ctx context.Context, tmp string) install {
	t.Helper()
	goDir := toolDir(t, "go")
	modcache := goEnv(t, "GOMODCACHE")
	proxy := filepath.Join(tmp, "goproxy")
	writeModuleProxy(t, repoRoot(t), proxy)
	gobin := filepath.Join(tmp, "gobin")
	env := []string{
		"PATH=" + goDir + ":/usr/bin:/bin",
		"HOME=" + filepath.Join(tmp, "home-go"),
		"GOPATH=" + filepath.Join(tmp, "gopath"),
		"GOMODCACHE=" + filepath.Join(tmp, "gomodcache"),
		"GOCACHE=" + goEnv(t, "GOCACHE"),
		"GOBIN=" + gobin,
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(modcache, "cache", "download"),
		"GOSUMDB=off", // v0.0.0-test is in no checksum database; the dependencies are checked against its go.sum
		"GOTOOLCHAIN=local",
		// -trimpath and CGO_ENABLED=0 (as install.sh and release.sh
		// build) let this build reuse the build cache whatever the
		// (fresh) module cache's path; -modcacherw lets the test remove
		// that cache. None of them changes what the binaries report.
		"GOFLAGS=-modcacherw -trimpath",
		"CGO_ENABLED=0",
		"TMPDIR=" + os.TempDir(),
	}
	mod := "github.com/nowhook/nowhook/cmd/"
	took := timed(t, ctx, env, tmp, filepath.Join(goDir, "go"), "install", mod+"nowhook@v"+releaseVersion, mod+"nowhook-reminder@v"+releaseVersion)
	return install{way: "go-install", bin: gobin, root: gobin, took: took}
}

// writeModuleProxy writes the module proxy files (list, .info, .mod,
// .zip) of github.com/nowhook/nowhook v0.0.0-test under dir, the zip
// holding what git would commit from the checkout at root: tracked files
// and new ones git does not ignore.
func writeModuleProxy(t *testing.T, root, dir string) {
	t.Helper()
	v := "v" + releaseVersion
	at := filepath.Join(dir, "github.com", "nowhook", "nowhook", "@v")
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(at, "list"), v+"\n", 0o644)
	writeFile(t, filepath.Join(at, v+".info"), `{"Version":"`+v+`","Time":"2026-01-01T00:00:00Z"}`+"\n", 0o644)
	writeFile(t, filepath.Join(at, v+".mod"), string(gomod), 0o644)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	f, err := os.Create(filepath.Join(at, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	files := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a link (module zips hold neither)
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create("github.com/nowhook/nowhook@" + v + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		files++
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("module proxy: github.com/nowhook/nowhook %s, %d files", v, files)
}

// unpackArchive unpacks this machine's linux archive with tar and installs
// its binaries into a bin folder, as a user does into /usr/local/bin.
func unpackArchive(t *testing.T, ctx context.Context, dir, tmp string) install {
	t.Helper()
	name := "nowhook_" + releaseVersion + "_linux_" + runtime.GOARCH
	work := filepath.Join(tmp, "archive")
	bin := filepath.Join(tmp, "usr-local", "bin")
	for _, d := range []string{work, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "LANG=C.UTF-8"}
	start := time.Now()
	timed(t, ctx, env, work, "tar", "-xzf", filepath.Join(dir, name+".tar.gz"))
	timed(t, ctx, env, work, "install", "-m", "0755", filepath.Join(name, "nowhook"), filepath.Join(name, "nowhook-reminder"), bin)
	return install{way: "archive", bin: bin, root: bin, took: time.Since(start)}
}

// installScript runs install.sh from this checkout with BINDIR, naming
// the version (NOWHOOK_VERSION) as a packager building the release would,
// the modules coming from the module cache alone.
func installScript(t *testing.T, ctx context.Context, tmp string) install {
	t.Helper()
	goDir := toolDir(t, "go")
	modcache := goEnv(t, "GOMODCACHE")
	bin := filepath.Join(tmp, "installsh-bin")
	env := []string{
		"PATH=" + goDir + ":/usr/bin:/bin",
		"HOME=" + filepath.Join(tmp, "home-installsh"),
		"GOCACHE=" + goEnv(t, "GOCACHE"),
		"GOMODCACHE=" + modcache,
		"GOPROXY=file://" + filepath.Join(modcache, "cache", "download"),
		"GOTOOLCHAIN=local",
		"BINDIR=" + bin,
		"NOWHOOK_VERSION=v" + releaseVersion,
		"TMPDIR=" + os.TempDir(),
	}
	took := timed(t, ctx, env, repoRoot(t), "sh", filepath.Join(repoRoot(t), "install.sh"))
	return install{way: "install.sh", bin: bin, root: bin, took: took}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// checkVersions runs nowhook version and nowhook-reminder --version from
// bin and checks that both print the released version.
func checkVersions(t *testing.T, ctx context.Context, env []string, bin string) {
	t.Helper()
	for _, c := range [][]string{{"nowhook", "version"}, {"nowhook-reminder", "--version"}} {
		res := runCmd(t, ctx, env, "", "", filepath.Join(bin, c[0]), c[1])
		if res.err != nil {
			t.Fatalf("%s %s: %v\n%s%s", c[0], c[1], res.err, res.stdout, res.stderr)
		}
		t.Logf("%s %s: %s", c[0], c[1], strings.TrimSpace(res.stdout))
		if got := printedVersion(t, c[0], res.stdout); got != "v"+releaseVersion {
			t.Errorf("%s %s printed version %s, want v%s", c[0], c[1], got, releaseVersion)
		}
	}
}

// printedVersion returns the version in the first line of `NAME version`.
func printedVersion(t *testing.T, name, out string) string {
	t.Helper()
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + ` (\S+), commit \S+`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s printed %q, not `%s VERSION, commit …`", name, out, name)
	}
	return m[1]
}

// newRepo makes a git repository with a .kanbus.yml at dir.
func newRepo(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	writeFile(t, filepath.Join(dir, ".kanbus.yml"), "project_directory: project\nproject_key: kbs\n", 0o644)
	res := runCmd(t, ctx, []string{"PATH=/usr/bin:/bin", "HOME=" + dir}, dir, "", "git", "init", "-q")
	if res.err != nil {
		t.Fatalf("git init: %v\n%s", res.err, res.stderr)
	}
	return dir
}

// checkHooks runs each compact hook command that setup wrote into the
// Claude Code and Codex configurations, as the agent would (sh -c, in the
// repository, a compact SessionStart payload on stdin), and checks that it
// printed the reminder and that the fake kbs was started by the
// nowhook-reminder under root.
func checkHooks(t *testing.T, ctx context.Context, env []string, repo, root string) {
	t.Helper()
	want := expectedReminder(t)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var parents string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, kbsParentEnv+"="); ok {
			parents = v
		}
	}
	for _, cfg := range []string{".claude/settings.json", ".codex/hooks.json"} {
		cmds := compactCommands(t, filepath.Join(repo, cfg))
		if len(cmds) != 1 {
			t.Fatalf("%s has %d compact SessionStart hooks, want 1: %q", cfg, len(cmds), cmds)
		}
		os.Remove(parents)
		payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"compact","cwd":` + jsonString(repo) + `}`
		res := runCmd(t, ctx, append(env, "CLAUDE_PROJECT_DIR="+repo), repo, payload, "sh", "-c", cmds[0])
		if res.err != nil {
			t.Errorf("the %s hook: %v\n%s", cfg, res.err, res.stderr)
			continue
		}
		if got := strings.TrimRight(res.stdout, "\n"); got != want {
			t.Errorf("the %s hook printed\n%s\nwant\n%s\nstderr:\n%s", cfg, got, want, res.stderr)
		}
		b, err := os.ReadFile(parents)
		if err != nil {
			t.Errorf("the %s hook never started kbs: %v", cfg, err)
			continue
		}
		for _, exe := range strings.Fields(string(b)) {
			real, err := filepath.EvalSymlinks(exe)
			if err != nil {
				real = exe
			}
			if filepath.Base(real) != "nowhook-reminder" || !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
				t.Errorf("the %s hook's kbs was started by %s, want the nowhook-reminder installed under %s", cfg, real, realRoot)
			} else {
				t.Logf("the %s hook printed the reminder; kbs was started by %s", cfg, real)
			}
		}
	}
}

// compactCommands returns the commands of the SessionStart groups whose
// matcher is compact in a hooks file (Claude Code's and Codex's shape).
func compactCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks struct {
			SessionStart []struct {
				Matcher string `json:"matcher"`
				Hooks   []struct {
					Command string `json:"command"`
				} `json:"hooks"`
			} `json:"SessionStart"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cmds []string
	for _, g := range cfg.Hooks.SessionStart {
		if g.Matcher == "compact" {
			for _, h := range g.Hooks {
				cmds = append(cmds, h.Command)
			}
		}
	}
	return cmds
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// size returns the bytes of the regular files under dir, as "12.3 MB".
func size(t *testing.T, dir string) string {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
