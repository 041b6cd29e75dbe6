package osutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestGetenv(t *testing.T) {
	env := []string{"A=1", "B=x=y", "A=2", "NOEQUALS", "C="}
	for key, want := range map[string]string{"A": "2", "B": "x=y", "C": "", "D": "", "NOEQUALS": ""} {
		if got := Getenv(env, key); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plainDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(plainDir, "tool"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(plainDir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		name string
		want string
		ok   bool
	}{
		{[]string{"PATH=" + plainDir + ":" + dir}, "tool", exe, true},
		{[]string{"PATH=" + dir, "PATH=" + plainDir}, "tool", "", false}, // the last PATH wins
		{[]string{"PATH=" + plainDir}, "sub", "", false},                 // a directory is not a program
		{nil, exe, exe, true},
		{nil, filepath.Join(plainDir, "tool"), filepath.Join(plainDir, "tool"), false},
	} {
		got, ok := LookPath(c.env, c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("LookPath(%q, %q) = %q, %v; want %q, %v", c.env, c.name, got, ok, c.want, c.ok)
		}
	}
	if !IsExecutable(exe) || IsExecutable(plainDir) || IsExecutable(filepath.Join(dir, "missing")) {
		t.Error("IsExecutable")
	}
}

func TestRunning(t *testing.T) {
	if !Running(os.Getpid()) {
		t.Error("this process is not running")
	}
	if Running(0) || Running(-1) {
		t.Error("pid 0 or -1 is running")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true:", err)
	}
	if Running(cmd.Process.Pid) {
		t.Errorf("pid %d of a reaped process is running", cmd.Process.Pid)
	}
}

func TestTilde(t *testing.T) {
	cases := map[string]string{
		"/home/u/.claude/settings.json":    "~/.claude/settings.json",
		"in /home/u: x":                    "in ~: x",
		"/home/user/x":                     "/home/user/x",
		"/home/u":                          "~",
		"(/home/u/.codex/config.toml)":     "(~/.codex/config.toml)",
		`"/home/u/a" and "/home/u/b"`:      `"~/a" and "~/b"`,
		"/x/home/u/y":                      "/x/home/u/y",
		"[projects.\"/home/u/repo\"] here": "[projects.\"~/repo\"] here",
		"KBS=/home/u/bin/kbs":              "KBS=~/bin/kbs",
	}
	for in, want := range cases {
		if got := Tilde(in, "/home/u"); got != want {
			t.Errorf("Tilde(%q) = %q, want %q", in, got, want)
		}
		if got := Tilde(in, "/home/u/"); got != want {
			t.Errorf("Tilde(%q) with a trailing slash = %q, want %q", in, got, want)
		}
	}
	for _, home := range []string{"", "/"} {
		if got := Tilde("/a/b", home); got != "/a/b" {
			t.Errorf("home %q changed %q to %q", home, "/a/b", got)
		}
	}
	t.Setenv("HOME", "/home/u")
	if got := TildeHome("wrote /home/u/x"); got != "wrote ~/x" {
		t.Errorf("TildeHome = %q", got)
	}
}
