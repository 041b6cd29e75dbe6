package doctor

import (
	"strings"
	"testing"
	"time"
)

// claudeEdited is a repository with Claude Code set up (budget 5 s, hook
// timeout 10 s) and its settings file passed through edit.
func claudeEdited(t *testing.T, edit func(settings string) string) *repo {
	t.Helper()
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.install("claude", 5*time.Second)
	before := string(r.read(".claude/settings.json"))
	after := edit(before)
	if after == before {
		t.Fatalf("the edit changed nothing in:\n%s", before)
	}
	r.write(".claude/settings.json", after, 0o644)
	return r
}

// replace is an edit that replaces old, which must be there, with new.
func replace(t *testing.T, old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("%q is not in:\n%s", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// TestHookShape: each way our handler's timeout and async are wrong for
// the agent is its own finding, with its own severity, in doctor's own
// checks (no live run).
func TestHookShape(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		sev      Severity
		want     string
	}{
		{"a timeout written 10.0", `"timeout": 10`, `"timeout": 10.0`, OK, `matcher "compact", timeout 10.0s, runs .claude/hooks/kanbus-compaction-right-now.sh`},
		{"a timeout above the budget", `"timeout": 10`, `"timeout": 7`, OK, "timeout 7s"},
		{"a timeout below the budget", `"timeout": 10`, `"timeout": 3`, Warn, `"timeout": 3 cancels the hook before the 5s the wrapper gives kbs`},
		{"a timeout of zero", `"timeout": 10`, `"timeout": 0`, Error, `"timeout": 0 is not a positive number of seconds; Claude Code rejects the handler`},
		{"a negative timeout", `"timeout": 10`, `"timeout": -1`, Error, `"timeout": -1 is not a positive number of seconds`},
		{"a timeout in a string", `"timeout": 10`, `"timeout": "10"`, Error, `"timeout" is "10", not a number of seconds`},
		{"no timeout", `,
            "timeout": 10`, ``, Info, "has no timeout, so Claude Code would wait up to 600 s"},
		{"async true", `"timeout": 10`, `"timeout": 10, "async": true`, Error, `has "async": true; Claude Code adds nothing from an async hook to the context`},
		{"async false", `"timeout": 10`, `"timeout": 10, "async": false`, OK, "timeout 10s"},
		{"async in a string", `"timeout": 10`, `"timeout": 10, "async": "true"`, Error, `"async" is "true", not true or false; Claude Code rejects the handler`},
		{"matcher Compact", `"matcher": "compact"`, `"matcher": "Compact"`, Error, `matcher "Compact" does not name compact (names match exactly and case-sensitively), so Claude Code never runs this hook after compaction`},
		{"matcher every source", `"matcher": "compact"`, `"matcher": "*"`, OK, `matcher "*" (every source`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := claudeEdited(t, replace(t, c.old, c.new))
			fs := Static(r.root, []string{"claude"}, r.env)
			f := expectOne(t, fs, "claude.hook", c.sev, c.want)
			if !strings.HasPrefix(f.Message, ".claude/settings.json:") {
				t.Errorf("the finding does not name the file and line: %s", f.Message)
			}
			if c.sev > OK && f.Fix != "nowhook setup --yes --agents claude=reinject" {
				t.Errorf("fix %q, want setup's command", f.Fix)
			}
		})
	}
}

