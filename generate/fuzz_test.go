package generate

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

// FuzzMergeHook checks MergeHook's promises on any input: it refuses, or
// it returns strict JSON holding our entry exactly once, and a second merge
// changes no byte; and RemoveHook is its inverse: on an input without our
// handler, removing what MergeHook added (with the containers it created)
// gives back the input byte for byte. `go test` runs the seeds; `go test -fuzz FuzzMergeHook
// ./generate` explores.
func FuzzMergeHook(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"hooks":{}}`, `{"hooks":{"SessionStart":[]}}`,
		"{\n  \"model\": \"x\"\n}\n",
		"{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": []\r\n\t}\r\n}",
		`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":".claude/hooks/kanbus-compaction-right-now.sh"}]}]}}`,
		`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/kanbus-compaction-right-now.sh","timeout":10}]},{"matcher":"compact","hooks":[{"type":"command","command":"bash .claude/hooks/kanbus-compaction-right-now.sh"},{"type":"command","command":"x"}]}]}}`,
		`[1]`, `null`, `{"hooks":[]}`,
		"{\n  \"hooks\": {\n    \"SessionStart\": [],\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\n    ]\n  }\n}",
		`{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "y"}]}]}, "x": 1}`,
		"{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"hooks\": []} // c\n\t\t]\n\t}\n}\n",
	} {
		f.Add([]byte(seed))
	}
	hook := testHook(5 * time.Second)
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := testSettings.MergeHook(in, hook)
		if err != nil {
			return // refused: nothing is written
		}
		var doc map[string]any
		if err := json.Unmarshal(bytes.TrimPrefix(out, bom), &doc); err != nil {
			t.Fatalf("result is not strict JSON: %v\n%s", err, out)
		}
		count := 0
		hooks, _ := doc["hooks"].(map[string]any)
		groups, _ := hooks["SessionStart"].([]any)
		for _, g := range groups {
			grp, _ := g.(map[string]any)
			handlers, _ := grp["hooks"].([]any)
			for _, h := range handlers {
				handler, _ := h.(map[string]any)
				if cmd, _ := handler["command"].(string); hook.Ours(cmd) {
					count++
					if grp["matcher"] != "compact" {
						t.Fatalf("our handler sits under matcher %v:\n%s", grp["matcher"], out)
					}
				}
			}
		}
		if count != 1 {
			t.Fatalf("our handler appears %d times:\n%s", count, out)
		}
		again, err := testSettings.MergeHook(out, hook)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second merge changed the file (%v):\n%s\n---\n%s", err, out, again)
		}
		created := map[string]bool{}
		for _, c := range testSettings.Missing(in) {
			created[c] = true
		}
		back, removed, err := testSettings.RemoveHook(out, hook.Ours, func(path string) bool { return created[path] })
		if err != nil {
			t.Fatalf("removal refused what merge wrote: %v\n%s", err, out)
		}
		if removed.Handlers == 0 {
			t.Fatalf("removal found no handler of ours in:\n%s", out)
		}
		if _, _, err := testSettings.RemoveHook(back, hook.Ours, func(string) bool { return true }); err != nil {
			t.Fatalf("removal's output does not parse: %v\n%s", err, back)
		}
		if len(bytes.TrimSpace(bytes.TrimPrefix(in, bom))) == 0 {
			if !removed.Empty {
				t.Fatalf("a file merge created is not empty after removal:\n%s", back)
			}
			return
		}
		if hasOurs(in, hook) || spacedEmpty.Match(in) {
			// Merge upgraded or collapsed copies of ours, or filled an empty
			// container written with space inside ("{ }", "[\n]"), which
			// comes back as "{}" or "[]": not invertible byte for byte.
			return
		}
		if !bytes.Equal(back, in) {
			t.Fatalf("merge then remove changed the file:\n%q\n---\n%q\n---\n%q", in, out, back)
		}
	})
}

var spacedEmpty = regexp.MustCompile(`[\[{]\s+[\]}]`)

// hasOurs reports whether in already holds a handler of ours.
func hasOurs(in []byte, hook Hook) bool {
	_, r, err := testSettings.RemoveHook(in, hook.Ours, func(string) bool { return false })
	return err == nil && r.Handlers > 0
}
