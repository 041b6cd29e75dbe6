package agent

import (
	"path/filepath"

	"github.com/nowhook/nowhook/generate"
)

// The managed scope (setup --scope managed) is the layer an organisation
// controls on a machine: a file each client reads from a fixed system
// folder in every session, wherever it starts, which the user's own
// settings cannot switch off (docs/platforms.md, "Managed channels").
// nowhook's wrappers for it live in one system folder, and its record of
// what it created in another, both named here as the machine has them;
// setup --root DIR writes the same tree under DIR.
const (
	// ManagedDir is the folder of the managed wrappers.
	ManagedDir = "/usr/local/libexec/nowhook"
	// ManagedRecord is the managed scope's record of what nowhook created.
	ManagedRecord = "/var/lib/nowhook/managed-scope"
)

// ManagedScope is an agent's managed install: its hook merged into the
// managed file the client loads (a drop-in of nowhook's own where the
// client merges drop-ins, else the organisation's file, merged losslessly
// like every other), running a wrapper in ManagedDir. The command names
// the wrapper by its absolute path, which needs no repository and no
// variable: the runtime finds the Kanbus project from the session's
// folder upwards and prints nothing outside one.
type ManagedScope struct {
	// Folder is the client's managed folder ("/etc/claude-code").
	Folder string
	// Settings is the schema of the managed file, its Path relative to
	// Folder.
	Settings generate.HookFile
	// Script is the wrapper's name in ManagedDir ("claude.sh").
	Script string
	// Existing: the file is merged into only where it exists already,
	// for the reason Existing gives; setup never creates it.
	Existing string
	// Guard, if set, is an artifact that refuses a file the client
	// cannot load, before the hook is merged into it.
	Guard func(path string) Artifact
	// Group, if set, is the hook entry for command in place of a
	// SessionStart compact group; Wrapper the wrapper's body in place of
	// the reminder wrapper's (Gemini CLI's per-request gate).
	Group   func(command string, o Options) generate.Hook
	Wrapper func(Options) string
	// Command, if set, runs the wrapper at path in place of ManagedRun.
	Command func(path string) string
}

// ManagedRun runs the wrapper at path where it is executable and exits 0
// where it is not, like the project and user commands.
func ManagedRun(path string) string { return generate.RunIfPresent(path) }

// ScriptPath is the wrapper's path on the machine.
func (m *ManagedScope) ScriptPath() string { return ManagedDir + "/" + m.Script }

// File is the managed file's path on the machine.
func (m *ManagedScope) File() string { return m.Folder + "/" + m.Settings.Path }

// command is the hook's command.
func (m *ManagedScope) command() string {
	if m.Command != nil {
		return m.Command(m.ScriptPath())
	}
	return ManagedRun(m.ScriptPath())
}

// Ours recognises the managed command: one that runs the wrapper in
// ManagedDir (a script of that name elsewhere is the organisation's own).
func (m *ManagedScope) Ours(command string) bool {
	return generate.RunsScriptIn([]string{ManagedDir}, m.Script)(command)
}

// Artifacts are the managed install in the tree under root ("/" on the
// machine): the file's guard (if any), the hook entry, the wrapper.
func (m *ManagedScope) Artifacts(root string) []Artifact {
	file := m.Settings
	file.Path = underRoot(root, m.File())
	script := underRoot(root, m.ScriptPath())
	var arts []Artifact
	if m.Guard != nil {
		arts = append(arts, m.Guard(file.Path))
	}
	hook := &HookEntry{File: file, Script: script, Hook: func(o Options) generate.Hook {
		var h generate.Hook
		if m.Group != nil {
			h = m.Group(m.command(), o)
		} else {
			h = generate.CompactGroup(m.command(), m.Script, o.Budget)
		}
		h.Ours = m.Ours
		return h
	}}
	w := wrapper(script)
	if m.Wrapper != nil {
		w.Body = m.Wrapper
	}
	return append(arts, hook, w)
}

// underRoot is the machine's absolute path p in the tree under root.
func underRoot(root, p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

// ManagedRefusal is why the agent has no --scope managed, or "".
func (a *Agent) ManagedRefusal() string {
	return a.scopeRefusal(a.Scope.Managed != nil, a.Scope.ManagedRefused, "nowhook has no managed install for it (docs/platforms.md lists the clients with a managed channel)")
}

// AtManagedScope is the agent as setup --scope managed and remove --scope
// managed see it: one mode, reinject, owning the managed install in the
// tree under root. It has no checkpoint, no trust step and no Markdown
// block (those are per repository).
func (a *Agent) AtManagedScope(root string) *Agent {
	return a.atScope("re-inject in every session on this machine, from the managed layer", a.Scope.Managed.Artifacts(root))
}

// ManagedHook is the hook entry of the managed install under root.
func (a *Agent) ManagedHook(root string) *HookEntry { return hookIn(a.Scope.Managed.Artifacts(root)) }
