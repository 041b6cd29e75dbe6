package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// TestDifferencesAreThePlan: for every agent in every mode, the files the
// differences name are exactly the files the plan changes, each
// difference on a line its file has (1 for a file that is missing); after
// Write there is none, as Changed says.
func TestDifferencesAreThePlan(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, a := range agent.All {
		for _, m := range a.ModeNames() {
			t.Run(a.Name+"="+string(m), func(t *testing.T) {
				root := repo(t, map[string]string{"AGENTS.md": "# Rules\n\nBe kind.\n"})
				req := Request{Root: root, Targets: []Target{{Agent: a, Mode: m, Checkpoint: len(a.Checkpoint) > 0}},
					Options: agent.Options{Budget: agent.DefaultBudget}}
				pl := reconcileOK(t, req)
				var named, changed []string
				for _, d := range pl.Differences() {
					if !slices.Contains(named, d.Name) {
						named = append(named, d.Name)
					}
					if d.Line < 1 {
						t.Errorf("%s: line %d", d.Name, d.Line)
					}
				}
				for _, c := range pl.Changes() {
					changed = append(changed, c.Name)
				}
				slices.Sort(named)
				slices.Sort(changed)
				if !slices.Equal(named, changed) {
					t.Errorf("differences name %v, the plan changes %v", named, changed)
				}
				if err := pl.Write(); err != nil {
					t.Fatal(err)
				}
				if again := reconcileOK(t, req); len(again.Differences()) != 0 || again.Changed() {
					t.Errorf("after Write: %v", again.Differences())
				}
			})
		}
	}
}

