package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChooseEmptyMode: "claude=" names a mode, the empty one, which no
// agent has; only a bare name takes the agent's default.
func TestChooseEmptyMode(t *testing.T) {
	for _, a := range All {
		if c, err := a.Choose("", false); err != nil || c.Agent != a || c.Mode != a.Default {
			t.Errorf("%s without a mode: %+v, %v; want the default %s", a.Name, c, err, a.Default)
		}
		want := `unknown mode "" for ` + a.Name + " (modes: "
		if _, err := a.Choose("", true); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s=: %v, want an error starting %q", a.Name, err, want)
		}
		if _, err := ParseAgents(a.Name + "="); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAgents(%q): %v, want an error containing %q", a.Name+"=", err, want)
		}
	}
}

// keeps reports whether the desired state d keeps art.
func keeps(d Desire, art Artifact) bool {
	for _, w := range d.Artifacts {
		if w.Artifact == art {
			return w.Keep
		}
	}
	return false
}

// TestDesire: the checkpoint's artifacts belong to the desired state
// only when the checkpoint is asked for; a mode's own always do, another
// mode's never, nor anything in the state of nothing (remove); Desire
// lists every artifact the agent owns; trust is needed for the hooks that
// need it, no others.
func TestDesire(t *testing.T) {
	for _, a := range All {
		if d := a.Desire("", true); len(d.Artifacts) != len(a.Owned()) || d.Trust {
			t.Errorf("%s: the state of nothing lists %d artifacts of %d, trust %v", a.Name, len(d.Artifacts), len(a.Owned()), d.Trust)
		} else {
			for _, w := range d.Artifacts {
				if w.Keep {
					t.Errorf("%s: the state of nothing keeps %s", a.Name, w.Artifact.Path())
				}
			}
		}
		for _, art := range a.Checkpoint {
			for _, m := range a.ModeNames() {
				if a.Wants(m, art) {
					continue // the mode owns it itself
				}
				if keeps(a.Desire(m, false), art) {
					t.Errorf("%s=%s without the checkpoint wants %s", a.Name, m, art.Path())
				}
				if !keeps(a.Desire(m, true), art) {
					t.Errorf("%s=%s with the checkpoint does not want %s", a.Name, m, art.Path())
				}
			}
		}
		for _, s := range a.Modes {
			for _, art := range s.Artifacts {
				if !keeps(a.Desire(s.Mode, false), art) || !a.Wants(s.Mode, art) {
					t.Errorf("%s=%s does not want its own %s", a.Name, s.Mode, art.Path())
				}
			}
		}
	}
	codex := mustLookup(t, "codex")
	for _, c := range []struct {
		mode       Mode
		checkpoint bool
		want       bool
	}{
		{Reinject, false, true},
		{Reinject, true, true},
		{OnDemand, false, false},
		{OnDemand, true, true}, // the checkpoint's hooks need trust too
	} {
		if got := codex.Desire(c.mode, c.checkpoint).Trust; got != c.want {
			t.Errorf("codex=%s checkpoint=%v: trust %v, want %v", c.mode, c.checkpoint, got, c.want)
		}
	}
	if claude := mustLookup(t, "claude"); claude.Desire(Reinject, true).Trust {
		t.Error("Claude Code has no trust step, yet its desired state needs trust")
	}
}

// TestDetectBinaries: an agent's command on PATH is evidence, and named
// among the binaries found (setup's trust step and summary read them).
func TestDetectBinaries(t *testing.T) {
	bin := t.TempDir()
	for _, b := range []string{"claude", CodexBinary} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "qwen"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err) // not executable: not a command
	}
	t.Setenv("PATH", bin)
	got := map[string]Found{}
	for _, f := range Detect(t.TempDir()) {
		if f.Present() {
			got[f.Agent.Name] = f
		}
	}
	if len(got) != 2 {
		t.Errorf("Detect found %d agents, want claude and codex: %+v", len(got), got)
	}
	for name, bin := range map[string]string{"claude": "claude", "codex": CodexBinary} {
		f := got[name]
		if strings.Join(f.Evidence, ", ") != bin+" on PATH" || strings.Join(f.Binaries, ",") != bin || len(f.Marks) != 0 {
			t.Errorf("%s: evidence %q, binaries %q, marks %q; want %s on PATH and no marks", name, f.Evidence, f.Binaries, f.Marks, bin)
		}
	}
}

func mustLookup(t *testing.T, name string) *Agent {
	t.Helper()
	a, ok := Lookup(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return a
}
