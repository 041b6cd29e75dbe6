package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
)

// Errors travel as values (install.Error, install.Silent); exit turns
// one into its message, its exit status and, where nothing was written,
// the sentence that says so.

// exit prints err once, as "nowhook COMMAND: message", and returns the
// exit status it means. A plain error is a failure (exit 1) after which
// the message itself says what was written. Failures joined by
// errors.Join are said each on its own; the worst status wins.
func exit(command string, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		status := exitOK
		for _, e := range joined.Unwrap() {
			status = max(status, exit(command, e, stderr))
		}
		return status
	}
	var silent install.Silent
	if errors.As(err, &silent) {
		return silent.Status
	}
	var ce *install.Error
	if errors.As(err, &ce) {
		msg := ce.Err.Error()
		if ce.Untouched {
			if ce.Status == exitAborted {
				msg += "; nothing was written."
			} else {
				msg += "\nNothing was written."
			}
		}
		if ce.Then != "" {
			msg += "\n" + ce.Then
		}
		if ce.Bare {
			command = ""
		}
		fmt.Fprintf(stderr, "%s: %s\n", strings.TrimSpace("nowhook "+command), msg)
		return ce.Status
	}
	fmt.Fprintf(stderr, "nowhook %s: %v\n", command, err)
	return exitFailed
}

// help is a command's --help: about, then its flags as printFlags writes
// them; or, for a command that writes its help whole (doctor), whole.
type help struct{ about, whole string }

// usageError is a bad flag or argument (err): exit 2, one line, which
// names pointTo's --help when set, and "Nothing was written." except for
// a command whose help is written whole (doctor's), which never writes.
func (h help) usageError(err error, pointTo string) error {
	switch {
	case h.whole != "" && pointTo != "":
		return &install.Error{Err: fmt.Errorf("%s (%s --help lists the flags)", dashDash(err.Error()), pointTo), Status: exitUsage}
	case h.whole != "":
		return &install.Error{Err: err, Status: exitUsage}
	case pointTo != "":
		return install.UsageError("%s (%s --help lists the flags)", dashDash(err.Error()), pointTo)
	}
	return install.UsageError("%v", err)
}

// parseFlags parses a command's flags. --help prints the help to stdout
// (done); a bad flag or an argument that is not a flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, h help, std stdio) (done bool, err error) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			return true, h.usageError(err, fs.Name())
		}
		if h.whole != "" {
			fmt.Fprint(std.out, h.whole)
		} else {
			fmt.Fprint(std.out, h.about)
			printFlags(std.out, fs)
		}
		return true, nil
	}
	if fs.NArg() > 0 {
		return true, h.usageError(fmt.Errorf("unexpected argument %q", fs.Arg(0)), "")
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