// TestDifferenceLines: each difference is on the line of the file as it
// is now where the change starts: a hook entry that is missing on its
// event's key, one that was edited on the edited line, one that goes on
// its first line; a block on its begin line, one that is missing where
// the file ends; a whole file on line 1. Several changes in one file are
// each placed in the file as it is, not as earlier changes leave it.
func TestDifferenceLines(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	claude := lookup("claude")
	opts := agent.Options{Budget: agent.DefaultBudget}
	root := repo(t, map[string]string{
		".claude/settings.json": `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
    ]
  }
}
`,
		"AGENTS.md": "# Rules\n\nBe kind.\n",
	})
	got := lines(t, reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: claude, Mode: agent.Reinject, Checkpoint: true}}, Options: opts}))
	for _, want := range []string{
		".claude/settings.json:7: Claude Code's SessionStart hook entry is missing",
		// The checkpoint's events are added after the last one.
		".claude/settings.json:9: Claude Code's PostToolUse hook entry is missing",
		".claude/hooks/kanbus-compaction-right-now.sh:1: missing",
		"AGENTS.md:3: nowhook's kbs-now block is missing",
	} {
		if !hasPrefix(got, want) {
			t.Errorf("no difference %q in\n%s", want, strings.Join(got, "\n"))
		}
	}

	// Set up, then edited by hand: the matcher, and the kbs-now block.
	pl := reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: claude, Mode: agent.Reinject, Checkpoint: true}}, Options: opts})
	if err := pl.Write(); err != nil {
		t.Fatal(err)
	}
	settings := readFile(t, filepath.Join(root, ".claude/settings.json"))
	entry := lineWith(t, settings, `"matcher": "compact"`)
	mkfile(t, filepath.Join(root, ".claude/settings.json"), strings.Replace(settings, `"matcher": "compact"`, `"matcher": "resume"`, 1), 0o644)
	md := readFile(t, filepath.Join(root, "AGENTS.md"))
	begin := lineWith(t, md, "nowhook:begin kbs-now")
	mkfile(t, filepath.Join(root, "AGENTS.md"), strings.Replace(md, "kbs now", "kbs  now", 1), 0o644)
	// A longer budget changes every entry's timeout: each is placed in
	// the file as it is, below the changes above it.
	got = lines(t, reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: claude, Mode: agent.Reinject, Checkpoint: true}},
		Options: agent.Options{Budget: 9 * time.Second, Force: true}}))
	for _, want := range []string{
		fmt.Sprintf(".claude/settings.json:%d: Claude Code's SessionStart hook entry differs", entry),
		fmt.Sprintf(".claude/settings.json:%d: Claude Code's PostToolUse hook entry differs", timeoutLine(t, settings, "PostToolUse")),
		fmt.Sprintf(".claude/settings.json:%d: Claude Code's UserPromptSubmit hook entry differs", timeoutLine(t, settings, "UserPromptSubmit")),
		fmt.Sprintf("AGENTS.md:%d: nowhook's kbs-now block was changed by hand", begin),
		"AGENTS.md.bak:1: missing: setup creates it, a copy of AGENTS.md",
	} {
		if !hasPrefix(got, want) {
			t.Errorf("no difference %q in\n%s", want, strings.Join(got, "\n"))
		}
	}

	// Without the checkpoint its entries go: each on its first line, and
	// its scripts whole.
	got = lines(t, reconcileOK(t, Request{Root: root, Targets: []Target{{Agent: claude, Mode: agent.Reinject}}, Options: agent.Options{Budget: agent.DefaultBudget, Force: true}}))
	for _, want := range []string{
		fmt.Sprintf(".claude/settings.json:%d: Claude Code's PreCompact hook entry is here, but setup (claude in mode reinject without the checkpoint) does not keep it", lineWith(t, settings, `"PreCompact"`)+1),
		".claude/hooks/kanbus-checkpoint.sh:1: setup deletes this file",
	} {
		if !hasPrefix(got, want) {
			t.Errorf("no difference %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// lines is the plan's differences as `file:line: what`.
func lines(t *testing.T, pl *Plan) []string {
	t.Helper()
	var out []string
	for _, d := range pl.Differences() {
		out = append(out, fmt.Sprintf("%s:%d: %s", d.Name, d.Line, d.What))
	}
	return out
}

func hasPrefix(list []string, prefix string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// lineWith is the first line (1-based) of s that holds sub.
func lineWith(t *testing.T, s, sub string) int {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q in\n%s", sub, s)
	return 0
}

// timeoutLine is the line of the first "timeout" after event's key.
func timeoutLine(t *testing.T, s, event string) int {
	t.Helper()
	from := lineWith(t, s, `"`+event+`"`)
	for i, l := range strings.Split(s, "\n")[from:] {
		if strings.Contains(l, `"timeout"`) {
			return from + i + 1
		}
	}
	t.Fatalf("no timeout after %s in\n%s", event, s)
	return 0
}

// TestAnnotation: GitHub's workflow command, escaped as its toolkit
// escapes (actions/toolkit, command.ts): % \r \n in the message; those
// and : , in a property; a folder has no line.
func TestAnnotation(t *testing.T) {
	for _, tc := range []struct {
		d          Difference
		file, fix  string
		annotation string
	}{
		{Difference{Line: 5, What: "the entry differs"}, ".claude/settings.json", "nowhook setup --yes",
			"::error file=.claude/settings.json,line=5,title=nowhook setup --check::the entry differs; to fix it, run: nowhook setup --yes"},
		{Difference{Line: 1, What: "100% off\r\nnext: line, too"}, "a,b:c%d\ne.json", "",
			"::error file=a%2Cb%3Ac%25d%0Ae.json,line=1,title=nowhook setup --check::100%25 off%0D%0Anext: line, too"},
		{Difference{What: "setup deletes this folder"}, ".cursor/hooks/", "nowhook setup --yes --dir a,b",
			"::error file=.cursor/hooks/,title=nowhook setup --check::setup deletes this folder; to fix it, run: nowhook setup --yes --dir a,b"},
		{Difference{Line: 2, What: "::error file=x::injected"}, "f", "",
			"::error file=f,line=2,title=nowhook setup --check::::error file=x::injected"},
	} {
		if got := Annotation(tc.d, tc.file, tc.fix); got != tc.annotation {
			t.Errorf("Annotation(%q, %q, %q)\n got %q\nwant %q", tc.d.What, tc.file, tc.fix, got, tc.annotation)
		}
		if got := Annotation(tc.d, tc.file, tc.fix); strings.ContainsAny(got, "\r\n") {
			t.Errorf("annotation spans lines: %q", got)
		}
	}
}

// BenchmarkCheck is setup --check's work in a repository with every
// agent set up in its default mode: detect nothing, plan, list the
// differences (none).
func BenchmarkCheck(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	writeBench(b, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
	writeBench(b, filepath.Join(root, ".kanbus.yml"), "project_key: kbs\n")
	var targets []Target
	for _, a := range agent.All {
		targets = append(targets, Target{Agent: a, Mode: a.Default})
	}
	req := Request{Root: root, Targets: targets, Options: agent.Options{Budget: agent.DefaultBudget}}
	pl, err := Reconcile(req)
	if err != nil {
		b.Fatal(err)
	}
	if err := pl.Write(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		pl, err := Reconcile(req)
		if err != nil {
			b.Fatal(err)
		}
		if d := pl.Differences(); len(d) != 0 {
			b.Fatalf("differences after setup: %v", d)
		}
	}
}

func writeBench(b *testing.B, path, content string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
