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
//
// Two forms: the agents first, then only the questions that the chosen
// agents raise (huh's accessible mode asks hidden questions too).
func runWizard(o *setupOptions, found detect.Findings, defaults []detect.Choice, io stdio) ([]detect.Choice, int) {
	selected := map[string]bool{}
	modes := map[string]*detect.Mode{}
	for _, a := range found.Agents {
		mode := a.Platform.Default
		modes[a.Platform.Name] = &mode
	}
	for _, c := range defaults {
		selected[c.Platform.Name] = true
		*modes[c.Platform.Name] = c.Mode
	}
	names, status := askAgents(o, found, selected, io)
	if status != exitOK {
		return nil, status
	}
	if len(names) == 0 {
		fmt.Fprintln(io.err, "nowhook setup: no agent chosen; nothing was written.")
		return nil, exitUsage
	}
	var groups []*huh.Group
	for _, name := range names {
		p, _ := detect.Lookup(name)
		supported := p.SupportedModes()
		if len(supported) < 2 {
			continue
		}
		var opts []huh.Option[detect.Mode]
		for _, m := range supported {
			opts = append(opts, huh.NewOption(modeLabel(m), m))
		}
		groups = append(groups, huh.NewGroup(
			huh.NewSelect[detect.Mode]().
				Title(p.Title+": how should the work in progress come back?").
				Description(p.Reinject).
				Options(opts...).
				Value(modes[name]),
		))
	}
	if contains(names, "codex") {
		groups = append(groups, huh.NewGroup(
			huh.NewConfirm().
				Title("Trust the Codex hook now, in your Codex config (through codex app-server)?").
				Description("Codex silently skips hooks it does not trust. Needs codex on PATH.").
				Value(&o.trustCodex),
		).WithHideFunc(func() bool { return *modes["codex"] != detect.Reinject }))
	}
	if status := runForm(o, groups, io); status != exitOK {
		return nil, status
	}
	// Accessible mode returns on EOF too: validate what was answered.
	var choices []detect.Choice
	for _, name := range names {
		p, _ := detect.Lookup(name)
		c, err := p.Choose(*modes[name], true)
		if err != nil {
			fmt.Fprintf(io.err, "nowhook setup: %v\nNothing was written.\n", err)
			return nil, exitUsage
		}
		if name == "codex" && c.Mode != detect.Reinject {
			o.trustCodex = false // nothing to trust
		}
		choices = append(choices, c)
	}
	o.agents = strings.Join(names, ",")
	return choices, exitOK
}

// askAgents asks which agents to configure: a multi-select on a terminal;
// in accessible mode a yes/no question per agent, so that an empty line
// keeps the detected default.
func askAgents(o *setupOptions, found detect.Findings, selected map[string]bool, io stdio) ([]string, int) {
	var names []string
	chosen := map[string]*bool{}
	var group *huh.Group
	if o.accessible {
		var fields []huh.Field
		for _, a := range found.Agents {
			v := selected[a.Platform.Name]
			chosen[a.Platform.Name] = &v
			title := "Configure " + a.Platform.Title + "?"
			if a.Present() {
				title += " (detected: " + strings.Join(a.Evidence, ", ") + ")"
			}
			fields = append(fields, huh.NewConfirm().Title(title).Value(&v))
		}
		group = huh.NewGroup(fields...)
	} else {
		var options []huh.Option[string]
		for _, a := range found.Agents {
			label := a.Platform.Title
			if a.Present() {
				label += " (detected: " + strings.Join(a.Evidence, ", ") + ")"
			}
			options = append(options, huh.NewOption(label, a.Platform.Name).Selected(selected[a.Platform.Name]))
			if selected[a.Platform.Name] {
				names = append(names, a.Platform.Name)
			}
		}
		group = huh.NewGroup(huh.NewMultiSelect[string]().
			Title("Which agents does this repository use?").
			Description("Root: " + found.Root).
			Options(options...).
			Value(&names))
	}
	if status := runForm(o, []*huh.Group{group}, io); status != exitOK {
		return nil, status
	}
	if o.accessible {
		names = nil
		for _, a := range found.Agents {
			if *chosen[a.Platform.Name] {
				names = append(names, a.Platform.Name)
			}
		}
	}
	return names, exitOK
}

// runForm runs one form of questions on io.
func runForm(o *setupOptions, groups []*huh.Group, io stdio) int {
	if len(groups) == 0 {
		return exitOK
	}
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
			return exitAborted
		}
		fmt.Fprintf(io.err, "nowhook setup: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func modeLabel(m detect.Mode) string {
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
