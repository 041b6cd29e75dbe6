package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// runWizard asks which agents to configure and how, starting from the
// defaults, and fills o. It returns the choices, errAborted when the user
// quits, or an error for answers it cannot use; it writes nothing.
func runWizard(o *setupOptions, root string, found []agent.Found, defaults []agent.Choice, io stdio) ([]agent.Choice, error) {
	ask := o.ask
	mode := map[*agent.Agent]agent.Mode{}
	selected := make([]bool, len(found))
	for i, f := range found {
		mode[f.Agent] = f.Agent.Default
		for _, c := range defaults {
			if c.Agent == f.Agent {
				selected[i], mode[f.Agent] = true, c.Mode
			}
		}
	}
	var labels []string
	for _, f := range found {
		label := f.Agent.Title
		if f.Present() {
			label += " (detected: " + strings.Join(f.Evidence, ", ") + ")"
		} else {
			label += " (not detected)"
		}
		labels = append(labels, label)
	}
	var chosen []*agent.Agent
	for {
		picked, err := ask.pickMany("Which agents does this repository use?", "Repository: "+root, labels, selected)
		if err != nil {
			return nil, err
		}
		chosen = nil
		for i, yes := range picked {
			if yes {
				chosen = append(chosen, found[i].Agent)
			}
		}
		if len(chosen) > 0 {
			break
		}
		if o.accessible {
			return nil, usageError("no agent chosen")
		}
		fmt.Fprintln(io.out, "Choose at least one agent (space selects, enter confirms), or press Ctrl-C to quit.")
	}
	var choices []agent.Choice
	for _, a := range chosen {
		m := mode[a]
		if len(a.Modes) > 1 {
			modes := a.ModeNames()
			var words []string
			def := 0
			for i, x := range modes {
				spec, _ := a.Spec(x)
				words = append(words, spec.Words)
				if x == m {
					def = i
				}
			}
			desc := a.Title + " can put the work in progress back right after a compaction."
			if reason := a.OnDemandOnly(); reason != "" {
				desc = a.Title + " cannot put the work in progress back after a compaction: " + strings.TrimPrefix(reason, a.Title+" cannot re-inject after compaction: ") + "."
			} else if a.OptIn != "" {
				desc += " " + strings.ToUpper(a.OptIn[:1]) + a.OptIn[1:] + "."
			}
			i, err := ask.pick(a.Title+": how should the work in progress come back?", desc, words, def)
			if err != nil {
				return nil, err
			}
			m = modes[i]
		}
		c, err := a.Choose(m, true)
		if err != nil {
			return nil, refused(err)
		}
		choices = append(choices, c)
	}
	var able []string
	installed := false
	for _, c := range choices {
		if len(c.Agent.Checkpoint) > 0 {
			able = append(able, c.Agent.Title)
			if c.Agent.InstalledIn(root, false).Checkpoint {
				installed = true
			}
		}
	}
	if len(able) > 0 {
		yes, err := ask.yesNo("Also add the checkpoint for "+strings.Join(able, " and ")+"?",
			fmt.Sprintf("When the context window is about %d%% full, the agent is told once to write where it stands into its in-progress Kanbus issues (kbs comment), so the reminder after the compaction carries it; Claude Code's summariser is also told to keep the issue ids.", agent.DefaultCheckpointAt), installed)
		if err != nil {
			return nil, err
		}
		o.checkpoint, o.checkpointSet = yes, true
	}
	if !o.sourcesSet {
		sources, err := askSources(ask, setupSources(*o, root), o.accessible, io)
		if err != nil {
			return nil, err
		}
		o.sources, o.sourcesSet = sources, true
	}
	o.trust = false
	for _, c := range choices {
		// Offered only where the step can run.
		if !c.Agent.Desire(c.Mode, o.checkpoint).Trust || c.Agent.Trust.Available() != nil {
			continue
		}
		yes, err := ask.yesNo("Trust the "+c.Agent.Title+" hook now, in your "+c.Agent.Title+" config?", c.Agent.Trust.Hint, false)
		if err != nil {
			return nil, err
		}
		o.trust = o.trust || yes
	}
	o.wizard = true
	return choices, nil
}

// review shows the files a plan changes and asks before anything is
// written; setup and remove share it. It returns errAborted when the user
// says no.
func review(ask asker, pl *engine.Plan, verb string, io stdio) error {
	var lines []string
	// A user-scope plan (--scope user) has the file-system root for its
	// root: its files are shown whole, the home directory as ~.
	user := pl.Root == string(filepath.Separator)
	for _, c := range pl.Changes() {
		name := c.Name
		if user {
			name = osutil.TildeHome(c.Path)
		}
		if c.Folder {
			name += "/"
		}
		lines = append(lines, fmt.Sprintf("  %-9s %s", c.Status, name))
	}
	if len(lines) == 0 {
		return nil
	}
	sort.Strings(lines)
	where := "in " + pl.Root
	if user {
		where = "outside any repository (your own agent settings)"
	}
	fmt.Fprintf(io.out, "nowhook %s will change these files %s:\n%s\n", verb, where, strings.Join(lines, "\n"))
	for {
		i, err := ask.pick("Write these changes?", "", []string{"Yes, write them", "Show the diff first", "No, write nothing"}, 0)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			return nil
		case 2:
			return errAborted
		}
		pl.WriteDiff(io.out, false)
	}
}

// wizardSources are the sources the wizard offers, in the order it asks,
// with what each brings back.
var wizardSources = []struct{ name, words string }{
	{"kanbus", "kanbus: the Kanbus board's work in progress (kbs now)"},
	{"rules", "rules: your own messages from earlier in the session, verbatim (the first one, the task, always kept)"},
	{"git", "git: the branch, HEAD, the count of changed files, ahead/behind, where the session started"},
	{"samemind", "samemind: samemind handoff (active tasks, last decisions, plans in force) from $OKF_ROOT"},
}

// askSources asks what the reminder brings back, starting from cur (a
// --sources list), and returns the answer as --sources takes it.
func askSources(ask asker, cur string, accessible bool, io stdio) (string, error) {
	var labels []string
	selected := make([]bool, len(wizardSources))
	for i, s := range wizardSources {
		labels = append(labels, s.words)
		selected[i] = slices.Contains(strings.Split(cur, ","), s.name)
	}
	for {
		picked, err := ask.pickMany("What should come back after a compaction?",
			"The reminder re-injects these, each quoted and within one time budget and one size cap; one that fails is left out.", labels, selected)
		if err != nil {
			return "", err
		}
		var names []string
		for i, yes := range picked {
			if yes {
				names = append(names, wizardSources[i].name)
			}
		}
		if len(names) > 0 {
			norm, err := reminder.NormalSources(strings.Join(names, ","))
			if err != nil {
				return "", usageError("%v", err)
			}
			return norm, nil
		}
		if accessible {
			return "", usageError("no source chosen")
		}
		fmt.Fprintln(io.out, "Choose at least one source (space selects, enter confirms), or press Ctrl-C to quit.")
	}
}
