package prove

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// Payload is what the stand-in kbs prints for `kbs now --json --list`
// (docs/platforms.md#kanbus, the contract's field order).
const Payload = `[
  {
    "id": "kbs-prove1",
    "title": "Prove the compaction hook",
    "type": "task",
    "status": "in_progress",
    "priority": 1,
    "updated_at": "2026-03-01T12:34:56.000Z",
    "right_now_summary": "nowhook doctor --prove is running.",
    "parent": null
  }
]
`

// Reminder is the reminder nowhook prints for Payload: the text the first
// request after the compaction must carry.
const Reminder = "Kanbus WIP (whole project, capped):\n\n- [P1][in_progress] kbs-prove1: Prove the compaction hook — nowhook doctor --prove is running."

// standInKbs is the stand-in kbs: it counts its calls and prints the
// payload for `kbs now --json ...`.
const standInKbs = "#!/bin/sh\n# stand-in kbs of nowhook doctor --prove: prints a fixed payload\necho \"$$\" >>%[1]s\ncase \"$*\" in\n*now*--json*) exec cat %[2]s ;;\nesac\necho \"stand-in kbs: unsupported: $*\" >&2\nexit 1\n"

// Copy bounds: a repository larger than this is not copied.
const (
	maxFiles = 20000
	maxBytes = 256 << 20
)

// world is one client's throw-away world: the copy of the agent's view
// (view), a temporary HOME (home), a bin directory first on PATH with the
// stand-in kbs and nowhook, and the client.
type world struct {
	dir, view, home, bin, tmp string
	net                       *offline // where the client and its mock run
	client                    string   // the client's absolute path
	path                      string   // the PATH the client gets
	calls                     string   // the stand-in kbs appends a line per call
	user                      bool     // proving the user scope
	root                      string   // the repository copied ("" for the user scope)
	userEnv                   []string
	// userVar moves the client's user folder into the temporary HOME
	// where the user's environment moves it (CLAUDE_CONFIG_DIR=...), "".
	userVar string
}

// newWorld makes the world for agent a: the repository copied (or, for
// the user scope, an empty Kanbus project and a copy of the user's hook
// files in the temporary HOME).
func newWorld(o Options, a *agentpkg.Agent, client string, net *offline) (*world, error) {
	dir, err := os.MkdirTemp("", copyPrefix()+a.Name+"-")
	if err != nil {
		return nil, err
	}
	w := &world{dir: dir, view: filepath.Join(dir, "view"), home: filepath.Join(dir, "home"),
		bin: filepath.Join(dir, "bin"), tmp: filepath.Join(dir, "tmp"), net: net, client: client,
		calls: filepath.Join(dir, "kbs-calls"), user: o.User, root: o.Root, userEnv: o.Env}
	for _, d := range []string{w.view, w.home, w.bin, w.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return w, err
		}
	}
	payload := filepath.Join(dir, "payload.json")
	if err := os.WriteFile(payload, []byte(Payload), 0o644); err != nil {
		return w, err
	}
	if err := os.WriteFile(filepath.Join(w.bin, "kbs"), fmt.Appendf(nil, standInKbs, diag.ShellQuote(w.calls), diag.ShellQuote(payload)), 0o755); err != nil {
		return w, err
	}
	if o.Self != "" {
		if err := os.Symlink(o.Self, filepath.Join(w.bin, "nowhook")); err != nil {
			return w, err
		}
	}
	w.path = w.bin + string(filepath.ListSeparator) + filepath.Dir(client) + string(filepath.ListSeparator) + osutil.Getenv(o.Env, "PATH")
	if o.User {
		err = w.userView(o, a)
	} else {
		err = copyTree(o.Root, w.view)
	}
	if err != nil {
		return w, err
	}
	if git, err := exec.LookPath("git"); err == nil {
		// A repository of its own, with no history: the clients and the
		// hook runtime look for the git root.
		cmd := exec.Command(git, "init", "-q")
		cmd.Dir, cmd.Env = w.view, w.env()
		cmd.Run()
	}
	return w, nil
}

