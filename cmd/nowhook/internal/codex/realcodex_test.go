package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// realCodex finds the real codex for tests: CODEX_BIN, then PATH, then the
// pinned client nowhook's CI installs under the user cache directory.
// It skips the test when none is found (fails with NOWHOOK_E2E_REQUIRE_AGENTS, as in CI).
func realCodex(t *testing.T) string {
	t.Helper()
	if bin, err := Find(nil, "codex"); err == nil {
		return bin
	}
	if dir, err := os.UserCacheDir(); err == nil {
		bin := filepath.Join(dir, "nowhook", "agents", "codex", "node_modules", ".bin", "codex")
		if osutil.IsExecutable(bin) {
			return bin
		}
	}
	msg := "real codex not found (set CODEX_BIN, put codex on PATH, or install @openai/codex@0.171.0 under ~/.cache/nowhook/agents/codex)"
	if os.Getenv("NOWHOOK_E2E_REQUIRE_AGENTS") != "" {
		t.Fatal(msg + " (NOWHOOK_E2E_REQUIRE_AGENTS is set, so a missing client fails)")
	}
	t.Skip(msg + ": skipping the real-codex test")
	return ""
}

// codexEnv is a minimal environment for a real codex with its own HOME and
// CODEX_HOME; PATH is kept because the npm launcher needs node.
func codexEnv(t *testing.T, codexHome string) []string {
	t.Helper()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"CODEX_HOME=" + codexHome,
		"LANG=C.UTF-8",
	}
}

