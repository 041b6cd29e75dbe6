package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// Severity is how bad a finding is; the worst one decides the exit status.
type Severity = diag.Severity

// Severities, from good to bad.
const (
	OK    = diag.OK
	Info  = diag.Info
	Warn  = diag.Warn
	Error = diag.Error
)

// Finding is one row of doctor's table (diag.Finding).
type Finding = diag.Finding

// WriteTable prints findings as one table, RESULT CHECK MESSAGE, with the
// fix under each finding that has one.
func WriteTable(w io.Writer, findings []Finding) error {
	width := len("CHECK")
	for _, f := range findings {
		width = max(width, len(f.Check))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s  %-*s  %s\n", "RESULT", width, "CHECK", "MESSAGE")
	indent := strings.Repeat(" ", 6+2+width+2)
	for _, f := range findings {
		fmt.Fprintf(&b, "%-6s  %-*s  %s\n", f.Severity, width, f.Check, oneLine(f.Message))
		if f.Fix != "" {
			fmt.Fprintf(&b, "%sfix: %s\n", indent, oneLine(f.Fix))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints findings as a JSON array of {check, agent, severity,
// message, fix, path}, with messages as the table shows them.
func WriteJSON(w io.Writer, findings []Finding) error {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		f.Message, f.Fix = oneLine(f.Message), oneLine(f.Fix)
		out[i] = f
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// oneLine keeps a row on one line whatever a file or a program printed.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)), " ")
}
