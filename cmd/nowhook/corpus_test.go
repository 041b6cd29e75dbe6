package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
)

// corpusDir is the shared corpus of real configuration files; tests that
// need it skip when this checkout has no ../shared beside it.
func corpusDir(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it lives in ../shared beside the checkout): %v", dir, err)
	}
	return dir
}

// corpusCase is one real hook file and the agent's schema for it.
type corpusCase struct {
	dir   string // corpus folder
	agent string // --agents value
	file  generate.HookFile
	hook  generate.Hook
}

var corpusCases = []corpusCase{
	{"claude-settings", "claude", agent.ClaudeSettings, generate.CompactGroup(agent.ClaudeCommand, agent.ClaudeScript, agent.DefaultBudget)},
	{"codex-hooks", "codex", agent.CodexHooks, generate.CompactGroup(agent.CodexCommand, agent.CodexScript, agent.DefaultBudget)},
	{"cursor-hooks", "cursor=nudge", agent.CursorHooks, generate.Hook{Entry: generate.Ordered{{Key: "command", Value: agent.CursorCommand}, {Key: "timeout", Value: 10}}}},
}

// TestCorpusSetup runs setup over every real hook file: valid ones merge
// losslessly and idempotently, invalid ones are refused with nothing
// written; then remove gives back the file byte for byte and deletes
// every file and folder setup created.
func TestCorpusSetup(t *testing.T) {
	t.Setenv("PATH", hookPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, cc := range corpusCases {
		t.Run(cc.dir, func(t *testing.T) {
			dir := corpusDir(t, cc.dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			merged, refused := 0, 0
			for _, e := range entries {
				if e.IsDir() {
					continue
				}
				original, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if runCorpusFile(t, cc, e.Name(), original) {
					merged++
				} else {
					refused++
				}
			}
			t.Logf("%s: %d of %d files handled: %d merged and then removed byte for byte, %d refused as invalid", cc.dir, merged+refused, len(entries), merged, refused)
		})
	}
}

// runCorpusFile sets up one file in a fresh repo and reports whether it
// was merged (true) or refused (false); anything else fails the test.
func runCorpusFile(t *testing.T, cc corpusCase, name string, original []byte) bool {
	t.Helper()
	root := t.TempDir()
	// A git repository, so that setup's record of what it created is kept.
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, filepath.FromSlash(cc.file.Path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, original, 0o644); err != nil {
		t.Fatal(err)
	}
	kanbusProject(t, root)
	wantRefusal := refusalReason(cc.file, original)
	var stderr bytes.Buffer
	status := run([]string{"setup", "--yes", "--dir", root, "--agents", cc.agent}, stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr})
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if wantRefusal != "" {
		if status != exitUsage {
			t.Errorf("%s: %s, but setup exited %d:\n%s", name, wantRefusal, status, stderr.String())
		}
		if !bytes.Equal(after, original) {
			t.Errorf("%s: refused, but the file changed", name)
		}
		if others := filesIn(t, root); len(others) != 1 {
			t.Errorf("%s: refused, but setup wrote %v", name, others)
		}
		t.Logf("refused %s (%s): %s", name, wantRefusal, strings.TrimSpace(stderr.String()))
		return false
	}
	if status != exitOK {
		t.Errorf("%s: valid, but setup exited %d:\n%s", name, status, stderr.String())
		return false
	}
	checkLossless(t, name, cc, original, after)
	// A second run changes no byte.
	status = run([]string{"setup", "--yes", "--dir", root, "--agents", cc.agent}, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	again, _ := os.ReadFile(path)
	if status != exitOK || !bytes.Equal(again, after) {
		t.Errorf("%s: second run exited %d and changed the file: %v", name, status, !bytes.Equal(again, after))
	}
	name0 := strings.SplitN(cc.agent, "=", 2)[0]
	stderr.Reset()
	status = run([]string{"remove", "--yes", "--dir", root, "--agents", name0}, stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr})
	back, err := os.ReadFile(path)
	if status != exitOK || err != nil {
		t.Fatalf("%s: remove exited %d (%v):\n%s", name, status, err, stderr.String())
	}
	if !bytes.Equal(back, original) {
		t.Errorf("%s: setup then remove changed the file:\n--- original\n%s\n--- after remove\n%s", name, original, back)
	}
	if left := entriesIn(t, root); strings.Join(left, " ") != strings.Join(parents(cc.file.Path), " ") {
		t.Errorf("%s: after remove the repository holds %v, want only %v", name, left, parents(cc.file.Path))
	}
	return true
}

// entriesIn lists every file and folder under root but .git, sorted.
func entriesIn(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Name() == ".kanbus.yml" {
			return nil // the team's Kanbus project, which setup never touches
		}
		out = append(out, relSlash(root, p))
		return nil
	})
	return out
}

