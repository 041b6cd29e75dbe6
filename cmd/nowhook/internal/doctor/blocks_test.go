package doctor

import (
	"fmt"
	"strings"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
)

// TestBlockFindingEdited: a block whose text nowhook never wrote is a
// warning with the --force fix, in any version up to ours; line endings
// and an older marker over a text nowhook wrote are not edits, and a newer
// template's block is reported as newer, never as edited.
func TestBlockFindingEdited(t *testing.T) {
	block := agentpkg.OnDemandBlock.Block
	md, err := generate.MergeBlock("AGENTS.md", []byte("# Rules\n"), block)
	if err != nil {
		t.Fatal(err)
	}
	current := string(md)
	edited := strings.Replace(current, "If `kbs`", "My own line.\nIf `kbs`", 1)
	marker := fmt.Sprintf("kbs-now v%d -->", templateVersion)
	for _, c := range []struct {
		name, md string
		want     Severity
		message  string
		fix      string
	}{
		{"current", current, OK, "AGENTS.md:3 has the kbs-now block", ""},
		{"current with CRLF", strings.ReplaceAll(current, "\n", "\r\n"), OK, "AGENTS.md:3 has the kbs-now block", ""},
		{"older marker over the current text", strings.Replace(current, marker, "kbs-now v1 -->", 1), Warn, "older than this nowhook's", "nowhook setup --yes"},
		{"edited", edited, Warn, "AGENTS.md:3: the kbs-now block was edited by hand", "nowhook setup --yes --force"},
		{"edited with CRLF", strings.ReplaceAll(edited, "\n", "\r\n"), Warn, "was edited by hand", "nowhook setup --yes --force"},
		{"edited under an older marker", strings.Replace(edited, marker, "kbs-now v1 -->", 1), Warn, "was edited by hand", "nowhook setup --yes --force"},
		{"newer", strings.Replace(edited, marker, "kbs-now v99 -->", 1), Warn, "newer than this nowhook's", "upgrade nowhook"},
	} {
		d := &doctor{}
		f := d.blockFinding(&mdFile{rel: "AGENTS.md", Raw: []byte(c.md), exists: true}, block.Name, "no agent learns", "nowhook setup --yes")
		if f.Severity != c.want || !strings.Contains(f.Message, c.message) || !strings.HasPrefix(f.Fix, c.fix) || (c.fix == "") != (f.Fix == "") {
			t.Errorf("%s: got %v %q (fix %q), want %v %q (fix %q)", c.name, f.Severity, f.Message, f.Fix, c.want, c.message, c.fix)
		}
		if c.fix == "nowhook setup --yes --force" && f.Fix != c.fix {
			t.Errorf("%s: fix %q, want %q", c.name, f.Fix, c.fix)
		}
	}
}
