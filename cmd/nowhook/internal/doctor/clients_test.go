package doctor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/scripts"
)

// TestCompareVersions: numeric, part by part, missing parts as 0, a
// pre-release before its release, build metadata left out.
func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.1.332", "2.1.332", 0},
		{"2.2.0", "2.1.332", 1},
		{"2.1.332", "2.10.0", -1},
		{"2.1.99", "2.1.100", -1},
		{"1.2", "1.2.0", 0},
		{"1.2.1", "1.2", 1},
		{"0.171.0", "0.24.4", 1},
		{"2.2.0-beta.1", "2.2.0", -1},
		{"2.2.0-beta.2", "2.2.0-beta.1", 1},
		{"2.2.0+build.5", "2.2.0", 0},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := compareVersions(c.b, c.a); got != -c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestClientVersion: the version in each pinned client's --version
// output as measured (docs/platforms.md), and none where there is none.
func TestClientVersion(t *testing.T) {
	for out, want := range map[string]string{
		"2.1.332 (Claude Code)\n":    "2.1.332",
		"codex-cli 0.171.0\n":        "0.171.0",
		"0.24.4\n":                   "0.24.4",
		"1.18.33\n":                  "1.18.33",
		"0.36.0 (commit 7c61e5bb)\n": "0.36.0",
		"v0.90.0+37f36e9\n":          "0.90.0",
		"gemini 1.0.0-preview.3\n":   "1.0.0-preview.3",
		"codex-cli, a build of mine": "",
		"version 7\n":                "",
		"":                           "",
	} {
		if got := diag.ClientVersion([]byte(out)); got != want {
			t.Errorf("ClientVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

// TestNPMVersion: a command that is a pinned npm package's bin link is
// judged by that package's version, without running it; a package.json
// of another name is not the client's.
func TestNPMVersion(t *testing.T) {
	r := newRepo(t)
	pins := []scripts.Pin{{Agent: "claude", Package: "@anthropic-ai/claude-code", Pinned: "2.1.332", Version: "2.1.332", Binary: "claude"}}
	pkg := filepath.Join(r.home, "node_modules", "@anthropic-ai", "claude-code")
	r.write(filepath.Join(pkg, "package.json"), `{"name": "@anthropic-ai/claude-code", "version": "2.1.400"}`, 0o644)
	r.write(filepath.Join(pkg, "bin", "claude.exe"), "#!/bin/sh\nexit 1\n", 0o755)
	link := filepath.Join(r.bin, "claude")
	if err := os.Symlink(filepath.Join(pkg, "bin", "claude.exe"), link); err != nil {
		t.Fatal(err)
	}
	if name, v := npmVersion(link, pins); name != "@anthropic-ai/claude-code" || v != "2.1.400" {
		t.Errorf("npmVersion = %q %q, want the package's 2.1.400", name, v)
	}
	other := filepath.Join(r.home, "other")
	r.write(filepath.Join(other, "package.json"), `{"name": "my-tools", "version": "9.9.9"}`, 0o644)
	r.write(filepath.Join(other, "claude"), "#!/bin/sh\n", 0o755)
	if name, v := npmVersion(filepath.Join(other, "claude"), pins); name != "" || v != "" {
		t.Errorf("npmVersion of another package = %q %q, want none", name, v)
	}

	// Cline's layout: the bin link points into a platform package of
	// another name; the pinned package beside the link says the version.
	prefix := filepath.Join(r.home, "cline")
	clinePins := []scripts.Pin{{Agent: "cline", Package: "cline", Pinned: "3.0.65", Version: "3.0.65", Binary: "cline"}}
	r.write(filepath.Join(prefix, "node_modules", "cline", "package.json"), `{"name": "cline", "version": "3.0.65"}`, 0o644)
	r.write(filepath.Join(prefix, "node_modules", "@cline", "cli-linux-x64", "package.json"), `{"name": "@cline/cli-linux-x64", "version": "3.0.65"}`, 0o644)
	r.write(filepath.Join(prefix, "node_modules", "@cline", "cli-linux-x64", "bin", "cline"), "#!/bin/sh\n", 0o755)
	clineLink := filepath.Join(prefix, "node_modules", ".bin", "cline")
	if err := os.MkdirAll(filepath.Dir(clineLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@cline/cli-linux-x64/bin/cline", clineLink); err != nil {
		t.Fatal(err)
	}
	if name, v := npmVersion(clineLink, clinePins); name != "cline" || v != "3.0.65" {
		t.Errorf("npmVersion of cline = %q %q, want the package beside the link", name, v)
	}
	// Droid's: the launcher's version is not the binary's: --version says.
	droidPins := []scripts.Pin{{Agent: "droid", Package: "cline", Pinned: "0.225.1", Version: "0.225.2", BinaryPackage: "@factory/cli-%p@0.225.2", Binary: "cline"}}
	if name, v := npmVersion(clineLink, droidPins); name != "" || v != "" {
		t.Errorf("npmVersion of a pin with a binary package = %q %q, want none", name, v)
	}

	// doctor's row, from the package, the client never run.
	r.install("claude", time.Second)
	f := expectOne(t, r.run(), "claude.client", Info, "Claude Code 2.1.400 (npm package @anthropic-ai/claude-code): newer than proven (2.1.400 > 2.1.332): run nowhook doctor --prove")
	if f.Client == nil || f.Client.Installed != "2.1.400" || f.Client.Path != link {
		t.Errorf("client: %+v", f.Client)
	}
}

// TestClientNotInstalled: an agent in use whose client is not on PATH is
// info, with the command that installs the pinned client.
func TestClientNotInstalled(t *testing.T) {
	r := newRepo(t)
	r.install("codex", time.Second)
	f := expectOne(t, r.run(), "codex.client", Info, "codex is not on PATH: Codex CLI is not installed here (nowhook's real-client tests passed on 0.171.0)")
	if f.Fix != "npm install -g @openai/codex@0.171.0" {
		t.Errorf("fix %q", f.Fix)
	}
	if f.Client == nil || f.Client.Installed != "" || len(f.Client.Proven) != 1 {
		t.Errorf("client: %+v", f.Client)
	}
}

// TestClientVersionQuickLimit: without --live a client's --version gets
// the quick probe budget, and one that does not answer in it is an info
// row pointing at doctor --live, which waits the longer limit.
func TestClientVersionQuickLimit(t *testing.T) {
	r := newRepo(t)
	r.install("codex", time.Second)
	r.write(filepath.Join(r.bin, "codex"), "#!/bin/sh\nexec sleep 60\n", 0o755)
	f := expectOne(t, r.run(), "codex.client", Info, "codex --version did not answer within doctor's quick wait of 500ms; nowhook doctor --live waits up to 2s; ")
	if f.Fix != "nowhook doctor --live" {
		t.Errorf("fix %q, want nowhook doctor --live", f.Fix)
	}
	f = expectOne(t, r.runLive(), "codex.client", Info, "codex --version did not answer within 2s; ")
	if f.Fix != "" {
		t.Errorf("--live: fix %q", f.Fix)
	}
}

// TestClientNewerFix: a client newer than the proven ones is sent to
// doctor --prove where --prove drives it (the row's Doctor.Proved:
// Claude Code), to doctor --live where it does not (Gemini CLI).
func TestClientNewerFix(t *testing.T) {
	r := newRepo(t)
	r.setup("claude", false)
	r.setup("gemini", false)
	r.write(filepath.Join(r.bin, "claude"), "#!/bin/sh\necho '9.0.0 (Claude Code)'\n", 0o755)
	r.write(filepath.Join(r.bin, "gemini"), "#!/bin/sh\necho 9.0.0\n", 0o755)
	fs := r.run()
	for _, c := range []struct{ check, want string }{
		{"claude.client", "nowhook doctor --prove"},
		{"gemini.client", "nowhook doctor --live"},
	} {
		f := expectOne(t, fs, c.check, Info, "newer than proven (9.0.0 > ", "): run "+c.want)
		if f.Fix != c.want {
			t.Errorf("%s: fix %q, want %q", c.check, f.Fix, c.want)
		}
	}
}