// userView makes an empty Kanbus project and copies the agent's user
// settings file and wrapper into the temporary HOME, at the same place.
func (w *world) userView(o Options, a *agentpkg.Agent) error {
	if err := os.WriteFile(filepath.Join(w.view, ".kanbus.yml"), []byte("project_directory: project\nproject_key: kbs\n"), 0o644); err != nil {
		return err
	}
	home := osutil.Getenv(o.Env, "HOME")
	dir, err := a.Scope.User.Folder(func(k string) string { return osutil.Getenv(o.Env, k) }, home)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(dir, home+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside HOME (%s moves it): prove copies only folders under HOME", dir, a.Scope.User.Var)
	}
	if v := a.Scope.User.Var; v != "" && osutil.Getenv(o.Env, v) != "" {
		rel, err := filepath.Rel(home, dir)
		if err != nil {
			return err
		}
		w.userVar = v + "=" + filepath.Join(w.home, rel)
	}
	h := a.UserHook(dir)
	for _, p := range []string{h.File.Path, h.Script} {
		rel, err := filepath.Rel(home, p)
		if err != nil {
			return err
		}
		if err := copyFile(p, filepath.Join(w.home, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// env is the client's whole environment: nothing of the user's but
// PATH, plus extra, and the marker that sweep finds its processes by.
func (w *world) env(extra ...string) []string {
	env := []string{"PATH=" + w.path, "HOME=" + w.home, "LANG=C.UTF-8", "TMPDIR=" + w.tmp, markerEnv + "=" + w.dir}
	if w.userVar != "" {
		env = append(env, w.userVar)
	}
	return append(env, extra...)
}

// userDir is the client's user folder in the temporary HOME: def (its
// name under HOME, ".qwen") unless the user's environment moves it.
func (w *world) userDir(def string) string {
	if _, dir, ok := strings.Cut(w.userVar, "="); ok {
		return dir
	}
	return filepath.Join(w.home, def)
}

// shown names, in a message about the copy, the files it was copied
// from: the repository (the user's folder under the temporary HOME).
func (w *world) shown(msg string, o Options) string {
	if o.User {
		return strings.ReplaceAll(msg, w.home, "~")
	}
	return strings.ReplaceAll(msg, w.view, o.Root)
}

// kbsCalls is how often the stand-in kbs ran.
func (w *world) kbsCalls() int {
	b, _ := os.ReadFile(w.calls)
	return strings.Count(string(b), "\n")
}

// remove ends what is left running in the world, then deletes it (its
// files may be read-only: a client's own caches).
func (w *world) remove() {
	sweep(w.dir, w.net)
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(w.dir)
}

// markerEnv is set, to the world's folder, in the environment of every
// process prove starts, and passes to their children.
const markerEnv = "NOWHOOK_PROVE_COPY"

// sweep kills every process left from the world in dir, and waits (a
// bounded time) until each is gone. The clients' process groups are
// killed already, but a client may start a process in a group or a
// session of its own (Qwen Code's hooks; an `opencode serve` that
// outlived its group): a process is the world's when it is in the
// world's network namespace (net, where there is one: every descendant of
// a client is), when its environment carries the world's marker, or when
// its working directory is inside the world. SIGKILL at once: the world
// is deleted next, so there is nothing a client could save.
func sweep(dir string, net *offline) {
	marker := markerEnv + "=" + dir
	for range 10 { // a process may start another while it is swept
		var left []int
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil || pid == os.Getpid() || dead(p.Name()) {
				continue
			}
			if ours(p.Name(), dir, marker, net) {
				osutil.KillPID(pid)
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		waitGone(left)
	}
}

// ours reports whether process pid belongs to the world in dir.
func ours(pid, dir, marker string, net *offline) bool {
	if net != nil && net.id != "" && netOf(pid) == net.id {
		return true
	}
	if cwd, err := os.Readlink("/proc/" + pid + "/cwd"); err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator))) {
		return true
	}
	env, _ := os.ReadFile("/proc/" + pid + "/environ")
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// dead reports whether process pid has ended (gone, or a zombie that
// its parent has not reaped yet).
func dead(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] == 'Z' || b[i+2] == 'X'
	}
	return false
}

// waitGone waits until every process of pids has ended, for at most
// reapWait: SIGKILL is delivered when the process next runs, which on a
// busy machine is later.
func waitGone(pids []int) {
	until := time.Now().Add(reapWait)
	for _, pid := range pids {
		for !dead(strconv.Itoa(pid)) && time.Now().Before(until) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// reapWait bounds how long sweep waits for the processes it killed.
const reapWait = 10 * time.Second

// copyPrefix starts the name of every temporary folder prove makes, with
// the pid of the nowhook that made it, so that a later run can remove the
// ones a killed nowhook left (removeStale).
func copyPrefix() string { return fmt.Sprintf("nowhook-prove-%d-", os.Getpid()) }

// removeStale removes the temporary folders of doctor --prove runs whose
// nowhook has ended without removing them (it was killed: SIGKILL cannot
// be caught), after killing what still runs from them.
func removeStale() {
	tmp := os.TempDir()
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "nowhook-prove-")
		num, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(num)
		if !ok || !e.IsDir() || err != nil || pid == os.Getpid() || osutil.Running(pid) {
			continue
		}
		w := &world{dir: filepath.Join(tmp, e.Name())}
		if info, err := e.Info(); err == nil && owned(info) {
			w.remove()
		}
	}
}

// copyTree copies the files under src to dst: regular files with their
// mode; a symbolic link that stays inside src as a link into the copy,
// one that leads out of it (a .claude linked into a dotfiles folder) as a
// copy of what it points at, so that a client writing through it writes
// into the copy; no node_modules folder and no .git at any depth, folder
// or file: a worktree's or submodule's .git file points at the user's
// real repository, and the copy gets a fresh one of its own.
func copyTree(src, dst string) error {
	return copyTreeFrom(src, dst, &copyBudget{}, 0)
}

// copyBudget counts what one copy took, against maxFiles and maxBytes.
type copyBudget struct {
	files int
	size  int64
}

// maxLinkDepth bounds how many links out of the tree a copy follows
// inside each other (a link loop through folders outside it).
const maxLinkDepth = 4

func copyTreeFrom(src, dst string, b *copyBudget, depth int) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case rel != "." && d.Name() == ".git":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir() && rel != "." && d.Name() == "node_modules":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			return copyLink(src, dst, p, to, b, depth)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := b.take(src, info.Size()); err != nil {
			return err
		}
		return copyFile(p, to)
	})
}

