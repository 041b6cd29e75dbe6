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

// capPayload is a kbs payload of 21 items whose reminder, every item
// shown and quoted (quoteOpen and quoteClose count), is exactly total
// bytes (the last item's summary makes up the difference).
func capPayload(t *testing.T, total int) string {
	t.Helper()
	type entry struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Status   string `json:"status"`
		Priority int    `json:"priority"`
		Summary  string `json:"right_now_summary"`
	}
	var es []entry
	size := len(quoteOpen) + len(header) + len(quoteClose)
	lineOf := func(e entry) int {
		b, _ := json.Marshal([]entry{e})
		return len(appendLine(nil, &mustParse(t, string(b))[0])) + 1
	}
	for i := range 20 {
		e := entry{fmt.Sprintf("kbs-%d", i), "Title", "in_progress", 2, strings.Repeat("s", 250)}
		es = append(es, e)
		size += lineOf(e)
	}
	last := entry{"kbs-20", "Title", "in_progress", 2, "s"}
	rest := 1 + total - size - lineOf(last)
	if rest < 1 || rest > 250 {
		t.Fatalf("the last summary would need %d bytes", rest)
	}
	last.Summary = strings.Repeat("s", rest)
	es = append(es, last)
	if got := size + lineOf(last); got != total {
		t.Fatalf("the payload's reminder would be %d bytes, want %d", got, total)
	}
	b, err := json.Marshal(es)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCapIsStrict: the reminder stays strictly under 6,000 bytes. A list
// whose whole reminder would be exactly 6,000 bytes loses its last item
// to the "… 1 more" line; one of 5,999 bytes is printed whole. On the Go
// path and on the python3 fallback alike.
func TestCapIsStrict(t *testing.T) {
	t.Parallel()
	proj := project(t)
	wrapper := writeWrapper(t, 5*time.Second)
	bin := toolDir(t, "python3", "kbs")
	for _, c := range []struct {
		total int
		whole bool
	}{{maxOutBytes - 1, true}, {maxOutBytes, false}} {
		payload := capPayload(t, c.total)
		out := format(mustParse(t, payload))
		file := filepath.Join(t.TempDir(), "payload.json")
		if err := os.WriteFile(file, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		python, stderr := runWrapper(t, wrapper, bin, compactPayload, "CLAUDE_PROJECT_DIR="+proj, "FAKE_KBS_PAYLOAD="+file)
		if python != string(out) {
			t.Errorf("%d bytes in full: the python3 fallback printed %d bytes, the Go path %d\n%s", c.total, len(python), len(out), stderr)
		}
		more := bytes.HasSuffix(out, []byte("- … 1 more: run kbs now --list\n"+quoteClose))
		switch {
		case len(out) >= maxOutBytes:
			t.Errorf("%d bytes in full: printed %d bytes, want under %d", c.total, len(out), maxOutBytes)
		case c.whole && (len(out) != c.total || more):
			t.Errorf("%d bytes in full: printed %d bytes (cut: %v), want all of it", c.total, len(out), more)
		case !c.whole && (!more || bytes.Contains(out, []byte("kbs-20:"))):
			t.Errorf("%d bytes in full: printed %d bytes without the last item cut for the more line", c.total, len(out))
		}
	}
}
