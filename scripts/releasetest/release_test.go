// Package releasetest holds the test of scripts/release.sh that needs
// every platform: TestReleaseReproducible builds a whole release twice and
// compares the bytes, and checks what each artifact holds. It is a package
// of its own so that `go test ./...` runs it beside the real-client tests
// of cmd/nowhook/e2e, which install the packages of a one-platform build
// (cmd/nowhook/e2e/release_*_test.go), instead of after them.
package releasetest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// releaseVersion is the version the test releases.
const releaseVersion = "0.0.0-test"

// needReleaseTools skips the test, naming what is missing, unless every
// tool scripts/release.sh needs is on PATH.
func needReleaseTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("scripts/release.sh is a bash script for Linux and macOS")
	}
	for _, c := range []string{"npm", "zip", "gzip", "tar", "sha256sum", "bash", "git"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not on PATH: scripts/release.sh needs npm (npm pack), GNU tar, gzip, zip and sha256sum", c)
		}
	}
	if out, err := exec.Command("tar", "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU tar")) {
		t.Skip("tar is not GNU tar, which scripts/release.sh needs for reproducible archives")
	}
}

// release runs scripts/release.sh VERSION into a new folder and returns it.
func release(t *testing.T, ctx context.Context) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "release.sh"), releaseVersion, dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NOWHOOK_RELEASE_PLATFORMS=") // every platform, whatever the caller set
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/release.sh %s %s: %v\n%s", releaseVersion, dir, err, out)
	}
	t.Logf("scripts/release.sh %s took %s:\n%s", releaseVersion, time.Since(start).Round(100*time.Millisecond), strings.TrimSpace(string(out)))
	return dir
}

// The files a release holds, relative to its folder.
func releaseFiles() []string {
	files := []string{"SHA256SUMS", "nowhook.rb", "npm/nowhook-" + releaseVersion + ".tgz"}
	for _, p := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		goos, goarch, _ := strings.Cut(p, "/")
		ext, npmOS, npmCPU := ".tar.gz", goos, goarch
		if goos == "windows" {
			ext, npmOS = ".zip", "win32"
		}
		if npmCPU == "amd64" {
			npmCPU = "x64"
		}
		files = append(files,
			"nowhook_"+releaseVersion+"_"+goos+"_"+goarch+ext,
			"npm/nowhook-"+npmOS+"-"+npmCPU+"-"+releaseVersion+".tgz")
	}
	slices.Sort(files)
	return files
}

// listFiles returns every regular file under dir, relative and sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// entry is one file in an archive: its name and mode.
type entry struct {
	name string
	mode fs.FileMode
}

func (e entry) String() string { return fmt.Sprintf("%s %o", e.name, e.mode.Perm()) }

// tarEntries lists a .tar.gz (or .tgz), and returns its entries with the
// bytes of each regular file.
func tarEntries(t *testing.T, path string) ([]entry, map[string][]byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	var entries []entry
	data := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" && h.Uname != "root" {
			t.Errorf("%s: %s is owned by %d/%d (%s), want 0/0", path, h.Name, h.Uid, h.Gid, h.Uname)
		}
		entries = append(entries, entry{h.Name, h.FileInfo().Mode()})
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			data[h.Name] = b
		}
	}
	return entries, data
}

