package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// removeOptions is what remove does.
type removeOptions struct {
	dir        string
	agents     string
	yes        bool
	dryRun     bool
	accessible bool
	scope      string // --scope: project or user
	outside    bool   // --follow-outside-links
	command    string // the command line, as the writer lock names its holder
}

// outsideUsage is --follow-outside-links's help, on setup and remove.
const outsideUsage = "write, create and delete through a symbolic link that leads out of the repository (out of the agent's folder, with --scope user), at its target, instead of refusing; remove gives such a file back byte for byte. Never into your own agent settings (~/.claude, ~/.codex, ...)"

func removeCmd(args []string, io stdio) error {
	var o removeOptions
	fs := flag.NewFlagSet("nowhook remove", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "the repository (default: the git top level of the working directory)")
	fs.StringVar(&o.agents, "agents", "", "comma-separated agents to remove ("+strings.Join(agent.Names(), ", ")+"); default: all")
	fs.BoolVar(&o.yes, "yes", false, "remove without asking")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of every change and write nothing")
	fs.BoolVar(&o.accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	fs.BoolVar(&o.outside, "follow-outside-links", false, outsideUsage)
	fs.StringVar(&o.scope, "scope", scopeProject, "project: the repository; user: what setup --scope user put into your own agent settings ("+strings.Join(userNames(), ", ")+")")
	const about = "Usage: nowhook remove [flags]\n\nTakes away everything nowhook installed in the repository for the listed agents:\nits hook entries, scripts (unless changed by hand), Markdown blocks, the files\nand folders it created, and the Codex trust it recorded. Every other byte stays.\n\nFlags:\n"
	if done, err := parseFlags(fs, args, help{about: about}, io); done || err != nil {
		return err
	}
	o.command = commandLine("remove", args)
	named, err := removeAgents(o.agents)
	if err != nil {
		return err
	}
	if err := scopeFlag(o.scope); err != nil {
		return err
	}
	if o.scope == scopeUser {
		return removeUser(o, named, io)
	}
	if len(named) == 0 {
		if o.agents != "" {
			return usageError("--agents lists no agent (known: %s)", strings.Join(agent.Names(), ", "))
		}
		named = agent.All
	}
	var targets []engine.Target
	for _, a := range named {
		targets = append(targets, engine.Target{Agent: a})
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return usageError("remove needs a terminal to ask before it deletes anything; pass --yes to remove without asking")
	}
	root, err := projectRoot(o.dir, "remove")
	if err != nil {
		return err
	}
	req := engine.Request{Root: root, Targets: targets, Options: agent.Options{Budget: agent.DefaultBudget}, Outside: o.outside}
	if !o.dryRun {
		release, err := engine.Lock(req, o.command)
		if err != nil {
			return failedUntouched(err)
		}
		defer release()
	}
	req.Found = agent.Detect(root)
	pl, err := engine.Reconcile(req)
	if err != nil {
		return refused(err)
	}
	none := func(engine.Target) string { return "" }
	if o.dryRun {
		if !pl.WriteDiff(io.out, true) {
			fmt.Fprintln(io.out, "No changes.")
		}
		pl.WriteNotes(io.out)
		return nil
	}
	if !pl.Changed() {
		if pl.Acting() {
			pl.WriteSummary(io.out, true, none)
			fmt.Fprintln(io.out, "Nothing changed: what nowhook installed for these agents is still in use.")
		} else {
			fmt.Fprintf(io.out, "Nothing of nowhook's was found in %s; nothing changed.\n", root)
		}
		pl.WriteNotes(io.out)
		return nil
	}
	if !o.yes {
		if err := review(newAsker(o.accessible, io), pl, "remove", io); err != nil {
			return err
		}
	}
	now, later := splitWrite(pl.Write())
	if now != nil {
		return now
	}
	pl.WriteSummary(io.out, true, none)
	if err := pl.ForgetTrust(context.Background(), io.out); err != nil {
		pl.WriteNotes(io.out)
		return errors.Join(later, failedAfterWrite(err, "The files were changed; only forgetting the trust failed."))
	}
	pl.WriteNotes(io.out)
	return later
}

// commandLine is the command as the lock file names its holder.
func commandLine(command string, args []string) string {
	return strings.Join(append([]string{"nowhook", command}, args...), " ")
}

// splitWrite sorts an error of Write: a failure of the record alone
// (later) comes after every file was written, so the command goes on to
// say what it did and ends with it; any other (now) is the failure,
// whose message says what was undone.
func splitWrite(err error) (now, later error) {
	var re *engine.RecordError
	if errors.As(err, &re) {
		return nil, failedAfterWrite(err, "The files were written; only the record failed.")
	}
	return err, nil
}

// removeAgents are the agents an --agents list of remove names, in its
// order (none for an empty list).
func removeAgents(list string) ([]*agent.Agent, error) {
	var named []*agent.Agent
	if list == "" {
		return nil, nil
	}
	for _, item := range strings.Split(list, ",") {
		name := strings.TrimSpace(item)
		if name == "" {
			continue
		}
		if strings.Contains(name, "=") {
			return nil, usageError("--agents %q: remove takes agent names without a mode", name)
		}
		a, ok := agent.Lookup(name)
		if !ok {
			return nil, usageError("unknown agent %q (known: %s)", name, strings.Join(agent.Names(), ", "))
		}
		named = append(named, a)
	}
	return named, nil
}
