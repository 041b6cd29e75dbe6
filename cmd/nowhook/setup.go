package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
	"github.com/nowhook/nowhook/templates"
)

const templateVersion = templates.Version

const (
	minBudget = time.Second
	maxBudget = 30 * time.Second
)

// setupCmd parses setup's flags into install.Options and hands them to
// the pipeline.
func setupCmd(args []string, io stdio) error {
	var o install.Options
	var scope string
	fs := flag.NewFlagSet("nowhook setup", flag.ContinueOnError)
	fs.StringVar(&o.Dir, "dir", "", "the repository (default: the git top level of the working directory)")
	fs.BoolVar(&o.Yes, "yes", false, "accept the detected defaults without asking")
	fs.StringVar(&o.Agents, "agents", "", "comma-separated agent[=mode] list: agents "+strings.Join(agent.Names(), ", ")+"; modes reinject, ondemand, nudge")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print a unified diff of every change (scripts nowhook owns summarised in one line) and write nothing")
	fs.BoolVar(&o.FullDiff, "diff", false, "with --dry-run: print scripts in full too, as a patch git apply takes")
	fs.BoolVar(&o.Check, "check", false, "write nothing, ask nothing, run no program: list each difference from what setup would write as file:line, with the command that fixes them; exit 1 when there is one (with --dry-run, also the diff)")
	o.Budget = agent.DefaultBudget
	fs.Var((*durationFlag)(&o.Budget), "timeout", "the time the hook gives kbs, with its unit (1s to 30s)")
	fs.BoolVar(&o.Trust, "trust-codex", false, "record the trust of our Codex hook in your Codex config, through codex app-server")
	fs.BoolVar(&o.Force, "force", false, "replace scripts at our paths and our Markdown blocks even when they were changed by hand (the old file is kept as FILE.bak)")
	fs.BoolVar(&o.Checkpoint, "checkpoint", false, "also install the checkpoint: near a full context the agent is told once to write its progress into its Kanbus issues (--checkpoint=false takes it away; without the flag each agent keeps what it has)")
	fs.IntVar(&o.CheckpointAt, "checkpoint-at", 0, "the share of the context window, in percent, at which the checkpoint fires (default 85; turns --checkpoint on)")
	fs.BoolVar(&o.Accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	fs.StringVar(&o.Sources, "sources", templates.DefaultSources, "what the reminder brings back after a compaction, comma-separated: "+strings.Join(reminder.SourceNames(), ", ")+" (kanbus: the board's work in progress; rules: your own earlier words in the session; git: branch, HEAD, changed files; samemind: samemind handoff; samemind=note: the handoff, and samemind's pre-compact note in its inbox before each compaction)")
	fs.BoolVar(&o.Outside, "follow-outside-links", false, outsideUsage)
	fs.StringVar(&scope, "scope", install.Project.Name, "project: the repository; user: your own settings of the agents named with --agents ("+strings.Join(install.User.Names(), ", ")+"), read by every session on this machine wherever it starts; managed: the machine's managed layer for the agents named ("+strings.Join(install.Managed.Names(), ", ")+"), read by every user's sessions, which needs root")
	fs.StringVar(&o.Root, "root", "", "with --scope managed: write the managed layer's tree under this folder instead of /, for a package (deb, rpm, MDM, Ansible); the files name the machine's paths")
	fs.BoolVar(&o.Print, "print", false, "write nothing and show each file setup would write, whole, with its path, mode and size")
	const about = "Usage: nowhook setup [flags]\n\nInstalls the Kanbus compaction hook for the repository's agents, and takes\naway what nowhook installed for a mode an agent no longer uses.\n\nFlags:\n"
	if done, err := parseFlags(fs, args, help{about: about}, io); done || err != nil {
		return err
	}
	o.Fix = fixCommand(fs)
	o.Command = commandLine("setup", args)
	if err := setupFlags(fs, &o); err != nil {
		return err
	}
	var err error
	if o.Scope, err = install.LookupScope(scope); err != nil {
		return err
	}
	return install.Setup(o, io.install())
}

// given records in o which flags were given: --agents, --sources,
// --checkpoint (--checkpoint-at turns it on).
func given(fs *flag.FlagSet, o *install.Options) {
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "agents":
			o.AgentsSet = true
		case "sources":
			o.SourcesSet = true
		case "checkpoint":
			o.CheckpointSet = true
		case "checkpoint-at":
			if !o.CheckpointSet {
				o.Checkpoint, o.CheckpointSet = true, true
			}
		}
	})
}

// setupFlags completes o with what the flags given say (fs.Visit) and
// checks the values that go together or have a range.
func setupFlags(fs *flag.FlagSet, o *install.Options) error {
	if o.FullDiff && !o.DryRun {
		return install.UsageError("--diff goes with --dry-run")
	}
	given(fs, o)
	if o.CheckpointAt != 0 && (o.CheckpointAt < 50 || o.CheckpointAt > 95) {
		return install.UsageError("--checkpoint-at %d is out of range: allowed 50 to 95 (percent of the context window)", o.CheckpointAt)
	}
	if o.CheckpointAt != 0 && !o.Checkpoint {
		return install.UsageError("--checkpoint-at goes with --checkpoint")
	}
	if o.Budget < minBudget || o.Budget > maxBudget {
		return install.UsageError("--timeout %s is out of range: allowed 1s to 30s", o.Budget)
	}
	if o.SourcesSet {
		norm, err := reminder.NormalSources(o.Sources)
		if err != nil {
			return install.UsageError("%v", err)
		}
		o.Sources = norm
	}
	return nil
}

// fixCommand is the setup that makes what --check finds so: the flags
// given, less those of the check itself, with --yes.
func fixCommand(fs *flag.FlagSet) string {
	parts := []string{"nowhook", "setup", "--yes"}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "check", "yes", "dry-run", "diff", "accessible":
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			} else {
				parts = append(parts, "--"+f.Name+"=false")
			}
			return
		}
		parts = append(parts, "--"+f.Name, diag.ShellQuote(f.Value.String()))
	})
	return strings.Join(parts, " ")
}

// durationFlag is --timeout: a duration, and a clear word when the unit
// is missing ("5" is not a duration; "5s" is).
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
			return fmt.Errorf("%q has no unit: write %ss (seconds)", s, s)
		}
		return fmt.Errorf("%q is not a duration such as 5s or 2500ms", s)
	}
	*d = durationFlag(v)
	return nil
}
