package agent

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/nowhook/nowhook/generate"
)

// Scope is where an agent loads a project's hooks from, as measured
// (docs/platforms.md), and nowhook's user-level install for the agent
// (setup --scope user), if it has one. The zero Scope is an agent without
// a hook: it has nothing to load and nothing to install.
type Scope struct {
	// SubFolders: a session started in a sub-folder of the repository
	// runs the project's hooks too.
	SubFolders bool
	// Loads says where the agent loads the project's hooks from, for the
	// matrix and setup's summary ("only from the directory it starts in").
	Loads string
	// User is what setup --scope user installs; nil: the agent refuses
	// --scope user, for the reason Refused gives.
	User    *UserScope
	Refused string
	// Managed is what setup --scope managed installs (managed.go); nil:
	// the agent refuses --scope managed, for the reason ManagedRefused
	// gives.
	Managed        *ManagedScope
	ManagedRefused string
	// ManagedOnly is the client's managed-only switch (managedonly.go),
	// nil where it has none.
	ManagedOnly *ManagedOnly
}

// StartDirOnly reports whether the agent runs a project's hooks only in
// sessions started in the folder that holds them, never in its
// sub-folders: a session started below the root needs the hook set up
// where it starts (nowhook setup --dir) or the user scope.
func (a *Agent) StartDirOnly() bool { return a.Scope.Loads != "" && !a.Scope.SubFolders }

// UserScope is an agent's user-level install: a compact hook merged into
// the settings file the agent loads wherever a session starts, running a
// wrapper beside it. Its command needs no repository path: the runtime
// finds the Kanbus project from the session's directory upwards, and
// prints nothing outside one.
type UserScope struct {
	// Var and Default name the agent's user folder: the variable that
	// moves it, and where it is otherwise ("~/.claude").
	Var, Default string
	// Settings is the schema of the settings file (its Path relative to
	// the user folder), Script the wrapper's path there.
	Settings generate.HookFile
	Script   string
	// Defer are the project files that make the user hook step aside in
	// a session whose project directory has them: the project's wrapper,
	// then the settings files that may run it. There the project's own
	// hook prints the reminder, so the session gets one, not two.
	Defer []string
	// Guard, if set, is an artifact that refuses a settings file the
	// agent cannot load, before the hook is merged into it.
	Guard func(path string) Artifact
	// Tables, if set, is the hook entry of a TOML settings file (Kimi
	// Code's config.toml; Settings then gives its path alone): our tables
	// there, each running command. Wrapper, if set, is the wrapper's body
	// in place of the reminder wrapper's; Check, if set, is doctor --scope
	// user's row in place of its checks of a JSON hook file.
	Tables  func(command string, o Options) generate.TOMLTables
	Wrapper func(Options) string
	Check   *Check
}

// DeferVar is the variable the user-scope command hands the runtime: the
// project files (colon-separated) whose presence in the session's project
// directory means the project's own hook prints the reminder.
const DeferVar = "NOWHOOK_DEFER"

// UserRefusal is why the agent has no --scope user, or "".
func (a *Agent) UserRefusal() string {
	return a.scopeRefusal(a.Scope.User != nil, a.Scope.Refused, "nowhook has no user-level install for it")
}

// scopeRefusal is why the agent has no install in a scope outside the
// repository, or "" where it has one (installed): the agent's own reason
// (refused), else that it has no hook, else none.
func (a *Agent) scopeRefusal(installed bool, refused, none string) string {
	switch {
	case installed:
		return ""
	case refused != "":
		return refused
	case a.OnDemandOnly() != "":
		return "it has no hook that could print the reminder (" + a.OnDemandOnly() + ")"
	}
	return none
}

// Dir is the user folder as people write it: "${CLAUDE_CONFIG_DIR:-~/.claude}".
func (u *UserScope) Dir() string { return "${" + u.Var + ":-" + u.Default + "}" }

