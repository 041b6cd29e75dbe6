package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nowhook/nowhook/cmd/internal/fakekbs"
	"github.com/nowhook/nowhook/cmd/internal/fakesamemind"
	"github.com/nowhook/nowhook/cmd/internal/reminder"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
)

var update = flag.Bool("update", false, "rewrite the golden files inside testdata/script/*.txtar")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// doctor's margins for process start-up are widened: the scenarios
		// share a machine the rest of the suite keeps busy.
		"nowhook": func() {
			doctor.WidenMarginsForTests()
			os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
		},
		"nowhook-reminder": func() { os.Exit(reminder.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"kbs":              func() { os.Exit(fakekbs.Main()) },
		"samemind":         func() { os.Exit(fakesamemind.Main()) },
	})
}

// TestScript runs every scenario in testdata/script: the behaviour spec.
func TestScript(t *testing.T) {
	fixtures, err := filepath.Abs("../../testdata/kanbus")
	if err != nil {
		t.Fatal(err)
	}
	// The reminder the hook prints for each fixture with an .expected.txt:
	// that text, quoted as the board's data (TestQuotedReminders).
	reminders, err := filepath.Abs("../../testdata/reminders")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Cmds:                scriptCmds,
		Condition: func(cond string) (bool, error) {
			return scriptCondition(cond)
		},
		Setup: func(env *testscript.Env) error {
			// Every scenario is a git repository, as setup needs one;
			// a scenario about the outside of git removes .git.
			if err := os.MkdirAll(filepath.Join(env.WorkDir, ".git"), 0o755); err != nil {
				return err
			}
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
			env.Setenv("KANBUS_FIXTURES", fixtures)
			env.Setenv("REMINDERS", reminders)
			setAgentsEnv(env)
			env.Setenv("NOWHOOK_DEBUG", "")
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			env.Setenv("KBS", "")
			// doctor judges a fake kbs on its answer, however long the
			// machine takes to start it; the scenarios about its quick
			// wait of 500ms clear this (and may restore $QUICK_WAIT).
			env.Setenv("QUICK_WAIT", "10m")
			env.Setenv(doctor.QuickWaitEnv, "10m")
			return nil
		},
	})
}
