// Package doctor is `nowhook doctor`: it reads a repository's hook
// configuration the way each agent reads it and reports, as one table,
// every way the Kanbus compaction reminder can be silently broken (SPEC,
// "doctor"). It writes nothing itself; what it runs is the installed hooks
// (with the user's kbs, and with a failing and a hanging fake kbs kept in a
// temporary directory that it removes), `kbs now --json --list`, and, when
// codex is on PATH, `codex app-server` to list hook trust.
//
// Every check is a small named unit. The agent-specific ones are chosen by
// the platform table (*agentpkg.Agents): a platform row brings its hook
// files, their layout, the events that cannot re-inject, and the files
// setup writes for each mode.
package doctor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/nowhook/nowhook/detect"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// Exit statuses (SPEC, Commands).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

const usage = `Usage: nowhook doctor [--dir DIR] [--json]

Checks the repository's hook configuration for every agent that is set up
or detected, the way each agent reads it, then runs each installed hook
with a compact SessionStart payload (with your kbs, a failing one and a
hanging one). It prints one table, RESULT CHECK MESSAGE, with the command
that fixes each problem, and changes no file. (It runs kbs now --json --list
as the hook does; a Kanbus with AI configured may then refresh its right-now
summaries, as it does after every compaction. With codex on PATH, it asks
codex app-server for the hooks' trust, and codex keeps its usual state in
CODEX_HOME.)

Exit status: 0 when no check found an error, 1 when one did, 2 for usage.

Flags:
  --dir DIR   the repository (default: the git top level of the working directory, else the working directory)
  --json      print the findings as a JSON array of {check, agent, severity, message, fix, path}
`

// Main is `nowhook doctor`. It returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nowhook doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "")
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "nowhook doctor: %v\n\n%s", err, usage)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "nowhook doctor: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return exitUsage
	}
	dirGiven := *dir != ""
	root, err := detect.Root(".")
	if dirGiven {
		root, err = detect.Dir(*dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nowhook doctor: --dir: %v\n", err)
		return exitUsage
	}
	env := os.Environ()
	opts := Options{Root: root, Env: env}
	if dirGiven {
		opts.Dir = *dir
	}
	findings := Run(context.Background(), opts)
	home := lookupEnv(env, "HOME")
	if *asJSON {
		err = WriteJSON(stdout, findings, home)
	} else {
		err = WriteTable(stdout, findings, home)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nowhook doctor: writing the report: %v\n", err)
		return exitFailed
	}
	return exitStatus(findings)
}

// exitStatus is 1 when a finding is an error, else 0.
func exitStatus(findings []Finding) int {
	if Worst(findings) == Error {
		return exitFailed
	}
	return exitOK
}

// Options is what one doctor run looks at.
type Options struct {
	// Root is the repository root (see detect.Root).
	Root string
	// Dir is the --dir value as given, repeated in the fix commands; ""
	// when doctor runs in the repository itself.
	Dir string
	// Env is the environment the agents would give their hooks: HOME,
	// PATH, KBS, CODEX_HOME and CLAUDE_CONFIG_DIR are read from it.
	Env []string
	// LiveLimit bounds each live run of a hook (0: the hook's budget plus
	// 2s, at most 8s).
	LiveLimit time.Duration
}

// A check is one named unit of doctor: it looks at one agent (nil for the
// checks that concern every agent) and returns its findings.
type check struct {
	name string
	run  func(d *doctor, a *agent) []Finding
}

// checks are every agent check, by name; each agent's row in the table
// names the ones it runs (agent.Agent.Checks), and a test keeps every
// name known.
var checks = map[string]check{}

func init() {
	for _, c := range []check{
		modeCheck, hookFilesCheck, claudeDisabledCheck, ourHookCheck, scriptCheck,
		claudeTwiceCheck, wrongEventCheck, claudeBlockingCheck, claudeMDCheck,
		codexConfigCheck, codexFeaturesCheck, codexLayersCheck, codexTrustCheck, codexDocCapCheck,
	} {
		checks[c.name] = c
	}
}

// sharedChecks concern every agent, after the agents' own.
var sharedChecks = []check{agentsMDCheck, kanbusConfigCheck, kanbusCLICheck, kanbusQueryCheck, liveCheck, runtimeCheck}

