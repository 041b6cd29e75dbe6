package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/prove"
)

// proveUsage is the --prove line of doctor's help.
const proveUsage = `  --prove     also run each re-inject agent's installed client (claude, codex, qwen,
              opencode) headless in a throw-away copy of the repository (with --scope
              user: of your agent settings), with a temporary HOME and a model server
              on 127.0.0.1, force a compaction, and report whether the reminder
              reached the model (a stand-in kbs prints a fixed payload; at most 30 s
              per client, or NOWHOOK_PROVE_LIMIT (a Go duration); on Linux as root,
              in a network namespace with loopback only; nothing in the repository
              is written; SIGINT, SIGTERM or SIGHUP ends the clients and removes the
              copies before nowhook exits)
`

// withProof adds doctor --prove's rows to r: one per re-inject agent set
// up in root (in the user's settings with user), proven with the client
// on PATH.
func withProof(ctx context.Context, r doctor.Report, root string, user bool) doctor.Report {
	self, _ := os.Executable()
	for _, f := range prove.Run(ctx, prove.Options{Root: root, User: user, Env: os.Environ(), Self: self}) {
		r.Findings = append(r.Findings, f)
		r.Worst = max(r.Worst, f.Severity)
	}
	return r
}

// proofSignals end doctor --prove's context instead of the process.
var proofSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// proofContext is doctor --prove's context: SIGINT, SIGTERM and SIGHUP
// cancel it (with prove.Stopped as the cause) instead of ending nowhook
// at once, so that the clients prove started are ended and its
// throw-away copies removed, as at the end of every run; a signal after
// the first is ignored while that is done (it is bounded). stopped, once
// the report is out, puts the signals back and returns the error that
// exits 128+n when a signal came, nil otherwise.
func proofContext(parent context.Context) (ctx context.Context, stopped func() error) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, len(proofSignals))
	signal.Notify(sigs, proofSignals...)
	done := make(chan struct{})
	var got os.Signal
	go func() {
		defer close(done)
		for s := range sigs {
			if got == nil {
				got = s
				cancel(prove.Stopped{Signal: s})
			}
		}
	}()
	return ctx, func() error {
		signal.Stop(sigs)
		close(sigs)
		<-done
		cancel(nil)
		if got == nil {
			return nil
		}
		n := 1
		if s, ok := got.(syscall.Signal); ok {
			n = int(s)
		}
		return &install.Error{Err: errors.New(fmt.Sprint(prove.Stopped{Signal: got}) + ": the clients it started were ended and their throw-away copies removed"), Status: 128 + n}
	}
}
