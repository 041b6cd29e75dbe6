package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReleaseNpmLauncher checks the npm launcher (scripts/npm/nowhook) as
// npm installed it: the binary's exit code comes back, a SIGTERM sent to
// the launcher reaches the binary, a binary killed by a signal ends the
// launcher by the same signal, and without a platform package (npm
// --omit=optional) or on a system with none, the launcher says which
// package is missing and how to get it, and exits 0 where it runs as the
// hook, printing nothing.
func TestReleaseNpmLauncher(t *testing.T) {
	t.Parallel()
	dir := releaseArtifacts(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	kbsDir := fakeKbsDir(t, tmp)
	w := npmGlobal(t, ctx, dir, tmp)
	env := append(w.env(tmp, kbsDir), "PATH="+w.pathVar(kbsDir))
	repo := newRepo(t, ctx, filepath.Join(tmp, "repo"))

	t.Run("exit code", func(t *testing.T) {
		res := runCmd(t, ctx, env, repo, "", filepath.Join(w.bin, "nowhook"), "setup", "--no-such-flag")
		var exit *exec.ExitError
		if !errors.As(res.err, &exit) || exit.ExitCode() != 2 {
			t.Fatalf("nowhook setup --no-such-flag through the launcher: %v, want exit status 2\n%s", res.err, res.stderr)
		}
		if !strings.Contains(res.stderr, "--no-such-flag") {
			t.Errorf("the binary's stderr did not come through: %q", res.stderr)
		}
	})

	t.Run("arguments and streams", func(t *testing.T) {
		payload := `{"hook_event_name":"SessionStart","source":"compact","cwd":` + jsonString(repo) + `}`
		res := runCmd(t, ctx, env, repo, payload, filepath.Join(w.bin, "nowhook"), "reminder", "--timeout", "5s")
		if res.err != nil {
			t.Fatalf("nowhook reminder: %v\n%s", res.err, res.stderr)
		}
		if got, want := strings.TrimRight(res.stdout, "\n"), expectedReminder(t); got != want {
			t.Errorf("nowhook reminder through the launcher printed\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("signals", func(t *testing.T) {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			launcherSignal(t, ctx, env, repo, filepath.Join(w.bin, "nowhook-reminder"), filepath.Join(tmp, "pids-"+sig.String()), sig)
		}
	})

	t.Run("no platform package", func(t *testing.T) {
		launcher, _ := npmTarballs(dir)
		prefix := filepath.Join(tmp, "npm-launcher-only")
		npm := toolDir(t, "npm")
		timed(t, ctx, npmEnv(tmp, "launcher-only", w.path[0], npm), tmp, filepath.Join(npm, "npm"), "install", "-g", "--offline", "--prefix", prefix, launcher)
		bin := filepath.Join(prefix, "bin")
		res := runCmd(t, ctx, env, repo, "", filepath.Join(bin, "nowhook"), "version")
		var exit *exec.ExitError
		if !errors.As(res.err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("nowhook version without %s: %v, want exit status 1", npmPlatform(), res.err)
		}
		for _, want := range []string{"the package " + npmPlatform(), "npm install -g nowhook@" + releaseVersion} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("nowhook version without %s: stderr lacks %q:\n%s", npmPlatform(), want, res.stderr)
			}
		}
		t.Logf("nowhook version without %s: %s", npmPlatform(), strings.TrimSpace(res.stderr))
		hookExitsZero(t, ctx, env, repo, bin)
	})

	t.Run("no package for the system", func(t *testing.T) {
		// A system npm has no package for: the launcher sees another
		// process.arch.
		preload := filepath.Join(tmp, "other-arch.js")
		writeFile(t, preload, `Object.defineProperty(process, "arch", { value: "ia32" });`+"\n", 0o644)
		env := append(env[:len(env):len(env)], "NODE_OPTIONS=--require "+preload)
		res := runCmd(t, ctx, env, repo, "", filepath.Join(w.bin, "nowhook"), "version")
		var exit *exec.ExitError
		if !errors.As(res.err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("nowhook version on linux-ia32: %v, want exit status 1", res.err)
		}
		for _, want := range []string{"(linux-ia32)", "linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64", "go install github.com/nowhook/nowhook/cmd/nowhook@v" + releaseVersion} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("nowhook version on linux-ia32: stderr lacks %q:\n%s", want, res.stderr)
			}
		}
		t.Logf("nowhook version on linux-ia32: %s", strings.TrimSpace(res.stderr))
		hookExitsZero(t, ctx, env, repo, w.bin)
	})
}

