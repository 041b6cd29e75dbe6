package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/templates"
)

// The README's agent matrix is the text between these two lines, each a
// whole line of README.md; scripts/readme-matrix.sh writes agent.Matrix()
// there.
const (
	matrixBegin = "<!-- agent-matrix:begin"
	matrixEnd   = "<!-- agent-matrix:end -->"
)

// matrixCommand is the command that rewrites the README's agent matrix.
const matrixCommand = "sh scripts/readme-matrix.sh"

var writeReadme = flag.Bool("write-readme", false, "write agent.Matrix() into README.md between its agent-matrix lines ("+matrixCommand+" passes it)")

// TestREADMEMatrix keeps the README's agent matrix equal to the table that
// setup and doctor read; with -write-readme (scripts/readme-matrix.sh) it
// writes the table there instead. The writer is this test because only
// code under cmd/nowhook may import the agent table.
func TestREADMEMatrix(t *testing.T) {
	const path = "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	next, err := spliceMatrix(string(readme), agent.Matrix())
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if next == string(readme) {
		return
	}
	if *writeReadme {
		if err := os.WriteFile(path, []byte(next), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("README.md: the agent matrix is rewritten from agent.Matrix()")
		return
	}
	t.Errorf("README.md's agent matrix is stale; to write agent.Matrix() there, run: %s\n(%s)", matrixCommand, firstDifference(string(readme), next))
}

// spliceMatrix returns readme with the lines between its agent-matrix
// lines replaced by matrix, or an error naming the line that is missing.
func spliceMatrix(readme, matrix string) (string, error) {
	lines := strings.SplitAfter(readme, "\n")
	begin, end := -1, -1
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, matrixBegin):
			if begin >= 0 {
				return "", fmt.Errorf("line %d: a second %q line; keep one", i+1, matrixBegin)
			}
			begin = i
		case strings.TrimRight(line, "\n") == matrixEnd && begin >= 0 && end < 0:
			end = i
		}
	}
	if begin < 0 {
		return "", fmt.Errorf("no line starting with %q, after which the agent matrix goes (then run %s)", matrixBegin, matrixCommand)
	}
	if end < 0 {
		return "", fmt.Errorf("line %d starts the agent matrix, but no %q line below it ends it", begin+1, matrixEnd)
	}
	return strings.Join(lines[:begin+1], "") + matrix + strings.Join(lines[end:], ""), nil
}

// firstDifference names the first line where have and want differ, for
// a stale README.
func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) && i < len(w); i++ {
		if h[i] != w[i] {
			return fmt.Sprintf("line %d is %q, agent.Matrix() makes it %q", i+1, h[i], w[i])
		}
	}
	if len(h) < len(w) {
		return fmt.Sprintf("agent.Matrix() adds line %d, %q", len(h)+1, w[len(h)])
	}
	return fmt.Sprintf("line %d, %q, is not in agent.Matrix()", len(w)+1, h[len(w)])
}

// TestSpliceMatrix: the matrix replaces what lies between the two lines
// and nothing else, a second run changes nothing, and a README without
// the lines is an error that says what to add.
func TestSpliceMatrix(t *testing.T) {
	readme := "# x\n\n" + matrixBegin + " note -->\n| old |\n| rows |\n" + matrixEnd + "\nafter\n"
	want := "# x\n\n" + matrixBegin + " note -->\n| new |\n" + matrixEnd + "\nafter\n"
	got, err := spliceMatrix(readme, "| new |\n")
	if err != nil || got != want {
		t.Fatalf("spliceMatrix = %q, %v; want %q", got, err, want)
	}
	if again, err := spliceMatrix(got, "| new |\n"); err != nil || again != got {
		t.Errorf("a second splice changes the README: %q, %v", again, err)
	}
	if d := firstDifference(readme, got); !strings.Contains(d, `line 4 is "| old |", agent.Matrix() makes it "| new |"`) {
		t.Errorf("firstDifference = %q", d)
	}
	for _, bad := range []string{"# x\n| old |\n", "# x\n" + matrixBegin + " -->\n| old |\n", matrixBegin + " -->\n" + matrixBegin + " -->\n" + matrixEnd + "\n"} {
		if _, err := spliceMatrix(bad, "| new |\n"); err == nil || !strings.Contains(err.Error(), "agent-matrix") {
			t.Errorf("spliceMatrix(%q): error %v, want one naming the agent-matrix line", bad, err)
		}
	}
}

// TestPlatformsSections: every agent in the table has its section in
// docs/platforms.md, a "## " heading with its title (outside code
// blocks), where its platform facts and how they were known are written.
func TestPlatformsSections(t *testing.T) {
	doc, err := os.ReadFile("../../docs/platforms.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "## ") {
			headings[strings.TrimSpace(line)] = true
		}
	}
	for _, a := range agent.All {
		if want := "## " + a.Title; !headings[want] {
			t.Errorf("docs/platforms.md has no section for agent %s: add a %q heading with its platform facts", a.Name, want)
		}
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
