package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Severity is how bad a finding is; the worst one decides the exit status.
type Severity int

// Severities, from good to bad.
const (
	OK Severity = iota
	Info
	Warn
	Error
)

var severityNames = [...]string{"ok", "info", "warn", "error"}

func (s Severity) String() string {
	if s < OK || s > Error {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalJSON writes the severity's name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity's name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	for i, n := range severityNames {
		if n == name {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", name)
}

// Finding is one row of doctor's table.
type Finding struct {
	// Check names the row: the agent's name and the check's ("<agent>.hook"),
	// or the name of a check that concerns every agent ("kanbus.query",
	// "runtime"), followed by the agent's name when it reports on one
	// ("live.<agent>"). The runner sets it.
	Check string `json:"check"`
	// Agent is the name of the agent the row is about (as given to
	// --agents), or "" for checks that concern every agent. The runner
	// sets it.
	Agent    string   `json:"agent"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Fix is the exact command (or, where there is none, the edit) that
	// fixes the problem; "" when nothing needs doing.
	Fix string `json:"fix"`
	// Path is the file the finding is about: relative to the repository
	// root for files inside it, absolute otherwise (so that a program
	// reading --json can open it; messages show $HOME as ~); "" for none.
	Path string `json:"path"`
}

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
