package generate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/templates"
)

var testBlock = Block{Name: "t", Version: 2, Body: "body line\n", Heading: "Compact Instructions"}

// released registers body as a text a release wrote for the test block,
// for the length of the test.
func released(t *testing.T, body string) {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	old := templates.ReleasedBlocks[testBlock.Name]
	templates.ReleasedBlocks[testBlock.Name] = append(slices.Clip(old), hex.EncodeToString(sum[:]))
	t.Cleanup(func() { templates.ReleasedBlocks[testBlock.Name] = old })
}

const testText = "<!-- nowhook:begin t v2 -->\nbody line\n<!-- nowhook:end t -->\n"

func TestMergeBlock(t *testing.T) {
	released(t, "old\n")
	crlf := strings.ReplaceAll(testText, "\n", "\r\n")
	cases := []struct{ name, in, want string }{
		{"empty file", "", "## Compact Instructions\n\n" + testText},
		{"no final newline", "# A\ntext", "# A\ntext\n## Compact Instructions\n\n" + testText},
		{"CRLF", "# A\r\n", "# A\r\n\r\n## Compact Instructions\r\n\r\n" + crlf},
		{"heading in any case and level", "### compact instructions ###\nkeep x\n", "### compact instructions ###\n\n" + testText + "keep x\n"},
		{"heading inside a fence is not a heading", "```\n# Compact Instructions\n```\n", "```\n# Compact Instructions\n```\n\n## Compact Instructions\n\n" + testText},
		{"setext heading", "Compact Instructions\n====\nkeep\n", "Compact Instructions\n====\n\n" + testText + "keep\n"},
		{"BOM before the heading", "\ufeff# Compact Instructions\n", "\ufeff# Compact Instructions\n\n" + testText},
		{"no space after # is not a heading", "#Compact Instructions\n", "#Compact Instructions\n\n## Compact Instructions\n\n" + testText},
		{"a longer fence is not closed by a shorter one", "````\n```\n# Compact Instructions\n````\n", "````\n```\n# Compact Instructions\n````\n\n## Compact Instructions\n\n" + testText},
		{"markers inside a fence are an example, not the block", "```\n<!-- nowhook:begin t v1 -->\nexample\n<!-- nowhook:end t -->\n```\n", "```\n<!-- nowhook:begin t v1 -->\nexample\n<!-- nowhook:end t -->\n```\n\n## Compact Instructions\n\n" + testText},
		{"older version replaced in place", "a\n<!-- nowhook:begin t v1 -->\nold\n<!-- nowhook:end t -->\nb\n", "a\n" + testText + "b\n"},
		{"older version at the very end without a final newline", "a\n<!-- nowhook:begin t v1 -->\nold\n<!-- nowhook:end t -->", "a\n" + strings.TrimSuffix(testText, "\n")},
		{"older version in a CRLF file", "a\r\n<!-- nowhook:begin t v1 -->\r\nold\r\n<!-- nowhook:end t -->\r\nb\r\n", "a\r\n" + crlf + "b\r\n"},
		{"older version with the current body", "<!-- nowhook:begin t v1 -->\nbody line\n<!-- nowhook:end t -->\n", testText},
		{"current version with an older release's body is brought up to date", "a\n<!-- nowhook:begin t v2 -->\nold\n<!-- nowhook:end t -->\nb\n", "a\n" + testText + "b\n"},
		{"current version with an older release's body at the very end without a final newline", "a\n<!-- nowhook:begin t v2 -->\nold\n<!-- nowhook:end t -->", "a\n" + strings.TrimSuffix(testText, "\n")},
		{"current in a CRLF file", "a\r\n" + crlf, "a\r\n" + crlf},
		{"current with LF in a file with some CRLF lines is left as it is", "a\r\n" + testText, "a\r\n" + testText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := MergeBlock("X.md", []byte(c.in), testBlock)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got:\n%q\nwant:\n%q", out, c.want)
			}
			again, err := MergeBlock("X.md", out, testBlock)
			if err != nil || string(again) != string(out) {
				t.Errorf("second merge changed the file: %q", again)
			}
			if forced, err := ReplaceBlock("X.md", []byte(c.in), testBlock); err != nil || string(forced) != c.want {
				t.Errorf("ReplaceBlock = %q, %v; want what MergeBlock gives", forced, err)
			}
		})
	}
}

// TestRemoveBlock checks that RemoveBlock undoes what MergeBlock added,
// byte for byte.
func TestRemoveBlock(t *testing.T) {
	for _, in := range []string{"", "# A\ntext", "# A\r\n", "keep\n", "### compact instructions ###\nkeep x\n", "Compact Instructions\n====\nkeep\n"} {
		out, err := MergeBlock("X.md", []byte(in), testBlock)
		if err != nil {
			t.Fatal(err)
		}
		back, removed, empty, err := RemoveBlock("X.md", out, testBlock)
		if err != nil || !removed || string(back) != in || empty != (in == "") {
			t.Errorf("RemoveBlock(MergeBlock(%q)) = %q, removed %v, empty %v, %v", in, back, removed, empty, err)
		}
	}
}

