package doctor

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// The reminder's sources (setup --sources): the row that names them, as
// the installed wrappers do, and one row per source besides kanbus (whose
// query kanbus.query checks) that says whether it answers now.

// sourceProbeMax bounds each source's run here: doctor stays quick, and
// a source slower than this is reported as such.
const sourceProbeMax = 2 * time.Second

// chosenSources reads the sources the installed reminder scripts name:
// each list with the agents whose scripts name it. Empty when no reminder
// script is installed.
func (d *doctor) chosenSources() map[string][]string {
	lists := map[string][]string{}
	for _, a := range d.agents {
		in := a.p.InstalledIn(d.root, false)
		if in.Mode != agentpkg.Reinject {
			continue
		}
		list := in.Sources
		if list == "" {
			list = reminder.DefaultSources // a wrapper of template v5 or older
		}
		lists[list] = append(lists[list], a.p.Title)
	}
	return lists
}

// sourcesCheck names the reminder's sources.
var sourcesCheck = checkFunc{"sources", func(d *doctor, _ *agent) []Finding {
	lists := d.chosenSources()
	switch len(lists) {
	case 0:
		return nil
	case 1:
		for list, who := range lists {
			what := "the reminder brings back " + list
			if list == reminder.DefaultSources {
				what += " (the default; setup --sources adds rules, git, samemind)"
			}
			if reminder.NoteChosen(list) {
				what += " (" + reminder.NoteOption + ": Claude Code's PreCompact hook also appends samemind's pre-compact note to its inbox)"
			}
			return []Finding{{Message: fmt.Sprintf("%s, for %s", what, strings.Join(who, ", "))}}
		}
	}
	var parts []string
	for list, who := range lists {
		parts = append(parts, fmt.Sprintf("%s for %s", list, strings.Join(who, ", ")))
	}
	sort.Strings(parts)
	return []Finding{{Severity: Warn,
		Message: "the agents' reminders bring back different sources: " + strings.Join(parts, "; "),
		Fix:     d.setupFix("", "--sources LIST")}}
}}

// sourceCheck says whether one source of the reminder answers now, where
// it is among the sources.
func sourceCheck(name string) checkFunc {
	return checkFunc{"sources." + name, func(d *doctor, _ *agent) []Finding {
		chosen, note := false, false
		for list := range d.chosenSources() {
			chosen = chosen || strings.Contains(","+strings.ReplaceAll(list, reminder.NoteOption, "samemind")+",", ","+name+",")
			note = note || reminder.NoteChosen(list)
		}
		if !chosen {
			return nil
		}
		var out []Finding
		if name == "samemind" && note {
			out = append(out, d.noteFinding())
		}
		for _, c := range reminder.CheckSources(name, d.from, sourceProbeMax) {
			f := Finding{Message: c.Detail}
			if !c.Answered {
				f.Severity = Warn
				f.Message = c.Detail + ": the reminder comes without its " + c.Name + " part"
				switch c.Name {
				case "samemind":
					f.Fix = "install samemind so that `samemind handoff` runs from PATH (the hook never runs npx), or " + d.setupFix("", "--sources LIST") + " without samemind"
				case "git":
					f.Fix = "run `git status` in " + d.show(d.from) + " and fix what it reports"
				}
			}
			out = append(out, f)
		}
		return out
	}}
}

// kanbusSource says whether the agent's reminder has the board among its
// sources (a wrapper that names none has it alone).
func (d *doctor) kanbusSource(a *agent) bool {
	list := a.p.InstalledIn(d.root, false).Sources
	return list == "" || strings.Contains(","+list+",", ",kanbus,")
}

// noteFinding says where samemind's pre-compact note goes
// (--sources samemind=note), and whether a note could be appended there
// now, with this process's environment (the hook's is the agent's).
func (d *doctor) noteFinding() Finding {
	path, err := reminder.NoteTarget(os.Getenv)
	if err != nil {
		return Finding{Severity: Warn,
			Message: "samemind's pre-compact note: " + err.Error() + ": no note is written before a compaction",
			Fix:     "create the knowledge base samemind reads (or set OKF_ROOT to it) so that " + path + " can be appended to, or " + d.setupFix("", "--sources LIST") + " without " + reminder.NoteOption}
	}
	return Finding{Message: "samemind's pre-compact note is appended to " + path + " before each compaction in Claude Code (remove leaves the notes written: they are the knowledge base's)"}
}

// noteSpecs are the agent's hook entries of samemind's pre-compact note
// (setup --sources samemind=note) with our handlers of them: entries of
// ours, which print nothing (ourSpec).
func (a *agent) noteSpecs() []*ourSpec {
	var out []*ourSpec
	for _, art := range a.p.Note {
		if h, ok := art.(*agentpkg.HookEntry); ok {
			out = append(out, a.spec("", h))
		}
	}
	return out
}