// Run runs every check and returns the findings in table order.
func Run(ctx context.Context, o Options) []Finding {
	d := newDoctor(o)
	d.scan()
	cleanup := d.startSlow(ctx)
	defer cleanup()
	var out []Finding
	for _, a := range d.agents {
		if !a.present() {
			continue
		}
		for _, name := range a.p.Checks {
			out = append(out, checks[name].run(d, a)...)
		}
	}
	if !d.anyPresent() {
		out = append(out, Finding{Check: "agents", Severity: Info,
			Message: "no agent is set up or detected in " + d.root + " (looked for " + strings.Join(allMarkers(), ", ") + ")",
			Fix:     d.setupFix("")})
	}
	for _, c := range sharedChecks {
		out = append(out, c.run(d, nil)...)
	}
	return out
}

// doctor is one run's state: what was read, and the slow results.
type doctor struct {
	root     string
	dirFlag  string
	env      []string
	home     string
	limit    time.Duration
	agents   []*agent
	kanbus   detect.Kanbus
	agentsMD *mdFile
	claudeMD *mdFile
	// codexUser and codexProject are the Codex config.toml layers, read
	// on first use.
	codexUser, codexProject *tomlFile
	slow                    slowResults
}

func newDoctor(o Options) *doctor {
	d := &doctor{root: o.Root, env: o.Env, limit: o.LiveLimit}
	if d.env == nil {
		d.env = os.Environ()
	}
	d.home = lookupEnv(d.env, "HOME")
	if o.Dir != "" {
		d.dirFlag = " --dir " + shellQuote(o.Dir)
	}
	return d
}

// agent is one platform row and what doctor found of it.
type agent struct {
	p        *agentpkg.Agent
	evidence []string
	files    []*hookFile   // the hook files that exist, in the table's order
	specs    []*ourSpec    // the hook entries setup writes for this platform
	mode     agentpkg.Mode // what nowhook set up for it; "" for nothing
}

func (a *agent) present() bool {
	if len(a.evidence) > 0 || a.mode != "" {
		return true
	}
	for _, f := range a.files {
		if !f.user {
			return true
		}
	}
	return false
}

func (d *doctor) anyPresent() bool {
	for _, a := range d.agents {
		if a.present() {
			return true
		}
	}
	return false
}

func (d *doctor) agent(name string) *agent {
	for _, a := range d.agents {
		if a.p.Name == name {
			return a
		}
	}
	return nil
}

// ourSpec is a hook entry setup writes: the file, its schema, and the
// script the entry runs, from the agent table.
type ourSpec struct {
	mode   agentpkg.Mode
	rel    string
	schema generate.HookFile
	hook   func(budget time.Duration) generate.Hook
	script string
	ours   []handler // our handlers, in any of the agent's hook files
}

// scan reads every platform's hook files and finds our entries.
func (d *doctor) scan() {
	d.kanbus = detect.DetectKanbus(d.root)
	d.agentsMD = readMD(d.root, "AGENTS.md")
	d.claudeMD = readMD(d.root, "CLAUDE.md")
	for _, fa := range agentpkg.Detect(d.root) {
		a := &agent{p: fa.Agent, evidence: fa.Evidence}
		for _, path := range a.p.Hooks.Files {
			abs, user := d.expand(path)
			if f := readHookFile(abs, d.show(abs), user, a.p); f != nil {
				a.files = append(a.files, f)
			}
		}

		for _, mh := range a.p.HookEntries() {
			entry := mh.Hook
			s := &ourSpec{mode: mh.Mode, rel: entry.File.Path, schema: entry.File, script: entry.Script,
				hook: func(budget time.Duration) generate.Hook { return entry.Hook(agentpkg.Options{Budget: budget}) }}
			ours := generate.RunsScript(s.script)
			for _, f := range a.files {
				for _, h := range f.handlers {
					if h.event == s.schema.Event && ours(h.command) {
						s.ours = append(s.ours, h)
					}
				}
			}
			a.specs = append(a.specs, s)
			if a.mode == "" && (len(s.ours) > 0 || exists(filepath.Join(d.root, s.script))) {
				a.mode = mh.Mode
			}
		}
		for _, f := range a.files {
			f.dropped = agentCheck(a, f)
		}
		if a.mode == "" && len(a.evidence) > 0 && d.agentsMD.block(onDemandBlock) != nil {
			a.mode = agentpkg.OnDemand
		}
		d.agents = append(d.agents, a)
	}
}

