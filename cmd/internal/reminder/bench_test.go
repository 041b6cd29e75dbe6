package reminder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readFixture(b *testing.B, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParseFormat is the reminder's own work on the 31-item payload:
// everything but starting kbs.
func BenchmarkParseFormat(b *testing.B) {
	data := readFixture(b, "cap31.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		items, ok := parseItems(data)
		if !ok || len(format(items)) == 0 {
			b.Fatal("no reminder")
		}
	}
}

// BenchmarkParseFormatEncodingJSON is the same work with encoding/json in
// place of the hand-written reader, for comparison.
func BenchmarkParseFormatEncodingJSON(b *testing.B) {
	data := readFixture(b, "cap31.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var raw []json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			b.Fatal(err)
		}
		items := make([]item, 0, len(raw))
		for _, r := range raw {
			var m map[string]any
			if json.Unmarshal(r, &m) != nil || m == nil {
				continue
			}
			var it item
			it.id, it.hasID = m["id"].(string)
			it.title, it.hasTitle = m["title"].(string)
			it.status, it.hasStatus = m["status"].(string)
			it.summary, it.hasSummary = m["right_now_summary"].(string)
			if p, ok := m["priority"].(float64); ok {
				it.priority, it.hasPriority = int64(p), true
			}
			items = append(items, it)
		}
		if len(format(items)) == 0 {
			b.Fatal("no reminder")
		}
	}
}

// BenchmarkParseFormatHostile covers sanitising and cutting.
func BenchmarkParseFormatHostile(b *testing.B) {
	data := readFixture(b, "hostile.json")
	b.ReportAllocs()
	for b.Loop() {
		items, _ := parseItems(data)
		_ = format(items)
	}
}

// benchTranscript writes a 3 MB Claude Code transcript whose newest reply,
// which asked for toolu_bench, used tokens of claude-opus-5-5's window.
func benchTranscript(b *testing.B, used int64) string {
	b.Helper()
	var sb strings.Builder
	pad := strings.Repeat("r", 1024)
	for i := 0; sb.Len() < 3<<20; i++ {
		sb.WriteString(claudeUser(pad) + "\n")
		sb.WriteString(claudeReply("claude-opus-5-5", int64(1000+i), 0, 0, 10, fmt.Sprintf("toolu_%d", i)) + "\n")
	}
	sb.WriteString(claudeReply("claude-opus-5-5", used, 0, 0, 0, "toolu_bench") + "\n")
	path := filepath.Join(b.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchCheckpoint is the checkpoint's own work after a tool call (a 4 KiB
// tool response in the payload), everything but starting the process.
func benchCheckpoint(b *testing.B, used int64) {
	proj := b.TempDir()
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".kanbus.yml"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": benchTranscript(b, used), "cwd": proj,
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat x"},
		"tool_response": map[string]any{"stdout": strings.Repeat("x", 4096)}, "tool_use_id": "toolu_bench"})
	getenv := env("XDG_STATE_HOME", b.TempDir(), "KBS", "kbs-not-needed")
	o := options{budget: 5 * time.Second, getenv: getenv, wd: proj, at: DefaultAt, refire: DefaultRefire}
	// Latch it once, so that the latched case measures the latched path.
	o.stdin = bytes.NewReader(payload)
	checkpoint(o)
	b.ReportAllocs()
	for b.Loop() {
		o.stdin = bytes.NewReader(payload)
		if out := checkpoint(o); out != nil {
			b.Fatalf("printed %q", out)
		}
	}
}

// BenchmarkCheckpointBelow: 60% of the window, what almost every call costs.
func BenchmarkCheckpointBelow(b *testing.B) { benchCheckpoint(b, 600_000) }

// BenchmarkCheckpointLatched: 90%, already said.
func BenchmarkCheckpointLatched(b *testing.B) { benchCheckpoint(b, 900_000) }