// TestReleaseReproducible builds the release a second time and compares:
// the same checkout gives the same bytes, file by file. It also checks
// what each artifact holds: SHA256SUMS against the files, the formula
// against SHA256SUMS, each archive's and npm package's entries with their
// modes and owners, the launcher's optionalDependencies against the
// platform packages.
func TestReleaseReproducible(t *testing.T) {
	needReleaseTools(t)
	// Twenty minutes: on a cold build cache the first cross-builds of
	// every dependency for six platforms take minutes on two busy cores.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	first := release(t, ctx)
	if got, want := listFiles(t, first), releaseFiles(); !slices.Equal(got, want) {
		t.Fatalf("scripts/release.sh wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	second := release(t, ctx)
	for _, f := range releaseFiles() {
		a, err := os.ReadFile(filepath.Join(first, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(second, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of the same checkout (%d and %d bytes)", f, len(a), len(b))
		} else {
			t.Logf("%-46s %9d bytes, the same in both builds", f, len(a))
		}
	}

	sums := checkSums(t, first)
	checkFormula(t, first, sums)
	checkArchives(t, first)
	checkNpmPackages(t, first)
}

// checkSums verifies every line of SHA256SUMS and that it covers every
// other file; it returns the sums by file name.
func checkSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: line %q is not `SUM  FILE`", line)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("SHA256SUMS names %s: %v", name, err)
		}
		h := sha256.Sum256(data)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("SHA256SUMS: %s has sum %s, the file %s", name, sum, got)
		}
		sums[name] = sum
	}
	for _, f := range releaseFiles() {
		if _, ok := sums[f]; !ok && f != "SHA256SUMS" {
			t.Errorf("SHA256SUMS does not cover %s", f)
		}
	}
	return sums
}

// checkFormula checks that the Homebrew formula names each macOS and Linux
// archive with its sum, under the right platform block, and installs both
// binaries.
func checkFormula(t *testing.T, dir string, sums map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "nowhook.rb"))
	if err != nil {
		t.Fatal(err)
	}
	rb := string(b)
	for _, want := range []string{
		"class Nowhook < Formula", `version "` + releaseVersion + `"`, `license "MIT"`,
		`bin.install "nowhook", "nowhook-reminder"`, `shell_output("#{bin}/nowhook version")`,
	} {
		if !strings.Contains(rb, want) {
			t.Errorf("nowhook.rb lacks %q:\n%s", want, rb)
		}
	}
	block := regexp.MustCompile(`(?s)on_(macos|linux) do\s+on_arm do\s+url "([^"]+)"\s+sha256 "([0-9a-f]{64})"\s+end\s+on_intel do\s+url "([^"]+)"\s+sha256 "([0-9a-f]{64})"\s+end\s+end`)
	found := block.FindAllStringSubmatch(rb, -1)
	if len(found) != 2 {
		t.Fatalf("nowhook.rb: want an on_macos and an on_linux block, each with on_arm and on_intel:\n%s", rb)
	}
	for _, m := range found {
		goos := map[string]string{"macos": "darwin", "linux": "linux"}[m[1]]
		for i, arch := range []string{"arm64", "amd64"} {
			url, sum := m[2+2*i], m[3+2*i]
			name := "nowhook_" + releaseVersion + "_" + goos + "_" + arch + ".tar.gz"
			if want := "https://github.com/nowhook/nowhook/releases/download/v" + releaseVersion + "/" + name; url != want {
				t.Errorf("nowhook.rb on_%s: url %s, want %s", m[1], url, want)
			}
			if sum != sums[name] {
				t.Errorf("nowhook.rb: %s has sha256 %s, SHA256SUMS says %s", name, sum, sums[name])
			}
		}
	}
}

// checkArchives checks each archive's entries: one folder with both
// binaries (executable), README.md and LICENSE, owned by root.
func checkArchives(t *testing.T, dir string) {
	t.Helper()
	for _, f := range releaseFiles() {
		if strings.HasPrefix(f, "npm/") || !strings.HasPrefix(f, "nowhook_") {
			continue
		}
		top := strings.TrimSuffix(strings.TrimSuffix(f, ".tar.gz"), ".zip")
		x := ""
		var got []entry
		if strings.HasSuffix(f, ".zip") {
			x = ".exe"
			zr, err := zip.OpenReader(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, zf := range zr.File {
				got = append(got, entry{zf.Name, zf.Mode()})
			}
			zr.Close()
		} else {
			got, _ = tarEntries(t, filepath.Join(dir, f))
			if len(got) > 0 && got[0].name == top+"/" {
				got = got[1:]
			}
		}
		want := []entry{{top + "/LICENSE", 0o644}, {top + "/README.md", 0o644}, {top + "/nowhook" + x, 0o755}, {top + "/nowhook-reminder" + x, 0o755}}
		byName := func(a, b entry) int { return strings.Compare(a.name, b.name) }
		slices.SortFunc(got, byName)
		slices.SortFunc(want, byName)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, want %v", f, got, want)
		}
	}
}

