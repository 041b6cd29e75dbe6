package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/scripts"
)

// The client row: for an agent whose client nowhook's real-client tests
// run (a line of scripts/pins.tsv, embedded at build time), the version of
// the client installed here beside the versions those tests passed on.
// The row is derived from the pins alone: the client's command is the
// pin's binary. Where that command is the npm package the pin names (its
// package.json, found from the command's real path, has the package's
// name), the package's version says it at once; otherwise doctor asks
// the command `--version`, as pins.tsv says every pinned client answers.

// clientLimit bounds each client's `--version` under --live; they run in
// parallel with the rest of doctor's slow work. Without --live the quick
// probe budget bounds it, so that doctor answers within about a second.
const clientLimit = 2 * time.Second

// versionLimit bounds a client's `--version` in this run.
func (d *doctor) versionLimit() time.Duration {
	if d.live {
		return clientLimit
	}
	return probeBudget
}

// clientRun is one client's `--version`, once started.
type clientRun struct {
	pins    []scripts.Pin
	command string // the binary, as pins.tsv names it
	path    string // where it is on PATH; "" when it is not
	// npm is the version of the pinned npm package the command belongs
	// to, "" when it is not one (res then asks the command).
	npm, npmPackage string
	res             *future[procResult]
}

// clientCheck is the client row of an agent with a pin.
type clientCheck struct{}

func (clientCheck) Name() string { return "client" }