// TestStrictSettings: Claude Code reads its settings as strict JSON, so a
// comment there is an error, and the hook in that file is not called ok:
// Claude Code ignores the whole file. That one error is the only one, with
// the fix that works: no hook row says that no hook runs the script (with
// a setup command that setup refuses), and another row's setup command
// comes after it. Cursor's hooks.json takes a comment.
func TestStrictSettings(t *testing.T) {
	r := claudeEdited(t, replace(t, "{\n", "{\n  // mine\n"))
	fs := Static(r.root, []string{"claude"}, r.env)
	expectOne(t, fs, "claude.hooks-file", Error, ".claude/settings.json:2:3: has a comment", "Claude Code currently ignores this whole file")
	if got := find(fs, "claude.hook"); len(got) > 0 {
		t.Errorf("a hook row beside the file's error:\n%s", dump(got))
	}
	for _, f := range fs {
		if f.Severity == Error && f.Check != "claude.hooks-file" {
			t.Errorf("a second error: %s %s", f.Check, f.Message)
		}
		if strings.HasPrefix(f.Fix, "nowhook setup") {
			t.Errorf("%s's fix runs setup, which refuses the file: %s", f.Check, f.Fix)
		}
	}
	cp := expectOne(t, fs, "claude.checkpoint", Info, "the checkpoint is off")
	if want := "first correct .claude/settings.json (claude.hooks-file), then: nowhook setup --yes --agents claude --checkpoint"; cp.Fix != want {
		t.Errorf("checkpoint fix %q, want %q", cp.Fix, want)
	}

	r = newRepo(t)
	r.write(".cursor/hooks.json", "{\n  // mine\n  \"version\": 1,\n  \"hooks\": {}\n}\n", 0o644)
	fs = Static(r.root, []string{"cursor"}, r.env)
	expectOne(t, fs, "cursor.hooks-file", OK, ".cursor/hooks.json parses as JSON (0 hook handlers)")
}

// TestShapeSeverity: an entry of the wrong shape is a warning where the
// agent skips only that entry (Claude Code) and an error where it drops
// the whole file (Codex CLI).
func TestShapeSeverity(t *testing.T) {
	const bad = "{\"hooks\": {\"Stop\": [42]}}\n"
	r := newRepo(t)
	r.write(".claude/settings.json", bad, 0o644)
	r.write(".codex/hooks.json", bad, 0o644)
	var claude, codex []Finding
	for _, f := range Static(r.root, []string{"claude", "codex"}, r.env) {
		if strings.Contains(f.Message, "hooks.Stop[0] is a number, not an object") {
			if f.Agent == "claude" {
				claude = append(claude, f)
			} else {
				codex = append(codex, f)
			}
		}
	}
	if len(claude) != 1 || claude[0].Severity != Warn || !strings.HasSuffix(claude[0].Message, "; Claude Code ignores it") {
		t.Errorf("Claude Code: want one warning that it ignores the entry, got:\n%s", dump(claude))
	}
	if len(codex) != 1 || codex[0].Severity != Error || !strings.Contains(codex[0].Message, "Codex CLI drops this whole file, so none of its hooks run") {
		t.Errorf("Codex CLI: want one error that it drops the file, got:\n%s", dump(codex))
	}
}

// TestTwiceMatcher: a second command that prints the reminder counts only
// when its group's matcher selects compact.
func TestTwiceMatcher(t *testing.T) {
	local := func(matcher string) string {
		return `{"hooks": {"SessionStart": [{"matcher": "` + matcher + `", "hooks": [{"type": "command", "command": "kbs now --list"}]}]}}` + "\n"
	}
	for matcher, twice := range map[string]bool{"startup": false, "resume|clear": false, "Compact": false, "compact": true, "startup|compact": true, "*": true} {
		r := newRepo(t)
		r.install("claude", 5*time.Second)
		r.write(".claude/settings.local.json", local(matcher), 0o644)
		got := find(Static(r.root, []string{"claude"}, r.env), "claude.twice")
		switch {
		case !twice && len(got) != 0:
			t.Errorf("matcher %q: a hook that never runs after compaction is counted:\n%s", matcher, dump(got))
		case twice && (len(got) != 1 || got[0].Severity != Warn || !strings.Contains(got[0].Message, "the reminder runs 2 times after each compaction")):
			t.Errorf("matcher %q: want one warning of 2 runs, got:\n%s", matcher, dump(got))
		}
	}
}
