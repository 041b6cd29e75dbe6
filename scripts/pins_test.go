package scripts

import (
	"regexp"
	"testing"
)

// versionRE is the shape of a version nowhook compares (doctor's client
// rows): numbers joined by dots, perhaps a pre-release or build suffix.
var versionRE = regexp.MustCompile(`^\d+(\.\d+)*([-+][0-9A-Za-z.-]+)?$`)

// TestPins: every line of pins.tsv parses, each version is one doctor can
// compare, and the clients the real-client tests have always run are
// there.
func TestPins(t *testing.T) {
	pins, err := Pins()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range pins {
		if !versionRE.MatchString(p.Version) {
			t.Errorf("pins.tsv:%d: %s's version %q is not numbers joined by dots", p.Line, p.Agent, p.Version)
		}
		seen[p.Agent] = true
	}
	for _, a := range []string{"claude", "codex", "qwen", "opencode", "gemini"} {
		if !seen[a] {
			t.Errorf("pins.tsv pins no %s", a)
		}
	}
}

// TestParsePins: the fields, the binary package's version from a fifth
// field, a fifth field naming a Node.js runtime instead, comments and blank lines skipped, extra fields ignored, and a
// short line an error that names it.
func TestParsePins(t *testing.T) {
	pins, err := ParsePins("# comment\n\nclaude\t@anthropic-ai/claude-code\t2.1.332\tclaude\ndroid\t@factory/cli\t0.225.1\tdroid\t@factory/cli-%p@0.225.2\nx\tpkg\t1.0\tx\t\tmore\r\nkimi\t@moonshot-ai/kimi-code\t2.1.0\tkimi\tnode:node-%p@22.23.5\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pin{
		{Agent: "claude", Package: "@anthropic-ai/claude-code", Pinned: "2.1.332", Version: "2.1.332", Binary: "claude", Line: 3},
		{Agent: "droid", Package: "@factory/cli", Pinned: "0.225.1", Version: "0.225.2", BinaryPackage: "@factory/cli-%p@0.225.2", Binary: "droid", Line: 4},
		{Agent: "x", Package: "pkg", Pinned: "1.0", Version: "1.0", Binary: "x", Line: 5},
		{Agent: "kimi", Package: "@moonshot-ai/kimi-code", Pinned: "2.1.0", Version: "2.1.0", Runtime: "node-%p@22.23.5", Binary: "kimi", Line: 6},
	}
	if len(pins) != len(want) {
		t.Fatalf("got %+v, want %+v", pins, want)
	}
	for i := range want {
		if pins[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, pins[i], want[i])
		}
	}
	if got := pins[0].Install(); got != "npm install -g @anthropic-ai/claude-code@2.1.332" {
		t.Errorf("claude: Install() = %q", got)
	}
	if got := pins[1].Install(); got != "npm install -g @factory/cli" {
		t.Errorf("droid: Install() = %q", got)
	}
	if got := pins[3].Install(); got != "npm install -g @moonshot-ai/kimi-code@2.1.0" {
		t.Errorf("kimi: Install() = %q", got)
	}
	for _, bad := range []string{"claude\tpkg\t1.0\n", "a\tb\tc\td\tnoversion\n", "a\t\t1\tb\n", "a\tb\t1\tc\tnode:noversion\n", "a\tb\t1\tc\tnode:\n"} {
		if _, err := ParsePins(bad); err == nil {
			t.Errorf("ParsePins(%q): no error", bad)
		}
	}
}
