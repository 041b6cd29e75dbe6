package main

import (
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// hookPackages are the only packages of this module the hook binary may
// be built from. Everything else it links must be the standard library:
// the hook runs after every compaction, tool call or prompt, and a
// dependency (hujson, the setup wizard's terminal UI, ...) would slow
// every one of them and grow the binary. A package added here must stay
// on the standard library itself (this test then checks that too).
var hookPackages = map[string]bool{
	"github.com/nowhook/nowhook/cmd/nowhook-reminder":  true,
	"github.com/nowhook/nowhook/cmd/internal/reminder": true,
	"github.com/nowhook/nowhook/cmd/internal/osutil":   true,
	"github.com/nowhook/nowhook/cmd/internal/version":  true,
	"github.com/nowhook/nowhook/detect":                true,
}

// TestHookDependencies fails when nowhook-reminder, on any of the systems
// it is built for, imports a package outside the standard library and
// hookPackages, and names who imports it.
func TestHookDependencies(t *testing.T) {
	systems := map[string][]string{}   // outside package: the systems it is linked on
	importers := map[string][]string{} // outside package: who imports it
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{join .Imports \" \"}}", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if e, ok := err.(*exec.ExitError); ok {
				stderr = string(e.Stderr)
			}
			t.Fatalf("GOOS=%s go list -deps: %v\n%s", goos, err, stderr)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Split(line, "\t")
			if len(fields) != 3 {
				t.Fatalf("GOOS=%s go list -deps: unexpected line %q", goos, line)
			}
			pkg, standard := fields[0], fields[1] == "true"
			for _, imp := range strings.Fields(fields[2]) {
				if !slices.Contains(importers[imp], pkg) {
					importers[imp] = append(importers[imp], pkg)
				}
			}
			if !standard && !hookPackages[pkg] {
				systems[pkg] = append(systems[pkg], goos)
			}
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(systems)) {
		t.Errorf("the hook binary depends on %s (imported by %s; GOOS %s); it may use only the standard library and %s",
			pkg, strings.Join(importers[pkg], ", "), strings.Join(systems[pkg], ", "), strings.Join(slices.Sorted(maps.Keys(hookPackages)), ", "))
	}
}
