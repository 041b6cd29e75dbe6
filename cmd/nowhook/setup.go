package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

const templateVersion = templates.Version

// setupOptions is what setup does; flags and the wizard both fill it.
type setupOptions struct {
	dir        string
	yes        bool
	dryRun     bool
	force      bool
	trustCodex bool
	accessible bool
	agents     string // the --agents list; empty: the detected agents
	budget     time.Duration
}

const (
	defaultBudget = 5 * time.Second
	minBudget     = time.Second
	maxBudget     = 30 * time.Second
)

const noTerminal = "nowhook: setup needs a terminal to ask questions; pass --yes to accept the detected defaults"

func runSetup(args []string, io stdio) int {
	var o setupOptions
	fs := flag.NewFlagSet("nowhook setup", flag.ContinueOnError)
	fs.SetOutput(discard)
	fs.StringVar(&o.dir, "dir", "", "the repository (default: the git top level of the working directory, else the working directory)")
	fs.BoolVar(&o.yes, "yes", false, "accept the detected defaults without asking")
	fs.StringVar(&o.agents, "agents", "", "comma-separated agent[=mode] list: agents "+strings.Join(detect.Names(), ", ")+"; modes reinject, ondemand, nudge")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of every change and write nothing")
	fs.DurationVar(&o.budget, "timeout", defaultBudget, "the time the hook gives kbs (1s to 30s)")
	fs.BoolVar(&o.trustCodex, "trust-codex", false, "record the trust of our Codex hook in your Codex config, through codex app-server")
	fs.BoolVar(&o.force, "force", false, "replace scripts at our paths even when they were changed by hand")
	fs.BoolVar(&o.accessible, "accessible", os.Getenv("ACCESSIBLE") != "", "ask line by line, for screen readers (answers may come from a pipe)")
	usage := func(w writer) {
		fmt.Fprintf(w, "Usage: nowhook setup [flags]\n\nInstalls the Kanbus compaction hook for the repository's agents.\n\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(discard)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(io.out)
			return exitOK
		}
		fmt.Fprintf(io.err, "nowhook setup: %v\n\n", err)
		usage(io.err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "nowhook setup: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if o.budget < minBudget || o.budget > maxBudget {
		fmt.Fprintf(io.err, "nowhook setup: --timeout %s is out of range: allowed 1s to 30s\n", o.budget)
		return exitUsage
	}
	var choices []detect.Choice
	if o.agents != "" {
		var err error
		if choices, err = detect.ParseAgents(o.agents); err != nil {
			fmt.Fprintf(io.err, "nowhook setup: %v\nNothing was written.\n", err)
			return exitUsage
		}
	}
	root, err := detect.Root(".")
	if o.dir != "" {
		root, err = detect.Dir(o.dir)
	}
	if err != nil {
		fmt.Fprintf(io.err, "nowhook setup: --dir: %v\n", err)
		return exitUsage
	}
	found := detect.Detect(root)
	if choices == nil {
		choices = defaultChoices(found)
	}
	if !o.yes {
		if !o.accessible && !isTerminal(io.in, io.out) {
			fmt.Fprintln(io.err, noTerminal)
			return exitUsage
		}
		var status int
		choices, status = runWizard(&o, found, choices, io)
		if status != exitOK {
			return status
		}
	}
	return setup(o, found, choices, io)
}

// defaultChoices are the detected agents in their default modes; with
// nothing detected, claude and codex.
func defaultChoices(found detect.Findings) []detect.Choice {
	var choices []detect.Choice
	for _, a := range found.Detected() {
		choices = append(choices, detect.Choice{Platform: a.Platform, Mode: a.Platform.Default})
	}
	if len(choices) == 0 {
		for _, name := range []string{"claude", "codex"} {
			p, _ := detect.Lookup(name)
			choices = append(choices, detect.Choice{Platform: p, Mode: p.Default})
		}
	}
	return choices
}

// setup plans, checks and writes; every line after the options are
// decided is shared by the wizard and --yes.
func setup(o setupOptions, found detect.Findings, choices []detect.Choice, io stdio) int {
	if o.trustCodex && !codexHooked(choices) {
		fmt.Fprintln(io.err, "nowhook setup: --trust-codex: no Codex hook is being set up (add codex to --agents, in mode reinject)\nNothing was written.")
		return exitUsage
	}
	if o.trustCodex && !o.dryRun {
		// Before anything is written: the trust step needs codex.
		if _, err := findCodex(); err != nil {
			fmt.Fprintf(io.err, "nowhook setup: --trust-codex: %v\nNothing was written.\n", err)
			return exitFailed
		}
	}
	if len(found.Detected()) == 0 && o.agents == "" {
		fmt.Fprintln(io.out, "No agent detected; configuring claude and codex.")
	}
	p := newPlan(found.Root)
	files, err := planSetup(p, o, choices)
	if err == nil {
		err = p.check()
	}
	if err != nil {
		fmt.Fprintf(io.err, "nowhook setup: %v\nNothing was written.\n", err)
		return exitFailed
	}
	if o.dryRun {
		p.writeDiff(io.out)
		printNotes(io.out, p)
		return exitOK
	}
	if err := p.write(); err != nil {
		fmt.Fprintf(io.err, "nowhook setup: %v\n", err)
		return exitFailed
	}
	printSummary(io.out, p, choices, files)
	status := exitOK
	if trusted, err := trustCodex(o, found.Root, choices, io); err != nil {
		fmt.Fprintf(io.err, "nowhook setup: --trust-codex: %v\nThe hook files were written; only the trust step failed.\n", err)
		status = exitFailed
	} else if trusted != "" {
		fmt.Fprintln(io.out, trusted)
	}
	printNotes(io.out, p)
	if found.Kanbus.Config == "" {
		fmt.Fprintln(io.out, "Note: no .kanbus.yml found; the hook prints nothing until this is a Kanbus project (run kbs init).")
	}
	return status
}

// planSetup plans every file of every chosen agent, from the platform
// table. It returns, per agent, the changes of the files it uses.
func planSetup(p *plan, o setupOptions, choices []detect.Choice) (map[string][]*change, error) {
	files := map[string][]*change{}
	for _, c := range choices {
		if c.Platform.Name == "codex" && c.Mode == detect.Reinject {
			if err := checkCodexConfig(p.root); err != nil {
				return nil, err
			}
		}
		for _, rel := range c.Platform.Supported[c.Mode] {
			gen, ok := generators[rel]
			if !ok {
				return nil, fmt.Errorf("internal error: no generator for %s", rel)
			}
			ch, err := gen(p, rel, o)
			if err != nil {
				return nil, err
			}
			if ch != nil {
				files[c.Platform.Name] = append(files[c.Platform.Name], ch)
			}
		}
	}
	return files, nil
}

// A generator plans one file. The platform table names the files; this
// map says how each is made.
type generator func(p *plan, rel string, o setupOptions) (*change, error)

var generators = map[string]generator{
	".claude/settings.json": hookFile(generate.ClaudeSettings, func(o setupOptions) generate.Hook { return generate.ClaudeHook(o.budget) }),
	".codex/hooks.json":     hookFile(generate.CodexHooks, func(o setupOptions) generate.Hook { return generate.CodexHook(o.budget) }),
	".cursor/hooks.json":    hookFile(generate.CursorHooks, func(setupOptions) generate.Hook { return generate.CursorNudge() }),
	generate.ClaudeScript:   script(func(o setupOptions) string { return templates.RenderWrapper(o.budget) }),
	generate.CodexScript:    script(func(o setupOptions) string { return templates.RenderWrapper(o.budget) }),
	generate.CursorScript:   script(func(setupOptions) string { return templates.Nudge }),
	"CLAUDE.md":             markdown(compactBlock),
	"AGENTS.md":             markdown(onDemandBlock),
}

var (
	compactBlock  = generate.Block{Name: "compact-instructions", Version: templates.Version, Body: templates.CompactInstructions, Heading: "Compact Instructions"}
	onDemandBlock = generate.Block{Name: "kbs-now", Version: templates.Version, Body: templates.OnDemand}
)

func hookFile(f generate.HookFile, hook func(setupOptions) generate.Hook) generator {
	return func(p *plan, rel string, o setupOptions) (*change, error) {
		return p.edit(rel, func(cur []byte) ([]byte, error) { return f.MergeHook(cur, hook(o)) })
	}
}

func markdown(b generate.Block) generator {
	return func(p *plan, rel string, o setupOptions) (*change, error) {
		return p.edit(rel, func(cur []byte) ([]byte, error) {
			next, err := generate.MergeBlock(rel, cur, b)
			if newer := (*generate.NewerError)(nil); errors.As(err, &newer) {
				p.note("%v; left it alone (upgrade nowhook).", newer)
				return cur, nil
			}
			return next, err
		})
	}
}

// script plans a file nowhook owns whole. A script changed by hand, or
// without our signature, is left alone unless --force.
func script(body func(setupOptions) string) generator {
	return func(p *plan, rel string, o setupOptions) (*change, error) {
		c, err := p.file(rel)
		if err != nil {
			return nil, err
		}
		state, version := generate.InspectScript(c.old)
		if (state == generate.ScriptOurs || state == generate.ScriptModified) && version > templates.Version {
			p.note("%v; left it alone (upgrade nowhook).", &generate.NewerError{Path: rel, Found: version, Ours: templates.Version})
			return c, nil
		}
		switch state {
		case generate.ScriptModified:
			if !o.force {
				p.note("%s was changed by hand since nowhook wrote it; left it alone (nowhook setup --force replaces it).", rel)
				return c, nil
			}
		case generate.ScriptForeign:
			if !o.force {
				p.note("%s has no nowhook signature line, so it is yours; left it alone (nowhook setup --force replaces it).", rel)
				return c, nil
			}
		case generate.ScriptKanbus:
			p.note("%s was Kanbus's hand-copied example wrapper; replaced it with nowhook's.", rel)
		}
		c.next = generate.Script(body(o), templates.Version)
		// Executable whatever it was: a hook that cannot run fails.
		c.mode = c.oldMode | 0o755
		if !c.existed {
			c.mode = 0o755
		}
		return c, nil
	}
}

// checkCodexConfig stops the Codex setup when the project's config.toml
// already defines hooks inline: Codex would load both that and a
// hooks.json and warn. The TOML is only read, never rewritten.
func checkCodexConfig(root string) error {
	path := filepath.Join(root, ".codex", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var cfg struct {
		Hooks map[string]any `toml:"hooks"`
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return fmt.Errorf(".codex/config.toml:%d:%d: is not valid TOML (%s); Codex refuses to start with it. Fix it, then run nowhook setup again", line, col, de.Error())
		}
		return fmt.Errorf(".codex/config.toml: is not valid TOML (%v); fix it, then run nowhook setup again", err)
	}
	for event := range cfg.Hooks {
		if event != "state" {
			return fmt.Errorf(".codex/config.toml: already defines hooks inline ([hooks.%s]); a .codex/hooks.json beside it would make Codex load both and warn. Move those hooks into .codex/hooks.json (or configure Codex with --agents codex=ondemand), then run nowhook setup again", event)
		}
	}
	return nil
}

// printSummary prints one line per agent: its mode and the files.
func printSummary(w io.Writer, p *plan, choices []detect.Choice, files map[string][]*change) {
	for _, c := range choices {
		var parts []string
		for _, ch := range files[c.Platform.Name] {
			parts = append(parts, ch.rel+" ("+ch.status()+")")
		}
		line := fmt.Sprintf("%-12s %-9s %s", c.Platform.Name, c.Mode, strings.Join(parts, ", "))
		if c.Mode != detect.Reinject {
			line += " - on-demand only: " + onDemandReason(c)
		}
		fmt.Fprintln(w, line)
	}
}

func onDemandReason(c detect.Choice) string {
	if reason, refused := c.Platform.Refused[detect.Reinject]; refused {
		return reason
	}
	return "chosen with --agents " + c.Platform.Name + "=" + string(c.Mode)
}

func printNotes(w io.Writer, p *plan) {
	for _, n := range p.notes {
		fmt.Fprintln(w, "Note: "+n)
	}
}

// isTerminal reports whether both streams are terminals.
func isTerminal(in io.Reader, out io.Writer) bool {
	return isCharDevice(in) && isCharDevice(out)
}

func isCharDevice(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// writer and discard name io's for functions whose stdio parameter is io.
// The flag package's own printing is discarded: setup prints its usage
// itself, to stdout for --help and to stderr for a usage error.
type writer = io.Writer

var discard = io.Discard
