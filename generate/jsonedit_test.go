package generate

import (
	"strings"
	"testing"
	"time"
)

// TestMergeHookJSONC checks that a file the agent reads as JSONC keeps its
// comments and trailing commas, and that our entry lands after them.
func TestMergeHookJSONC(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			name: "comment after the last member stays on its line",
			in:   "{\n  \"hooks\": {\n    \"Stop\": [] // later\n  }\n}\n",
			want: "{\n  \"hooks\": {\n    \"Stop\": [], // later\n    \"SessionStart\": [\n",
		},
		{
			name: "trailing comma kept, entry appended after it",
			in:   "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]},\n    ],\n  },\n}\n",
			want: "{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]},\n      {\n",
		},
		{
			name: "block comment inside an empty object kept",
			in:   "{ /* nothing yet */ }",
			want: "{\n  /* nothing yet */\n  \"hooks\": {\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := CodexHooks.MergeHook([]byte(c.in), CodexHook(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, c.want)
			}
			again, err := CodexHooks.MergeHook(out, CodexHook(5*time.Second))
			if err != nil || string(again) != string(out) {
				t.Errorf("second merge changed the file (err %v):\n%s", err, again)
			}
		})
	}
}

func TestMergeHookBOMAndEmpty(t *testing.T) {
	out, err := ClaudeSettings.MergeHook([]byte("\xef\xbb\xbf{\"model\": \"x\"}\n"), ClaudeHook(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "\xef\xbb\xbf{\"model\": \"x\", \"hooks\": {") {
		t.Errorf("BOM file: got %q", out)
	}
	for _, empty := range []string{"", "\n", "  \n"} {
		out, err := ClaudeSettings.MergeHook([]byte(empty), ClaudeHook(5*time.Second))
		if err != nil || !strings.HasPrefix(string(out), "{\n  \"hooks\": {\n    \"SessionStart\": [\n") {
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
		if _, err := ClaudeSettings.MergeHook([]byte(c.in), ClaudeHook(5*time.Second)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestRunsScript(t *testing.T) {
	ours := RunsScript(ClaudeScript)
	for _, cmd := range []string{
		ClaudeCommand,
		".claude/hooks/kanbus-compaction-right-now.sh",
		"./.claude/hooks/kanbus-compaction-right-now.sh",
		"bash \"$CLAUDE_PROJECT_DIR/.claude/hooks/kanbus-compaction-right-now.sh\"",
		"${CLAUDE_PROJECT_DIR}/.claude/hooks/kanbus-compaction-right-now.sh;",
	} {
		if !ours(cmd) {
			t.Errorf("%q not recognised as ours", cmd)
		}
	}
	for _, cmd := range []string{"echo hi", ".claude/hooks/other.sh", ".claude/hooks/kanbus-compaction-right-now.sh.bak"} {
		if ours(cmd) {
			t.Errorf("%q recognised as ours", cmd)
		}
	}
	if !RunsScript(CodexScript)(CodexCommand) {
		t.Errorf("CodexCommand not recognised as ours")
	}
}

func TestHookTimeout(t *testing.T) {
	for budget, want := range map[time.Duration]int{time.Second: 6, 5 * time.Second: 10, 2500 * time.Millisecond: 8, 30 * time.Second: 35} {
		if got := HookTimeout(budget); got != want {
			t.Errorf("HookTimeout(%s) = %d, want %d", budget, got, want)
		}
	}
}
