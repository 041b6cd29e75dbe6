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
	{"claude-settings", "claude", generate.ClaudeSettings, generate.ClaudeHook(defaultBudget)},
	{"codex-hooks", "codex", generate.CodexHooks, generate.CodexHook(defaultBudget)},
	{"cursor-hooks", "cursor=nudge", generate.CursorHooks, generate.CursorNudge()},
}

// TestCorpusSetup runs setup over every real hook file: valid ones merge
// losslessly and idempotently, invalid ones are refused with nothing
// written.
func TestCorpusSetup(t *testing.T) {
	for _, cc := range corpusCases {
		t.Run(cc.dir, func(t *testing.T) {
			dir := corpusDir(t, cc.dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			merged, refused := 0, 0
			for _, e := range entries {
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
			t.Logf("%s: %d of %d files handled: %d merged, %d refused as invalid", cc.dir, merged+refused, len(entries), merged, refused)
		})
	}
}

// runCorpusFile sets up one file in a fresh repo and reports whether it
// was merged (true) or refused (false); anything else fails the test.
func runCorpusFile(t *testing.T, cc corpusCase, name string, original []byte) bool {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, filepath.FromSlash(cc.file.Path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, original, 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefusal := refusalReason(cc.file, original)
	var stderr bytes.Buffer
	status := run([]string{"setup", "--yes", "--dir", root, "--agents", cc.agent}, stdio{in: strings.NewReader(""), out: io.Discard, err: &stderr})
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if wantRefusal != "" {
		if status != exitFailed {
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
	return true
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
		if err == nil && !d.IsDir() {
			files = append(files, relTo(root, p))
		}
		return nil
	})
	return files
}

func standardize(b []byte) ([]byte, error) { return hujson.Standardize(append([]byte(nil), b...)) }
