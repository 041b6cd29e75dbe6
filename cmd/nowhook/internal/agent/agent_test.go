package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseAgents(t *testing.T) {
	got, err := ParseAgents("claude, codex=ondemand,cursor=nudge")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range got {
		s = append(s, c.Agent.Name+"="+string(c.Mode))
	}
	if strings.Join(s, ",") != "claude=reinject,codex=ondemand,cursor=nudge" {
		t.Errorf("got %v", s)
	}
	for list, want := range map[string]string{
		"cursor=reinject":      "Cursor cannot re-inject",
		"antigravity=reinject": "Antigravity cannot re-inject",
		"antigravity=nudge":    "no compaction event",
		"claude=nudge":         "claude=nudge is refused",
		"codex=nudge":          "codex=nudge is refused",
		"vim":                  `unknown agent "vim"`,
		"claude=always":        `unknown mode "always"`,
		"claude,claude":        "listed twice",
		",":                    "lists no agent",
	} {
		if _, err := ParseAgents(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAgents(%q) = %v, want an error containing %q", list, err, want)
		}
	}
}

// TestTableComplete checks that every agent either allows or refuses
// every mode, with a reason and words for the wizard, so no request
// falls through the table.
func TestTableComplete(t *testing.T) {
	for _, a := range All {
		if _, ok := a.Spec(a.Default); !ok {
			t.Errorf("%s: default mode %s is not allowed", a.Name, a.Default)
		}
		for _, m := range Modes {
			spec, allowed := a.Spec(m)
			reason, refused := a.Refused[m]
			if allowed == refused {
				t.Errorf("%s: mode %s must be either allowed or refused", a.Name, m)
			}
			if refused && reason == "" {
				t.Errorf("%s: mode %s is refused without a reason", a.Name, m)
			}
			if allowed && (spec.Words == "" || len(spec.Artifacts) == 0) {
				t.Errorf("%s: mode %s has no words for the wizard or owns nothing", a.Name, m)
			}
		}
		checkDoctorData(t, a)
	}
}

// TestArtifactsRoundTrip renders every artifact into nothing and into
// content of someone else's, recognises it, removes it, and gets back
// what was there.
func TestArtifactsRoundTrip(t *testing.T) {
	others := map[string]string{
		".json": "{\n  \"description\": \"x\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
		".md":   "# Notes\n\nKeep this.\n",
		".sh":   "",
	}
	for _, a := range All {
		for _, art := range a.Owned() {
			for _, start := range []string{"", others[filepath.Ext(art.Path())]} {
				e, err := art.Apply([]byte(start), Options{Budget: DefaultBudget})
				if err != nil {
					t.Fatalf("%s %s: apply: %v", a.Name, art.Path(), err)
				}
				if b, ok := art.(*Block); ok && b.IfPresent && start == "" {
					if len(e.Next) != 0 {
						t.Errorf("%s %s: written into a file that does not exist", a.Name, art.Path())
					}
					continue
				}
				if !art.Present(e.Next) {
					t.Errorf("%s %s: not recognised after apply:\n%s", a.Name, art.Path(), e.Next)
				}
				again, err := art.Apply(e.Next, Options{Budget: DefaultBudget})
				if err != nil || string(again.Next) != string(e.Next) {
					t.Errorf("%s %s: a second apply changed the file (%v)", a.Name, art.Path(), err)
				}
				// Remove drops the JSON containers the apply created, as
				// the engine's record says, and keeps the user's (an empty
				// event list of theirs stays).
				created := func(path string) bool { return start == "" || slices.Contains(e.Created, path) }
				r, err := art.Remove(e.Next, created)
				if err != nil {
					t.Fatalf("%s %s: remove: %v", a.Name, art.Path(), err)
				}
				switch {
				case start == "" && !(r.Delete || r.Empty):
					t.Errorf("%s %s: a file made from nothing is not empty after remove:\n%s", a.Name, art.Path(), r.Next)
				case start != "" && string(r.Next) != start:
					t.Errorf("%s %s: remove did not give back the input:\n%q\nwant\n%q", a.Name, art.Path(), r.Next, start)
				}
			}
		}
	}
}

func TestDetect(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".claude", ".cursor/rules", ".agents/rules"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"CLAUDE.md", ".cursor/rules/a.mdc"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	var desc []string
	for _, f := range Detect(root) {
		if f.Present() {
			desc = append(desc, f.Agent.Name+": "+strings.Join(f.Evidence, ", "))
		}
	}
	want := []string{"claude: .claude/ exists, CLAUDE.md exists", "cursor: .cursor/ exists, .cursor/rules/ has rules", "antigravity: .agents/rules/ exists"}
	if strings.Join(desc, "\n") != strings.Join(want, "\n") {
		t.Errorf("Detect found:\n%s\nwant:\n%s", strings.Join(desc, "\n"), strings.Join(want, "\n"))
	}
}

// checkDoctorData: what a row tells doctor holds together. Its own checks
// have names, once each, and a Run; each block it says it misses is one
// its modes write; a checkpoint brings a transcript for doctor's live runs.
func checkDoctorData(t *testing.T, a *Agent) {
	t.Helper()
	seen := map[string]bool{}
	for _, q := range a.Doctor.Quirks {
		if q.Name == "" || q.Run == nil || seen[q.Name] {
			t.Errorf("%s: a check of its own has no name, no Run, or a name twice: %q", a.Name, q.Name)
		}
		seen[q.Name] = true
	}
	for name := range a.Doctor.BlockMisses {
		written := false
		for _, art := range a.Owned() {
			if b, ok := BlockOf(art); ok && b.Block.Name == name && b != OnDemandBlock && b != KanbusAgentsBlock {
				written = true
			}
		}
		if !written {
			t.Errorf("%s: Doctor.BlockMisses names the block %q, which no mode writes into a file of its own", a.Name, name)
		}
	}
	if len(a.Checkpoint) > 0 && a.Doctor.Transcript == nil {
		t.Errorf("%s: a checkpoint without a Doctor.Transcript for doctor's live runs", a.Name)
	}
}
