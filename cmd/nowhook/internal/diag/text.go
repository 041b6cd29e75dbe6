package diag

import (
	"bytes"
	"errors"
	"fmt"
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

// ReadProblem says, for a row, why the file shown as show could not be
// read (err, from ReadBounded), and the fix: a file too large to check
// is not an unreadable one, and a special file is neither. agent is the
// agent that loads hooks from it ("Claude Code").
func ReadProblem(show string, err error, agent string) (msg, fix string) {
	var tl *osutil.TooLargeError
	var nr *osutil.NotRegularError
	switch {
	case errors.As(err, &tl):
		return fmt.Sprintf("%s %v, so nowhook checks nothing in it (and setup edits nothing in it)", show, err),
			"shrink " + show + " below " + osutil.Bytes(tl.Limit) + " (an agent's settings file is a few KiB)"
	case errors.As(err, &nr):
		return fmt.Sprintf("%s %v, so nowhook does not read it (a named pipe would block the read) and setup edits nothing in it", show, err),
			"replace " + show + " with a regular file"
	}
	return fmt.Sprintf("%s cannot be read (%v), so %s loads no hooks from it", show, err, agent), "make " + show + " a readable file"
}