// Folder resolves the user folder from the environment. A relative value
// of the variable is refused: the hook runs in every session's directory,
// where it would name another folder.
func (u *UserScope) Folder(getenv func(string) string, home string) (string, error) {
	if v := getenv(u.Var); v != "" {
		if !filepath.IsAbs(v) {
			return "", fmt.Errorf("%s=%s is a relative path; the hook runs in each session's own directory, where it names another folder: set %s to an absolute path", u.Var, v, u.Var)
		}
		return filepath.Clean(v), nil
	}
	if home == "" {
		return "", fmt.Errorf("HOME is not set, so %s is nowhere: set HOME or %s", u.Default, u.Var)
	}
	return filepath.Join(home, strings.TrimPrefix(u.Default, "~/")), nil
}

// Command is the user-scope hook's command: it names the project files to
// defer to (if the agent has project hooks), then runs the wrapper in the
// user folder, as the variable gives it when the hook runs; it exits 0
// when the wrapper is missing.
func (u *UserScope) Command() string {
	def := "$HOME/" + strings.TrimPrefix(u.Default, "~/")
	run := `s="${` + u.Var + ":-" + def + "}/" + u.Script + `"; [ ! -x "$s" ] || exec "$s"`
	if len(u.Defer) == 0 {
		return run
	}
	return DeferVar + "=" + strings.Join(u.Defer, ":") + "; export " + DeferVar + "; " + run
}

// Ours recognises the user-scope command, in any spelling that names the
// defer variable (if the agent has project hooks to defer to) and runs
// the wrapper in the user folder as the command names it
// ("${CLAUDE_CONFIG_DIR:-$HOME/.claude}", or with ~): a script of that
// name in another folder is the user's own.
func (u *UserScope) Ours(command string) bool {
	home := "$HOME/" + strings.TrimPrefix(u.Default, "~/")
	dirs := []string{"${" + u.Var + ":-" + home + "}", u.Dir()}
	return (len(u.Defer) == 0 || strings.Contains(command, DeferVar+"=")) && generate.RunsScriptIn(dirs, u.Script)(command)
}

// Artifacts are the user-scope install in folder dir, with absolute
// paths: the settings file's guard (if any), the hook entry, the wrapper.
func (u *UserScope) Artifacts(dir string) []Artifact {
	file := u.Settings
	file.Path = filepath.Join(dir, filepath.FromSlash(u.Settings.Path))
	script := filepath.Join(dir, filepath.FromSlash(u.Script))
	var arts []Artifact
	if u.Guard != nil {
		arts = append(arts, u.Guard(file.Path))
	}
	hook := &HookEntry{File: file, Script: script, Hook: func(o Options) generate.Hook {
		h := generate.CompactGroup(u.Command(), u.Script, o.Budget)
		h.Ours = u.Ours
		return h
	}}
	w := wrapper(script)
	if u.Tables != nil {
		hook.TOML = func(o Options) generate.TOMLTables { return u.Tables(u.Command(), o) }
		hook.Hook = func(Options) generate.Hook { return generate.Hook{Ours: u.Tables(u.Command(), Options{}).Ours} }
	}
	if u.Wrapper != nil {
		w.Body = u.Wrapper
	}
	return append(arts, hook, w)
}

// AtUserScope is the agent as setup --scope user and remove --scope user
// see it: one mode, reinject, owning the user-scope install in folder
// dir. It has no checkpoint, no trust step and no Markdown block (those
// are per repository).
func (a *Agent) AtUserScope(dir string) *Agent {
	return a.atScope("re-inject in every session on this machine", a.Scope.User.Artifacts(dir))
}

// atScope is the agent with one mode, reinject, in words, owning arts:
// its install in a scope outside the repository.
func (a *Agent) atScope(words string, arts []Artifact) *Agent {
	return &Agent{
		Name:    a.Name,
		Title:   a.Title,
		Default: Reinject,
		Modes:   []ModeSpec{{Mode: Reinject, Words: words, Artifacts: arts}},
		Hooks:   a.Hooks,
		Scope:   a.Scope,
	}
}

// ParseUserAgents parses --agents for setup --scope user: an agent named
// without a mode, or with reinject, stands for its user-scope hook, whatever
// its project default (Kimi Code's is on demand: a project install cannot
// reach the one file it loads hooks from). Another mode is kept for the
// caller to refuse.
func ParseUserAgents(list string) ([]Choice, error) {
	return parseScopeAgents(list, func(a *Agent) bool { return a.Scope.User != nil })
}

