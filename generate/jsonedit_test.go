package generate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMergeHookJSONC checks that a file the agent reads as JSONC (Cursor's)
// keeps its comments and trailing commas, and that our entry lands after
// them.
func TestMergeHookJSONC(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			name: "comment after the last member stays on its line",
			in:   "{\n  \"hooks\": {\n    \"stop\": [] // later\n  }\n}\n",
			want: "{\n  \"hooks\": {\n    \"stop\": [], // later\n    \"preCompact\": [\n",
		},
		{
			name: "trailing comma kept, entry appended after it",
			in:   "{\n  \"hooks\": {\n    \"preCompact\": [\n      {\"command\": \"x\"},\n    ],\n  },\n}\n",
			want: "{\"command\": \"x\"},\n      {\n",
		},
		{
			name: "block comment inside an empty object kept",
			in:   "{ /* nothing yet */ }",
			want: "{\n  /* nothing yet */\n  \"hooks\": {\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := testFlat.MergeHook([]byte(c.in), testFlatHook())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, c.want)
			}
			again, err := testFlat.MergeHook(out, testFlatHook())
			if err != nil || string(again) != string(out) {
				t.Errorf("second merge changed the file (err %v):\n%s", err, again)
			}
		})
	}
}

func TestMergeHookBOMAndEmpty(t *testing.T) {
	out, err := testSettings.MergeHook([]byte("\xef\xbb\xbf{\"model\": \"x\"}\n"), testHook(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "\xef\xbb\xbf{\"model\": \"x\", \"hooks\": {") {
		t.Errorf("BOM file: got %q", out)
	}
	// A file of white space keeps it, in front: no byte is lost.
	for _, empty := range []string{"", "\n", "  \n", "\xef\xbb\xbf\n"} {
		out, err := testSettings.MergeHook([]byte(empty), testHook(5*time.Second))
		if err != nil || !strings.HasPrefix(string(out), empty+"{\n  \"hooks\": {\n    \"SessionStart\": [\n") {
			t.Errorf("empty file %q: got %q, %v", empty, out, err)
		}
	}
}

func TestMergeHookRefusals(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"duplicate hooks key", "{\"hooks\": {}, \"hooks\": {}}", "hooks appears twice"},
		{"not UTF-8", "{\"model\": \"\xff\"}", "is not valid UTF-8"},
		{"comment in strict file", "{\n/* c */\n}", ".claude/settings.json:2:1: has a comment"},
	}
	for _, c := range cases {
		if _, err := testSettings.MergeHook([]byte(c.in), testHook(5*time.Second)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestRunsScript: our script's path relative to the repository root is
// ours however the way to the root is spelled; a file of the same name in
// any other folder is the user's own, and setup and remove leave it be.
func TestRunsScript(t *testing.T) {
	ours := RunsScript(testScript)
	for _, cmd := range []string{
		`"$CLAUDE_PROJECT_DIR"/` + testScript,
		".claude/hooks/kanbus-compaction-right-now.sh",
		"./.claude/hooks/kanbus-compaction-right-now.sh",
		"bash .claude/hooks/kanbus-compaction-right-now.sh",
		"bash \"$CLAUDE_PROJECT_DIR/.claude/hooks/kanbus-compaction-right-now.sh\"",
		"${CLAUDE_PROJECT_DIR}/.claude/hooks/kanbus-compaction-right-now.sh;",
		"\"${CLAUDE_PROJECT_DIR:-$PWD}\"/.claude/hooks/kanbus-compaction-right-now.sh",
		"\"$GEMINI_PROJECT_DIR\"/.claude/hooks/kanbus-compaction-right-now.sh",
		"$(git rev-parse --show-toplevel)/.claude/hooks/kanbus-compaction-right-now.sh",
		"cd \"$CLAUDE_PROJECT_DIR\" && .claude/hooks/kanbus-compaction-right-now.sh",
		"echo start; (.claude/hooks/kanbus-compaction-right-now.sh)",
		`d=$PWD; while [ "$d" != / ] && [ ! -x "$d/` + testScript + `" ]; do d=${d%/*}; d=${d:-/}; done; [ ! -x "$d/` + testScript + `" ] || exec "$d/` + testScript + `"`,
		`sh -c 'r=$(git rev-parse --show-toplevel 2>/dev/null || pwd); f="$r/` + testScript + `"; [ -x "$f" ] && exec "$f"; exit 0'`,
		RunIfPresent(`"$CLAUDE_PROJECT_DIR"/` + testScript),
		RunIfPresent("$GEMINI_PROJECT_DIR/" + testScript),
		RunIfPresent(testScript),
		`d=$(git rev-parse --show-toplevel 2>/dev/null); ` + RunIfPresent(`"$d"/`+testScript),
	} {
		if !ours(cmd) {
			t.Errorf("%q not recognised as ours", cmd)
		}
	}
	for _, cmd := range []string{
		"echo hi",
		".claude/hooks/other.sh",
		".claude/hooks/kanbus-compaction-right-now.sh.bak",
		"kanbus-compaction-right-now.sh",
		"./kanbus-compaction-right-now.sh",
		"./scripts/kanbus-compaction-right-now.sh",
		"bash scripts/kanbus-compaction-right-now.sh",
		"~/bin/kanbus-compaction-right-now.sh",
		"$HOME/bin/kanbus-compaction-right-now.sh",
		".codex/hooks/kanbus-compaction-right-now.sh",
		"\"$CLAUDE_PROJECT_DIR\"/.codex/hooks/kanbus-compaction-right-now.sh",
		"\"$CLAUDE_PROJECT_DIR\"/tools/.claude/hooks/kanbus-compaction-right-now.sh",
		"~/.claude/hooks/kanbus-compaction-right-now.sh",
		"$HOME/.claude/hooks/kanbus-compaction-right-now.sh",
		"\"${CLAUDE_CONFIG_DIR:-$HOME/.claude}\"/hooks/kanbus-compaction-right-now.sh",
		"/opt/kanbus/.claude/hooks/kanbus-compaction-right-now.sh",
		"vendor/.claude/hooks/kanbus-compaction-right-now.sh",
		"NOWHOOK_DEFER=.claude/hooks/kanbus-compaction-right-now.sh:.claude/settings.json; exec ~/.claude/hooks/kanbus-compaction-right-now.sh",
		RunIfPresent("./scripts/kanbus-compaction-right-now.sh"),
		RunIfPresent("~/bin/kanbus-compaction-right-now.sh"),
		RunIfPresent(`"$CLAUDE_PROJECT_DIR"/.codex/hooks/kanbus-compaction-right-now.sh`),
		RunIfPresent("~/.claude/hooks/kanbus-compaction-right-now.sh"),
		RunIfPresent(`"$HOME"/.claude/hooks/kanbus-compaction-right-now.sh`),
	} {
		if ours(cmd) {
			t.Errorf("%q recognised as ours", cmd)
		}
	}
}

// TestRunsScriptIn: a script in a folder outside the repository is ours
// only in that folder, as the command spells it.
func TestRunsScriptIn(t *testing.T) {
	ours := RunsScriptIn([]string{"${CLAUDE_CONFIG_DIR:-$HOME/.claude}"}, "hooks/kanbus-compaction-right-now.sh")
	for _, cmd := range []string{
		`s="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/hooks/kanbus-compaction-right-now.sh"; [ ! -x "$s" ] || exec "$s"`,
		`exec "${CLAUDE_CONFIG_DIR:-$HOME/.claude}"/hooks/kanbus-compaction-right-now.sh`,
	} {
		if !ours(cmd) {
			t.Errorf("%q not recognised as ours", cmd)
		}
	}
	for _, cmd := range []string{
		"hooks/kanbus-compaction-right-now.sh",
		"~/bin/hooks/kanbus-compaction-right-now.sh",
		`s="${CLAUDE_CONFIG_DIR:-$HOME/.config}/hooks/kanbus-compaction-right-now.sh"; exec "$s"`,
		`"${CLAUDE_CONFIG_DIR:-$HOME/.claude}"/hooks/kanbus-compaction-right-now.sh.orig`,
	} {
		if ours(cmd) {
			t.Errorf("%q recognised as ours", cmd)
		}
	}
}

func TestHookTimeout(t *testing.T) {
	for budget, want := range map[time.Duration]int{time.Second: 6, 5 * time.Second: 10, 2500 * time.Millisecond: 8, 30 * time.Second: 35} {
		if got := HookTimeout(budget); got != want {
			t.Errorf("HookTimeout(%s) = %d, want %d", budget, got, want)
		}
	}
}

// TestMergeHookPlacement covers where our handler ends up when the file
// already holds copies of it in odd places.
func TestMergeHookPlacement(t *testing.T) {
	const old = `{"type": "command", "command": ".claude/hooks/kanbus-compaction-right-now.sh"}`
	const cur = `{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/kanbus-compaction-right-now.sh", "timeout": 10}`
	const other = `{"type": "command", "command": "echo hi"}`
	const entry = `{"matcher":"compact","hooks":[` + cur + `]}`
	cases := []struct{ name, in, want string }{
		{
			name: "our handler under startup is moved out, the compact group kept",
			in:   `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [` + other + `, ` + old + `]}, {"matcher": "compact", "hooks": [` + cur + `]}]}}`,
			want: `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[` + other + `]},` + entry + `]}}`,
		},
		{
			name: "our handler only under startup: removed there, a compact group appended",
			in:   `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [` + other + `, ` + old + `]}]}}`,
			want: `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[` + other + `]},` + entry + `]}}`,
		},
		{
			name: "our handler in a compact group with someone else's is upgraded in place",
			in:   `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [` + other + `, ` + old + `]}]}}`,
			want: `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[` + other + `,` + cur + `]}]}}`,
		},
		{
			name: "two spellings in one group become our one group",
			in:   `{"hooks": {"SessionStart": [{"matcher": "", "hooks": [` + old + `, {"type": "command", "command": "bash ./.claude/hooks/kanbus-compaction-right-now.sh"}]}]}}`,
			want: `{"hooks":{"SessionStart":[` + entry + `]}}`,
		},
		{
			name: "copies across groups and inside one group collapse to one",
			in:   `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [` + cur + `]}, {"matcher": "compact", "hooks": [` + cur + `, ` + cur + `]}]}}`,
			want: `{"hooks":{"SessionStart":[` + entry + `]}}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := testSettings.MergeHook([]byte(c.in), testHook(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if got := compactJSON(t, out); got != compactJSON(t, []byte(c.want)) {
				t.Errorf("got  %s\nwant %s", got, compactJSON(t, []byte(c.want)))
			}
			again, err := testSettings.MergeHook(out, testHook(5*time.Second))
			if err != nil || string(again) != string(out) {
				t.Errorf("second merge changed the file (err %v):\n%s\n%s", err, out, again)
			}
		})
	}
	for name, in := range map[string]string{
		"hooks twice in a group": `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [], "hooks": [` + other + `, ` + old + `]}]}}`,
		"null file":              `null`,
	} {
		if _, err := testSettings.MergeHook([]byte(in), testHook(5*time.Second)); err == nil {
			t.Errorf("%s: merged, want a refusal", name)
		}
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return buf.String()
}

func TestMergeHookCommentBeforeTrailingComma(t *testing.T) {
	in := "{\"hooks\": {\"preCompact\": [\n  {\"command\": \"x\"} /* a\n  b */,\n]}}\n"
	out, err := testFlat.MergeHook([]byte(in), testFlatHook())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "/* a\n  b */,\n  {") {
		t.Errorf("got:\n%s", out)
	}
}

func TestStrictEveryProblemAtOnce(t *testing.T) {
	in := "{\n  // why\n  \"a\": [1, 2,],\n  \"b\": {\"c\": 1,}, /* and */\n  \"s\": \"// not a comment, ]\"\n}\n"
	_, err := testSettings.MergeHook([]byte(in), testHook(5*time.Second))
	if err == nil {
		t.Fatal("no error")
	}
	want := ".claude/settings.json:2:3: has 2 comments (also at 4:19) and 2 trailing commas (at 3:13, 4:15), so it is not strict JSON; Claude Code currently ignores this whole file, so every hook and setting in it is off. Fix: remove the comments and the trailing commas (.claude/settings.json must be plain JSON), then run nowhook setup again"
	if err.Error() != want {
		t.Errorf("got:\n%s\nwant:\n%s", err, want)
	}
}