// TestEditedBlock checks that a block whose text nowhook never wrote, in
// any version up to ours and with any line endings, is found and kept by
// MergeBlock and RemoveBlock, and replaced only by ReplaceBlock.
func TestEditedBlock(t *testing.T) {
	released(t, "old\n")
	for _, c := range []struct{ name, in, replaced string }{
		{"current version, a line added", "# A\n\n<!-- nowhook:begin t v2 -->\nbody line\nmine\n<!-- nowhook:end t -->\nafter\n", "# A\n\n" + testText + "after\n"},
		{"current version, a line changed", "# A\n\n<!-- nowhook:begin t v2 -->\nbody line!\n<!-- nowhook:end t -->\n", "# A\n\n" + testText},
		{"current version, emptied", "# A\n\n<!-- nowhook:begin t v2 -->\n<!-- nowhook:end t -->\n", "# A\n\n" + testText},
		{"older version, a line added", "# A\n\n<!-- nowhook:begin t v1 -->\nold\nmine\n<!-- nowhook:end t -->", "# A\n\n" + strings.TrimSuffix(testText, "\n")},
		{"CRLF, a line added", "# A\r\n\r\n<!-- nowhook:begin t v2 -->\r\nbody line\r\nmine\r\n<!-- nowhook:end t -->\r\n", "# A\r\n\r\n" + strings.ReplaceAll(testText, "\n", "\r\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var edited *EditedError
			_, err := MergeBlock("X.md", []byte(c.in), testBlock)
			if !errors.As(err, &edited) || edited.Line != 3 || edited.Path != "X.md" || edited.Name != "t" {
				t.Errorf("MergeBlock: %v, want an EditedError at X.md line 3", err)
			}
			if _, _, _, err := RemoveBlock("X.md", []byte(c.in), testBlock); !errors.As(err, &edited) || edited.Line != 3 {
				t.Errorf("RemoveBlock: %v, want an EditedError at line 3", err)
			}
			out, err := ReplaceBlock("X.md", []byte(c.in), testBlock)
			if err != nil || string(out) != c.replaced {
				t.Errorf("ReplaceBlock = %q, %v; want %q", out, err, c.replaced)
			}
		})
	}
}

func TestNewerBlock(t *testing.T) {
	in := []byte("<!-- nowhook:begin t v3 -->\nfrom the future\n<!-- nowhook:end t -->\n")
	var newer *NewerError
	if _, err := MergeBlock("X.md", in, testBlock); !errors.As(err, &newer) || newer.Found != 3 || newer.Ours != 2 {
		t.Errorf("MergeBlock: %v, want a NewerError", err)
	}
	if _, err := ReplaceBlock("X.md", in, testBlock); !errors.As(err, &newer) {
		t.Errorf("ReplaceBlock: %v, want a NewerError", err)
	}
	if _, _, _, err := RemoveBlock("X.md", in, testBlock); !errors.As(err, &newer) {
		t.Errorf("RemoveBlock: %v, want a NewerError", err)
	}
}

func TestWrote(t *testing.T) {
	released(t, "old\n")
	for body, want := range map[string]bool{"body line\n": true, "old\n": true, "old\nmine\n": false, "": false, "body line": false} {
		if got := testBlock.Wrote(body); got != want {
			t.Errorf("Wrote(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestLineEnding(t *testing.T) {
	for in, want := range map[string]string{"": "\n", "a": "\n", "a\nb\n": "\n", "a\r\n": "\r\n", "a\nb\r\nc\n": "\r\n", "a\rb\r": "\n"} {
		if got := lineEnding([]byte(in)); got != want {
			t.Errorf("lineEnding(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFindBlockBody checks that the body FindBlock gives has LF line
// endings whatever the file's, so that a CRLF file's block is not taken
// for an edited one.
func TestFindBlockBody(t *testing.T) {
	for _, in := range []string{
		"x\n" + testText,
		"x\r\n" + strings.ReplaceAll(testText, "\n", "\r\n"),
		"\ufeffx\r\n<!-- nowhook:begin t v2 -->\r\nbody line\n<!-- nowhook:end t -->",
	} {
		span, found, err := FindBlock([]byte(in), "t")
		if err != nil || !found || span.Body != "body line\n" || span.Line != 2 || span.Version != 2 {
			t.Errorf("FindBlock(%q) = %+v, %v, %v", in, span, found, err)
		}
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
