// Package osutil holds the few operating-system helpers that nowhook's
// commands share: reading a variable from an environment list, finding an
// executable on that environment's PATH, telling whether a process is
// still alive, running a program in a process group of its own and killing
// that group (proc_unix.go; elsewhere, proc_other.go kills the process
// itself), showing the home directory as ~, reading a file that may be
// hostile (read.go) and the writer lock (lock_unix.go). It lives under
// cmd/internal so that the hook runtime (cmd/internal/reminder) can use it
// as well as cmd/nowhook and its internal packages; the hook runs kbs
// through GroupAttr and KillGroup, so osutil imports the standard library
// only (cmd/nowhook-reminder's TestHookDependencies).
package osutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Getenv returns the value of key in env, a list of "KEY=value" entries
// as os.Environ returns it. As with exec, the last entry for a key wins.
// It returns "" when the key is absent.
func Getenv(env []string, key string) string {
	val := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val = v
		}
	}
	return val
}

// IsExecutable reports whether p is a regular file (after symlinks) with
// an execute bit set.
func IsExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// LookPath finds the executable name on the PATH of env (not of this
// process), the way a shell started with env would. A name holding a
// slash is not searched for: it is returned as it is, with whether it is
// executable. An empty PATH entry means the working directory.
func LookPath(env []string, name string) (string, bool) {
	if strings.Contains(name, "/") {
		return name, IsExecutable(name)
	}
	for _, dir := range filepath.SplitList(Getenv(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); IsExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// Running reports whether pid is a live process. A zombie (exited, not
// yet reaped) is not running. It reads /proc where there is one, and
// otherwise asks the kernel with signal 0.
func Running(pid int) bool {
	if pid <= 0 {
		return false
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// "pid (comm) STATE ..."; comm may hold spaces and parentheses.
		s := string(b)
		state := strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:])
		return !strings.HasPrefix(state, "Z") && !strings.HasPrefix(state, "X")
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		return false // /proc works and the process is gone
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// Tilde shows home as ~ wherever it is a whole path or starts one in s:
// "/home/u/.codex/config.toml" becomes "~/.codex/config.toml", and "in
// /home/u: x" becomes "in ~: x", but "/home/user" and "/x/home/u" stay as
// they are. A path starts s or follows a space, a tab, a quote, '=', '(',
// ':', ',' or '['; it ends s or goes on with '/', a space, a tab, a quote,
// ')', ':', ',', ';' or ']'. An empty home, or "/", changes nothing.
func Tilde(s, home string) string {
	home = strings.TrimRight(home, "/")
	if home == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, home)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(home)
		startsPath := i == 0 || strings.ContainsRune(" \t'\"=(:,[", rune(s[i-1]))
		endsPath := end == len(s) || s[end] == '/' || strings.ContainsRune(" \t'\")):,;]", rune(s[end]))
		b.WriteString(s[:i])
		if startsPath && endsPath {
			b.WriteString("~")
		} else {
			b.WriteString(home)
		}
		s = s[end:]
	}
}

// TildeHome is Tilde with this user's home directory (os.UserHomeDir,
// which reads $HOME on Unix).
func TildeHome(s string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return s
	}
	return Tilde(s, home)
}
