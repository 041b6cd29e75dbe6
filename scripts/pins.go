// Package scripts gives the Go code what it shares with the shell scripts
// beside it: the agent clients nowhook is proven on (pins.tsv, the one
// place they are written down), embedded at build time, so that
// `nowhook version` and `nowhook doctor` can name the versions the
// real-client tests passed on. It uses the standard library alone.
package scripts

import (
	_ "embed"
	"fmt"
	"strings"
)

// PinsTSV is scripts/pins.tsv as this nowhook was built with it.
//
//go:embed pins.tsv
var PinsTSV string

// Pin is one line of pins.tsv: an agent client the real-client tests
// passed on.
type Pin struct {
	// Agent is the agent's --agents name; Package its npm package;
	// Binary the command it installs.
	Agent, Package, Binary string
	// Pinned is the version of Package that is installed (the third
	// field).
	Pinned string
	// Version is the version `Binary --version` prints: Pinned, or, for a
	// client whose npm package only launches a native binary from a
	// package of its own (the optional fifth field, PACKAGE@VERSION), that
	// binary package's version.
	Version string
	// BinaryPackage is that fifth field, "" without one.
	BinaryPackage string
	// Runtime is the fifth field's other form, node:PACKAGE@VERSION, for a
	// client that needs a newer Node.js than the machine may have: the npm
	// package (PACKAGE@VERSION) holding the node it runs under; "" without
	// one. It leaves Version alone: the client itself prints its version.
	Runtime string
	// Line is the line of pins.tsv.
	Line int
}

// Pins parses pins.tsv: one client per line that is neither blank nor a
// comment, with at least four tab-separated fields (agent, npm package,
// version, binary) and an optional fifth (the binary's own package,
// PACKAGE@VERSION, or the Node.js it runs under, node:PACKAGE@VERSION);
// fields after those are ignored, so that the file can grow. A line with
// fewer fields is an error naming it.
func Pins() ([]Pin, error) { return ParsePins(PinsTSV) }

// ParsePins parses the text of a pins.tsv.
func ParsePins(text string) ([]Pin, error) {
	var pins []Pin
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			return nil, fmt.Errorf("scripts/pins.tsv:%d: %d tab-separated fields, want 4 (agent, npm package, version, binary) and an optional fifth", i+1, len(f))
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		p := Pin{Agent: f[0], Package: f[1], Pinned: f[2], Version: f[2], Binary: f[3], Line: i + 1}
		if len(f) > 4 && f[4] != "" {
			spec, runtime := strings.CutPrefix(f[4], RuntimePrefix)
			at := strings.LastIndex(spec, "@")
			if at <= 0 || at == len(spec)-1 {
				return nil, fmt.Errorf("scripts/pins.tsv:%d: the fifth field %q is neither PACKAGE@VERSION nor %sPACKAGE@VERSION", i+1, f[4], RuntimePrefix)
			}
			if runtime {
				p.Runtime = spec
			} else {
				p.BinaryPackage = spec
				p.Version = spec[at+1:]
			}
		}
		if p.Agent == "" || p.Package == "" || p.Version == "" || p.Binary == "" {
			return nil, fmt.Errorf("scripts/pins.tsv:%d: an empty field", i+1)
		}
		pins = append(pins, p)
	}
	return pins, nil
}

// RuntimePrefix starts a fifth field that names the Node.js a client runs
// under rather than its binary's package.
const RuntimePrefix = "node:"

// Proven returns the pins of the agent named, whose versions the
// real-client tests passed on, in the order of pins.tsv (none for an
// agent without a pin, or when pins.tsv does not parse, which TestPins
// reports).
func Proven(agent string) []Pin {
	pins, _ := Pins()
	var out []Pin
	for _, p := range pins {
		if p.Agent == agent {
			out = append(out, p)
		}
	}
	return out
}

// Install is the command that installs the pinned client: npm install -g
// PACKAGE@VERSION, or the package alone where the binary comes from a
// package of its own, which npm picks for the launcher it installs.
func (p Pin) Install() string {
	if p.BinaryPackage != "" {
		return "npm install -g " + p.Package
	}
	return "npm install -g " + p.Package + "@" + p.Pinned
}