// tempRoot returns a fresh directory with symlinks resolved, as Codex sees it.
func tempRoot(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertGroupGone checks that no process of the app-server's group is left.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatal("no process group recorded")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if err == syscall.ESRCH {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of app-server group %d still running (kill -0: %v)", pgid, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const ourCommand = `sh -c 'r=$(git rev-parse --show-toplevel 2>/dev/null || pwd); exec "$r/.codex/hooks/kanbus-compaction-right-now.sh"'`

// TestRealCodexTrust records the trust of our hook with the real codex and
// checks, through hooks/list, that ours is trusted, the foreign hook is not,
// and the user's config.toml keeps its comments.
func TestRealCodexTrust(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("nowhook does not support Windows shells yet")
	}
	bin := realCodex(t)
	root := tempRoot(t)
	home := tempRoot(t)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	hooksFile := filepath.Join(root, ".codex", "hooks.json")
	writeFile(t, hooksFile, `{
  "hooks": {
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "echo foreign"}]},
      {"matcher": "compact", "hooks": [{"type": "command", "command": `+jsonString(ourCommand)+`, "timeout": 10}]}
    ]
  }
}
`)
	userConfig := `# my Codex settings, hand-written
model = "gpt-test" # inline comment stays

# a project I do not trust
[projects."/somewhere/else"]
trust_level = "untrusted" # and this one

# trust of another tool's hook
[hooks.state."/elsewhere/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
`
	configPath := filepath.Join(home, "config.toml")
	writeFile(t, configPath, userConfig)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{Codex: bin, Env: codexEnv(t, home), Dir: root}

	// Before: the project is not trusted, so Codex shows no project hook.
	l, err := List(ctx, opts, root)
	if err != nil {
		t.Fatal(err)
	}
	layer, ok := l.ProjectLayer(filepath.Join(root, ".codex"))
	if !ok || layer.Trusted() {
		t.Fatalf("project layer before trust: %+v (found %v), want one Codex does not load", layer, ok)
	}
	if !strings.Contains(layer.DisabledReason, root) {
		t.Errorf("disabled reason does not name the root %s: %q", root, layer.DisabledReason)
	}
	if len(l.Hooks) != 0 {
		t.Errorf("hooks listed for an untrusted project: %+v", l.Hooks)
	}

	// Without Project, Trust refuses and writes nothing.
	_, err = Trust(ctx, opts, TrustRequest{Root: root, Select: func(h Hook) bool { return h.Command == ourCommand }})
	if err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Fatalf("Trust without Project on an untrusted project: err = %v, want a not-trusted error", err)
	}
	if got := readFile(t, configPath); got != userConfig {
		t.Fatalf("config.toml changed by a refused Trust:\n%s", got)
	}

	var pgid int
	opts.started = func(c *Conn) { pgid = c.pgid }
	res, err := Trust(ctx, opts, TrustRequest{
		Root:    root,
		Project: true,
		Select: func(h Hook) bool {
			return h.SourcePath == hooksFile && h.Command == ourCommand
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pgid)
	ourKey := hooksFile + ":session_start:1:0"
	if !res.ProjectTrusted || len(res.Recorded) != 1 || res.Recorded[0] != ourKey {
		t.Fatalf("Trust result: project %v, recorded %v; want project trusted and %s", res.ProjectTrusted, res.Recorded, ourKey)
	}
	if res.ConfigFile != configPath {
		t.Errorf("wrote %s, want %s", res.ConfigFile, configPath)
	}

	// A fresh app-server sees ours trusted and the foreign hook untrusted.
	l, err = List(ctx, opts, root)
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, h := range l.Hooks {
		statuses[h.Command] = h.TrustStatus
		t.Logf("hooks/list: %s %s %s", h.Key, h.TrustStatus, h.CurrentHash)
	}
	if statuses[ourCommand] != StatusTrusted {
		t.Errorf("our hook: %q, want trusted", statuses[ourCommand])
	}
	if statuses["echo foreign"] != StatusUntrusted {
		t.Errorf("foreign hook: %q, want untrusted", statuses["echo foreign"])
	}
	if layer, ok := l.ProjectLayer(filepath.Join(root, ".codex")); !ok || !layer.Trusted() {
		t.Errorf("project layer after trust: %+v (found %v)", layer, ok)
	}

	got := readFile(t, configPath)
	t.Logf("config.toml after Trust:\n%s", got)
	for _, line := range strings.Split(strings.TrimSpace(userConfig), "\n") {
		if !strings.Contains(got, line) {
			t.Errorf("config.toml lost the line %q", line)
		}
	}
	ours, _ := l.Hook(ourKey)
	// doctor's offline hash agrees with codex's.
	var file struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, hooksFile)), &file); err != nil {
		t.Fatal(err)
	}
	if h, err := HookHash("SessionStart", file.Hooks["SessionStart"][1], 0); err != nil || h != ours.CurrentHash {
		t.Errorf("HookHash = %s, %v; codex says %s", h, err, ours.CurrentHash)
	}
	if k := HookKey(hooksFile, "SessionStart", 1, 0); k != ourKey {
		t.Errorf("HookKey = %s, want %s", k, ourKey)
	}
	for _, want := range []string{
		`[projects.` + tomlQuote(root) + "]\ntrust_level = \"trusted\"",
		`[hooks.state.` + tomlQuote(ourKey) + "]\ntrusted_hash = \"" + ours.CurrentHash + `"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks\n%s", want)
		}
	}
	if strings.Contains(got, "echo foreign") || strings.Count(got, "trusted_hash") != 2 {
		t.Errorf("config.toml records trust beyond our hook:\n%s", got)
	}

	// Trusting again changes nothing.
	res, err = Trust(ctx, opts, TrustRequest{Root: root, Project: true, Select: func(h Hook) bool { return h.Command == ourCommand }})
	if err != nil {
		t.Fatal(err)
	}
	if res.ProjectTrusted || len(res.Recorded) != 0 || res.ConfigFile != "" {
		t.Errorf("second Trust wrote again: %+v", res)
	}
	if again := readFile(t, configPath); again != got {
		t.Errorf("second Trust changed config.toml:\n%s", again)
	}
}

// TestRealCodexForget trusts our hook with the real codex, then forgets it,
// and checks through hooks/list and config.toml's bytes that only our
// [hooks.state] entry went: the foreign hook's trust, the comments and the
// project trust stay.
func TestRealCodexForget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("nowhook does not support Windows shells yet")
	}
	bin := realCodex(t)
	for _, tc := range []struct {
		name string
		// projectTrusted: the user trusted the project before nowhook came,
		// so Trust records only the hook and Forget restores every byte.
		// Otherwise Trust also records the project's trust, which Forget
		// leaves in place.
		projectTrusted bool
	}{
		{"project trusted by the user", true},
		{"project trusted by Trust", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			home := tempRoot(t)
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			hooksFile := filepath.Join(root, ".codex", "hooks.json")
			foreignGroup := `{"matcher": "startup", "hooks": [{"type": "command", "command": "echo foreign"}]}`
			writeFile(t, hooksFile, `{
  "hooks": {
    "SessionStart": [
      `+foreignGroup+`,
      {"matcher": "compact", "hooks": [{"type": "command", "command": `+jsonString(ourCommand)+`, "timeout": 10}]}
    ]
  }
}
`)
			foreignKey := HookKey(hooksFile, "SessionStart", 0, 0)
			foreignHash, err := HookHash("SessionStart", []byte(foreignGroup), 0)
			if err != nil {
				t.Fatal(err)
			}
			ourKey := HookKey(hooksFile, "SessionStart", 1, 0)
			projectTable := "[projects." + tomlQuote(root) + "]\ntrust_level = \"trusted\"\n"
			before := `# my Codex settings, hand-written
model = "gpt-test" # inline comment stays

# a project I do not trust
[projects."/somewhere/else"]
trust_level = "untrusted" # and this one

# I trust the foreign hook myself
[hooks.state.` + tomlQuote(foreignKey) + `]
trusted_hash = "` + foreignHash + `" # by hand

# trust of another tool's hook
[hooks.state."/elsewhere/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
`
			if tc.projectTrusted {
				before += "\n# mine\n" + projectTable
			}
			configPath := filepath.Join(home, "config.toml")
			writeFile(t, configPath, before)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			opts := Options{Codex: bin, Env: codexEnv(t, home), Dir: root}

			tr, err := Trust(ctx, opts, TrustRequest{Root: root, Project: true, Select: func(h Hook) bool {
				return h.SourcePath == hooksFile && h.Command == ourCommand
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Recorded) != 1 || tr.Recorded[0] != ourKey || tr.ProjectTrusted == tc.projectTrusted {
				t.Fatalf("Trust: recorded %v, project %v", tr.Recorded, tr.ProjectTrusted)
			}
			ours, _ := tr.After.Hook(ourKey)
			afterTrust := readFile(t, configPath)
			t.Logf("config.toml before Trust:\n%s", before)
			t.Logf("config.toml after Trust:\n%s", afterTrust)

			var pgid int
			opts.started = func(c *Conn) { pgid = c.pgid }
			gone := HookKey(hooksFile, "SessionStart", 5, 0)
			res, err := Forget(ctx, opts, ForgetRequest{Root: root, Keys: []string{ourKey, gone}})
			if err != nil {
				t.Fatal(err)
			}
			assertGroupGone(t, pgid)
			if strings.Join(res.Removed, ",") != ourKey || strings.Join(res.Absent, ",") != gone || res.ConfigFile != configPath || !res.ProjectTrusted {
				t.Errorf("Forget result: removed %v, absent %v, file %s, project trusted %v", res.Removed, res.Absent, res.ConfigFile, res.ProjectTrusted)
			}
			afterForget := readFile(t, configPath)
			t.Logf("config.toml after Forget:\n%s", afterForget)

			// Codex appended our entry after a blank line; Forget takes
			// exactly that away again.
			ourEntry := "\n" + ForgetEntryLines([]TrustEntry{{Key: ourKey, Hash: ours.CurrentHash}})
			if !strings.Contains(afterTrust, ourEntry) {
				t.Errorf("config.toml after Trust lacks the lines ForgetEntryLines gives:\n%s", ourEntry)
			}
			if want := strings.Replace(afterTrust, ourEntry, "", 1); afterForget != want {
				t.Errorf("Forget changed more than our entry; want:\n%s", want)
			}
			want := before
			if !tc.projectTrusted {
				// The project trust Trust recorded stays, where Codex put
				// it: after the last [projects] table, after a blank line.
				other := "trust_level = \"untrusted\" # and this one\n"
				want = strings.Replace(before, other, other+"\n"+projectTable, 1)
			}
			if afterForget != want {
				t.Errorf("config.toml after Forget differs from before Trust (+ the project's trust when Trust recorded it); want:\n%s", want)
			}

			// A fresh app-server: ours untrusted, the foreign hook still trusted.
			l, err := List(ctx, Options{Codex: bin, Env: codexEnv(t, home), Dir: root}, root)
			if err != nil {
				t.Fatal(err)
			}
			if h, ok := l.Hook(ourKey); !ok || h.TrustStatus != StatusUntrusted {
				t.Errorf("our hook after Forget: %+v (listed %v), want untrusted", h, ok)
			}
			if h, ok := l.Hook(foreignKey); !ok || h.TrustStatus != StatusTrusted {
				t.Errorf("foreign hook after Forget: %+v (listed %v), want trusted", h, ok)
			}
			if layer, ok := l.ProjectLayer(filepath.Join(root, ".codex")); !ok || !layer.Trusted() {
				t.Errorf("project layer after Forget: %+v (found %v), want still trusted", layer, ok)
			}

			// Forgetting again writes nothing.
			res, err = Forget(ctx, opts, ForgetRequest{Root: root, Keys: []string{ourKey}})
			if err != nil {
				t.Fatal(err)
			}
			if res.ConfigFile != "" || len(res.Removed) != 0 || strings.Join(res.Absent, ",") != ourKey {
				t.Errorf("second Forget: %+v", res)
			}
			if again := readFile(t, configPath); again != afterForget {
				t.Errorf("second Forget changed config.toml:\n%s", again)
			}
		})
	}
}

// TestRealCodexKeyQuoting records trust under awkward keys through the real
// codex and checks that HookTrustKeyPath reaches the intended key, that
// ForgetEntryLines gives the lines exactly as Codex writes them, and that
// Forget removes them all, leaving the file as it was.
func TestRealCodexKeyQuoting(t *testing.T) {
	bin := realCodex(t)
	home := tempRoot(t)
	root := tempRoot(t)
	configPath := filepath.Join(home, "config.toml")
	const before = "# empty but for this\n"
	writeFile(t, configPath, before)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{Codex: bin, Env: codexEnv(t, home), Dir: root}

	var keys []string
	var edits []Edit
	for _, f := range codexKeyForms {
		keys = append(keys, f.key)
		edits = append(edits, Edit{KeyPath: HookTrustKeyPath(f.key), Value: "sha256:ab", MergeStrategy: "upsert"})
	}
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.BatchWrite(ctx, edits, "")
	if err == nil {
		var u *userLayer
		if u, err = c.readUserLayer(ctx); err == nil {
			for _, k := range keys {
				if _, ok := u.hookState()[k]; !ok {
					t.Errorf("codex recorded no entry for %q from keyPath %s", k, HookTrustKeyPath(k))
				}
			}
			if n := len(u.hookState()); n != len(keys) {
				t.Errorf("codex recorded %d entries for %d keys", n, len(keys))
			}
		}
	}
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	written := readFile(t, configPath)
	for _, k := range keys {
		if lines := ForgetEntryLines([]TrustEntry{{Key: k, Hash: "sha256:ab"}}); !strings.Contains(written, lines) {
			t.Errorf("config.toml lacks\n%q", lines)
		}
	}
	if t.Failed() {
		t.Logf("config.toml:\n%q", written)
	}

	res, err := Forget(ctx, opts, ForgetRequest{Root: root, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != len(keys) || len(res.Absent) != 0 {
		t.Errorf("Forget: removed %d, absent %q; want all %d removed", len(res.Removed), res.Absent, len(keys))
	}
	if got := readFile(t, configPath); got != before {
		t.Errorf("config.toml after Forget: %q, want %q", got, before)
	}
}

// TestRealCodexErrors checks the errors a broken setup gets from real codex.
func TestRealCodexErrors(t *testing.T) {
	bin := realCodex(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("missing CODEX_HOME", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope")
		_, err := List(ctx, Options{Codex: bin, Env: codexEnv(t, missing)}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("err = %v, want codex's own message about CODEX_HOME", err)
		}
		t.Logf("error: %v", err)
	})
	t.Run("invalid config.toml", func(t *testing.T) {
		home := tempRoot(t)
		writeFile(t, filepath.Join(home, "config.toml"), "model = \n[x\n")
		root := tempRoot(t)
		writeFile(t, filepath.Join(root, ".codex", "hooks.json"), `{"hooks":{}}`)
		_, err := Trust(ctx, Options{Codex: bin, Env: codexEnv(t, home)}, TrustRequest{Root: root, Project: true, Select: func(Hook) bool { return true }})
		if err == nil || !strings.Contains(err.Error(), "config.toml:2") {
			t.Fatalf("err = %v, want the config.toml parse error with its line", err)
		}
		t.Logf("error: %v", err)
		if got := readFile(t, filepath.Join(home, "config.toml")); got != "model = \n[x\n" {
			t.Errorf("invalid config.toml was rewritten: %q", got)
		}
	})
	t.Run("hooks turned off", func(t *testing.T) {
		home := tempRoot(t)
		root := tempRoot(t)
		writeFile(t, filepath.Join(home, "config.toml"), "[features]\nhooks = false\n")
		writeFile(t, filepath.Join(root, ".codex", "hooks.json"), `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]}}`)
		_, err := Trust(ctx, Options{Codex: bin, Env: codexEnv(t, home)}, TrustRequest{Root: root, Project: true, Select: func(Hook) bool { return true }})
		if err == nil || !strings.Contains(err.Error(), "hooks are turned off") {
			t.Fatalf("err = %v, want the features hint", err)
		}
		t.Logf("error: %v", err)
	})
	t.Run("hooks.json codex drops", func(t *testing.T) {
		home := tempRoot(t)
		root := tempRoot(t)
		writeFile(t, filepath.Join(root, ".codex", "hooks.json"), `{"$schema": "x", "hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"a"}]}]}}`)
		_, err := Trust(ctx, Options{Codex: bin, Env: codexEnv(t, home)}, TrustRequest{Root: root, Project: true, Select: func(Hook) bool { return true }})
		if err == nil || !strings.Contains(err.Error(), "no matching hook") || !strings.Contains(err.Error(), "hooks.json") {
			t.Fatalf("err = %v, want no matching hook with codex's warning", err)
		}
		t.Logf("error: %v", err)
	})
}

