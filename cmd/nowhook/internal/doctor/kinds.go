package doctor

import (
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/detect"
)

// What setup and setup --check know of doctor's rows: every kind of row
// doctor's project run can make (Kinds), and the rows of every check that
// reads files only, the shared ones too (Files). setup refuses a plan
// that leaves one of Files' errors, and setup --check exits 1 on each.

// Kind is one kind of row doctor's project run makes.
type Kind struct {
	// Row is the row's name as the table prints it, for an agent:
	// "claude.hook", "kanbus.config", "runtime.gemini".
	Row string
	// Shared: the row is about every agent (the repository's Kanbus
	// project, the machine's PATH), or about the machine around one agent
	// (its managed layer: machine), not one agent's files.
	Shared bool
	// Runs: its verdict comes from a program doctor runs (the installed
	// hook, kbs now), which setup --check never runs; Starts: part of it
	// does (the check starts a program; its file part is judged without).
	Runs, Starts bool
}

// Kinds lists every kind of row, for every agent of the table, in
// doctor's order.
func Kinds() []Kind {
	var out []Kind
	for _, p := range agentpkg.All {
		for _, c := range agentChecks(p) {
			_, starts := c.(starter)
			out = append(out, Kind{Row: p.Name + "." + c.Name(), Starts: starts, Shared: machine(c)})
		}
	}
	for _, c := range sharedChecks {
		runs := runs(c)
		out = append(out, Kind{Row: c.Name(), Shared: true, Runs: runs})
		if _, ok := c.(eachAgent); ok {
			for _, p := range agentpkg.All {
				out = append(out, Kind{Row: c.Name() + "." + p.Name, Shared: true, Runs: runs})
			}
		}
	}
	return out
}

// FilesOptions are StaticOptions and the Kanbus projects as the real
// repository shows them: setup judges a plan in a shadow of the
// repository, whose folders are links that the search for .kanbus.yml
// below the root does not follow (nil: looked for in root).
type FilesOptions struct {
	StaticOptions
	Kanbus *detect.Kanbus
}

// machine reports whether an agent's check judges the machine around the
// repository, not the repository's files: the managed layer, whose
// managed-only switch drops the project's hook on this machine alone.
// What setup writes stays right for every other machine, so setup writes,
// then names it, as it does a shared row's error.
func machine(c check) bool { return c.Name() == managedCheck.Name() }

// runs reports whether a shared check's verdict comes from a program it
// runs: kbs now, the installed hooks, git and samemind for the sources.
func runs(c check) bool {
	switch c.Name() {
	case kanbusQueryCheck.Name(), liveCheck.Name(), "sources.git", "sources.samemind":
		return true
	}
	return false
}

// Files is StaticWith and the shared checks after it, for every agent
// present: every row doctor makes from files alone (and from the PATH).
// Like StaticWith it starts nothing, so the rows that need a program run
// (kanbus.query, live, the sources git and samemind) are left out.
func Files(root string, agents []string, env []string, o FilesOptions) []Finding {
	d := newDoctor(Options{Root: root, Env: env, ManagedRoot: o.ManagedRoot})
	d.modes = o.Modes
	if o.Found {
		d.starts, d.startsGiven = o.Starts, true
	}
	d.scan()
	if o.Kanbus != nil {
		d.kanbus = *o.Kanbus
	}
	var out []Finding
	for _, name := range agents {
		for _, a := range d.agents {
			if a.p.Name == name {
				for _, c := range agentChecks(a.p) {
					out = append(out, d.run(c, a, a.p.Name+"."+c.Name())...)
				}
			}
		}
	}
	for _, c := range sharedChecks {
		if runs(c) {
			continue
		}
		out = append(out, d.run(c, nil, c.Name())...)
		if _, ok := c.(eachAgent); ok {
			for _, a := range d.present() {
				out = append(out, d.run(c, a, c.Name()+"."+a.p.Name)...)
			}
		}
	}
	return out
}
