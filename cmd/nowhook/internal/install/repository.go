package install

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/templates"
)

// projectRoot is the repository a command works on: --dir, else the git
// top level of the working directory. Outside git without --dir, and in
// the user's home directory, it refuses: a project-level install never
// touches the user's own agent settings.
func projectRoot(dir, command string) (string, error) {
	var root string
	if dir != "" {
		abs, err := detect.Dir(dir)
		if err != nil {
			return "", UsageError("--dir: %v", err)
		}
		root = abs
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return "", FailedUntouched(err)
		}
		top, ok := detect.GitTop(wd)
		if !ok {
			return "", UsageError("%s is not inside a git repository; run nowhook %s in your project's repository, or name the project with --dir DIR", wd, command)
		}
		root = top
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && sameDir(home, root) {
		return "", UsageError("%s is your home directory: the agents would read what nowhook writes here as your own settings for every project (~/.claude/settings.json, ~/.codex/), so the hook would run in every session on this machine (that is --scope user, for the agents that have it); run nowhook %s in a project's repository (or pass --dir DIR)", root, command)
	}
	return root, nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// defaultChoices are the detected agents in their default modes; with
// nothing detected, the table's fallback agents.
func defaultChoices(found []agent.Found) []agent.Choice {
	var choices []agent.Choice
	for _, f := range found {
		if f.Present() {
			choices = append(choices, agent.Choice{Agent: f.Agent, Mode: f.Agent.Default})
		}
	}
	if len(choices) == 0 {
		for _, a := range agent.All {
			if a.Fallback {
				choices = append(choices, agent.Choice{Agent: a, Mode: a.Default})
			}
		}
	}
	return choices
}

func anyDetected(found []agent.Found) bool {
	for _, f := range found {
		if f.Present() {
			return true
		}
	}
	return false
}

// setupTargets turns the choices into the desired state: each agent's
// mode, and its checkpoint as --checkpoint says, else as installed. It
// returns the checkpoint's threshold: --checkpoint-at, else what is
// installed, else the default.
func setupTargets(o Options, root string, choices []agent.Choice, std IO) ([]engine.Target, int) {
	var targets []engine.Target
	at := o.CheckpointAt
	for _, c := range choices {
		t := engine.Target{Agent: c.Agent, Mode: c.Mode, Checkpoint: o.Checkpoint}
		if !o.CheckpointSet {
			in := c.Agent.InstalledIn(root, false)
			t.Checkpoint = in.Checkpoint
			if at == 0 {
				at = in.CheckpointAt
			}
		}
		if t.Checkpoint && len(c.Agent.Checkpoint) == 0 && o.CheckpointSet {
			fmt.Fprintf(std.Out, "Note: %s has no hook that can add context mid-session, so it gets no automatic checkpoint; its kbs-now block says how to write one by hand.\n", c.Agent.Title)
		}
		targets = append(targets, t)
	}
	if at == 0 {
		at = agent.DefaultCheckpointAt
	}
	return targets, at
}

// setupSources are the reminder's sources setup writes: --sources, else
// what the wrappers of agents at root name (a teammate's setup keeps the
// team's choice; a second setup --scope user keeps the first one's), else
// the default.
func setupSources(o Options, root string, agents []*agent.Agent) string {
	if o.SourcesSet {
		return o.Sources
	}
	for _, a := range agents {
		if in := a.InstalledIn(root, false); in.Sources != "" {
			if norm, err := reminder.NormalSources(in.Sources); err == nil {
				return norm
			}
		}
	}
	return templates.DefaultSources
}

// kanbusNote says where the Kanbus project is when the hook might not find
// it: setup, doctor and the hook runtime look the same way, from the
// session's directory up to the git root. A repository whose projects all
// lie in sub-folders gets each one named with what a session started
// there needs from the agents set up with a hook.
func kanbusNote(w io.Writer, root string, targets []engine.Target) {
	from, _ := os.Getwd()
	if !engine.Within(root, from) {
		from = root
	}
	// --dir as the user types it, from where they are.
	dirArg := func(abs string) string {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil {
				return rel
			}
		}
		return abs
	}
	k := detect.DetectKanbusFrom(root, from)
	if dir, below := k.Below(root); below {
		arg := dirArg(filepath.Join(root, filepath.FromSlash(dir)))
		fmt.Fprintf(w, "Note: the Kanbus project is %s/ (%s/.kanbus.yml), below the repository root: the hook finds it in agent sessions whose directory is %s/ or below it, and prints nothing in sessions started elsewhere. If your agents start in %s/, set nowhook up there: nowhook setup --dir %s\n", dir, dir, dir, dir, arg)
		return
	}
	if k.Config != "" {
		return
	}
	if len(k.Projects) > 0 {
		var hooked []*agent.Agent
		for _, t := range targets {
			if t.Mode == agent.Reinject {
				hooked = append(hooked, t.Agent)
			}
		}
		fmt.Fprintln(w, "Note: "+doctor.ProjectsBelowNote(k, hooked, dirArg))
		return
	}
	more := ""
	if !k.Search.Complete {
		more = fmt.Sprintf(" (the search below the root stopped after %d folders: if your Kanbus project lives deeper, run nowhook setup in its folder to check)", k.Search.Folders)
	}
	fmt.Fprintf(w, "Note: no .kanbus.yml found from %s up to the git root, nor below the repository root%s; the hook prints nothing until there is one: create the Kanbus project with kbs init.\n", from, more)
}

