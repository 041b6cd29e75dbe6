package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// fixFor is the fix maker the verdict tests give.
var fixFor = VerdictOptions{
	SetupFix: func(agents string, extra ...string) string {
		return strings.Join(append([]string{"nowhook setup --yes --agents " + agents}, extra...), " ")
	},
	SetupIn: func(from, agents string) string { return "nowhook setup --yes --agents " + agents + " --dir " + from },
}

// row returns the verdict's row of name.
func row(t *testing.T, rows []diag.Finding, name string) diag.Finding {
	t.Helper()
	for _, r := range rows {
		if r.Check == name {
			return r
		}
	}
	t.Fatalf("no %s row among %+v", name, rows)
	return diag.Finding{}
}

// TestCodexDocCapOneVerdict: the agents-md-cap row, made by the one
// judgement on the files as they are (doctor) and as a plan leaves them
// (setup: Before says the block is new), comes to one verdict for a block
// beyond, across and within project_doc_max_bytes; only the fix differs,
// where setup is about to append a block that is not there yet.
func TestCodexDocCapOneVerdict(t *testing.T) {
	block := "<!-- nowhook:begin kbs-now v3 -->\nrun kbs now\n<!-- nowhook:end kbs-now -->\n"
	for _, c := range []struct {
		name   string
		before int // bytes of notes above the block
		config string
		want   diag.Severity
	}{
		{"beyond the default cap", 40 << 10, "", diag.Error},
		{"across a cap the user set", 1000, "project_doc_max_bytes = 1010\n", diag.Error},
		{"within the default cap", 1000, "", diag.OK},
	} {
		files := map[string]string{"AGENTS.md": strings.Repeat("x", c.before-1) + "\n" + block}
		if c.config != "" {
			files["~/.codex/config.toml"] = c.config
		}
		v := newFakeView(t, codex, Reinject, files)
		disk := DirFilesFrom(v.Root(), nil, v.Env(), nil)
		doctor := row(t, codex.Verdict(disk, Reinject, ".", fixFor), "agents-md-cap")
		o := fixFor
		o.Before = memFiles{files: map[string]string{"AGENTS.md": files["AGENTS.md"][:c.before]}}
		setup := row(t, codex.Verdict(disk, Reinject, ".", o), "agents-md-cap")
		if doctor.Severity != c.want || setup.Severity != c.want || doctor.Message != setup.Message {
			t.Errorf("%s: doctor %s %q, setup %s %q; want %s, one message", c.name, doctor.Severity, doctor.Message, setup.Severity, setup.Message, c.want)
		}
		if c.want != diag.OK && (!strings.HasPrefix(doctor.Fix, "move the nowhook kbs-now block") || !strings.HasPrefix(setup.Fix, "raise project_doc_max_bytes in ") || !strings.Contains(setup.Fix, "or shorten AGENTS.md by at least")) {
			t.Errorf("%s: fixes: doctor %q, setup %q", c.name, doctor.Fix, setup.Fix)
		}
	}
}

// TestCodexJointBudget: Codex CLI joins AGENTS.md from the root down to the
// start folder under one project_doc_max_bytes (measured on 0.171.0): a
// block at the end of the root's AGENTS.md that fits from the root pushes
// the team's text of pkg/AGENTS.md out from pkg/, which is an error there
// and nowhere else; and a cap in the project's .codex/config.toml counts
// only where the user config trusts the project.
func TestCodexJointBudget(t *testing.T) {
	block := "<!-- nowhook:begin kbs-now v4 -->\nrun kbs now\n<!-- nowhook:end kbs-now -->\n"
	rules := func(tag string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %s-%02d of the team's rules, forty bytes.\n", tag, i)
		}
		return b.String()
	}
	files := map[string]string{
		"AGENTS.md":            rules("root", 15) + block,
		"pkg/AGENTS.md":        rules("pkg", 15),
		"~/.codex/config.toml": "project_doc_max_bytes = 1450\n",
	}
	v := newFakeView(t, codex, OnDemand, files)
	disk := DirFilesFrom(v.Root(), []string{"pkg"}, v.Env(), nil)
	if got := row(t, codex.Verdict(disk, OnDemand, ".", fixFor), "agents-md-cap"); got.Severity != diag.OK {
		t.Errorf("from the root: %s %q, want ok", got.Severity, got.Message)
	}
	got := row(t, codex.Verdict(disk, OnDemand, "pkg", fixFor), "agents-md-cap")
	if got.Severity != diag.Error || got.From != "pkg" || !strings.Contains(got.Message, "pushes") || !strings.Contains(got.Message, "of pkg/AGENTS.md out of what Codex reads") {
		t.Errorf("from pkg: %s %q (from %q), want an error naming the bytes of pkg/AGENTS.md pushed out", got.Severity, got.Message, got.From)
	}
	if !strings.Contains(got.Fix, "raise project_doc_max_bytes in ~/.codex/config.toml to at least 1470") {
		t.Errorf("from pkg: fix %q, want the joined size", got.Fix)
	}

	// A larger cap in the project's config counts only once trusted.
	files["~/.codex/config.toml"] = "project_doc_max_bytes = 1450\n"
	files[".codex/config.toml"] = "project_doc_max_bytes = 4000\n"
	v = newFakeView(t, codex, OnDemand, files)
	disk = DirFilesFrom(v.Root(), []string{"pkg"}, v.Env(), nil)
	got = row(t, codex.Verdict(disk, OnDemand, "pkg", fixFor), "agents-md-cap")
	if got.Severity != diag.Error || !strings.Contains(got.Message, "counts only once Codex trusts the project") {
		t.Errorf("untrusted project: %s %q, want an error saying the project's cap does not count", got.Severity, got.Message)
	}
	files["~/.codex/config.toml"] = fmt.Sprintf("project_doc_max_bytes = 1450\n\n[projects.%q]\ntrust_level = \"trusted\"\n", realPath(t, v.root))
	if err := os.WriteFile(filepath.Join(v.home, ".codex", "config.toml"), []byte(files["~/.codex/config.toml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	// The files of one doctor run keep what they found (Memoizer): a new
	// run sees the trust.
	disk = DirFilesFrom(v.Root(), []string{"pkg"}, v.Env(), nil)
	got = row(t, codex.Verdict(disk, OnDemand, "pkg", fixFor), "agents-md-cap")
	if got.Severity != diag.OK || !strings.Contains(got.Message, "4000 (set in .codex/config.toml)") {
		t.Errorf("trusted project: %s %q, want ok under the project's cap", got.Severity, got.Message)
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
