package main

import (
	"os"
	"path/filepath"
	"testing"
)

// setup exits 1 when it leaves what doctor calls an error, and doctor
// calls a hook installed without a Kanbus project, without kbs on PATH or
// without the reminder runtime on PATH an error (kanbus.config,
// kanbus.cli, runtime). The tests that run setup give it what a user's
// machine has: a Kanbus project in the repository (kanbusProject) and a
// PATH with kbs and nowhook-reminder on it (hookPath), never run here.

// kanbusProject writes the repository's .kanbus.yml.
func kanbusProject(t testing.TB, root string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookPath is a folder holding stand-ins for kbs and nowhook-reminder,
// for PATH (no agent's command is among them).
func hookPath(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"kbs", "nowhook-reminder"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
