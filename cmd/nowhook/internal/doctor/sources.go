package doctor

import (
	"fmt"
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
		chosen := false
		for list := range d.chosenSources() {
			chosen = chosen || strings.Contains(","+list+",", ","+name+",")
		}
		if !chosen {
			return nil
		}
		var out []Finding
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
