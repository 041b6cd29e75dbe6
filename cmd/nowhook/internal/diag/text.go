package diag

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/generate"
)

// MaxRead bounds every file doctor reads.
const MaxRead = 8 << 20

// ReadBounded reads a file of at most MaxRead bytes.
func ReadBounded(path string) ([]byte, error) { return osutil.ReadBounded(path, MaxRead) }

// FileErrorText splits a FileError into a row's message and its fix.
func FileErrorText(e *generate.FileError) (msg, fix string) {
	c := *e
	c.Fix = ""
	return c.Error(), strings.TrimSuffix(e.Fix, ", then run nowhook setup again")
}

// Plural is "1 what" or "n whats".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// ShellQuote quotes s for a fix command a user pastes into a shell.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var budgetRE = regexp.MustCompile(`nowhook[ -]reminder --timeout (\S+)`)

// ScriptBudget is the time the wrapper script at path gives kbs (its
// --timeout), when it states one.
func ScriptBudget(path string) (time.Duration, bool) {
	b, err := ReadBounded(path)
	if err != nil {
		return 0, false
	}
	m := budgetRE.FindSubmatch(b)
	if m == nil {
		return 0, false
	}
	t, err := time.ParseDuration(string(m[1]))
	if err != nil || t <= 0 {
		return 0, false
	}
	return t, true
}

// versionRE finds a version in a client's `--version` output: numbers
// joined by dots ("2.1.332 (Claude Code)", "codex-cli 0.171.0"), perhaps
// with a pre-release suffix.
var versionRE = regexp.MustCompile(`(?:^|[^0-9.])(\d+(?:\.\d+)+(?:-[0-9A-Za-z][0-9A-Za-z.]*)?)`)

// ClientVersion is the first version in a client's `--version` output,
// "" for none: what doctor's client rows and doctor --prove's rows name.
func ClientVersion(out []byte) string {
	if m := versionRE.FindSubmatch(bytes.TrimSpace(out)); m != nil {
		return string(m[1])
	}
	return ""
}
