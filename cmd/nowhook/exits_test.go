package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
)

// exitClass is how setup and setup --check answer an error of one kind
// of doctor's rows.
type exitClass struct {
	// shared, runs, starts are the doctor.Kind flags the class is for.
	shared, runs, starts bool
	setup, check         string
}

var (
	// An agent's own row, judged from files: refused where it stays.
	agentRow = exitClass{setup: "0 when the plan takes it away; 2 (refused, nothing written) when it stays", check: "1"}
	// An agent's row whose check also starts a program in doctor (a
	// client's --version, codex app-server): the file part as agentRow;
	// what doctor sees only by running it, setup and --check never run.
	agentStarts = exitClass{starts: true, setup: "file part: as an agent row; run part: not judged (0)", check: "file part: 1; run part: not judged (0)"}
	// A row about every agent (the Kanbus project, the PATH), judged from
	// files: setup writes, then names it.
	sharedRow = exitClass{shared: true, setup: "1 (written, then named as only you can fix)", check: "1"}
	// A row only a program run gives (the installed hook, kbs now, git):
	// setup and --check run no program; doctor says it.
	runRow = exitClass{shared: true, runs: true, setup: "0 (not judged: doctor runs the program)", check: "0 (not judged: runs no program)"}
)

// setupExits maps every kind of doctor's rows (an agent's by the check's
// name, a shared row for each agent as "NAME.*") to its exit class.
var setupExits = map[string]exitClass{
	"mode": agentRow, "reach": agentRow, "hooks-file": agentRow, "disabled": agentRow, "hook": agentRow,
	"script": agentRow, "twice": agentRow, "start-context": agentRow, "inject-event": agentRow,
	"precompact-block": agentRow, "md": agentRow,
	"agents-md-cap": agentRow, "managed": sharedRow,
	"client": agentStarts, "checkpoint": agentStarts, "claude-entry": agentStarts, "trust": agentStarts,
	"plugin": agentStarts, "ms-timeout": agentStarts, "migrated-hooks": agentStarts, "loadable": agentStarts,
	"layers": agentStarts, "hooks-json": agentStarts, "hooks": agentStarts, "gate": agentStarts,
	"folder-trust": agentStarts, "features": agentStarts, "context-file": agentStarts, "config": agentStarts,
	"agents": sharedRow, "subfolders": sharedRow, "subfolders.*": sharedRow, "agents-md": sharedRow,
	"contributing-md": sharedRow, "kanbus.config": sharedRow, "kanbus.cli": sharedRow, "sources": sharedRow,
	"sources.rules": sharedRow, "sources.git": runRow, "sources.samemind": runRow, "runtime": sharedRow,
	"runtime.*": sharedRow, "nowhook": sharedRow,
	"kanbus.query": runRow, "live": runRow, "live.*": runRow,
}

// kindName is a kind's key in setupExits.
func kindName(row string) string {
	for _, a := range agent.All {
		if rest, ok := strings.CutPrefix(row, a.Name+"."); ok {
			return rest
		}
		if rest, ok := strings.CutSuffix(row, "."+a.Name); ok {
			return rest + ".*"
		}
	}
	return row
}

// TestSetupExitsEveryDoctorError: every kind of doctor's rows has its
// exits from setup and setup --check, of the class doctor's flags for it
// say (Kind.Shared, Runs, Starts: what setup's verdict reads); a new kind
// fails here until it is given one. With -v it prints the table.
func TestSetupExitsEveryDoctorError(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range doctor.Kinds() {
		name := kindName(k.Row)
		c, ok := setupExits[name]
		if !ok {
			t.Errorf("doctor's row %s (kind %q) has no exits from setup and setup --check in setupExits", k.Row, name)
			continue
		}
		if c.shared != k.Shared || c.runs != k.Runs || c.starts != k.Starts {
			t.Errorf("doctor's row %s: setupExits[%q] is for shared=%v runs=%v starts=%v, doctor's kind is %+v", k.Row, name, c.shared, c.runs, c.starts, k)
		}
		seen[name] = true
	}
	var names []string
	for name := range setupExits {
		if !seen[name] {
			t.Errorf("setupExits[%q] is no kind of doctor's rows", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	lines := []string{"| doctor error kind | setup exits | setup --check exits |", "|---|---|---|"}
	for _, name := range names {
		c := setupExits[name]
		lines = append(lines, fmt.Sprintf("| %s | %s | %s |", name, c.setup, c.check))
	}
	if !slices.Contains(names, "kanbus.config") {
		t.Fatal("no kanbus.config kind")
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}
