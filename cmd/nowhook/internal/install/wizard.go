package install

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// runWizard asks which agents to configure and how, starting from the
// defaults, and fills o. It returns the choices, ErrAborted when the user
// quits, or an error for answers it cannot use; it writes nothing.
func runWizard(o *Options, root string, found []agent.Found, defaults []agent.Choice, std IO) ([]agent.Choice, error) {
	mode := map[*agent.Agent]agent.Mode{}
	for _, f := range found {
		mode[f.Agent] = f.Agent.Default
	}
	for _, c := range defaults {
		mode[c.Agent] = c.Mode
	}
	chosen, err := pickAgents(o, root, found, defaults, std)
	if err != nil {
		return nil, err
	}
	var choices []agent.Choice
	for _, a := range chosen {
		m, err := pickMode(o.ask, a, mode[a])
		if err != nil {
			return nil, err
		}
		c, err := a.Choose(m, true)
		if err != nil {
			return nil, Refused(err)
		}
		choices = append(choices, c)
	}
	if err := askCheckpoint(o, root, choices); err != nil {
		return nil, err
	}
	if !o.SourcesSet {
		sources, err := askSources(o.ask, setupSources(*o, root, agent.All), o.Accessible, std)
		if err != nil {
			return nil, err
		}
		o.Sources, o.SourcesSet = sources, true
	}
	if err := askTrust(o, choices); err != nil {
		return nil, err
	}
	o.wizard = true
	return choices, nil
}

// pickAgents asks which of the agents found the repository uses, the
// defaults selected, until at least one is chosen.
func pickAgents(o *Options, root string, found []agent.Found, defaults []agent.Choice, std IO) ([]*agent.Agent, error) {
	selected := make([]bool, len(found))
	var labels []string
	for i, f := range found {
		selected[i] = slices.ContainsFunc(defaults, func(c agent.Choice) bool { return c.Agent == f.Agent })
		label := f.Agent.Title
		if f.Present() {
			label += " (detected: " + strings.Join(f.Evidence, ", ") + ")"
		} else {
			label += " (not detected)"
		}
		labels = append(labels, label)
	}
	for {
		picked, err := o.ask.pickMany("Which agents does this repository use?", "Repository: "+root, labels, selected)
		if err != nil {
			return nil, err
		}
		var chosen []*agent.Agent
		for i, yes := range picked {
			if yes {
				chosen = append(chosen, found[i].Agent)
			}
		}
		if len(chosen) > 0 {
			return chosen, nil
		}
		if o.Accessible {
			return nil, UsageError("no agent chosen")
		}
		fmt.Fprintln(std.Out, "Choose at least one agent (space selects, enter confirms), or press Ctrl-C to quit.")
	}
}

// pickMode asks how the work comes back for an agent with more than one
// mode, m the default.
func pickMode(ask asker, a *agent.Agent, m agent.Mode) (agent.Mode, error) {
	if len(a.Modes) <= 1 {
		return m, nil
	}
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
		return "", err
	}
	return modes[i], nil
}

// askCheckpoint asks whether to add the checkpoint, for the agents chosen
// that have one (yes by default where it is installed).
func askCheckpoint(o *Options, root string, choices []agent.Choice) error {
	var able []string
	installed := false
	for _, c := range choices {
		if len(c.Agent.Checkpoint) > 0 {
			able = append(able, c.Agent.Title)
			installed = installed || c.Agent.InstalledIn(root, false).Checkpoint
		}
	}
	if len(able) == 0 {
		return nil
	}
	yes, err := o.ask.yesNo("Also add the checkpoint for "+strings.Join(able, " and ")+"?",
		fmt.Sprintf("When the context window is about %d%% full, the agent is told once to write where it stands into its in-progress Kanbus issues (kbs comment), so the reminder after the compaction carries it; Claude Code's summariser is also told to keep the issue ids.", agent.DefaultCheckpointAt), installed)
	if err != nil {
		return err
	}
	o.Checkpoint, o.CheckpointSet = yes, true
	return nil
}

// askTrust offers the trust step of each chosen agent whose hook needs
// one, where the step can run.
func askTrust(o *Options, choices []agent.Choice) error {
	o.Trust = false
	for _, c := range choices {
		if !c.Agent.Desire(c.Mode, o.Checkpoint).Trust || c.Agent.Trust.Available() != nil {
			continue
		}
		yes, err := o.ask.yesNo("Trust the "+c.Agent.Title+" hook now, in your "+c.Agent.Title+" config?", c.Agent.Trust.Hint, false)
		if err != nil {
			return err
		}
		o.Trust = o.Trust || yes
	}
	return nil
}

// review shows the files a plan changes and asks before anything is
// written; setup and remove share it. It returns ErrAborted when the user
// says no.
func review(ask asker, pl *engine.Plan, verb string, sc *Scope, std IO) error {
	var lines []string
	// A plan outside a repository (--scope user) has the file-system root
	// for its root: its files are shown whole, the home directory as ~.
	user := !sc.Repository
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
	fmt.Fprintf(std.Out, "nowhook %s will change these files %s:\n%s\n", verb, sc.Where(pl.Root), strings.Join(lines, "\n"))
	for {
		i, err := ask.pick("Write these changes?", "", []string{"Yes, write them", "Show the diff first", "No, write nothing"}, 0)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			return nil
		case 2:
			return ErrAborted
		}
		pl.WriteDiff(std.Out, false)
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
func askSources(ask asker, cur string, accessible bool, std IO) (string, error) {
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
				return "", UsageError("%v", err)
			}
			return norm, nil
		}
		if accessible {
			return "", UsageError("no source chosen")
		}
		fmt.Fprintln(std.Out, "Choose at least one source (space selects, enter confirms), or press Ctrl-C to quit.")
	}
}