// Start runs the client's `--version` in the background, when it is on
// PATH and its npm package does not say it, in doctor's temporary
// directory (never the repository) and with that directory as HOME: some
// clients write their state on every start.
func (clientCheck) Start(ctx context.Context, d *doctor, a *agent) {
	pins := scripts.Proven(a.p.Name)
	if len(pins) == 0 {
		return
	}
	c := &clientRun{pins: pins, command: pins[0].Binary}
	a.client = c
	path, ok := osutil.LookPath(d.env, c.command)
	if !ok {
		return
	}
	c.path = path
	if c.npmPackage, c.npm = npmVersion(path, pins); c.npm != "" {
		return
	}
	dir, err := d.scratch()
	if err != nil {
		c.res = start(func() procResult { return procResult{startErr: err} })
		return
	}
	env := []string{"HOME=" + dir}
	for _, kv := range d.env {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	c.res = start(func() procResult {
		return runProc(ctx, proc{argv: []string{path, "--version"}, dir: dir, env: env, limit: d.versionLimit()})
	})
	d.slow.waits = append(d.slow.waits, func() { c.res.wait() })
}

func (clientCheck) Run(d *doctor, a *agent) []Finding {
	c := a.client
	if c == nil {
		return nil // not started: doctor's file checks ask no program
	}
	var proven []string
	for _, p := range c.pins {
		proven = append(proven, p.Version)
	}
	info := &diag.Client{Command: c.command, Proven: proven}
	f := Finding{Severity: Info, Client: info}
	install := c.pins[len(c.pins)-1].Install()
	provenOn := "nowhook's real-client tests passed on " + joinFiles(proven)
	if c.path == "" {
		f.Message = fmt.Sprintf("%s is not on PATH: %s is not installed here (%s)", c.command, a.p.Title, provenOn)
		f.Fix = install
		return []Finding{f}
	}
	info.Path = c.path
	version, asked := c.npm, "npm package "+c.npmPackage
	var res procResult
	if version == "" {
		// What the command prints is the binary's version: a pin's
		// binary package's where it has one.
		res, asked = c.res.wait(), c.command+" --version"
		if version = diag.ClientVersion(res.stdout); version == "" {
			version = diag.ClientVersion(res.stderr)
		}
	} else {
		// The npm package's version is the pinned one.
		for i, p := range c.pins {
			proven[i] = p.Pinned
		}
		provenOn = "nowhook's real-client tests passed on " + joinFiles(proven)
	}
	switch {
	case res.startErr != nil:
		f.Message = fmt.Sprintf("%s cannot be started (%v); %s", asked, res.startErr, provenOn)
		return []Finding{f}
	case res.killed && !d.live:
		f.Message = fmt.Sprintf("%s did not answer within doctor's quick wait of %s; nowhook doctor --live waits up to %s; %s", asked, probeBudget, clientLimit, provenOn)
		f.Fix = "nowhook doctor --live" + d.dirFlag
		return []Finding{f}
	case res.killed:
		f.Message = fmt.Sprintf("%s did not answer within %s; %s", asked, clientLimit, provenOn)
		return []Finding{f}
	case version == "":
		f.Message = fmt.Sprintf("%s printed no version (exit %d: %s); %s", asked, res.exit, firstLine(append(res.stdout, res.stderr...)), provenOn)
		return []Finding{f}
	}
	info.Installed = version
	f.Message = fmt.Sprintf("%s %s (%s): ", a.p.Title, version, asked)
	info.Proven = proven
	d.judgeVersion(&f, a, version, proven, provenOn, install)
	return []Finding{f}
}

// judgeVersion rates the installed version of a's client against the
// versions nowhook's real-client tests passed on (proven), and says so
// in the row f.
func (d *doctor) judgeVersion(f *Finding, a *agent, version string, proven []string, provenOn, install string) {
	newest, oldest := versionRange(proven)
	switch {
	case containsVersion(proven, version):
		f.Severity = OK
		f.Message += "proven on " + version
	case compareVersions(version, newest) > 0 && a.p.Doctor.Proved:
		// Only --prove starts the client: --live runs the hooks alone.
		f.Message += fmt.Sprintf("newer than proven (%s > %s): run nowhook doctor --prove", version, newest)
		f.Fix = "nowhook doctor --prove" + d.scopeArg + d.dirFlag
	case compareVersions(version, newest) > 0:
		f.Message += fmt.Sprintf("newer than proven (%s > %s): run nowhook doctor --live", version, newest)
		if !d.live {
			f.Fix = "nowhook doctor --live" + d.dirFlag
		}
	case compareVersions(version, oldest) < 0:
		f.Severity = Warn
		f.Message += fmt.Sprintf("older than any proven version (%s < %s)", version, oldest)
		f.Fix = install
	default:
		f.Message += fmt.Sprintf("not a proven version (%s; %s)", version, provenOn)
		if !d.live {
			f.Fix = "nowhook doctor --live" + d.dirFlag
		}
	}
}

// versionRange is the newest and the oldest of versions (not empty).
func versionRange(versions []string) (newest, oldest string) {
	newest, oldest = versions[0], versions[0]
	for _, v := range versions {
		if compareVersions(v, newest) > 0 {
			newest = v
		}
		if compareVersions(v, oldest) < 0 {
			oldest = v
		}
	}
	return newest, oldest
}

func containsVersion(list []string, v string) bool {
	for _, x := range list {
		if compareVersions(x, v) == 0 {
			return true
		}
	}
	return false
}

// compareVersions compares two versions numerically, part by part
// ("2.1.332" < "2.2.0" < "2.10.0"; "1.2" = "1.2.0"): -1, 0 or 1. A
// pre-release ("2.2.0-beta.1") comes before its release, and compares
// with another pre-release by its text; build metadata (after "+") is
// left out.
func compareVersions(a, b string) int {
	a, _, _ = strings.Cut(a, "+")
	b, _, _ = strings.Cut(b, "+")
	an, apre, _ := strings.Cut(a, "-")
	bn, bpre, _ := strings.Cut(b, "-")
	ap, bp := strings.Split(an, "."), strings.Split(bn, ".")
	for i := 0; i < max(len(ap), len(bp)); i++ {
		x, y := part(ap, i), part(bp, i)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	switch {
	case apre == bpre:
		return 0
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	return strings.Compare(apre, bpre)
}

// part is the number at i of a version's parts, 0 past its end.
func part(parts []string, i int) uint64 {
	if i >= len(parts) {
		return 0
	}
	n, _ := strconv.ParseUint(parts[i], 10, 64)
	return n
}

// nowhookCheck: nowhook's own version and the client versions its
// real-client tests passed on, so that a report carries them.
var nowhookCheck = checkFunc{"nowhook", func(d *doctor, _ *agent) []Finding {
	if d.version == "" {
		return nil
	}
	proven := diag.Proven{}
	pins, _ := scripts.Pins()
	for _, p := range pins {
		proven[p.Agent] = append(proven[p.Agent], p.Version)
	}
	return []Finding{{Message: d.version + "; " + ProvenLine(), Proven: &proven}}
}}

// ProvenLine names the client versions nowhook's real-client tests passed
// on: "proven on Claude Code 2.1.332, Codex CLI 0.171.0, ..." (`nowhook
// version` prints it too).
func ProvenLine() string {
	pins, err := scripts.Pins()
	if err != nil {
		return "proven on: unknown (" + err.Error() + ")"
	}
	var items []string
	for _, p := range pins {
		title := p.Agent
		if a, ok := agentpkg.Lookup(p.Agent); ok {
			title = a.Title
		}
		items = append(items, title+" "+p.Version)
	}
	return "proven on " + strings.Join(items, ", ") + " (the real-client tests; scripts/pins.tsv)"
}

// npmVersion finds the npm package of pins that the command at path
// belongs to, and returns that package and its version ("" for none): the
// package's folder beside an npm bin link (<prefix>/node_modules/.bin/X
// and <prefix>/node_modules/PACKAGE; a global <prefix>/bin/X and
// <prefix>/lib/node_modules/PACKAGE), else the package.json nearest above
// the command's real path, when its name is a pin's package. A pin whose
// binary comes from a package of its own (the fifth field) is left to
// `--version`: the launcher's version is not the binary's.
func npmVersion(path string, pins []scripts.Pin) (pkg, version string) {
	bin := filepath.Dir(path)
	var candidates []string
	for _, p := range pins {
		if p.BinaryPackage != "" {
			return "", ""
		}
		if filepath.Base(bin) == ".bin" {
			candidates = append(candidates, filepath.Join(filepath.Dir(bin), filepath.FromSlash(p.Package)))
		} else {
			candidates = append(candidates, filepath.Join(filepath.Dir(bin), "lib", "node_modules", filepath.FromSlash(p.Package)))
		}
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		for dir, i := filepath.Dir(real), 0; i < 4; dir, i = filepath.Dir(dir), i+1 {
			candidates = append(candidates, dir)
		}
	}
	for _, dir := range candidates {
		b, err := diag.ReadBounded(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var meta struct{ Name, Version string }
		if json.Unmarshal(b, &meta) != nil || meta.Version == "" {
			continue
		}
		for _, p := range pins {
			if p.Package == meta.Name {
				return meta.Name, meta.Version
			}
		}
	}
	return "", ""
}
