package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing/iotest"

	"github.com/charmbracelet/huh"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// runWizard asks which agents to configure and how, starting from the
// detected defaults, and fills o. It returns the choices, errAborted when
// the user aborts, or a usage error for answers it cannot use.
//
// Two forms: the agents first, then only the questions that the chosen
// agents raise (huh's accessible mode asks hidden questions too).
func runWizard(o *setupOptions, root string, found []agent.Found, defaults []agent.Choice, io stdio) ([]agent.Choice, error) {
	selected := map[string]bool{}
	modes := map[string]*agent.Mode{}
	for _, f := range found {
		mode := f.Agent.Default
		modes[f.Agent.Name] = &mode
	}
	for _, c := range defaults {
		selected[c.Agent.Name] = true
		*modes[c.Agent.Name] = c.Mode
	}
	var names []string
	for {
		var err error
		if names, err = askAgents(o, root, found, selected, io); err != nil {
			return nil, err
		}
		if len(names) > 0 || o.accessible {
			break
		}
		fmt.Fprintln(io.out, "Choose at least one agent (space toggles, enter confirms), or press Ctrl-C to quit.")
	}
	if len(names) == 0 {
		return nil, usageError("no agent chosen")
	}
	var groups []*huh.Group
	for _, name := range names {
		a, _ := agent.Lookup(name)
		if len(a.Modes) < 2 {
			continue
		}
		var opts []huh.Option[agent.Mode]
		for _, m := range a.ModeNames() {
			spec, _ := a.Spec(m)
			opts = append(opts, huh.NewOption(spec.Words, m))
		}
		desc := "It can put the work in progress back right after a compaction."
		if reason := a.OnDemandOnly(); reason != "" {
			desc = "It cannot put the work in progress back after a compaction: " + strings.TrimPrefix(reason, a.Title+" cannot re-inject after compaction: ") + "."
		}
		groups = append(groups, huh.NewGroup(
			huh.NewSelect[agent.Mode]().
				Title(a.Title+": how should the work in progress come back?").
				Description(desc).
				Options(opts...).
				Value(modes[name]),
		))
	}
	for _, name := range names {
		a, _ := agent.Lookup(name)
		if a.Trust == nil || a.Trust.Available() != nil {
			continue // offered only where the step can run
		}
		mode := modes[name]
		groups = append(groups, huh.NewGroup(
			huh.NewConfirm().
				Title("Trust the "+a.Title+" hook now, in your "+a.Title+" config?").
				Description(a.Trust.Hint).
				Value(&o.trust),
		).WithHideFunc(func() bool { return !a.Wants(*mode, a.Trust.Hook) }))
	}
	if err := runForm(o, groups, io); err != nil {
		return nil, err
	}
	// Accessible mode returns on EOF too: validate what was answered.
	var choices []agent.Choice
	trustable := false
	for _, name := range names {
		a, _ := agent.Lookup(name)
		c, err := a.Choose(*modes[name], true)
		if err != nil {
			return nil, refused(err)
		}
		if trustWanted(c) {
			trustable = true
		}
		choices = append(choices, c)
	}
	if !trustable {
		o.trust = false // nothing to trust
	}
	return choices, nil
}

// askAgents asks which agents to configure: a multi-select on a terminal;
// in accessible mode a yes/no question per agent, so that an empty line
// keeps the detected default.
func askAgents(o *setupOptions, root string, found []agent.Found, selected map[string]bool, io stdio) ([]string, error) {
	var names []string
	chosen := map[string]*bool{}
	var group *huh.Group
	if o.accessible {
		var fields []huh.Field
		for _, f := range found {
			v := selected[f.Agent.Name]
			chosen[f.Agent.Name] = &v
			title := "Configure " + f.Agent.Title + "?"
			if f.Present() {
				title += " (detected: " + strings.Join(f.Evidence, ", ") + ")"
			}
			fields = append(fields, huh.NewConfirm().Title(title).Value(&v))
		}
		group = huh.NewGroup(fields...)
	} else {
		var options []huh.Option[string]
		for _, f := range found {
			label := f.Agent.Title
			if f.Present() {
				label += " (detected: " + strings.Join(f.Evidence, ", ") + ")"
			}
			options = append(options, huh.NewOption(label, f.Agent.Name).Selected(selected[f.Agent.Name]))
			if selected[f.Agent.Name] {
				names = append(names, f.Agent.Name)
			}
		}
		group = huh.NewGroup(huh.NewMultiSelect[string]().
			Title("Which agents does this repository use?").
			Description("Repository: " + root).
			Options(options...).
			Value(&names))
	}
	if err := runForm(o, []*huh.Group{group}, io); err != nil {
		return nil, err
	}
	if o.accessible {
		names = nil
		for _, f := range found {
			if *chosen[f.Agent.Name] {
				names = append(names, f.Agent.Name)
			}
		}
	}
	return names, nil
}

// runForm runs one form of questions on io.
func runForm(o *setupOptions, groups []*huh.Group, io stdio) error {
	return runGroups(o.accessible, groups, io)
}

func runGroups(accessible bool, groups []*huh.Group, io stdio) error {
	if len(groups) == 0 {
		return nil
	}
	form := huh.NewForm(groups...).WithOutput(io.out).WithAccessible(accessible)
	if accessible {
		// One byte at a time: each question reads its own line and must
		// not swallow the answers to the next ones.
		form = form.WithInput(iotest.OneByteReader(io.in))
	} else {
		form = form.WithInput(io.in)
	}
	if err := form.Run(); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return errAborted
		}
		return failedUntouched(err)
	}
	return nil
}

// review shows the files a plan changes and asks before anything is
// written; setup and remove share it. It returns errAborted when the user
// says no.
func review(accessible bool, p *plan, verb string, io stdio) error {
	var lines []string
	for _, c := range p.changes {
		if c.changed() {
			lines = append(lines, fmt.Sprintf("  %-9s %s", c.status(), p.shown(c)))
		}
	}
	for _, d := range p.rmdirs {
		lines = append(lines, fmt.Sprintf("  %-9s %s/", "deleted", relTo(p.root, d)))
	}
	if len(lines) == 0 {
		return nil
	}
	sort.Strings(lines)
	fmt.Fprintf(io.out, "nowhook %s will change these files in %s:\n%s\n", verb, p.root, strings.Join(lines, "\n"))
	for {
		answer := "write"
		var field huh.Field
		if accessible {
			yes := true
			field = huh.NewConfirm().Title("Write these changes? (nowhook " + verb + " --dry-run shows them as a diff)").Value(&yes)
			if err := runGroups(true, []*huh.Group{huh.NewGroup(field)}, io); err != nil {
				return err
			}
			if !yes {
				return errAborted
			}
			return nil
		}
		field = huh.NewSelect[string]().
			Title("Write these changes?").
			Options(
				huh.NewOption("Yes, write them", "write"),
				huh.NewOption("Show the diff first", "diff"),
				huh.NewOption("No, write nothing", "cancel"),
			).Value(&answer)
		if err := runGroups(false, []*huh.Group{huh.NewGroup(field)}, io); err != nil {
			return err
		}
		switch answer {
		case "write":
			return nil
		case "cancel":
			return errAborted
		}
		p.writeDiff(io.out)
	}
}