// doctorWarnings prints, after a write, every finding doctor calls an
// error in the files of the agents just set up (doctor's file checks
// only: nothing is run), so that setup never leaves in silence a hook
// that will not run: "disableAllHooks": true, a blocking PreCompact hook,
// Codex's [features] hooks = false, and the like; and the warnings of the
// checks in setupWarns, about what setup's own hook just caused.
func doctorWarnings(w io.Writer, root string, choices []agent.Choice) {
	var names []string
	for _, c := range choices {
		names = append(names, c.Agent.Name)
	}
	for _, f := range doctor.Static(root, names, os.Environ()) {
		_, check, _ := strings.Cut(f.Check, ".")
		if f.Severity != doctor.Error && (f.Severity != doctor.Warn || !slices.Contains(setupWarns, check)) {
			continue
		}
		if f.Severity == doctor.Error && sharedRows[f.Check] {
			continue // the verdict names it once the files are written (afterWrite)
		}
		fmt.Fprintln(w, "Warning: "+f.Message)
		if f.Fix != "" {
			fmt.Fprintln(w, "  fix: "+f.Fix)
		}
	}
}

// setupWarns are doctor's per-agent checks (the part of the row's name
// after the agent's) whose warnings setup repeats: "twice", the reminder
// that runs twice because the user's own compact hook already runs kbs now
// beside the one setup just added (doctor derives the check for every
// agent whose hook format runs a byte-identical command once:
// HookFormat.OnceByCommand).
var setupWarns = []string{"twice"}

// onDemandReason says why an agent is on demand only: the platform's
// reason, or that it was chosen.
func onDemandReason(t engine.Target, o Options) string {
	if t.Mode == agent.Reinject || t.Mode == "" {
		return ""
	}
	if reason := t.Agent.OnDemandOnly(); reason != "" {
		return "on-demand only: " + reason
	}
	if t.Agent.OptIn != "" && t.Mode == t.Agent.Default {
		return "on-demand by default: " + t.Agent.OptIn
	}
	if o.wizard {
		return "on-demand only: chosen in the wizard"
	}
	if t.Mode == t.Agent.Default {
		return "on demand by default; --agents " + t.Agent.Name + "=reinject opts in to re-injection, " + strings.TrimPrefix(t.Agent.Reinject, "yes, ")
	}
	return "on-demand only: chosen with --agents " + t.Agent.Name + "=" + string(t.Mode)
}

// isTerminal reports whether both streams are terminals.
func isTerminal(in io.Reader, out io.Writer) bool {
	return isTTY(in) && isTTY(out)
}

// isTTY reports whether v is a terminal: /dev/null is a character device
// but not a terminal.
func isTTY(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// subFolderNote is what setup's summary line says of a project-scope
// re-inject agent whose sessions started in a sub-folder run no project
// hook: that they get no reminder and the command that covers them, or
// that the user-scope hook already does.
func subFolderNote(t engine.Target) string {
	gap := t.Agent.SubFolderGap()
	if t.Mode != agent.Reinject || gap == "" {
		return ""
	}
	if file, ok := t.Agent.UserInstalled(os.Getenv, os.Getenv("HOME")); ok {
		return "sessions started in a sub-folder get the reminder from your user-scope hook in " + osutil.TildeHome(file)
	}
	if t.Agent.Scope.User == nil {
		return gap
	}
	return gap + "; for them: nowhook setup --scope user --agents " + t.Agent.Name
}
