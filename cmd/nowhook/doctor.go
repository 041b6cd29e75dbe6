package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/detect"
)

// doctorUsage is doctor's help, written whole; a usage error repeats it.
const doctorUsage = `Usage: nowhook doctor [--dir DIR] [--json] [--live] [--prove] [--scope user]

Checks the repository's hook configuration for every agent that is set up
or detected, the way each agent reads it, then runs each installed hook
with a compact SessionStart payload (with your kbs, a failing one and a
hanging one), and the checkpoint's (setup --checkpoint) on a synthetic
transcript above and below its threshold, with a fake kbs. It names each
agent's installed client version beside the versions nowhook's
real-client tests passed on. It prints one table, RESULT CHECK MESSAGE,
with the command that fixes each problem, and changes no file. (It runs
kbs now --json --list as the hook does; a Kanbus with AI configured may
then refresh its right-now summaries, as it does after every compaction.
With --live and codex on PATH, it asks codex app-server for the hooks'
trust, and codex keeps its usual state in CODEX_HOME; without --live it
reads the trust from Codex's config.toml.)

Without --live it answers within about a second: it runs only nowhook's
own wrappers, under a short probe budget (the hook runtime takes it from
NOWHOOK_PROBE_BUDGET, which only doctor sets and which can only shorten
the budget), while the file checks prove that each wrapper is nowhook's,
unchanged, with its own budget; and it waits for kbs no longer than that.

Exit status: 0 when no check found an error, 1 when one did, 2 for usage.

Flags:
  --dir DIR   the repository (default: the git top level of the working directory, else the working directory)
  --json      print the findings as a JSON array of {check, agent, severity, message, fix, path},
              with "client" on the client rows and "proven" on the nowhook row
  --live      the full live runs: each installed hook, scripts of your own too, with the
              wrapper's own budget, and kbs given the whole budget (up to the budget plus 2s)
  --scope S   project (the default): the repository, and whether sessions started in its
              sub-folders get the reminder; user: the hook setup --scope user installed in
              your own agent settings (its file, its wrapper, and live runs with a fake kbs)
` + proveUsage

// doctorOptions is what doctor checks and how it reports.
type doctorOptions struct {
	dir    string
	asJSON bool
	live   bool
	scope  string
	prove  bool
}

func doctorCmd(args []string, io stdio) (err error) {
	var o doctorOptions
	fs := flag.NewFlagSet("nowhook doctor", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "")
	fs.BoolVar(&o.asJSON, "json", false, "")
	fs.BoolVar(&o.live, "live", false, "")
	fs.StringVar(&o.scope, "scope", scopeProject, "")
	fs.BoolVar(&o.prove, "prove", false, "")
	if done, err := parseFlags(fs, args, help{whole: doctorUsage}, io); done || err != nil {
		return err
	}
	ctx := context.Background()
	if o.prove {
		var stopped func() error
		ctx, stopped = proofContext(ctx)
		defer func() { err = errors.Join(err, stopped()) }()
	}
	switch {
	case o.scope != scopeProject && o.scope != scopeUser:
		return help{whole: doctorUsage}.usageError(fmt.Errorf("--scope %q: the scopes are project (the repository, the default) and user (your own agent settings)", o.scope), fs.Name())
	case o.scope == scopeUser && o.dir != "":
		return &cmdError{err: errors.New("--dir names a repository, and --scope user checks your own agent settings outside any repository; drop --dir"), status: exitUsage}
	case o.scope == scopeUser:
		r := doctor.RunUser(ctx, doctor.Options{Env: os.Environ(), Live: o.live, Version: versionString()})
		if o.prove {
			r = withProof(ctx, r, "", true)
		}
		return report(r, o.asJSON, io)
	}
	root, err := detect.Root(".")
	if o.dir != "" {
		root, err = detect.Dir(o.dir)
	}
	if err != nil {
		return &cmdError{err: fmt.Errorf("--dir: %w", err), status: exitUsage}
	}
	wd, _ := os.Getwd()
	r := doctor.Run(ctx, doctor.Options{Root: root, Dir: o.dir, Env: os.Environ(), From: wd, Live: o.live, Version: versionString()})
	if o.prove {
		r = withProof(ctx, r, root, false)
	}
	return report(r, o.asJSON, io)
}

// report prints the report as a table or JSON; an error-level finding
// is exit 1, with nothing more said.
func report(r doctor.Report, asJSON bool, io stdio) error {
	write := doctor.WriteTable
	if asJSON {
		write = doctor.WriteJSON
	}
	if err := write(io.out, r.Findings); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if r.Failed() {
		return errSilent{exitFailed}
	}
	return nil
}
