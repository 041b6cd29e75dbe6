package agent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/generate"
)

// TestUserScope: the user-scope command is recognised as ours, never as
// a spelling of the project's hook (doctor and setup would then treat it
// as a second copy of that hook), names the project's wrapper first in
// NOWHOOK_DEFER, and needs no repository path.
func TestUserScope(t *testing.T) {
	for _, a := range All {
		u := a.Scope.User
		if u == nil {
			if a.UserRefusal() == "" {
				t.Errorf("%s: no user scope and no reason for refusing it", a.Name)
			}
			continue
		}
		cmd := u.Command()
		if !u.Ours(cmd) {
			t.Errorf("%s: the user-scope command is not recognised as ours: %s", a.Name, cmd)
		}
		for _, mh := range a.HookEntries() {
			if generate.RunsScript(mh.Hook.Script)(cmd) || mh.Hook.Hook(Options{Budget: DefaultBudget}).Ours(cmd) {
				t.Errorf("%s: the project hook's recogniser takes the user-scope command for its own: %s", a.Name, cmd)
			}
			if u.Ours(entryCommand(mh.Hook.Hook(Options{Budget: DefaultBudget}))) {
				t.Errorf("%s: the user-scope recogniser takes the project's command for its own", a.Name)
			}
		}
		if len(u.Defer) == 0 {
			// No project hook to defer to (Kimi Code's loads none).
			if len(a.HookEntries()) > 0 || strings.Contains(cmd, DeferVar) {
				t.Errorf("%s: no project files to defer to, but project hooks %d, command %q", a.Name, len(a.HookEntries()), cmd)
			}
		} else if want := DeferVar + "=" + u.Defer[0] + ":"; !strings.HasPrefix(cmd, want) {
			t.Errorf("%s: command %q does not start with %q", a.Name, cmd, want)
		}
		if strings.Contains(cmd, "PROJECT_DIR") {
			t.Errorf("%s: the user-scope command depends on the project directory: %s", a.Name, cmd)
		}
		if a.Scope.SubFolders {
			t.Errorf("%s: a user scope for an agent that runs project hooks from sub-folders", a.Name)
		}
		home := t.TempDir()
		dir, err := u.Folder(func(string) string { return "" }, home)
		if err != nil || dir != filepath.Join(home, strings.TrimPrefix(u.Default, "~/")) {
			t.Errorf("%s: folder %q, %v", a.Name, dir, err)
		}
		if dir, err := u.Folder(func(k string) string { return map[string]string{u.Var: "/elsewhere"}[k] }, home); err != nil || dir != "/elsewhere" {
			t.Errorf("%s: with %s=/elsewhere: folder %q, %v", a.Name, u.Var, dir, err)
		}
		if _, err := u.Folder(func(k string) string { return map[string]string{u.Var: "rel"}[k] }, home); err == nil {
			t.Errorf("%s: a relative %s is accepted", a.Name, u.Var)
		}
	}
}

// entryCommand is the command of a hook entry's first handler.
func entryCommand(h generate.Hook) string {
	for _, m := range h.Entry {
		if m.Key == "hooks" {
			if hs, ok := m.Value.([]generate.Ordered); ok && len(hs) > 0 {
				for _, hm := range hs[0] {
					if hm.Key == "command" {
						s, _ := hm.Value.(string)
						return s
					}
				}
			}
		}
	}
	return ""
}

// TestOursIsExact: each hook entry's recogniser and the user-scope one
// take their own command for theirs, and never a script of the same file
// name run from another folder: the user's ./scripts/, ~/bin/, the home
// directory, another agent's folder or another entry's script. Setup and
// remove leave such a hook alone.
func TestOursIsExact(t *testing.T) {
	var scripts []string
	for _, a := range All {
		for _, mh := range a.HookEntries() {
			scripts = append(scripts, mh.Hook.Script)
		}
	}
	for _, a := range All {
		for _, mh := range a.HookEntries() {
			h := mh.Hook.Hook(Options{Budget: DefaultBudget})
			cmd := entryCommand(h)
			for _, m := range h.Entry {
				if c, ok := m.Value.(string); ok && m.Key == "command" {
					cmd = c // a flat handler (Cursor's hooks.json)
				}
			}
			if !h.Ours(cmd) {
				t.Errorf("%s: %s's own command is not recognised: %s", a.Name, mh.Hook.Script, cmd)
			}
			base := filepath.Base(mh.Hook.Script)
			others := []string{"./scripts/" + base, "~/bin/" + base, "bash $HOME/bin/" + base, "~/" + mh.Hook.Script, "/opt/tools/" + mh.Hook.Script}
			for _, s := range scripts {
				if s != mh.Hook.Script {
					others = append(others, s, `"$CLAUDE_PROJECT_DIR"/`+s)
				}
			}
			for _, cmd := range others {
				if h.Ours(cmd) {
					t.Errorf("%s: %s's recogniser takes the user's %q for ours", a.Name, mh.Hook.Script, cmd)
				}
			}
		}
		u := a.Scope.User
		if u == nil {
			continue
		}
		cmd := u.Command()
		spelled := strings.ReplaceAll(cmd, "$HOME/"+strings.TrimPrefix(u.Default, "~/"), u.Default)
		if !u.Ours(spelled) {
			t.Errorf("%s: the user-scope command with %s is not recognised: %s", a.Name, u.Default, spelled)
		}
		defer0 := DeferVar + "=" + strings.Join(u.Defer, ":") + "; export " + DeferVar + "; "
		others := []string{
			defer0 + "exec ~/bin/" + filepath.Base(u.Script),
			defer0 + "exec ~/bin/" + u.Script,
			defer0 + `exec "$HOME"/` + u.Script,
			strings.ReplaceAll(cmd, u.Var, "XDG_CONFIG_HOME"),
			strings.ReplaceAll(cmd, u.Script, "bin/"+filepath.Base(u.Script)),
		}
		if len(u.Defer) > 0 {
			others = append(others, strings.TrimPrefix(cmd, DeferVar+"="))
		}
		for _, other := range others {
			if u.Ours(other) {
				t.Errorf("%s: the user-scope recogniser takes the user's %q for ours", a.Name, other)
			}
		}
	}
}
