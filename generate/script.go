package generate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Files nowhook owns whole carry a signature line right after their first
// line (a script's "#!" line): the template version and a hash of every
// other line, written as a comment of the file's language ("#" or "//").
// A body that no longer matches its hash was changed by someone; a file
// without the line belongs to whoever removed it.

var signatureRE = regexp.MustCompile(`^(#|//) nowhook template v(\d+) sha256:([0-9a-f]{16}) `)

const signatureNote = "(generated: do not edit; delete this line to take the file over)"

// Script returns the script for body, a template whose first line is
// its "#!" line, with our signature line inserted after it.
func Script(body string, version int) []byte { return Signed(body, version, "#") }

// Signed returns body with our signature line, a comment that starts with
// comment ("#" or "//"), inserted after its first line.
func Signed(body string, version int, comment string) []byte {
	first, rest, _ := strings.Cut(body, "\n")
	return []byte(first + "\n" + signatureLine(comment, version, first+"\n"+rest) + "\n" + rest)
}

func signatureLine(comment string, version int, body string) string {
	sum := sha256.Sum256([]byte(body))
	return fmt.Sprintf("%s nowhook template v%d sha256:%s %s", comment, version, hex.EncodeToString(sum[:8]), signatureNote)
}

// ScriptState is what an existing script at one of our paths is.
type ScriptState int

const (
	ScriptAbsent     ScriptState = iota
	ScriptOurs                   // signed by us and unchanged since
	ScriptModified               // signed by us, but the body changed
	ScriptForeign                // no signature, and not a Kanbus compaction wrapper: the user's
	ScriptKanbus                 // Kanbus's documented example wrapper, copied byte for byte
	ScriptKanbusLike             // a Kanbus compaction wrapper (runs kbs now --json --list) that differs from every known copy
)

// InspectScript tells whose current is; for ours, the template version.
func InspectScript(current []byte) (ScriptState, int) {
	if len(current) == 0 {
		return ScriptAbsent, 0
	}
	first, rest, _ := bytes.Cut(current, []byte("\n"))
	sig, body, _ := bytes.Cut(rest, []byte("\n"))
	m := signatureRE.FindSubmatch(sig)
	if m == nil {
		sum := sha256.Sum256(current)
		switch {
		case KnownKanbusCopies[hex.EncodeToString(sum[:])]:
			return ScriptKanbus, 0
		case isKanbusWrapper(current):
			return ScriptKanbusLike, 0
		}
		return ScriptForeign, 0
	}
	version, _ := strconv.Atoi(string(m[2]))
	whole := string(first) + "\n" + string(body)
	if signatureLine(string(m[1]), version, whole) != string(bytes.TrimRight(sig, "\r")) {
		return ScriptModified, version
	}
	return ScriptOurs, version
}

// KnownKanbusCopies are the sha256 sums of the wrapper scripts Kanbus's
// documentation has told people to copy to
// .claude/hooks/kanbus-compaction-right-now.sh (AnthusAI/Kanbus, the Claude
// Code example beside its compaction guide). A byte-identical copy is
// upgraded in place: nothing of the user's is in it.
var KnownKanbusCopies = map[string]bool{
	"a15a668ccbf0f6fb9abb1fa7e8ac38d8a3d287d8ec07892beb315702230af548": true,
}

// kanbusWrapperRE finds a script that runs `kbs now --json --list` (or
// kanbus's), or reads Kanbus's wrapper timeout variable.
var kanbusWrapperRE = regexp.MustCompile(`(?m)^[^#\n]*((kbs|kanbus|KBS["}]*)["']?\s+now\s+--json\s+--list|KANBUS_COMPACTION_HOOK_TIMEOUT_SECONDS)`)

// isKanbusWrapper recognises a hand-made Kanbus compaction wrapper.
func isKanbusWrapper(b []byte) bool {
	return kanbusWrapperRE.Match(b)
}