// take counts one file of size bytes.
func (b *copyBudget) take(src string, size int64) error {
	b.files, b.size = b.files+1, b.size+size
	if b.files > maxFiles || b.size > maxBytes {
		return fmt.Errorf("%s holds more than %d files or %d MB outside .git and node_modules: too large to copy", src, maxFiles, maxBytes>>20)
	}
	return nil
}

// copyLink copies the link p (inside src) to to: as a link where it
// stays inside src, else as a copy of its target; a dangling link is
// left out.
func copyLink(src, dst, p, to string, b *copyBudget, depth int) error {
	target, err := os.Readlink(p)
	if err != nil {
		return err
	}
	resolved := target
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(filepath.Dir(p), target)
	}
	if real, err := filepath.EvalSymlinks(resolved); err == nil {
		resolved = real
	}
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		realSrc = src
	}
	if r, err := filepath.Rel(realSrc, resolved); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		if filepath.IsAbs(target) {
			target = filepath.Join(dst, r)
		}
		return os.Symlink(target, to)
	}
	info, err := os.Stat(resolved)
	switch {
	case err != nil:
		return nil
	case info.IsDir():
		if depth >= maxLinkDepth {
			return fmt.Errorf("%s: more than %d links out of the repository inside each other", p, maxLinkDepth)
		}
		return copyTreeFrom(resolved, to, b, depth+1)
	case !info.Mode().IsRegular():
		return nil
	}
	if err := b.take(src, info.Size()); err != nil {
		return err
	}
	return copyFile(resolved, to)
}

// copyFile copies one regular file, keeping its mode.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
