package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/templates"
)

// TestREADMEMatrix keeps the README's platform matrix equal to the table
// that setup and doctor read.
func TestREADMEMatrix(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), agent.Matrix()) {
		t.Errorf("README.md's platform matrix differs from agent.Matrix(); replace it with:\n%s", agent.Matrix())
	}
}

// TestREADMEFlags keeps each command's --help and the README's flag
// table in step: every flag is printed with two dashes and has a row.
func TestREADMEFlags(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"setup", "remove"} {
		var out, errOut strings.Builder
		if code := run([]string{command, "--help"}, stdio{in: strings.NewReader(""), out: &out, err: &errOut}); code != 0 {
			t.Fatalf("nowhook %s --help: exit %d, %s", command, code, errOut.String())
		}
		section := string(readme)
		if i := strings.Index(section, "### `"+command+"` flags"); i >= 0 {
			section = section[i:]
			if j := strings.Index(section[1:], "\n### "); j >= 0 {
				section = section[:j+1]
			}
		} else {
			t.Fatalf("README.md has no \"### `%s` flags\" section", command)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("nowhook %s --help prints %q with one dash; the README writes two", command, line)
			}
			if !strings.HasPrefix(line, "  --") {
				continue
			}
			name := strings.Fields(line)[0]
			if !strings.Contains(section, "| `"+name+"`") && !strings.Contains(section, "| `"+name+" ") {
				t.Errorf("README.md's %s flag table has no row for %s", command, name)
			}
		}
	}
}

// TestREADMETemplateVersion keeps the README's "now N" equal to
// templates.Version.
func TestREADMETemplateVersion(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("(`templates.Version`, now %d)", templates.Version)
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say %s", want)
	}
}

// TestGoVersionPromise keeps go.mod's go line and what the README and
// install.sh promise in step: they say "Go 1.26 or later", so go.mod must
// ask for 1.26.0 and no later patch (a later one makes an older 1.26
// toolchain download another before it builds anything).
func TestGoVersionPromise(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var goLine string
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			goLine = strings.TrimSpace(v)
		}
	}
	minor := strings.Join(strings.SplitN(goLine, ".", 3)[:2], ".")
	if goLine != minor+".0" {
		t.Errorf("go.mod says go %s; the README promises Go %s or later, so set go %s.0 (go mod edit -go=%s.0)", goLine, minor, minor, minor)
	}
	for _, file := range []string{"../../README.md", "../../install.sh"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Go " + minor + " or later"; !strings.Contains(string(b), want) {
			t.Errorf("%s does not say %q, which go.mod's go %s promises", file, want, goLine)
		}
	}
}
