package main

import (
	"flag"
	"os"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/install"
)

// outsideUsage is --follow-outside-links's help, on setup and remove.
const outsideUsage = "write, create and delete through a symbolic link that leads out of the repository (out of the agent's folder, with --scope user), at its target, instead of refusing; remove gives such a file back byte for byte. Never into your own agent settings (~/.claude, ~/.codex, ...)"

// removeCmd parses remove's flags into install.RemoveOptions and hands
// them to the pipeline.
func removeCmd(args []string, io stdio) error {
	var o install.RemoveOptions
	var scope string
	fs := flag.NewFlagSet("nowhook remove", flag.ContinueOnError)
	fs.StringVar(&o.Dir, "dir", "", "the repository (default: the git top level of the working directory)")
	fs.StringVar(&o.Agents, "agents", "", "comma-separated agents to remove ("+strings.Join(agent.Names(), ", ")+"); default: all")
	fs.BoolVar(&o.Yes, "yes", false, "remove without asking")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print a unified diff of every change and write nothing")
	fs.BoolVar(&o.Accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	fs.BoolVar(&o.Outside, "follow-outside-links", false, outsideUsage)
	fs.StringVar(&scope, "scope", install.Project.Name, "project: the repository; user: what setup --scope user put into your own agent settings ("+strings.Join(install.User.Names(), ", ")+"); managed: what setup --scope managed put into the machine's managed layer")
	fs.StringVar(&o.Root, "root", "", "with --scope managed: the managed layer's tree under this folder instead of /")
	const about = "Usage: nowhook remove [flags]\n\nTakes away everything nowhook installed in the repository for the listed agents:\nits hook entries, scripts (unless changed by hand), Markdown blocks, the files\nand folders it created, and the Codex trust it recorded. Every other byte stays.\n\nFlags:\n"
	if done, err := parseFlags(fs, args, help{about: about}, io); done || err != nil {
		return err
	}
	o.Command = commandLine("remove", args)
	var err error
	if o.Scope, err = install.LookupScope(scope); err != nil {
		return err
	}
	return install.Remove(o, io.install())
}

// commandLine is the command as the lock file names its holder.
func commandLine(command string, args []string) string {
	return strings.Join(append([]string{"nowhook", command}, args...), " ")
}
