package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupTrustFailureIsOneError: when the trust step fails after the
// hook files were written (a codex on PATH whose app-server dies at once),
// setup still writes and summarises everything, then the one exit mapping
// says what failed and what holds, once, and exits 1.
func TestSetupTrustFailureIsOneError(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\necho 'codex: simulated failure' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+hookPath(t))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	kanbusProject(t, root)
	var out, errb bytes.Buffer
	status := run([]string{"setup", "--yes", "--dir", root, "--agents", "codex", "--trust-codex"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	if status != exitFailed {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", status, out.String(), errb.String())
	}
	msg := errb.String()
	if !strings.HasPrefix(msg, "nowhook setup: --trust-codex: ") || strings.Count(msg, "nowhook setup: ") != 1 ||
		!strings.HasSuffix(msg, "\nThe hook files were written; only the trust step failed.\n") {
		t.Errorf("stderr is not one error that says the files were written:\n%s", msg)
	}
	if !strings.Contains(out.String(), "codex        reinject  .codex/hooks.json (created)") {
		t.Errorf("the summary does not list the hook file:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(root, ".codex", "hooks.json")); err != nil {
		t.Errorf("the hook file was not written: %v", err)
	}
}