// hookExitsZero checks that the launcher, run as the hook (nowhook-reminder,
// nowhook reminder) where it cannot start the binary, exits 0, prints
// nothing on stdout and says why on stderr.
func hookExitsZero(t *testing.T, ctx context.Context, env []string, repo, bin string) {
	t.Helper()
	payload := `{"hook_event_name":"SessionStart","source":"compact"}`
	for _, c := range [][]string{{"nowhook-reminder", "--timeout", "5s"}, {"nowhook", "reminder"}} {
		res := runCmd(t, ctx, env, repo, payload, filepath.Join(bin, c[0]), c[1:]...)
		if res.err != nil || res.stdout != "" || !strings.Contains(res.stderr, "npm launcher") {
			t.Errorf("%v as the hook, unable to start the binary: %v, stdout %q, stderr %q; want exit 0, nothing on stdout, the reason on stderr",
				c, res.err, res.stdout, res.stderr)
		}
	}
}

// launcherSignal starts nowhook-reminder through the launcher with a kbs
// that hangs, waits until kbs runs, and then sends sig: SIGTERM to the
// launcher (the binary must get it: it stops kbs and says so under
// NOWHOOK_DEBUG, and exits 0), SIGKILL to the binary (the launcher must end
// by SIGKILL too). Where Node replaced itself with the binary (execve), the
// launcher is the binary.
func launcherSignal(t *testing.T, ctx context.Context, env []string, repo, launcher, pids string, sig syscall.Signal) {
	t.Helper()
	env = append(env[:len(env):len(env)], "FAKE_KBS_MODE=hang", "FAKE_KBS_SLEEP=10m", "FAKE_KBS_PIDS="+pids, "NOWHOOK_DEBUG=1")
	cmd := prepare(t, ctx, env, repo, launcher, "--timeout", "30s")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionStart","source":"compact"}`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kbs := waitForPid(t, ctx, pids)
	defer syscall.Kill(-kbs, syscall.SIGKILL) // its own group, which the reminder made
	binary := parentPid(t, kbs)
	execed := binary == cmd.Process.Pid
	t.Logf("%s: launcher pid %d, binary pid %d (replaced by execve: %v), kbs pid %d", sig, cmd.Process.Pid, binary, execed, kbs)
	target := cmd.Process.Pid
	if sig == syscall.SIGKILL {
		target = binary
	}
	if err := syscall.Kill(target, sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	switch sig {
	case syscall.SIGTERM:
		if err != nil {
			t.Errorf("nowhook-reminder, sent SIGTERM through the launcher: %v, want exit 0\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "by terminated") {
			t.Errorf("the binary did not get the launcher's SIGTERM (no \"stopped by terminated\" in its debug output):\n%s", stderr.String())
		}
		// The reminder killed kbs's group before it exited; the kernel
		// may take a moment to end kbs, and init to reap it.
		for !gone(kbs) {
			select {
			case <-ctx.Done():
				t.Fatalf("kbs (pid %d) still runs after the binary was stopped", kbs)
			case <-time.After(20 * time.Millisecond):
			}
		}
	case syscall.SIGKILL:
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("the launcher, its binary killed: %v, want it killed by SIGKILL", err)
		}
		if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the launcher, its binary killed by SIGKILL, ended with %v, want killed by SIGKILL", err)
		}
	}
}

// waitForPid waits until the fake kbs wrote its pid into file.
func waitForPid(t *testing.T, ctx context.Context, file string) int {
	t.Helper()
	for {
		if b, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])); err == nil {
				return pid
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("kbs never started (no pid in %s)", file)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// gone reports whether pid has ended (a zombie, not reaped yet, has).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// parentPid returns the parent of pid, from /proc/PID/stat.
func parentPid(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid ...; comm may hold spaces, so cut after ')'.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}