// packageJSON is what the tests read of an npm package.json.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Bin                  map[string]string `json:"bin"`
	OS                   []string          `json:"os"`
	CPU                  []string          `json:"cpu"`
	Scripts              map[string]string `json:"scripts"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

// checkNpmPackages checks the npm packages: the launcher has both bins, no
// install script, and one optional dependency per platform package at its
// own version; each platform package has the os and cpu of its name, both
// binaries (executable) and nothing else that runs.
func checkNpmPackages(t *testing.T, dir string) {
	t.Helper()
	entries, data := tarEntries(t, filepath.Join(dir, "npm", "nowhook-"+releaseVersion+".tgz"))
	want := "[package/LICENSE 644 package/README.md 644 package/bin/nowhook-reminder.js 755 package/bin/nowhook.js 755 package/lib/launch.js 644 package/package.json 644]"
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	if fmt.Sprint(entries) != want {
		t.Errorf("npm/nowhook-%s.tgz holds %v, want %s", releaseVersion, entries, want)
	}
	var launcher packageJSON
	if err := json.Unmarshal(data["package/package.json"], &launcher); err != nil {
		t.Fatalf("the launcher's package.json: %v", err)
	}
	if launcher.Name != "nowhook" || launcher.Version != releaseVersion || len(launcher.Scripts) != 0 ||
		launcher.Bin["nowhook"] != "bin/nowhook.js" || launcher.Bin["nowhook-reminder"] != "bin/nowhook-reminder.js" {
		t.Errorf("the launcher's package.json: %+v", launcher)
	}
	if len(launcher.OptionalDependencies) != 6 {
		t.Errorf("the launcher has %d optionalDependencies, want the 6 platform packages: %v", len(launcher.OptionalDependencies), launcher.OptionalDependencies)
	}
	for name, version := range launcher.OptionalDependencies {
		if version != releaseVersion {
			t.Errorf("the launcher depends on %s@%s, want its own version %s", name, version, releaseVersion)
		}
		f := filepath.Join(dir, "npm", name+"-"+releaseVersion+".tgz")
		entries, data := tarEntries(t, f)
		var pkg packageJSON
		if err := json.Unmarshal(data["package/package.json"], &pkg); err != nil {
			t.Fatalf("%s: package.json: %v", f, err)
		}
		npmOS, npmCPU, _ := strings.Cut(strings.TrimPrefix(name, "nowhook-"), "-")
		if pkg.Name != name || pkg.Version != releaseVersion || !slices.Equal(pkg.OS, []string{npmOS}) || !slices.Equal(pkg.CPU, []string{npmCPU}) ||
			len(pkg.Scripts) != 0 || len(pkg.Bin) != 0 {
			t.Errorf("%s: package.json %+v, want name %s, version %s, os [%s], cpu [%s], no scripts, no bin", f, pkg, name, releaseVersion, npmOS, npmCPU)
		}
		x := ""
		if npmOS == "win32" {
			x = ".exe"
		}
		want := []entry{{"package/LICENSE", 0o644}, {"package/README.md", 0o644}, {"package/bin/nowhook" + x, 0o755}, {"package/bin/nowhook-reminder" + x, 0o755}, {"package/package.json", 0o644}}
		byName := func(a, b entry) int { return strings.Compare(a.name, b.name) }
		slices.SortFunc(entries, byName)
		slices.SortFunc(want, byName)
		if fmt.Sprint(entries) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, want %s", f, entries, want)
		}
	}
}
