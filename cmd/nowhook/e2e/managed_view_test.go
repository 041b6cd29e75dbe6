package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// The managed channels of the clients are system folders with fixed paths
// (/etc/claude-code, /etc/codex, /etc/gemini-cli, /etc/qwen-code, ...):
// Claude Code and Codex read no variable that moves them. A test that
// proves a managed install must therefore show the client those folders
// without writing the machine's own /etc. A sysView does that on Linux: the
// client runs in a private mount namespace (unshare --mount, which needs
// root; CI runs as root) where each system folder is a folder of the
// test's, bind-mounted over it. A folder that does not exist on the machine
// gets a mount point inside an overlay of its nearest existing parent,
// whose writable layer is a tmpfs of that namespace alone: the client sees
// the rest of /etc as it is, and whatever it writes there is gone when it
// exits. What it writes in a system folder of the view lands in the test's
// folder, where the test can read it. Processes the client starts (its
// hooks) share the view; processes outside it see the machine as it is.

// sysView is a private view of system folders: each key (an absolute
// path, such as /etc/claude-code) shows the test folder it maps to.
type sysView struct {
	dirs  map[string]string // system folder -> the test's folder
	setup string            // the script that makes the view, then runs its arguments
}

// newSysView makes the test folders of dirs (system folder -> test folder)
// and returns the view, after checking that a process in it sees each
// test folder at its system path. It skips the test, saying why, where a
// private mount namespace cannot be made (not Linux, not root, unshare or
// mount refused).
func newSysView(t *testing.T, dirs map[string]string) *sysView {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the managed channels are system folders, which the tests show a client through a Linux mount namespace; %s has none", runtime.GOOS)
	}
	tools := map[string]string{}
	for _, name := range []string{"unshare", "mount"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s not found (util-linux): the managed-scope tests give the client its own view of the system folders with unshare --mount", name)
		}
		tools[name] = p
	}
	if os.Geteuid() != 0 {
		t.Skip("unshare --mount needs root (CI runs as root): the managed-scope tests give the client its own view of the system folders, never writing the machine's")
	}
	script, err := viewScript(t.TempDir(), tools["mount"], dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	v := &sysView{dirs: dirs, setup: filepath.Join(t.TempDir(), "sysview-setup.sh")}
	writeFile(t, v.setup, "#!/bin/sh\n"+script, 0o755)
	v.setup = tools["unshare"] + " --mount --propagation private /bin/sh " + shQuote(v.setup)

	// A process in the view sees the same folder as the test at each path.
	var check []string
	for sys, d := range dirs {
		check = append(check, fmt.Sprintf("[ %s -ef %s ] || { echo 'view: %s is not the test folder' >&2; exit 1; }", shQuote(sys), shQuote(d), sys))
	}
	sort.Strings(check)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := runCmd(t, ctx, []string{"PATH=/usr/bin:/bin"}, "", "", v.wrap(t, "/bin/sh"), "-c", strings.Join(check, "\n"))
	if res.err != nil {
		t.Skipf("cannot make a private view of the system folders here (unshare --mount with a tmpfs, an overlay and bind mounts): %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	return v
}

// viewScript is the shell script that makes the view inside the new mount
// namespace and then runs its arguments: a tmpfs at stage for the overlays'
// writable layers, an overlay of the nearest existing parent of each
// system folder that does not exist, the folder made there, and each test
// folder bind-mounted over its system folder.
func viewScript(stage, mount string, dirs map[string]string) (string, error) {
	var sys []string
	for s := range dirs {
		if !filepath.IsAbs(s) || filepath.Clean(s) != s || s == "/" {
			return "", fmt.Errorf("sysView: %q is not a clean absolute folder below /", s)
		}
		sys = append(sys, s)
	}
	sort.Strings(sys)
	for i := 1; i < len(sys); i++ {
		if strings.HasPrefix(sys[i], sys[i-1]+"/") {
			return "", fmt.Errorf("sysView: %s is inside %s; map one of them", sys[i], sys[i-1])
		}
	}
	overlays := map[string]bool{}
	var made []string
	for _, s := range sys {
		fi, err := os.Stat(s)
		switch {
		case err == nil && !fi.IsDir():
			return "", fmt.Errorf("sysView: %s exists and is not a folder", s)
		case err == nil:
			continue // bind-mounted over as it is
		case !errors.Is(err, os.ErrNotExist):
			return "", fmt.Errorf("sysView: %w", err)
		}
		parent := filepath.Dir(s)
		for {
			if _, err := os.Stat(parent); err == nil {
				break
			}
			parent = filepath.Dir(parent)
		}
		if parent == "/" {
			return "", fmt.Errorf("sysView: %s has no existing parent below /; an overlay of / is not made", s)
		}
		overlays[parent] = true
		made = append(made, s)
	}
	var lowers []string
	for p := range overlays {
		lowers = append(lowers, p)
	}
	sort.Strings(lowers) // a parent before the folders inside it
	q := shQuote
	var b strings.Builder
	b.WriteString("# Makes a private view of system folders (sysView, cmd/nowhook/e2e/managed_view_test.go), then runs \"$@\".\nset -e\n")
	if len(lowers) > 0 {
		fmt.Fprintf(&b, "%s -t tmpfs nowhook-e2e-view %s\n", mount, q(stage))
	}
	for i, p := range lowers {
		if strings.ContainsAny(p, ",:") {
			return "", fmt.Errorf("sysView: %s: an overlay's lower folder cannot hold a comma or colon", p)
		}
		up, work := fmt.Sprintf("%s/%d-upper", stage, i), fmt.Sprintf("%s/%d-work", stage, i)
		fmt.Fprintf(&b, "mkdir %s %s\n", q(up), q(work))
		fmt.Fprintf(&b, "%s -t overlay nowhook-e2e-view -o %s %s\n", mount, q("lowerdir="+p+",upperdir="+up+",workdir="+work), q(p))
	}
	for _, s := range made {
		fmt.Fprintf(&b, "mkdir -p %s\n", q(s))
	}
	for _, s := range sys {
		fmt.Fprintf(&b, "%s --bind %s %s\n", mount, q(dirs[s]), q(s))
	}
	b.WriteString("exec \"$@\"\n")
	return b.String(), nil
}

// wrap returns an executable that runs bin in the view with the arguments
// it is given: pass it to any runner in place of a client's path. Each run
// makes a view of its own; the test folders are shared by all of them.
func (v *sysView) wrap(t *testing.T, bin string) string {
	t.Helper()
	w := filepath.Join(t.TempDir(), filepath.Base(bin))
	writeFile(t, w, "#!/bin/sh\n# Runs "+bin+" in a private view of system folders (sysView).\nexec "+v.setup+" "+shQuote(bin)+" \"$@\"\n", 0o755)
	return w
}

// hostState describes what the machine itself has at path: absent, or a
// folder listing with the size and content of each file below it.
func hostState(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", p, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() && fi.Size() <= 1<<20 {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteString("\n")
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return path + ": absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestManagedViewIsPrivate proves the harness: in a view that maps
// /etc/claude-code, /etc/codex, /etc/gemini-cli, /etc/qwen-code, Factory's
// /etc/factory and nowhook's future wrapper folder /usr/local/libexec/nowhook
// to test folders, a process reads the test's files at the system paths,
// still reads the rest of /etc, and what it writes in a mapped folder lands
// in the test folder, while what it writes elsewhere in /etc is gone; the
// machine's own folders are as they were, and two views do not see each
// other's folders.
func TestManagedViewIsPrivate(t *testing.T) {
	t.Parallel()
	sys := []string{"/etc/claude-code", "/etc/codex", "/etc/gemini-cli", "/etc/qwen-code", "/etc/factory", "/usr/local/libexec/nowhook"}
	stray := fmt.Sprintf("/etc/nowhook-e2e-stray-%d", os.Getpid())
	before := map[string]string{}
	for _, p := range append(sys, stray) {
		before[p] = hostState(t, p)
	}
	root := t.TempDir()
	views := make([]*sysView, 2)
	for i := range views {
		dirs := map[string]string{}
		for _, p := range sys {
			dirs[p] = filepath.Join(root, fmt.Sprint(i), strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "_"))
		}
		views[i] = newSysView(t, dirs)
		writeFile(t, filepath.Join(dirs["/etc/claude-code"], "managed-settings.json"), fmt.Sprintf(`{"view": %d}`+"\n", i), 0o644)
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatalf("the machine has no /etc/passwd to check the rest of /etc with: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, v := range views {
		script := `set -e
cat /etc/claude-code/managed-settings.json
test -s /etc/passwd && echo passwd-seen
echo inside > /etc/codex/requirements.toml
echo wrapper > /usr/local/libexec/nowhook/kanbus-compaction-right-now.sh
echo stray > ` + stray + `
cat ` + stray
		res := runCmd(t, ctx, []string{"PATH=/usr/bin:/bin"}, "", "", v.wrap(t, "/bin/sh"), "-c", script)
		if res.err != nil {
			t.Fatalf("view %d: %v\n%s%s", i, res.err, res.stdout, res.stderr)
		}
		if want := fmt.Sprintf("{\"view\": %d}\npasswd-seen\nstray\n", i); res.stdout != want {
			t.Errorf("view %d: the process printed %q, want %q (its own managed-settings.json, the machine's /etc/passwd, its own stray file)", i, res.stdout, want)
		}
		for p, want := range map[string]string{"/etc/codex": "requirements.toml", "/usr/local/libexec/nowhook": "kanbus-compaction-right-now.sh"} {
			if _, err := os.Stat(filepath.Join(v.dirs[p], want)); err != nil {
				t.Errorf("view %d: what the process wrote in %s is not in the test folder: %v", i, p, err)
			}
		}
	}
	for _, p := range append(sys, stray) {
		if after := hostState(t, p); after != before[p] {
			t.Errorf("the machine's %s changed while the views ran:\nbefore: %s\nafter:  %s", p, before[p], after)
		}
	}
	var states []string
	for _, p := range append(sys, stray) {
		states = append(states, strings.TrimSpace(before[p]))
	}
	t.Logf("the machine's folders, the same before and after two views: %s", strings.Join(states, "; "))
}
