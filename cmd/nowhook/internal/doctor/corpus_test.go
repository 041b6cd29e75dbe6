package doctor

import (
	"bytes"
	"encoding/json"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

// corpusDir is the shared corpus of real configuration files
// (../shared/corpus beside the checkout); tests skip without it.
func corpusDir(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (it lives in ../shared beside the checkout): %v", dir, err)
	}
	return dir
}

// corpusKind is one folder of the corpus: where its files go, and when
// doctor must report an error, decided here independently of doctor.
type corpusKind struct {
	dir     string
	place   func(r *repo, name string) string // the path a file goes to
	setup   func(r *repo)                     // anything else the repo needs
	wantErr func(b []byte) string             // why doctor must fail, "" when it must not
}

var corpusKinds = []corpusKind{
	{
		dir: "claude-settings",
		place: func(r *repo, name string) string {
			if strings.HasSuffix(name, "settings.local.json") {
				return filepath.Join(r.root, ".claude", "settings.local.json")
			}
			return filepath.Join(r.root, ".claude", "settings.json")
		},
		wantErr: func(b []byte) string {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			if len(bytes.TrimSpace(b)) == 0 {
				return ""
			}
			var doc any
			if err := json.Unmarshal(b, &doc); err != nil {
				return "not strict JSON: Claude Code ignores the file"
			}
			root, ok := doc.(map[string]any)
			if !ok {
				return "top level not an object"
			}
			if root["disableAllHooks"] == true {
				return "disableAllHooks"
			}
			// The values setup refuses to edit (Claude Code rejects them).
			if h, has := root["hooks"]; has {
				hooks, ok := h.(map[string]any)
				if !ok {
					return "hooks not an object: setup refuses the file"
				}
				if ev, has := hooks["SessionStart"]; has {
					if _, ok := ev.([]any); !ok {
						return "hooks.SessionStart not an array: setup refuses the file"
					}
				}
			}
			if bytes.Contains(b, []byte("kanbus-compaction-right-now")) {
				return "a compact hook whose script is not in this repository"
			}
			return ""
		},
	},
	{
		dir:     "codex-hooks",
		place:   func(r *repo, _ string) string { return filepath.Join(r.root, ".codex", "hooks.json") },
		wantErr: codexDrops,
	},
	{
		dir:   "cursor-hooks",
		place: func(r *repo, _ string) string { return filepath.Join(r.root, ".cursor", "hooks.json") },
		wantErr: func(b []byte) string {
			std, err := hujson.Standardize(append([]byte(nil), bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))...))
			if err != nil {
				return "not JSON"
			}
			var doc map[string]any
			if len(bytes.TrimSpace(std)) > 0 && json.Unmarshal(std, &doc) != nil {
				return "top level not an object"
			}
			hooks, _ := doc["hooks"].(map[string]any)
			starts, _ := hooks["sessionStart"].([]any)
			for _, h := range starts {
				if obj, ok := h.(map[string]any); ok {
					if c, _ := obj["command"].(string); strings.Contains(c, "kbs now") {
						return "sessionStart runs kbs now"
					}
				}
			}
			return ""
		},
	},
	{
		dir:   "codex-config",
		place: func(r *repo, _ string) string { return filepath.Join(r.home, ".codex", "config.toml") },
		setup: func(r *repo) { r.install("codex", time.Second) },
		wantErr: func(b []byte) string {
			var doc map[string]any
			if err := toml.Unmarshal(b, &doc); err != nil {
				return "not TOML: Codex refuses to start"
			}
			features, _ := doc["features"].(map[string]any)
			for _, k := range []string{"hooks", "codex_hooks"} {
				if features[k] == false {
					return "[features] " + k + " = false"
				}
			}
			if n, ok := doc["project_doc_max_bytes"].(int64); ok && n <= 0 {
				return "project_doc_max_bytes cuts AGENTS.md before the block"
			}
			return ""
		},
	},
}

// codexDrops decides, from PLATFORMS.md, whether Codex drops a whole
// hooks.json: not JSON, a top-level key other than hooks and description,
// or an entry of the wrong shape.
func codexDrops(b []byte) string {
	std, err := hujson.Standardize(append([]byte(nil), bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))...))
	if err != nil {
		return "not JSON"
	}
	if len(bytes.TrimSpace(std)) == 0 {
		return ""
	}
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(std))
	d.UseNumber()
	if d.Decode(&doc) != nil {
		return "top level not an object"
	}
	for k := range doc {
		if k != "hooks" && k != "description" {
			return "top-level key " + k
		}
	}
	hooks, ok := doc["hooks"].(map[string]any)
	if !ok {
		if _, has := doc["hooks"]; has {
			return "hooks not an object"
		}
		return ""
	}
	for _, ev := range hooks {
		groups, ok := ev.([]any)
		if !ok {
			return "event not an array"
		}
		for _, g := range groups {
			group, ok := g.(map[string]any)
			if !ok {
				return "group not an object"
			}
			handlers, ok := group["hooks"].([]any)
			if !ok {
				if _, has := group["hooks"]; has || group["command"] != nil {
					return "group without a hooks array"
				}
				continue
			}
			for _, h := range handlers {
				obj, ok := h.(map[string]any)
				if !ok {
					return "handler not an object"
				}
				if _, ok := obj["type"]; !ok {
					return "handler without type"
				}
				if _, ok := obj["command"].(string); !ok {
					return "command not a string"
				}
				if t, ok := obj["timeout"]; ok {
					if _, num := t.(json.Number); !num {
						return "timeout not a number"
					}
				}
			}
		}
	}
	return ""
}