// expand turns a table path into an absolute one: repository paths are
// joined to the root; "~/" and "${VAR:-default}" expand from the env.
func (d *doctor) expand(path string) (abs string, user bool) {
	expanded := envRefRE.ReplaceAllStringFunc(path, func(ref string) string {
		m := envRefRE.FindStringSubmatch(ref)
		if v := lookupEnv(d.env, m[1]); v != "" {
			return v
		}
		return m[2]
	})
	switch {
	case strings.HasPrefix(expanded, "~/"):
		return filepath.Join(d.home, expanded[2:]), true
	case filepath.IsAbs(expanded):
		return filepath.Clean(expanded), true
	}
	return filepath.Join(d.root, filepath.FromSlash(expanded)), false
}

var envRefRE = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}`)

// show returns how a path is shown: relative to the root inside it, but
// absolute (shown with ~) inside a home directory that lies in the root.
func (d *doctor) show(abs string) string {
	if within(d.home, abs) && within(d.root, d.home) {
		return abs
	}
	if within(d.root, abs) {
		rel, _ := filepath.Rel(d.root, abs)
		return filepath.ToSlash(rel)
	}
	return abs
}

// within reports whether path lies strictly inside dir.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

// setupFix is the setup command for agents ("" for the detected ones).
func (d *doctor) setupFix(agents string, extra ...string) string {
	s := "nowhook setup --yes"
	if agents != "" {
		s += " --agents " + agents
	}
	for _, e := range extra {
		s += " " + e
	}
	return s + d.dirFlag
}

// budget is the time the installed wrapper gives kbs: its --timeout, else
// the default.
func (d *doctor) budget() time.Duration {
	for _, s := range agentpkg.ReminderScripts() {
		if b, ok := scriptBudget(filepath.Join(d.root, s)); ok {
			return b
		}
	}
	return defaultBudget
}

const defaultBudget = 5 * time.Second

var budgetRE = regexp.MustCompile(`nowhook[ -]reminder --timeout (\S+)`)

func scriptBudget(path string) (time.Duration, bool) {
	b, err := readBounded(path)
	if err != nil {
		return 0, false
	}
	m := budgetRE.FindSubmatch(b)
	if m == nil {
		return 0, false
	}
	t, err := time.ParseDuration(string(m[1]))
	if err != nil || t <= 0 {
		return 0, false
	}
	return t, true
}

// modeCheck says what nowhook set up for the agent, or that it did not.
var modeCheck = check{"mode", func(d *doctor, a *agent) []Finding {
	f := Finding{Check: a.p.Name + ".mode", Agent: a.p.Name}
	refusal := a.p.Refused[agentpkg.Reinject]
	switch a.mode {
	case agentpkg.Reinject:
		f.Message = a.p.Title + ": re-inject after compaction (" + strings.TrimPrefix(a.p.Reinject, "yes: ") + ")"
	case agentpkg.OnDemand:
		f.Message = a.p.Title + ": on-demand only, AGENTS.md teaches `kbs now`"
		if refusal != "" {
			f.Message += " (" + refusal + ")"
		} else {
			f.Severity = Info
			f.Message += "; it can re-inject after compaction"
			f.Fix = d.setupFix(a.p.Name + "=" + string(a.p.Default))
		}
	case agentpkg.Nudge:
		f.Message = a.p.Title + ": on-demand, with a preCompact message telling the user to have the agent run `kbs now` (" + refusal + ")"
	default:
		f.Severity = Info
		f.Message = a.p.Title + " is detected (" + strings.Join(a.evidence, ", ") + ") but nowhook has not set it up"
		f.Fix = d.setupFix(a.p.Name)
	}
	return []Finding{f}
}}

func allMarkers() []string { return agentpkg.Markers() }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func lookupEnv(env []string, name string) string {
	val := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			val = v
		}
	}
	return val
}

// lookPath finds an executable on the env's PATH.
func lookPath(env []string, name string) (string, bool) {
	if strings.Contains(name, "/") {
		return name, isExecutable(name)
	}
	for _, dir := range filepath.SplitList(lookupEnv(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// templateVersion is the version of the templates this nowhook writes.
const templateVersion = templates.Version
