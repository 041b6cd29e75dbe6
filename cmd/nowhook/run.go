package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/internal/version"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
)

// stdio is the command's standard streams; tests pass their own.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// install returns the streams as the install package takes them.
func (s stdio) install() install.IO { return install.IO{In: s.in, Out: s.out, Err: s.err} }

// Exit statuses shared by the commands (README, "Commands").
const (
	exitOK      = install.ExitOK
	exitFailed  = install.ExitFailed
	exitUsage   = install.ExitUsage
	exitAborted = install.ExitAborted
)

const usage = `nowhook keeps a team's Kanbus work-in-progress in the agent's context after compaction.

Usage:
  nowhook setup [--yes] [--agents LIST] [--dir DIR] [--dry-run [--diff]] [--timeout DURATION] [--checkpoint] [--checkpoint-at PERCENT] [--trust-codex] [--force]
  nowhook setup --scope user --agents LIST [--yes] [--dry-run [--diff]] [--timeout DURATION] [--force]
  nowhook setup --scope managed --agents LIST [--root DIR] [--yes] [--dry-run [--diff] | --print] [--timeout DURATION] [--force]
  nowhook remove [--yes] [--agents LIST] [--dir DIR] [--dry-run] [--scope user | --scope managed [--root DIR]]
  nowhook doctor [--dir DIR] [--json] [--live] [--prove] [--scope user | --scope managed] [--root DIR]
  nowhook reminder [--timeout DURATION] [--checkpoint [--at PERCENT] | --hint]
  nowhook version

Run 'nowhook COMMAND --help' for a command's flags.
`

// run is the whole program; it returns the exit status and never exits.
// A panic anywhere in a command is a bug, never a refusal: it is said as
// one and exits 1 (Go's own exit status for a panic is 2, which nowhook
// keeps for "refused, nothing written").
func run(args []string, io stdio) (status int) {
	defer func() {
		if r := recover(); r != nil {
			if len(args) > 0 && args[0] == "reminder" {
				status = exitOK // the hook never breaks a session
				return
			}
			fmt.Fprintf(io.err, "nowhook: internal error: %v\nThis is a bug in nowhook; please report it with the command you ran and the output of nowhook version.\n%s", r, debug.Stack())
			status = exitFailed
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(io.err, usage)
		return exitUsage
	}
	switch args[0] {
	case "reminder":
		// The hook runtime: first, so nothing else runs on the hot path.
		return reminder.Run(args[1:], io.in, io.out, io.err)
	case "setup":
		return exit("setup", setupCmd(args[1:], io), io.err)
	case "remove":
		return exit("remove", removeCmd(args[1:], io), io.err)
	case "doctor":
		return exit("doctor", doctorCmd(args[1:], io), io.err)
	case "version", "--version", "-version":
		// The second line names the client versions the real-client
		// tests passed on, so that a bug report carries them.
		fmt.Fprintf(io.out, "%s\n%s\n", versionString(), doctor.ProvenLine())
		return exitOK
	case "help", "--help", "-help", "-h":
		fmt.Fprint(io.out, usage)
		return exitOK
	default:
		fmt.Fprintf(io.err, "nowhook: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

// versionString is the first line of `nowhook version`: the version the
// build information or a release stamp gives (cmd/internal/version), the
// commit, the toolchain and the template version setup writes.
func versionString() string {
	return fmt.Sprintf("%s, template v%d", version.Read().String("nowhook"), templateVersion)
}
