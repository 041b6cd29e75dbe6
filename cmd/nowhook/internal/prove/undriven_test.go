package prove

import (
	"context"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestUndrivenAgentsSaySo: an agent set up to re-inject that prove has no
// driver for gets an info row, not silence; a bad NOWHOOK_PROVE_LIMIT is
// said, not ignored.
func TestUndrivenAgentsSaySo(t *testing.T) {
	root := setUpRepo(t, "gemini")
	fs := Run(context.Background(), Options{Root: root, Env: []string{"PATH=" + t.TempDir(), "NOWHOOK_PROVE_LIMIT=soon"}})
	var rows []string
	for _, f := range fs {
		rows = append(rows, f.Severity.String()+" "+f.Check+" "+f.Message)
	}
	got := strings.Join(rows, "\n")
	for _, want := range []string{
		"info prove.limit NOWHOOK_PROVE_LIMIT=\"soon\" is not a positive Go duration",
		"info prove.gemini Gemini CLI is set up to re-inject, but nowhook doctor --prove does not drive its client yet",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rows:\n%s\nlack %q", got, want)
		}
	}
	for _, f := range fs {
		if f.Severity > diag.Info {
			t.Errorf("%s: %s", f.Check, f.Severity)
		}
	}
}