// TestRecordCodexTrust re-records testdata/codex-trust/*.recorded.json from
// the real codex (scripts/record-codex-trust.sh). It runs only with
// NOWHOOK_RECORD_CODEX_TRUST=1.
func TestRecordCodexTrust(t *testing.T) {
	if os.Getenv("NOWHOOK_RECORD_CODEX_TRUST") != "1" {
		t.Skip("set NOWHOOK_RECORD_CODEX_TRUST=1 to re-record testdata/codex-trust from the real codex")
	}
	bin := realCodex(t)
	dir := filepath.Join("..", "..", "..", "..", "testdata", "codex-trust")
	inputs, err := filepath.Glob(filepath.Join(dir, "*.hooks.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no fixtures in %s (%v)", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		root := tempRoot(t)
		home := tempRoot(t)
		writeFile(t, filepath.Join(root, ".codex", "hooks.json"), string(data))
		writeFile(t, filepath.Join(home, "config.toml"), "[projects."+tomlQuote(root)+"]\ntrust_level = \"trusted\"\n")
		c, err := Start(ctx, Options{Codex: bin, Env: codexEnv(t, home), Dir: root})
		if err != nil {
			t.Fatal(err)
		}
		l, err := c.List(ctx, root)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		type recorded struct {
			Key         string  `json:"key"`
			Command     string  `json:"command"`
			Matcher     *string `json:"matcher"`
			CurrentHash string  `json:"currentHash"`
			TrustStatus string  `json:"trustStatus"`
		}
		out := struct {
			Codex    string      `json:"codex"`
			Hooks    []recorded  `json:"hooks"`
			Warnings []string    `json:"warnings"`
			Errors   []HookError `json:"errors"`
		}{Codex: c.UserAgent, Hooks: []recorded{}, Warnings: []string{}, Errors: l.Errors}
		if out.Errors == nil {
			out.Errors = []HookError{}
		}
		for _, h := range l.Hooks {
			if h.Source != "project" {
				continue
			}
			out.Hooks = append(out.Hooks, recorded{strings.ReplaceAll(h.Key, root, "$REPO"), h.Command, h.Matcher, h.CurrentHash, h.TrustStatus})
		}
		sort.Slice(out.Hooks, func(i, j int) bool { return out.Hooks[i].Key < out.Hooks[j].Key })
		for _, w := range l.Warnings {
			out.Warnings = append(out.Warnings, strings.ReplaceAll(w, root, "$REPO"))
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(in, ".hooks.json") + ".recorded.json"
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d hooks, %d warnings", name, len(out.Hooks), len(out.Warnings))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
