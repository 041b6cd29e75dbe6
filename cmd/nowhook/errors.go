package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Errors travel as values; exit turns one into its message, its exit
// status and, where nothing was written, the sentence that says so.

// cmdError is an error with the exit status it means.
type cmdError struct {
	err    error
	status int
	// untouched: nothing was written, and the user is told so.
	untouched bool
}

func (e *cmdError) Error() string { return e.err.Error() }
func (e *cmdError) Unwrap() error { return e.err }

// usageError is a bad flag or argument, or a request nowhook refuses (a
// mode the platform lacks, a file it will not edit): exit 2, nothing
// written.
func usageError(format string, args ...any) error {
	return &cmdError{err: fmt.Errorf(format, args...), status: exitUsage, untouched: true}
}

// refused wraps err as a refusal: exit 2, nothing written.
func refused(err error) error {
	return &cmdError{err: err, status: exitUsage, untouched: true}
}

// failedUntouched is a failure before anything was written: exit 1.
func failedUntouched(err error) error {
	return &cmdError{err: err, status: exitFailed, untouched: true}
}

// errAborted is the user's Ctrl-C or Esc in the wizard: exit 130.
var errAborted = &cmdError{err: errors.New("aborted"), status: exitAborted, untouched: true}

// errSilent ends a command whose message was already printed.
type errSilent struct{ status int }

func (e errSilent) Error() string { return fmt.Sprintf("exit status %d", e.status) }

// exit prints err once, as "nowhook COMMAND: message", and returns the
// exit status it means. A plain error is a failure (exit 1) after which
// the message itself says what was written.
func exit(command string, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var silent errSilent
	if errors.As(err, &silent) {
		return silent.status
	}
	var ce *cmdError
	if errors.As(err, &ce) {
		msg := ce.err.Error()
		if ce.untouched {
			if ce.status == exitAborted {
				msg += "; nothing was written."
			} else {
				msg += "\nNothing was written."
			}
		}
		fmt.Fprintf(stderr, "nowhook %s: %s\n", command, msg)
		return ce.status
	}
	fmt.Fprintf(stderr, "nowhook %s: %v\n", command, err)
	return exitFailed
}

// parseFlags parses a command's flags. --help prints about and the flags
// to stdout (done); a bad flag or an argument that is not a flag is a
// usage error of one line that points at --help.
func parseFlags(fs *flag.FlagSet, args []string, about string, std stdio) (done bool, err error) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, about)
			printFlags(std.out, fs)
			return true, nil
		}
		return true, usageError("%s (%s --help lists the flags)", dashDash(err.Error()), fs.Name())
	}
	if fs.NArg() > 0 {
		return true, usageError("unexpected argument %q", fs.Arg(0))
	}
	return false, nil
}

// dashDash writes the flag package's "-name" as the "--name" the README
// and the help use.
func dashDash(msg string) string {
	for _, prefix := range []string{"flag: -", "flag -", "defined: -"} {
		msg = strings.Replace(msg, prefix, prefix+"-", 1)
	}
	return msg
}

// printFlags prints the flags as flag.PrintDefaults does, but each with
// two dashes, as they are written everywhere else.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if def := f.DefValue; def != "" && def != "false" && def != "0" {
			if name == "string" {
				def = fmt.Sprintf("%q", def)
			}
			line += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, line)
	})
}