// ParseManagedAgents parses --agents for setup --scope managed, as
// ParseUserAgents does for the user scope.
func ParseManagedAgents(list string) ([]Choice, error) {
	return parseScopeAgents(list, func(a *Agent) bool { return a.Scope.Managed != nil })
}

// parseScopeAgents parses --agents for a scope with one mode, reinject,
// for the agents that has reports.
func parseScopeAgents(list string, has func(*Agent) bool) ([]Choice, error) {
	var plain []string
	user := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		name, mode, hasMode := strings.Cut(strings.TrimSpace(item), "=")
		if a, ok := Lookup(name); ok && has(a) && (!hasMode || Mode(mode) == Reinject) {
			item, user[name] = name, true
		}
		plain = append(plain, item)
	}
	choices, err := ParseAgents(strings.Join(plain, ","))
	for i, c := range choices {
		if user[c.Agent.Name] {
			choices[i].Mode = Reinject
		}
	}
	return choices, err
}

// UserHook is the hook entry of the user-scope install in folder dir.
func (a *Agent) UserHook(dir string) *HookEntry { return hookIn(a.Scope.User.Artifacts(dir)) }

// hookIn is the hook entry among arts, nil where there is none.
func hookIn(arts []Artifact) *HookEntry {
	for _, art := range arts {
		if h, ok := art.(*HookEntry); ok {
			return h
		}
	}
	return nil
}

// SubFolderGap is what setup's summary and doctor say of an agent whose
// sessions started in a sub-folder run no project hook, or "" when they
// do (or the agent has no hook).
func (a *Agent) SubFolderGap() string {
	if a.Scope.SubFolders || a.Scope.Loads == "" {
		return ""
	}
	return "sessions started in a sub-folder get no reminder (" + a.Title + " loads project hooks " + a.Scope.Loads + ")"
}

// SubFolderCell is the matrix's cell for a session started in a
// sub-folder of the repository.
func (a *Agent) SubFolderCell() string {
	switch {
	case a.Scope.Loads == "" && a.Scope.User != nil:
		return "re-injects with `setup --scope user --agents " + a.Name + "`: " + a.Title + " loads hooks only from the user's own settings, wherever a session starts"
	case a.Scope.Loads == "":
		return "nothing to re-inject (on demand only)"
	case a.Scope.SubFolders:
		return "re-injects: " + a.Title + " loads project hooks " + a.Scope.Loads
	case a.Scope.User != nil:
		return "no reminder from the project's hook (" + a.Title + " loads project hooks " + a.Scope.Loads + "); `setup --scope user --agents " + a.Name + "` covers every session"
	}
	cell := "no reminder: " + a.Title + " loads project hooks " + a.Scope.Loads
	if a.Default != Reinject {
		cell = "with `" + a.Name + "=" + string(Reinject) + "`, " + cell
	}
	return cell
}

// userSettings is a project settings schema for the user's own file: its
// path relative to the user folder.
func userSettings(f generate.HookFile) generate.HookFile {
	f.Path = filepath.Base(f.Path)
	return f
}

// HookFrom says which hook file of the repository's a session started in
// from loads nowhook's reminder hook from, and whether it holds the hook
// and its wrapper: an agent that loads project hooks from the start folder
// and the folders above it takes the root's; one that loads them only from
// the start folder takes that folder's own (set up there with setup
// --dir). file is "" for an agent without a re-inject hook.
func (a *Agent) HookFrom(f Files, from string) (file string, runs bool) {
	for _, mh := range a.HookEntries() {
		if mh.Mode != Reinject {
			continue
		}
		dir := "."
		if a.StartDirOnly() {
			dir = cleanFrom(from)
		}
		file = path.Join(dir, mh.Hook.File.Path)
		b, ok := f.Read(file)
		if !ok || !mh.Hook.Present(b) {
			return file, false
		}
		_, ok = f.Read(path.Join(dir, mh.Hook.Script))
		return file, ok
	}
	return "", false
}
