package install

import (
	"time"
)

// Options is what setup does; its flags and the wizard both fill it.
type Options struct {
	// Scope is where it works (--scope): Project, User, Managed.
	Scope *Scope
	// Root is --root: the managed scope's tree under this folder, not /.
	Root string
	// Print is --print: show each file setup would write, whole, and
	// write nothing.
	Print      bool
	Dir        string
	Yes        bool
	DryRun     bool
	FullDiff   bool   // --diff: the dry run prints scripts in full too
	Check      bool   // --check: list what setup would change, write nothing
	Fix        string // with Check: the setup command that makes it so
	Force      bool
	Trust      bool // --trust-codex: run the agents' trust steps
	Accessible bool
	Agents     string // the --agents list; empty: the detected agents
	AgentsSet  bool   // --agents was given
	// Checkpoint is --checkpoint; CheckpointSet says it was given (without
	// it, each agent keeps the checkpoint it has). CheckpointAt is
	// --checkpoint-at (0: what is installed, else the default).
	Checkpoint, CheckpointSet bool
	CheckpointAt              int
	Budget                    time.Duration
	Outside                   bool   // --follow-outside-links
	Command                   string // the command line, as the writer lock names its holder
	// Sources are the reminder's sources (--sources, in printing order);
	// SourcesSet says the flag was given (without it, the sources the
	// installed wrappers name stay, else the default).
	Sources    string
	SourcesSet bool

	wizard bool  // the wizard chose the agents and modes
	ask    asker // asks the wizard's and the review's questions
}

// RemoveOptions is what remove does.
type RemoveOptions struct {
	Scope      *Scope
	Root       string // --root, as for setup
	Dir        string
	Agents     string
	Yes        bool
	DryRun     bool
	Accessible bool
	Outside    bool   // --follow-outside-links
	Command    string // the command line, as the writer lock names its holder
}
