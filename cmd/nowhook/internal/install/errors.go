package install

import (
	"errors"
	"fmt"
	"io"
)

// Errors travel as values: every error of Setup and Remove is one of the
// kinds below, or a plain error (a failure after which its message says
// what was written); package main's one exit mapping prints it once and
// turns it into the exit status.

// Exit statuses shared by the commands (README, "Commands").
const (
	ExitOK      = 0
	ExitFailed  = 1
	ExitUsage   = 2
	ExitAborted = 130
)

// IO is a command's standard streams; tests pass their own.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Error is an error with the exit status it means.
type Error struct {
	Err    error
	Status int
	// Untouched: nothing was written, and the user is told so.
	Untouched bool
	// Bare: the message is printed after "nowhook:" alone, without the
	// command's name.
	Bare bool
	// Then is said below the message: what still holds after a failure
	// ("The hook files were written; only the trust step failed.").
	Then string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageError is a bad flag or argument, or a request nowhook refuses (a
// mode the platform lacks, a file it will not edit): exit 2, nothing
// written.
func UsageError(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Status: ExitUsage, Untouched: true}
}

// Refused wraps err as a refusal: exit 2, nothing written.
func Refused(err error) error {
	return &Error{Err: err, Status: ExitUsage, Untouched: true}
}

// FailedUntouched is a failure before anything was written: exit 1.
func FailedUntouched(err error) error {
	return &Error{Err: err, Status: ExitFailed, Untouched: true}
}

// FailedAfterWrite is a failure once the files were written: exit 1,
// and then says what holds.
func FailedAfterWrite(err error, then string) error {
	return &Error{Err: err, Status: ExitFailed, Then: then}
}

// ErrAborted is the user's Ctrl-C or Esc in the wizard: exit 130.
var ErrAborted = &Error{Err: errors.New("aborted"), Status: ExitAborted, Untouched: true}

// ErrNoTerminal is setup without --yes where it cannot ask: in the words
// README's "Commands" section quotes, which name no command after
// "nowhook:", then its promise for exit 2.
var ErrNoTerminal = &Error{Err: errors.New("setup needs a terminal to ask questions; pass --yes to accept the detected defaults"), Status: ExitUsage, Untouched: true, Bare: true}

// Silent ends a command with a status and no message: what it printed
// already says why (doctor's table, setup --check's list).
type Silent struct{ Status int }

func (e Silent) Error() string { return fmt.Sprintf("exit status %d", e.Status) }
