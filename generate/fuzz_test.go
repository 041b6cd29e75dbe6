package generate

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// FuzzMergeHook checks MergeHook's promises on any input: it refuses, or
// it returns strict JSON holding our entry exactly once, and a second merge
// changes no byte. `go test` runs the seeds; `go test -fuzz FuzzMergeHook
// ./generate` explores.
func FuzzMergeHook(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"hooks":{}}`, `{"hooks":{"SessionStart":[]}}`,
		"{\n  \"model\": \"x\"\n}\n",
		"{\r\n\t\"hooks\": {\r\n\t\t\"Stop\": []\r\n\t}\r\n}",
		`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":".claude/hooks/kanbus-compaction-right-now.sh"}]}]}}`,
		`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/kanbus-compaction-right-now.sh","timeout":10}]},{"matcher":"compact","hooks":[{"type":"command","command":"bash .claude/hooks/kanbus-compaction-right-now.sh"},{"type":"command","command":"x"}]}]}}`,
		`[1]`, `null`, `{"hooks":[]}`,
	} {
		f.Add([]byte(seed))
	}
	hook := ClaudeHook(5 * time.Second)
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := ClaudeSettings.MergeHook(in, hook)
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
		again, err := ClaudeSettings.MergeHook(out, hook)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second merge changed the file (%v):\n%s\n---\n%s", err, out, again)
		}
	})
}
