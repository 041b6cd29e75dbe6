package agent

import (
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// TestCodexDocCapOneVerdict: doctor's agents-md-cap row (Run, on the files
// as they are) and setup's judgement of its plan (Files) come to the same
// verdict on the same AGENTS.md, for a block beyond, across and within
// project_doc_max_bytes; only the fix differs, where setup is about to
// append a block that is not there yet.
func TestCodexDocCapOneVerdict(t *testing.T) {
	block := "<!-- nowhook:begin kbs-now v3 -->\nrun kbs now\n<!-- nowhook:end kbs-now -->\n"
	for _, c := range []struct {
		name   string
		before int // bytes of notes above the block
		config string
		want   diag.Severity
	}{
		{"beyond the default cap", 40 << 10, "", diag.Error},
		{"across a cap the user set", 1000, "project_doc_max_bytes = 1010\n", diag.Warn},
		{"within the default cap", 1000, "", diag.OK},
	} {
		files := map[string]string{"AGENTS.md": strings.Repeat("x", c.before-1) + "\n" + block}
		if c.config != "" {
			files["~/.codex/config.toml"] = c.config
		}
		v := newFakeView(t, codex, Reinject, files)
		q := quirk(t, codex, "agents-md-cap")
		doctor := q.Run(v)
		md := []byte(files["AGENTS.md"])
		planned := q.Files(Judged{Root: v.Root(), Env: v.Env(), Show: v.Show,
			Read:   func(string) ([]byte, bool) { return md, true },
			Before: func(string) ([]byte, bool) { return md[:c.before], true }})
		if len(doctor) != 1 || len(planned) != 1 {
			t.Fatalf("%s: want one row each, got doctor %+v, setup %+v", c.name, doctor, planned)
		}
		d, s := doctor[0], planned[0]
		if d.Severity != c.want || s.Severity != c.want || d.Message != s.Message {
			t.Errorf("%s: doctor %s %q, setup %s %q; want %s, one message", c.name, d.Severity, d.Message, s.Severity, s.Message, c.want)
		}
		if c.want != diag.OK && (!strings.HasPrefix(d.Fix, "move the nowhook kbs-now block") || !strings.HasPrefix(s.Fix, "raise project_doc_max_bytes in ") || !strings.Contains(s.Fix, "or shorten AGENTS.md by at least")) {
			t.Errorf("%s: fixes: doctor %q, setup %q", c.name, d.Fix, s.Fix)
		}
	}
}
