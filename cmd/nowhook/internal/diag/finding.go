// Package diag is the vocabulary doctor's checks are written in, shared by
// doctor's runner (package doctor) and the checks that live beside their
// agent in the agent table (package agent, Agent.Doctor.Quirks): a
// Finding and its Severity, and an agent's hook files read the way the
// agent reads them (HookFile, Handler). It knows no agent.
package diag

import (
	"encoding/json"
	"fmt"
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
	// From is the folder a session starts in that the row judges,
	// relative to the repository root and slash-separated, "." for the
	// root: a row of a start folder other than the root is about sessions
	// started there (doctor judges every plausible one); "." is about the
	// root, and, where a check has no row of its own for a folder, about
	// that folder too. The runner sets "." where a check left it empty.
	From string `json:"from"`
	// Client is what a client row found (doctor's "<agent>.client"), for
	// a bug report: nil on every other row.
	Client *Client `json:"client,omitempty"`
	// Proven is what nowhook was proven on, on the nowhook row alone (a
	// pointer, so that findings stay comparable).
	Proven *Proven `json:"proven,omitempty"`
}

// Proven maps each agent whose client nowhook's real-client tests run to
// the versions they passed on (scripts/pins.tsv).
type Proven map[string][]string

// Client is an agent's installed client beside the versions nowhook's
// real-client tests passed on (scripts/pins.tsv).
type Client struct {
	Command string `json:"command"`
	// Path is where Command is on PATH; "" when it is not.
	Path string `json:"path,omitempty"`
	// Installed is the version Command --version printed; "" when none.
	Installed string   `json:"installed,omitempty"`
	Proven    []string `json:"proven"`
}
