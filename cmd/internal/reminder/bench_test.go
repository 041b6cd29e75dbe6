package reminder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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
