package agent

import (
	"path"
	"sort"
	"strings"
	"testing"
)

// treeFiles is memFiles that can list a folder (for .claude/rules/) and
// knows its start folders.
type treeFiles struct {
	memFiles
	starts []string
}

func (t treeFiles) StartFolders() []string { return t.starts }

func (t treeFiles) List(dir string) []string {
	var out []string
	for p := range t.files {
		if path.Dir(p) == dir {
			out = append(out, path.Base(p))
		}
	}
	sort.Strings(out)
	return out
}

// TestJudgeFolders: what each agent loads from a start folder, as measured
// with the real clients on nested repositories (docs/platforms.md,
// "Instruction files: nested folders"; TestReadsFoldersProbe).
func TestJudgeFolders(t *testing.T) {
	f := func(paths ...string) treeFiles {
		m := map[string]string{}
		for _, p := range paths {
			name, body, _ := strings.Cut(p, "=")
			m[name] = body + "\n"
		}
		return treeFiles{memFiles: memFiles{files: m}}
	}
	cases := []struct {
		agent, from string
		files       treeFiles
		want        string // the files loaded, in order
		hidden      string // file<by, ...
	}{
		{"claude", ".", f("AGENTS.md", "pkg/CLAUDE.md"), "AGENTS.md", ""},
		{"claude", "pkg", f("AGENTS.md", "pkg/CLAUDE.md"), "pkg/CLAUDE.md", "AGENTS.md<pkg/CLAUDE.md"},
		{"claude", "pkg/sub", f("AGENTS.md", "pkg/CLAUDE.md"), "pkg/CLAUDE.md", "AGENTS.md<pkg/CLAUDE.md"},
		{"claude", "pkg", f("CLAUDE.md", "pkg/AGENTS.md"), "CLAUDE.md", "pkg/AGENTS.md<CLAUDE.md"},
		{"claude", "pkg", f("AGENTS.md", "pkg/AGENTS.md"), "AGENTS.md pkg/AGENTS.md", ""},
		{"claude", "pkg", f("AGENTS.md", "pkg/CLAUDE.md", ".claude/rules/r.md"), ".claude/rules/r.md pkg/CLAUDE.md", "AGENTS.md<pkg/CLAUDE.md"},
		{"claude", "pkg", f("AGENTS.md", "pkg/CLAUDE.md=@AGENTS.md", "pkg/AGENTS.md"), "pkg/CLAUDE.md pkg/AGENTS.md", "AGENTS.md<pkg/CLAUDE.md"},
		{"claude", "pkg", f("AGENTS.md", "pkg/CLAUDE.md=@../AGENTS.md"), "pkg/CLAUDE.md", "AGENTS.md<pkg/CLAUDE.md"},
		{"claude", "pkg", f("AGENTS.md", "CLAUDE.local.md"), "CLAUDE.local.md", "AGENTS.md<CLAUDE.local.md"},
		{"claude", "pkg", f("AGENTS.md", "other/CLAUDE.md"), "AGENTS.md", ""},
		{"claude", ".", f("CLAUDE.md=@docs/rules.md", "docs/rules.md"), "CLAUDE.md docs/rules.md", ""},
		{"claude", "pkg", f("CLAUDE.md=@docs/rules.md", "docs/rules.md"), "CLAUDE.md", ""},
		{"codex", "pkg/sub", f("AGENTS.md", "pkg/AGENTS.md"), "AGENTS.md pkg/AGENTS.md", ""},
		{"codex", "pkg", f("AGENTS.md", "pkg/AGENTS.override.md", "pkg/AGENTS.md"), "AGENTS.md pkg/AGENTS.override.md", "pkg/AGENTS.md<pkg/AGENTS.override.md"},
		{"codex", ".", f("pkg/AGENTS.md"), "", ""},
		{"opencode", "pkg", f("AGENTS.md", "pkg/AGENTS.md"), "pkg/AGENTS.md AGENTS.md", ""},
		{"opencode", "pkg", f("AGENTS.md", "pkg/CLAUDE.md"), "AGENTS.md", "pkg/CLAUDE.md<AGENTS.md"},
		{"opencode", "pkg", f("CLAUDE.md", "pkg/AGENTS.md"), "pkg/AGENTS.md", "CLAUDE.md<pkg/AGENTS.md"},
		{"opencode", ".", f("AGENTS.md", "CLAUDE.md"), "AGENTS.md", "CLAUDE.md<AGENTS.md"},
		{"opencode", ".", f("AGENTS.md", "CLAUDE.md", "opencode.json={\"instructions\": [\"CLAUDE.md\"]}"), "AGENTS.md CLAUDE.md", ""},
		{"droid", "pkg", f("CLAUDE.md", "pkg/AGENTS.md", "pkg/CLAUDE.md"), "pkg/CLAUDE.md pkg/AGENTS.md CLAUDE.md", ""},
		{"qwen", "pkg", f("QWEN.md", "AGENTS.md", "pkg/QWEN.md", "pkg/AGENTS.md"), "QWEN.md AGENTS.md pkg/QWEN.md pkg/AGENTS.md", ""},
		{"qwen", ".", f("QWEN.md", "AGENTS.md", "TEAM.md", ".qwen/settings.json={\"context\": {\"fileName\": \"TEAM.md\"}}"), "TEAM.md", ""},
		{"qwen", ".", f("QWEN.md", "AGENTS.md", "TEAM.md", ".qwen/settings.json={\"context\": {\"fileName\": [\"QWEN.md\"]}}"), "QWEN.md", ""},
		{"qwen", ".", f("QWEN.md", "AGENTS.md", "TEAM.md", ".qwen/settings.json={\"context\": {\"fileName\": [\"AGENTS.md\", \"TEAM.md\"]}}"), "AGENTS.md TEAM.md", ""},
		{"qwen", "pkg", f("QWEN.md", "AGENTS.md", "TEAM.md", ".qwen/settings.json={\"context\": {\"fileName\": \"TEAM.md\"}}"), "QWEN.md AGENTS.md", ""},
		{"gemini", "pkg", f("GEMINI.md", "pkg/GEMINI.md", "AGENTS.md"), "GEMINI.md pkg/GEMINI.md", ""},
		{"gemini", ".", f("GEMINI.md", "CONTEXT.md", ".gemini/settings.json={\"context\": {\"fileName\": \"CONTEXT.md\"}}"), "GEMINI.md CONTEXT.md", ""},
		{"gemini", "pkg", f("GEMINI.md", "CONTEXT.md", "pkg/CONTEXT.md", ".gemini/settings.json={\"context\": {\"fileName\": \"CONTEXT.md\"}}"), "GEMINI.md", ""},
		{"cline", "pkg", f("AGENTS.md", "pkg/AGENTS.md"), "pkg/AGENTS.md", ""},
		{"cline", "pkg", f("AGENTS.md"), "", ""},
		{"cursor", "pkg", f("AGENTS.md", "pkg/AGENTS.md"), "AGENTS.md", ""},
	}
	for _, c := range cases {
		var a *Agent
		for _, x := range All {
			if x.Name == c.agent {
				a = x
			}
		}
		j := a.Judge(c.files, c.from)
		if got := strings.Join(j.Files(), " "); got != c.want {
			t.Errorf("%s from %s over %v: loads %q, want %q", c.agent, c.from, keysOf(c.files.files), got, c.want)
		}
		var hidden []string
		for _, h := range j.Hidden {
			if h.By != "" {
				hidden = append(hidden, h.File+"<"+h.By)
			}
		}
		if got := strings.Join(hidden, " "); got != c.hidden {
			t.Errorf("%s from %s over %v: hidden %q, want %q", c.agent, c.from, keysOf(c.files.files), got, c.hidden)
		}
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestVerdictCase1: Claude Code started in a package folder with a
// CLAUDE.md of its own is not taught by the root's AGENTS.md: an error
// there, ok at the root; the rules file fixes it, from both.
func TestVerdictCase1(t *testing.T) {
	block := "<!-- nowhook:begin kbs-now v4 -->\nrun kbs now\n<!-- nowhook:end kbs-now -->\n"
	files := treeFiles{memFiles: memFiles{files: map[string]string{
		"AGENTS.md":     "# Team\n\n" + block,
		"pkg/CLAUDE.md": "# Pkg\n",
	}}, starts: []string{"pkg"}}
	root, pkg := claude.Verdict(files, OnDemand, ".", fixFor)[0], claude.Verdict(files, OnDemand, "pkg", fixFor)[0]
	if root.Severity != 0 || pkg.Severity != 3 || pkg.From != "pkg" || !strings.HasPrefix(pkg.Message, "started in pkg/: the kbs-now block is in AGENTS.md, which Claude Code never loads") {
		t.Errorf("before the rules file: root %s %q; pkg %s %q (from %q)", root.Severity, root.Message, pkg.Severity, pkg.Message, pkg.From)
	}
	if !claudeEverywhere.Needed(files, files) {
		t.Error("the rules file is not needed, though the package folder is not taught")
	}
	files.files[ClaudeTeachRulesFile] = block
	pkg = claude.Verdict(files, OnDemand, "pkg", fixFor)[0]
	if pkg.Severity != 0 {
		t.Errorf("with the rules file: pkg %s %q", pkg.Severity, pkg.Message)
	}
}

// TestVerdictQwenFileName: Qwen Code's context.fileName replaces its list
// (TestReadsQwenFileNameProbe): with "TEAM.md" it never loads the block
// setup wrote, and the fix is the setting, not setup again.
func TestVerdictQwenFileName(t *testing.T) {
	block := "<!-- nowhook:begin kbs-now v4 -->\nrun kbs now\n<!-- nowhook:end kbs-now -->\n"
	files := treeFiles{memFiles: memFiles{files: map[string]string{
		"QWEN.md":             block,
		"AGENTS.md":           "# Team\n\n" + block,
		"TEAM.md":             "# Team rules\n",
		".qwen/settings.json": `{"context": {"fileName": "TEAM.md"}}`,
	}}}
	row := qwen.Verdict(files, Reinject, ".", fixFor)[0]
	if row.Severity != 3 || row.Fix != `add "AGENTS.md" to context.fileName in .qwen/settings.json, beside TEAM.md` {
		t.Errorf("context.fileName \"TEAM.md\": %s %q, fix %q", row.Severity, row.Message, row.Fix)
	}
	files.files[".qwen/settings.json"] = `{"context": {"fileName": ["TEAM.md", "AGENTS.md"]}}`
	if row := qwen.Verdict(files, Reinject, ".", fixFor)[0]; row.Severity != 0 {
		t.Errorf("context.fileName [\"TEAM.md\", \"AGENTS.md\"]: %s %q", row.Severity, row.Message)
	}
	// The root's settings are not the sub-folder session's: it reads the
	// default files, QWEN.md and AGENTS.md.
	if row := qwen.Verdict(files, Reinject, "pkg", fixFor)[0]; row.Severity != 0 {
		t.Errorf("from pkg: %s %q", row.Severity, row.Message)
	}
}
