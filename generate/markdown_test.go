package generate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

var testBlock = Block{Name: "t", Version: 2, Body: "body line\n", Heading: "Compact Instructions"}

func TestMergeBlock(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty file", "", "## Compact Instructions\n\n<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\n"},
		{"no final newline", "# A\ntext", "# A\ntext\n## Compact Instructions\n\n<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\n"},
		{"CRLF", "# A\r\n", "# A\r\n\r\n## Compact Instructions\r\n\r\n<!-- nowhook:begin t v2 -->\r\nbody line\r\n<!-- nowhook:end t -->\r\n"},
		{"heading in any case and level", "### compact instructions ###\nkeep x\n", "### compact instructions ###\n\n<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\nkeep x\n"},
		{"heading inside a fence is not a heading", "```\n# Compact Instructions\n```\n", "```\n# Compact Instructions\n```\n\n## Compact Instructions\n\n<!-- nowhook:begin t v2 -->"},
		{"setext heading", "Compact Instructions\n====\nkeep\n", "Compact Instructions\n====\n\n<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\nkeep\n"},
		{"BOM before the heading", "\ufeff# Compact Instructions\n", "\ufeff# Compact Instructions\n\n<!-- nowhook:begin t v2 -->"},
		{"no space after # is not a heading", "#Compact Instructions\n", "#Compact Instructions\n\n## Compact Instructions\n\n<!-- nowhook:begin t v2 -->"},
		{"a longer fence is not closed by a shorter one", "````\n```\n# Compact Instructions\n````\n", "````\n```\n# Compact Instructions\n````\n\n## Compact Instructions\n"},
		{"markers inside a fence are an example, not the block", "```\n<!-- nowhook:begin t v1 -->\nexample\n<!-- nowhook:end t -->\n```\n", "```\n<!-- nowhook:begin t v1 -->\nexample\n<!-- nowhook:end t -->\n```\n\n## Compact Instructions\n\n<!-- nowhook:begin t v2 -->"},
		{"older version replaced in place", "a\n<!-- nowhook:begin t v1 -->\nold\n<!-- nowhook:end t -->\nb\n", "a\n<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\nb\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := MergeBlock("X.md", []byte(c.in), testBlock)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(out), c.want) {
				t.Errorf("got:\n%q\nwant prefix:\n%q", out, c.want)
			}
			again, err := MergeBlock("X.md", out, testBlock)
			if err != nil || string(again) != string(out) {
				t.Errorf("second merge changed the file: %q", again)
			}
		})
	}
}

func TestMergeBlockBrokenMarkers(t *testing.T) {
	for _, in := range []string{
		"<!-- nowhook:begin t v1 -->\nno end\n",
		"<!-- nowhook:end t -->\n",
		"<!-- nowhook:begin t v1 -->\n<!-- nowhook:end t -->\n<!-- nowhook:begin t v1 -->\n<!-- nowhook:end t -->\n",
	} {
		if _, err := MergeBlock("X.md", []byte(in), testBlock); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestScriptSignature(t *testing.T) {
	s := Script("#!/bin/sh\necho hi\n", 3)
	if state, v := InspectScript(s); state != ScriptOurs || v != 3 {
		t.Errorf("fresh script: state %d version %d", state, v)
	}
	changed := append(append([]byte(nil), s...), "echo more\n"...)
	if state, _ := InspectScript(changed); state != ScriptModified {
		t.Errorf("changed script: state %d", state)
	}
	lines := strings.SplitN(string(s), "\n", 3)
	if state, _ := InspectScript([]byte(lines[0] + "\n" + lines[2])); state != ScriptForeign {
		t.Errorf("script without signature: state %d", state)
	}
	if state, _ := InspectScript(nil); state != ScriptAbsent {
		t.Errorf("absent: state %d", state)
	}
}

func TestInspectKanbusCopies(t *testing.T) {
	exact := "#!/bin/sh\n# a copy of a documented wrapper\nkbs now --json --list\n"
	sum := sha256.Sum256([]byte(exact))
	KnownKanbusCopies[hex.EncodeToString(sum[:])] = true
	defer delete(KnownKanbusCopies, hex.EncodeToString(sum[:]))
	for _, c := range []struct {
		script string
		want   ScriptState
	}{
		{exact, ScriptKanbus},
		{exact + "# changed\n", ScriptKanbusLike},
		{"#!/usr/bin/env bash\nout=$(\"$KBS\" now --json --list) || exit 0\n", ScriptKanbusLike},
		{"#!/bin/sh\nT=${KANBUS_COMPACTION_HOOK_TIMEOUT_SECONDS:-5}\nkanbus now --json --list\n", ScriptKanbusLike},
		{"#!/bin/sh\n# kbs now --json --list, in a comment only\necho hi\n", ScriptForeign},
		{"#!/bin/sh\necho hi\n", ScriptForeign},
	} {
		if got, _ := InspectScript([]byte(c.script)); got != c.want {
			t.Errorf("InspectScript(%q) = %d, want %d", c.script, got, c.want)
		}
	}
}
