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
	// Check names the check, e.g. "claude.hook"; the prefix is the agent or
	// the area ("kanbus", "live", "runtime", "agents-md").
	Check string `json:"check"`
	// Agent is the platform's name ("claude", "codex", ...), or "" for
	// checks that concern every agent.
	Agent    string   `json:"agent"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Fix is the exact command (or, where there is none, the edit) that
	// fixes the problem; "" when nothing needs doing.
	Fix string `json:"fix"`
	// Path is the file the finding is about: relative to the repository
	// root for files inside it, absolute otherwise; "" for none.
	Path string `json:"path"`
}

// Worst returns the highest severity among findings (OK for none).
func Worst(findings []Finding) Severity {
	worst := OK
	for _, f := range findings {
		if f.Severity > worst {
			worst = f.Severity
		}
	}
	return worst
}

// WriteTable prints findings as one table, RESULT CHECK MESSAGE, with the
// fix under each finding that has one. home, when not empty, is shown as ~.
func WriteTable(w io.Writer, findings []Finding, home string) error {
	width := len("CHECK")
	for _, f := range findings {
		width = max(width, len(f.Check))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s  %-*s  %s\n", "RESULT", width, "CHECK", "MESSAGE")
	indent := strings.Repeat(" ", 6+2+width+2)
	for _, f := range findings {
		fmt.Fprintf(&b, "%-6s  %-*s  %s\n", f.Severity, width, f.Check, tilde(oneLine(f.Message), home))
		if f.Fix != "" {
			fmt.Fprintf(&b, "%sfix: %s\n", indent, tilde(oneLine(f.Fix), home))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints findings as a JSON array of {check, agent, severity,
// message, fix, path}, with messages as the table shows them.
func WriteJSON(w io.Writer, findings []Finding, home string) error {
	out := make([]Finding, len(findings))
	for i, f := range findings {
		f.Message = tilde(oneLine(f.Message), home)
		f.Fix = tilde(oneLine(f.Fix), home)
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

// tilde shows home as ~ wherever it starts a path.
func tilde(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	home = strings.TrimRight(home, "/")
	var b strings.Builder
	for {
		i := strings.Index(s, home)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(home)
		startsPath := i == 0 || strings.ContainsRune(" \t'\"=(:,[", rune(s[i-1]))
		endsPath := end == len(s) || s[end] == '/' || strings.ContainsRune(" \t'\")):,;]", rune(s[end]))
		b.WriteString(s[:i])
		if startsPath && endsPath {
			b.WriteString("~")
		} else {
			b.WriteString(home)
		}
		s = s[end:]
	}
}
