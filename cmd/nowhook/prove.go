package main

import (
	"context"
	"os"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/prove"
)

// proveUsage is the --prove line of doctor's help.
const proveUsage = `  --prove     also run each re-inject agent's installed client (claude, codex, qwen,
              opencode) headless in a throw-away copy of the repository (with --scope
              user: of your agent settings), with a temporary HOME and a model server
              on 127.0.0.1, force a compaction, and report whether the reminder
              reached the model (a stand-in kbs prints a fixed payload; at most 30 s
              per client, or NOWHOOK_PROVE_LIMIT (a Go duration); nothing in the
              repository is written)
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
