package main

import (
	"errors"
	"fmt"
	"strings"
	"testing/iotest"

	"github.com/charmbracelet/huh"

	"github.com/nowhook/nowhook/detect"
)

// runWizard asks which agents to configure and how, starting from the
// detected defaults, and fills o. It returns the choices and exitOK, or
// the status to exit with (130 when the user aborts).
func runWizard(o *setupOptions, found detect.Findings, defaults []detect.Choice, io stdio) ([]detect.Choice, int) {
	selected := map[string]bool{}
	modes := map[string]*detect.Mode{}
	for _, c := range defaults {
		selected[c.Platform.Name] = true
	}
	var names []string
	var options []huh.Option[string]
	for _, a := range found.Agents {
		p := a.Platform
		label := p.Title
		if a.Present() {
			label += " (detected: " + strings.Join(a.Evidence, ", ") + ")"
		}
		options = append(options, huh.NewOption(label, p.Name).Selected(selected[p.Name]))
		if selected[p.Name] {
			names = append(names, p.Name)
		}
		mode := p.Default
		for _, c := range defaults {
			if c.Platform.Name == p.Name {
				mode = c.Mode
			}
		}
		modes[p.Name] = &mode
	}
	var groups []*huh.Group
	chosen := map[string]*bool{}
	if o.accessible {
		// Line by line, a yes/no question per agent: an empty line keeps
		// the detected default, which a numbered multi-select cannot do.
		for _, a := range found.Agents {
			v := selected[a.Platform.Name]
			chosen[a.Platform.Name] = &v
			title := "Configure " + a.Platform.Title + "?"
			if a.Present() {
				title += " (detected: " + strings.Join(a.Evidence, ", ") + ")"
			}
			groups = append(groups, huh.NewGroup(huh.NewConfirm().Title(title).Value(&v)))
		}
	} else {
		groups = append(groups, huh.NewGroup(
			huh.NewMultiSelect[string]().
				Title("Which agents does this repository use?").
				Description("Root: "+found.Root).
				Options(options...).
				Value(&names),
		))
	}
	for _, p := range detect.Platforms {
		supported := p.SupportedModes()
		if len(supported) < 2 {
			continue
		}
		var opts []huh.Option[detect.Mode]
		for _, m := range supported {
			opts = append(opts, huh.NewOption(modeLabel(p, m), m))
		}
		name := p.Name
		groups = append(groups, huh.NewGroup(
			huh.NewSelect[detect.Mode]().
				Title(p.Title+": how should the work in progress come back?").
				Description(p.Reinject).
				Options(opts...).
				Value(modes[name]),
		).WithHideFunc(func() bool { return !contains(names, name) }))
	}
	groups = append(groups, huh.NewGroup(
		huh.NewConfirm().
			Title("Trust the Codex hook now, in your Codex config (through codex app-server)?").
			Description("Codex silently skips hooks it does not trust.").
			Value(&o.trustCodex),
	).WithHideFunc(func() bool { return !contains(names, "codex") || *modes["codex"] != detect.Reinject }))

	form := huh.NewForm(groups...).WithOutput(io.out).WithAccessible(o.accessible)
	if o.accessible {
		// One byte at a time: each question reads its own line and must
		// not swallow the answers to the next ones.
		form = form.WithInput(iotest.OneByteReader(io.in))
	} else {
		form = form.WithInput(io.in)
	}
	if err := form.Run(); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			fmt.Fprintln(io.err, "nowhook setup: aborted; nothing was written.")
			return nil, exitAborted
		}
		fmt.Fprintf(io.err, "nowhook setup: %v\n", err)
		return nil, exitFailed
	}
	if o.accessible {
		names = nil
		for _, a := range found.Agents {
			if *chosen[a.Platform.Name] {
				names = append(names, a.Platform.Name)
			}
		}
	}
	// Accessible mode returns on EOF too: validate what was answered.
	var choices []detect.Choice
	for _, name := range names {
		p, ok := detect.Lookup(name)
		if !ok {
			continue
		}
		c, err := p.Choose(*modes[name], true)
		if err != nil {
			fmt.Fprintf(io.err, "nowhook setup: %v\nNothing was written.\n", err)
			return nil, exitUsage
		}
		choices = append(choices, c)
	}
	if len(choices) == 0 {
		fmt.Fprintln(io.err, "nowhook setup: no agent chosen; nothing was written.")
		return nil, exitUsage
	}
	o.agents = strings.Join(names, ",")
	return choices, exitOK
}

func modeLabel(p detect.Platform, m detect.Mode) string {
	switch m {
	case detect.Reinject:
		return "reinject: a hook puts it back right after every compaction"
	case detect.Nudge:
		return "nudge: on-demand, plus a message to you before compaction"
	}
	return "ondemand: teach the agent to run kbs now (AGENTS.md)"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