// parents lists rel's folders and rel itself, as entriesIn would.
func parents(rel string) []string {
	var out []string
	parts := strings.Split(rel, "/")
	for i := range parts {
		out = append(out, strings.Join(parts[:i+1], "/"))
	}
	return out
}

// refusalReason decides, independently of the editor, whether the agent
// would reject the file (and so setup must refuse it).
func refusalReason(f generate.HookFile, b []byte) string {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var doc any
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		if f.Strict {
			return "not strict JSON"
		}
		if _, err := f.ParseHookFile(b); err != nil {
			return "not JSON or JSONC"
		}
		std, _ := standardize(b)
		if json.Unmarshal(std, &doc) != nil {
			return "not JSONC"
		}
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return "top level not an object"
	}
	if f.Check != nil && f.Check(doc) != nil {
		return "dropped by the agent's own check"
	}
	hooks, has := root["hooks"]
	if !has {
		return ""
	}
	events, ok := hooks.(map[string]any)
	if !ok {
		return "hooks of the wrong type"
	}
	if ev, has := events[f.Event]; has {
		if _, ok := ev.([]any); !ok {
			return f.Event + " of the wrong type"
		}
	}
	return ""
}

// checkLossless asserts that after is original plus exactly our entry:
// the parsed value matches, and every original line is still there in
// order, but for at most one line changed at the insertion point.
func checkLossless(t *testing.T, name string, cc corpusCase, original, after []byte) {
	t.Helper()
	origLines := strings.Split(string(original), "\n")
	newLines := strings.Split(string(after), "\n")
	missing, j := 0, 0
	for _, l := range origLines {
		k := j
		for k < len(newLines) && newLines[k] != l {
			k++
		}
		if k == len(newLines) {
			missing++
			continue
		}
		j = k + 1
	}
	if missing > 1 {
		t.Errorf("%s: %d original lines are missing or out of order", name, missing)
	}
	got := decodeLoose(t, after)
	want := decodeLoose(t, original)
	if want == nil {
		want = map[string]any{}
	}
	root := want.(map[string]any)
	hooks, _ := root["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		root["hooks"] = hooks
	}
	arr, _ := hooks[cc.file.Event].([]any)
	// Existing entries of ours (none in the corpus) would be upgraded in
	// place; a plain append is what every corpus file must get.
	entry, _ := json.Marshal(cc.hook.Entry)
	var e any
	_ = json.Unmarshal(entry, &e)
	hooks[cc.file.Event] = append(arr, e)
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("%s: parsed result is not the original plus our entry:\n got %s\nwant %s", name, gj, wj)
	}
}

func decodeLoose(t *testing.T, b []byte) any {
	t.Helper()
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	std, err := standardize(b)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func filesIn(t *testing.T, root string) []string {
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != ".kanbus.yml" {
			files = append(files, relSlash(root, p))
		}
		return nil
	})
	return files
}

func standardize(b []byte) ([]byte, error) { return hujson.Standardize(append([]byte(nil), b...)) }

// relSlash is path relative to root, slash-separated.
func relSlash(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}
