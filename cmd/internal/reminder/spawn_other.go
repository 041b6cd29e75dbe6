//go:build !unix

package reminder

import (
	"os"
	"os/exec"
)

// child is kbs, started by spawn.
type child struct {
	pid int
	cmd *exec.Cmd
}

// spawn starts prog with args in dir with env, stdin from the null
// device, stdout to stdout and stderr to stderr (nil: the null device).
// There are no process groups here: killGroup kills prog only.
func spawn(prog string, args []string, dir string, env []string, stdout, stderr *os.File) (child, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env, cmd.Stdout = dir, env, stdout
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Start(); err != nil {
		return child{}, err
	}
	return child{pid: cmd.Process.Pid, cmd: cmd}, nil
}

func (c child) wait() error { return c.cmd.Wait() }

func (c child) killGroup() { _ = c.cmd.Process.Kill() }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