// TestCorpus runs doctor over every real configuration file of the shared
// corpus: it must not crash, print a sensible table and JSON, and fail
// exactly when the agent would not load the file (or runs no hooks).
func TestCorpus(t *testing.T) {
	for _, kind := range corpusKinds {
		t.Run(kind.dir, func(t *testing.T) {
			dir := corpusDir(t, kind.dir)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			failing := 0
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				want := kind.wantErr(b)
				if want != "" {
					failing++
				}
				t.Run(e.Name(), func(t *testing.T) {
					t.Parallel()
					corpusFile(t, kind, e.Name(), b, want)
				})
			}
			t.Logf("%s: %d files, %d that doctor must fail on", kind.dir, len(entries), failing)
		})
	}
}

func corpusFile(t *testing.T, kind corpusKind, name string, content []byte, wantErr string) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs("echo '[]'")
	if kind.setup != nil {
		kind.setup(r)
	}
	r.write(kind.place(r, name), string(content), 0o644)
	before := treeHash(t, r.root)
	rep := r.report()
	fs := rep.Findings
	if after := treeHash(t, r.root); after != before {
		t.Errorf("doctor changed the repository")
	}
	status := rep.exitStatus()
	if wantErr == "" && !failsOutsideLive(fs) {
		// The live rows say how fast this machine ran the hook that
		// kind.setup installed, not what the agent makes of the file: a
		// busy machine can make them errors (a kbs the python3 fallback
		// had killed, not yet gone when doctor looked).
		status = exitOK
	}
	if wantErr != "" && status != exitFailed {
		t.Errorf("%s: want exit 1 (%s), got %d:\n%s", name, wantErr, status, dump(fs))
	}
	if wantErr == "" && status != exitOK {
		t.Errorf("%s: want exit 0, got %d:\n%s", name, status, dump(fs))
	}
	sensible(t, fs)
}

// failsOutsideLive reports whether a finding other than a live run's is
// an error.
func failsOutsideLive(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error && !strings.HasPrefix(f.Check, "live.") {
			return true
		}
	}
	return false
}

// sensible checks what every report must be: named checks of known agents,
// one-line messages, fixes on problems, and JSON that says the same.
func sensible(t *testing.T, fs []Finding) {
	t.Helper()
	for _, f := range fs {
		if f.Check == "" || f.Message == "" {
			t.Errorf("empty check or message: %+v", f)
		}
		if f.Agent != "" {
			if _, ok := agentpkg.Lookup(f.Agent); !ok || !strings.HasPrefix(f.Check, f.Agent+".") && !strings.HasPrefix(f.Check, "live.") {
				t.Errorf("finding %s names agent %q", f.Check, f.Agent)
			}
		}
		if strings.Contains(f.Message, "%!") || strings.Contains(f.Fix, "%!") {
			t.Errorf("formatting error: %s / %s", f.Message, f.Fix)
		}
		if f.Severity == Error && f.Fix == "" && !strings.HasPrefix(f.Message, "codex ") {
			t.Errorf("error without a fix: %s: %s", f.Check, f.Message)
		}
		if f.Severity == OK && f.Fix != "" {
			t.Errorf("ok with a fix: %s: %s", f.Check, f.Fix)
		}
	}
	var table, js bytes.Buffer
	if err := WriteTable(&table, fs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(table.String(), "\n"); lines < len(fs)+1 {
		t.Errorf("table has %d lines for %d findings", lines, len(fs))
	}
	if err := WriteJSON(&js, fs); err != nil {
		t.Fatal(err)
	}
	var back []Finding
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back) != len(fs) {
		t.Fatalf("JSON does not round-trip (%v): %s", err, js.String())
	}
	for i := range fs {
		if back[i].Check != fs[i].Check || back[i].Severity != fs[i].Severity || back[i].Message != oneLine(fs[i].Message) {
			t.Errorf("JSON finding %d differs: %+v vs %+v", i, back[i], fs[i])
		}
	}
}

// treeHash hashes every file's path, mode and content under root.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + info.Mode().String())
		if info.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(c)
		}
		b.WriteByte(0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
