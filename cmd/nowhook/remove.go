package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// removeOptions is what remove does.
type removeOptions struct {
	dir        string
	agents     string
	yes        bool
	dryRun     bool
	accessible bool
	scope      string // --scope: project or user
}

func runRemove(args []string, io stdio) int {
	return exit("remove", removeCmd(args, io), io.err)
}

func removeCmd(args []string, io stdio) error {
	var o removeOptions
	fs := flag.NewFlagSet("nowhook remove", flag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "", "the repository (default: the git top level of the working directory)")
	fs.StringVar(&o.agents, "agents", "", "comma-separated agents to remove ("+strings.Join(agent.Names(), ", ")+"); default: all")
	fs.BoolVar(&o.yes, "yes", false, "remove without asking")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of every change and write nothing")
	fs.BoolVar(&o.accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	fs.StringVar(&o.scope, "scope", scopeProject, "project: the repository; user: what setup --scope user put into your own agent settings ("+strings.Join(userNames(), ", ")+")")
	const about = "Usage: nowhook remove [flags]\n\nTakes away everything nowhook installed in the repository for the listed agents:\nits hook entries, scripts (unless changed by hand), Markdown blocks, the files\nand folders it created, and the Codex trust it recorded. Every other byte stays.\n\nFlags:\n"
	if done, err := parseFlags(fs, args, about, io); done || err != nil {
		return err
	}
	var targets []target
	if o.agents != "" {
		for _, item := range strings.Split(o.agents, ",") {
			name := strings.TrimSpace(item)
			if name == "" {
				continue
			}
			if strings.Contains(name, "=") {
				return usageError("--agents %q: remove takes agent names without a mode", name)
			}
			a, ok := agent.Lookup(name)
			if !ok {
				return usageError("unknown agent %q (known: %s)", name, strings.Join(agent.Names(), ", "))
			}
			targets = append(targets, target{agent: a})
		}
	}
	if err := scopeFlag(o.scope); err != nil {
		return err
	}
	if o.scope == scopeUser {
		var named []*agent.Agent
		for _, t := range targets {
			named = append(named, t.agent)
		}
		return removeUser(o, named, io)
	}
	if len(targets) == 0 {
		if o.agents != "" {
			return usageError("--agents lists no agent (known: %s)", strings.Join(agent.Names(), ", "))
		}
		for _, a := range agent.All {
			targets = append(targets, target{agent: a})
		}
	}
	if !o.yes && !o.dryRun && !o.accessible && !isTerminal(io.in, io.out) {
		return usageError("remove needs a terminal to ask before it deletes anything; pass --yes to remove without asking")
	}
	root, err := projectRoot(o.dir, "remove")
	if err != nil {
		return err
	}
	found := agent.Detect(root)
	p := newPlan(root)
	rec := loadRecord(root)
	plans, err := reconcile(p, rec, targets, inUse(root, rec, targets, found), agent.Options{Budget: agent.DefaultBudget})
	if err == nil {
		err = p.check()
	}
	if err != nil {
		return refused(err)
	}
	var acting []*agentPlan
	for _, ap := range plans {
		if len(ap.steps) > 0 {
			acting = append(acting, ap)
		}
	}
	if o.dryRun {
		if !p.writeDiff(io.out, true) {
			fmt.Fprintln(io.out, "No changes.")
		}
		printNotes(io.out, p)
		return nil
	}
	if !anyChanged(p) {
		if len(acting) > 0 {
			printSummary(io.out, acting, func(target) string { return "" })
			fmt.Fprintln(io.out, "Nothing changed: what nowhook installed for these agents is still in use.")
		} else {
			fmt.Fprintf(io.out, "Nothing of nowhook's was found in %s; nothing changed.\n", root)
		}
		printNotes(io.out, p)
		return nil
	}
	if !o.yes {
		if err := review(newAsker(o.accessible, io), p, "remove", io); err != nil {
			return err
		}
	}
	if err := p.write(); err != nil {
		return err
	}
	rec.update(p, nil)
	rec.save()
	printSummary(io.out, acting, func(target) string { return "" })
	if err := forgetTrust(context.Background(), root, plans, io.out); err != nil {
		fmt.Fprintf(io.err, "nowhook remove: %v\nThe files were changed; only forgetting the trust failed.\n", err)
		printNotes(io.out, p)
		return errSilent{exitFailed}
	}
	printNotes(io.out, p)
	return nil
}

func anyChanged(p *plan) bool {
	for _, c := range p.changes {
		if c.changed() {
			return true
		}
	}
	return len(p.rmdirs) > 0
}
