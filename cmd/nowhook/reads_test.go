package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// readsShape is a repository's instruction files before setup: each file's
// text, or "-> TARGET" for a symbolic link.
type readsShape struct {
	name  string
	files map[string]string
	// ours are files that hold nothing but what an earlier nowhook wrote:
	// setup may take them away, and remove does.
	ours []string
}

const (
	teamRules   = "# Team rules\n\nRun make test before every commit.\n"
	claudeRules = "# Claude's rules\n\nAnswer in English.\n"
)

// v2ClaudeMD is a CLAUDE.md exactly as nowhook v1 and v2 created it:
// nothing but the Compact Instructions, which hid AGENTS.md from Claude.
func v2ClaudeMD() string {
	b := generate.Block{Name: "compact-instructions", Version: 2, Body: templates.CompactInstructions, Heading: "Compact Instructions"}
	out, err := generate.MergeBlock("CLAUDE.md", nil, b)
	if err != nil {
		panic(err)
	}
	return string(out)
}

var readsShapes = []readsShape{
	{"none", map[string]string{}, nil},
	{"agents-md-only", map[string]string{"AGENTS.md": teamRules}, nil},
	{"claude-md-only", map[string]string{"CLAUDE.md": claudeRules}, nil},
	{"both", map[string]string{"AGENTS.md": teamRules, "CLAUDE.md": claudeRules}, nil},
	{"claude-md-links-to-agents-md", map[string]string{"AGENTS.md": teamRules, "CLAUDE.md": "-> AGENTS.md"}, nil},
	{"agents-md-links-to-claude-md", map[string]string{"CLAUDE.md": claudeRules, "AGENTS.md": "-> CLAUDE.md"}, nil},
	{"claude-md-imports-agents-md", map[string]string{"AGENTS.md": teamRules, "CLAUDE.md": "@AGENTS.md\n\n" + claudeRules}, nil},
	{"qwen-md", map[string]string{"QWEN.md": "# Qwen's rules\n"}, nil},
	{"qwen-md-and-agents-md", map[string]string{"QWEN.md": "# Qwen's rules\n", "AGENTS.md": teamRules}, nil},
	{"gemini-md", map[string]string{"GEMINI.md": "# Gemini's rules\n"}, nil},
	{"agents-override-md", map[string]string{"AGENTS.md": teamRules, "AGENTS.override.md": "# Local override\n"}, nil},
	{"claude-md-only-with-opencode", map[string]string{"CLAUDE.md": claudeRules, ".opencode/.keep": ""}, nil},
	{"claude-md-only-with-amp", map[string]string{"CLAUDE.md": claudeRules, ".amp/.keep": ""}, nil},
	{"v2-created-claude-md", map[string]string{"AGENTS.md": teamRules, "CLAUDE.md": v2ClaudeMD()}, []string{"CLAUDE.md"}},
}

// TestSetupNeverReadsLess runs the real setup, for every agent in every
// mode, over repositories of many shapes, and fails when an agent in use
// (the one set up, and those detected) loads less after setup than before
// by the agent table's Loads, unless setup's notes say so where nothing
// can prevent it; when the agent set up does not load the kbs-now block
// from any file; and when remove does not give back every file byte for
// byte. An agent that is not in use reads nothing in the repository.
func TestSetupNeverReadsLess(t *testing.T) {
	for _, shape := range readsShapes {
		for _, a := range agent.All {
			for _, mode := range a.ModeNames() {
				t.Run(shape.name+"/"+a.Name+"="+string(mode), func(t *testing.T) {
					root := readsRepo(t, shape)
					before := snapshot(t, root)
					// Both starts: at the root, and in a sub-folder, where an
					// import from the root's CLAUDE.md is not taken (Claude
					// Code 2.1.332), so a created CLAUDE.md importing
					// AGENTS.md would lose AGENTS.md there.
					type start struct {
						agent *agent.Agent
						sub   bool
					}
					name := map[bool]string{false: "at the root", true: "in a sub-folder"}
					where := map[bool]string{false: ".", true: "sub"}
					loads := map[start][]string{}
					users := []*agent.Agent{a}
					for _, f := range agent.Detect(root) {
						if f.Present() && f.Agent != a {
							users = append(users, f.Agent)
						}
					}
					for _, b := range users {
						for _, sub := range []bool{false, true} {
							loads[start{b, sub}] = b.LoadsAt(agent.DirFiles(root), where[sub])
						}
					}
					out := runCmd(t, setupCmd, "--yes", "--dir", root, "--agents", a.Name+"="+string(mode))
					after := agent.DirFiles(root)
					for s, was := range loads {
						now := s.agent.LoadsAt(after, where[s.sub])
						for _, f := range was {
							if !contains(now, f) && !contains(shape.ours, f) && !strings.Contains(out, "Note: "+s.agent.Title+" no longer reads "+f) {
								t.Errorf("%s started %s loaded %s before setup and not after, and setup did not say so (it loads %v; hidden: %v)\n%s", s.agent.Title, name[s.sub], f, now, s.agent.Hidden(after), out)
							}
						}
					}
					// A sub-folder session must be taught too, unless the
					// repository's own CLAUDE.md already kept AGENTS.md from
					// it (its own @AGENTS.md): setup writes the kbs-now block
					// into CLAUDE.md only where it neither imports nor is
					// AGENTS.md, and doctor's reach row names the limit.
					ownSplit := !equalLists(loads[start{a, false}], loads[start{a, true}])
					for _, sub := range []bool{false, true} {
						if sub && (ownSplit || a.Reads.Walk == agent.StartOnly) {
							// An agent that reads only the start folder's
							// files learns nothing from the root's there
							// (doctor's reach row says so, with setup --dir).
							continue
						}
						if len(a.TeachesAt(after, where[sub])) == 0 {
							t.Errorf("%s started %s loads %v, none of which has the kbs-now block", a.Title, name[sub], a.LoadsAt(after, where[sub]))
						}
					}
					runCmd(t, removeCmd, "--yes", "--dir", root)
					got := snapshot(t, root)
					for _, f := range shape.ours {
						if strings.Contains(got[f], "nowhook:begin") {
							t.Errorf("remove left a block of nowhook's in %s:\n%s", f, got[f])
						}
						delete(before, f)
						delete(got, f)
					}
					if !equalSnapshots(before, got) {
						t.Errorf("remove did not give back the repository:\nbefore %v\nafter  %v", keys(before), keys(got))
						for k, v := range before {
							if got[k] != v {
								t.Errorf("%s: was %q, is %q", k, v, got[k])
							}
						}
					}
				})
			}
		}
	}
}

func readsRepo(t *testing.T, shape readsShape) string {
	t.Helper()
	root := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("PATH", hookPath(t)) // no agent detected by its command
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range shape.files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(text, "-> "); ok {
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func runCmd(t *testing.T, cmd func([]string, stdio) error, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := cmd(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out.String(), errOut.String())
	}
	return out.String()
}

// snapshot maps every path below root outside .git to its content, or to
// "-> TARGET" for a link and "/" for a folder.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel] = "/"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func equalLists(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
