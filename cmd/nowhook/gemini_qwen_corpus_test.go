package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// settingsCorpus are the real Gemini CLI and Qwen Code settings files in
// testdata/corpus (SOURCES.tsv names the repository and commit of each),
// and where each agent reads them.
var settingsCorpus = []struct{ dir, path string }{
	{"gemini-settings", ".gemini/settings.json"},
	{"qwen-settings", ".qwen/settings.json"},
}

// TestSettingsCorpus puts each real settings file where its agent reads
// it, runs `setup --yes` (the detected agents in their default modes)
// twice, `doctor`, and `remove --yes`: the second setup changes no byte,
// doctor loads every file as the valid JSON it is, and remove gives the
// settings file back byte for byte and deletes everything else setup
// wrote.
func TestSettingsCorpus(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("PATH", hookPath(t)) // no agent binary is evidence here
	for _, sc := range settingsCorpus {
		t.Run(sc.dir, func(t *testing.T) {
			dir := filepath.Join("..", "..", "testdata", "corpus", sc.dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 {
				t.Fatalf("%s is empty", dir)
			}
			for _, e := range entries {
				original, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				settingsRoundTrip(t, e.Name(), sc.path, original)
			}
			t.Logf("%s: %d real files set up, checked and removed byte for byte", sc.dir, len(entries))
		})
	}
}

func settingsRoundTrip(t *testing.T, name, rel string, original []byte) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, original, 0o644); err != nil {
		t.Fatal(err)
	}
	kanbusProject(t, root)
	runQuiet := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		status := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		return status, out.String(), errb.String()
	}

	status, out, stderr := runQuiet("setup", "--yes", "--dir", root)
	if status == exitUsage {
		// An agent refused the file: nothing may have been written.
		if b, _ := os.ReadFile(path); !bytes.Equal(b, original) || strings.Join(settingsTree(t, root), " ") != strings.Join(settingsParents(rel), " ") {
			t.Errorf("%s: setup refused but wrote something:\n%s", name, stderr)
		}
		t.Logf("%s: refused: %s", name, strings.TrimSpace(stderr))
		return
	}
	if status != exitOK {
		t.Fatalf("%s: setup exited %d:\n%s%s", name, status, out, stderr)
	}
	first := settingsSnapshot(t, root)
	if status, out, stderr := runQuiet("setup", "--yes", "--dir", root); status != exitOK || settingsSnapshot(t, root) != first {
		t.Errorf("%s: a second setup exited %d or changed a byte:\n%s%s", name, status, out, stderr)
	}

	status, out, stderr = runQuiet("doctor", "--json", "--dir", root)
	if status != exitOK && status != exitFailed {
		t.Fatalf("%s: doctor exited %d:\n%s", name, status, stderr)
	}
	var findings []struct{ Check, Severity, Message string }
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("%s: doctor --json: %v\n%s", name, err, out)
	}
	for _, f := range findings {
		if strings.HasSuffix(f.Check, ".hooks-file") && f.Severity == "error" {
			t.Errorf("%s: doctor cannot load a valid settings file: %s", name, f.Message)
		}
	}

	if status, out, stderr := runQuiet("remove", "--yes", "--dir", root); status != exitOK {
		t.Fatalf("%s: remove exited %d:\n%s%s", name, status, out, stderr)
	}
	if back, err := os.ReadFile(path); err != nil || !bytes.Equal(back, original) {
		t.Errorf("%s: setup then remove changed the settings file (%v):\n--- original\n%s\n--- after\n%s", name, err, original, back)
	}
	if left := settingsTree(t, root); strings.Join(left, " ") != strings.Join(settingsParents(rel), " ") {
		t.Errorf("%s: after remove the repository holds %v, want only %v", name, left, settingsParents(rel))
	}
}

// settingsTree lists every file and folder under root but .git, sorted.
func settingsTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Name() == ".kanbus.yml" {
			return nil // the team's Kanbus project, which setup never touches
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// settingsSnapshot is every file under root but .git with its content.
func settingsSnapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	for _, rel := range settingsTree(t, root) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(rel + "\n")
			io.Copy(&b, f)
			f.Close()
		}
	}
	return b.String()
}

// settingsParents lists rel's folders and rel itself, as settingsTree
// would.
func settingsParents(rel string) []string {
	var out []string
	parts := strings.Split(rel, "/")
	for i := range parts {
		out = append(out, strings.Join(parts[:i+1], "/"))
	}
	return out
}
