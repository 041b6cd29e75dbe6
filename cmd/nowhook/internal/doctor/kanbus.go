package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
)

// findKbs finds the Kanbus CLI the hook runs: $KBS, else kbs, else kanbus.
func (d *doctor) findKbs() (prog, how string) {
	if k := osutil.Getenv(d.env, "KBS"); k != "" {
		if p, ok := osutil.LookPath(d.env, k); ok {
			return p, "KBS=" + k
		}
		return "", "KBS=" + k
	}
	for _, name := range []string{"kbs", "kanbus"} {
		if p, ok := osutil.LookPath(d.env, name); ok {
			return p, name
		}
	}
	return "", ""
}

// kbsQuery is doctor's own run of `kbs now --json --list`, as the hook
// makes it, and of the --raw retry the hook makes when it fails.
type kbsQuery struct {
	prog   string
	dir    string
	budget time.Duration // the hook's
	// limit is how long doctor waits for each call: the budget under
	// --live, otherwise no more than the quick runs' probe budget.
	limit time.Duration
	first procResult
	raw   *procResult
}

func (d *doctor) runQuery(ctx context.Context, prog, dir string, budget, limit time.Duration) kbsQuery {
	q := kbsQuery{prog: prog, dir: dir, budget: budget, limit: limit}
	run := func(raw bool, limit time.Duration) procResult {
		argv := []string{prog, "now", "--json", "--list"}
		if raw {
			argv = append(argv, "--raw")
		}
		return runProc(ctx, proc{argv: argv, dir: dir, env: d.env, limit: limit})
	}
	q.first = run(false, limit)
	if q.first.startErr == nil && !q.first.killed && q.first.exit != 0 {
		if q.quick() {
			// The retry gets what the hook would leave it, within the
			// quick wait once more.
			limit = max(min(budget-q.first.elapsed, limit), 0)
		}
		r := run(true, limit)
		q.raw = &r
	}
	return q
}

// quick reports whether doctor stopped waiting for kbs before the hook
// would: outside --live.
func (q kbsQuery) quick() bool { return q.limit < q.budget }

// kanbusConfigCheck: the hook prints nothing outside a Kanbus project. It
// looks for .kanbus.yml as the hook runtime and setup do: from the session's
// directory (the working directory, when it is inside the repository) up
// to the git root. A monorepo's sub-project below the root is fine, in
// sessions that start there; a repository whose projects all lie in
// sub-folders gets a row per project with what a session there needs;
// kbs init is advised only when there is no project at all, since it
// would make another one.
var kanbusConfigCheck = checkFunc{"kanbus.config", func(d *doctor, _ *agent) []Finding {
	var f Finding
	if d.kanbus.Config != "" {
		f.Path = d.show(d.kanbus.Config)
		f.Message = "found " + d.show(d.kanbus.Config)
		if dir, below := d.kanbus.Below(d.root); below {
			f.Message += fmt.Sprintf(": the Kanbus project is %s/, below the repository root: the hook finds it in agent sessions whose directory is %s/ or below it, and prints nothing in sessions started elsewhere; if your agents start in %s/, set nowhook up there: nowhook setup --dir %s",
				dir, dir, dir, diag.ShellQuote(d.pathFromWD(filepath.Dir(d.kanbus.Config))))
		}
		return []Finding{f}
	}
	if len(d.kanbus.Projects) > 0 {
		return d.projectsBelow()
	}
	f.Severity = Error
	f.Message = "no .kanbus.yml in " + d.from + " or above it up to the git root, nor in the folders below the repository root (" + d.kanbus.Search.String() + "): the hook prints nothing until this is a Kanbus project"
	if !d.hooksInstalled() {
		f.Severity = Warn
	}
	f.Fix = "kbs init"
	if !d.kanbus.Search.Complete {
		f.Fix = "kbs init (if your Kanbus project lives deeper than the search went, run nowhook doctor in its folder instead: kbs init would make a second project)"
	}
	return []Finding{f}
}}

// projectsBelow reports a repository whose Kanbus projects all lie in
// sub-folders: no session started at the root finds one, and each project
// gets a row saying what a session started in it needs.
func (d *doctor) projectsBelow() []Finding {
	k := d.kanbus
	var dirs []string
	for _, p := range k.Projects {
		dirs = append(dirs, p.Dir+"/")
	}
	out := []Finding{{Severity: Warn,
		Message: fmt.Sprintf("no .kanbus.yml in %s or above it up to the git root, but %s below the repository root: %s. The hook prints nothing in agent sessions started here, and finds the project in sessions started in %s or below", d.from, diag.Plural(len(k.Projects), "Kanbus project"), ProjectList(k.Projects), inThem(k.Projects)),
		Fix:     "start agent sessions in " + joinOr(dirs)}}
	var hooked []*agentpkg.Agent
	for _, a := range d.present() {
		if a.mode == agentpkg.Reinject {
			hooked = append(hooked, a.p)
		}
	}
	walk, startDir := splitByStartDir(hooked)
	for _, p := range k.Projects {
		abs := filepath.Dir(p.Config)
		f := Finding{Path: d.show(p.Config)}
		var missing, there []*agentpkg.Agent
		for _, a := range startDir {
			if a.HookIn(abs) {
				there = append(there, a)
			} else {
				missing = append(missing, a)
			}
		}
		var parts []string
		if len(missing) > 0 {
			f.Severity = Warn
			parts = append(parts, fmt.Sprintf("sessions started in %s/ get no reminder from %s, which %s only in the folder %s in, and %s/ has none", p.Dir, titles(missing), readsHook(missing), startsIn(missing), p.Dir))
			f.Fix = "nowhook setup --yes --dir " + diag.ShellQuote(d.pathFromWD(abs)) + " --agents " + names(missing)
		}
		if len(there) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s nowhook's hook in %s/", titles(there), has(there), p.Dir))
		}
		if len(walk) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s the hook set up here from %s/", titles(walk), finds(walk), p.Dir))
		}
		if len(parts) == 0 {
			parts = append(parts, "sessions started in "+p.Dir+"/ or below find this project")
		} else if len(missing) == 0 {
			parts[0] = "sessions started in " + p.Dir + "/ get its reminder: " + parts[0]
		}
		f.Message = d.show(p.Config) + ": " + strings.Join(parts, "; ")
		out = append(out, f)
	}
	return out
}

// ProjectList names Kanbus projects for a sentence: "a/ (a/.kanbus.yml)
// and b/ (b/.kanbus.yml)".
func ProjectList(projects []detect.KanbusProject) string {
	var items []string
	for _, p := range projects {
		items = append(items, p.Dir+"/ ("+p.Dir+"/.kanbus.yml)")
	}
	return joinFiles(items)
}

// ProjectsBelowNote is setup's note for a repository whose Kanbus
// projects all lie below its root: where sessions find one, and for each
// agent given (those set up with a hook) what a session started in a
// project needs. dirArg names a project folder as --dir takes it, typed
// where the user is.
func ProjectsBelowNote(k detect.Kanbus, agents []*agentpkg.Agent, dirArg func(abs string) string) string {
	count := "one"
	if len(k.Projects) > 1 {
		count = fmt.Sprint(len(k.Projects))
	}
	s := fmt.Sprintf("there is no Kanbus project at the repository root, but %s below it: %s. The hook prints nothing in agent sessions started at the root, and finds the project in sessions started in %s or below.", count, ProjectList(k.Projects), inThem(k.Projects))
	walk, startDir := splitByStartDir(agents)
	if len(walk) > 0 {
		from := "from them"
		if len(k.Projects) == 1 {
			from = "from " + k.Projects[0].Dir + "/"
		}
		s += fmt.Sprintf(" %s %s the hook set up here %s.", titles(walk), finds(walk), from)
	}
	if len(startDir) > 0 {
		var cmds []string
		for i, p := range k.Projects {
			cmd := "nowhook setup --yes --dir " + diag.ShellQuote(dirArg(filepath.Dir(p.Config))) + " --agents " + names(startDir)
			if i == 0 {
				cmds = append(cmds, "for sessions started in "+p.Dir+"/, run "+cmd)
			} else {
				cmds = append(cmds, "in "+p.Dir+"/, "+cmd)
			}
		}
		s += fmt.Sprintf(" %s %s only in the folder %s in: %s.", titles(startDir), readsHook(startDir), startsIn(startDir), strings.Join(cmds, "; "))
	}
	return s
}

// inThem names where sessions find a project: "svc/", or "one of those
// folders".
func inThem(projects []detect.KanbusProject) string {
	if len(projects) == 1 {
		return projects[0].Dir + "/"
	}
	return "one of those folders"
}

// splitByStartDir parts agents into those that find the hook set up at
// the root from any sub-folder and those that read it only in the folder
// a session starts in.
func splitByStartDir(agents []*agentpkg.Agent) (walk, startDir []*agentpkg.Agent) {
	for _, a := range agents {
		if a.StartDirOnly() {
			startDir = append(startDir, a)
		} else {
			walk = append(walk, a)
		}
	}
	return walk, startDir
}

func titles(agents []*agentpkg.Agent) string {
	var t []string
	for _, a := range agents {
		t = append(t, a.Title)
	}
	return joinFiles(t)
}

func names(agents []*agentpkg.Agent) string {
	var n []string
	for _, a := range agents {
		n = append(n, a.Name)
	}
	return strings.Join(n, ",")
}

// The verbs of a sentence whose subject is one agent or several.
func readsHook(agents []*agentpkg.Agent) string {
	return verb(agents, "reads its hook", "read their hook")
}
func startsIn(agents []*agentpkg.Agent) string { return verb(agents, "it starts", "they start") }
func finds(agents []*agentpkg.Agent) string    { return verb(agents, "finds", "find") }
func has(agents []*agentpkg.Agent) string      { return verb(agents, "has", "have") }

func verb(agents []*agentpkg.Agent, one, several string) string {
	if len(agents) == 1 {
		return one
	}
	return several
}

// joinOr joins words for a sentence: "A", "A or B", "A, B or C".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// pathFromWD names dir for a command typed in the working directory:
// relative to it when doctor runs inside the repository, else absolute.
func (d *doctor) pathFromWD(dir string) string {
	if d.fromWD {
		if rel, err := filepath.Rel(d.from, dir); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return dir
}

// hooksInstalled reports whether any re-inject hook of ours is installed.
func (d *doctor) hooksInstalled() bool {
	for _, a := range d.agents {
		for _, s := range a.specs {
			if len(s.ours) > 0 && s.script != "" && a.mode == "reinject" {
				return true
			}
		}
	}
	return false
}

// kanbusCLICheck: the hook needs kbs (or kanbus) on PATH.
var kanbusCLICheck = checkFunc{"kanbus.cli", func(d *doctor, _ *agent) []Finding {
	var f Finding
	prog, how := d.findKbs()
	switch {
	case prog != "":
		f.Message = fmt.Sprintf("%s on PATH: %s", how, prog)
		if how != "kbs" && how != "kanbus" {
			f.Message = fmt.Sprintf("%s: %s", how, prog)
		}
	case how != "":
		f.Severity = Error
		f.Message = how + " is not an executable on PATH, so the hook prints nothing"
		f.Fix = "set KBS to the Kanbus CLI, or unset it to use kbs from PATH"
	default:
		f.Severity = Error
		f.Message = "neither kbs nor kanbus is on PATH: Kanbus is not installed here, so the hook prints nothing"
		f.Fix = "install Kanbus (github.com/AnthusAI/Kanbus), then check with: kbs now --json --list"
	}
	return []Finding{f}
}}

// noAIMarkers are how Kanbus says it has no AI to write summaries with.
var noAIMarkers = []string{"Right-now summary generation", "OPENAI_API_KEY"}

// kanbusQueryCheck: `kbs now --json --list` answers within the hook's
// budget with a JSON array; each way it can fail has its own message.
var kanbusQueryCheck = checkFunc{"kanbus.query", func(d *doctor, _ *agent) []Finding {
	if d.slow.query == nil {
		return nil
	}
	q := d.slow.query.wait()
	var f Finding
	cmd := "kbs now --json --list"
	first := q.first
	switch {
	case first.startErr != nil:
		f.Severity = Error
		f.Message = fmt.Sprintf("%s cannot be started (%v), so the hook prints nothing", q.prog, first.startErr)
		f.Fix = "reinstall Kanbus, then check with: " + cmd
	case q.quick() && (first.killed || q.raw != nil && q.raw.killed):
		f.Severity = Info
		what := "`" + cmd + "`"
		if !first.killed {
			what = fmt.Sprintf("`%s` exits %d (%s), and its --raw retry", cmd, first.exit, firstLine(first.stderr))
		}
		f.Message = fmt.Sprintf("%s did not answer within doctor's quick wait of %s (the hook gives it %s); nowhook doctor --live waits the whole budget and says whether it answers in time", what, q.limit, q.budget)
		f.Fix = "nowhook doctor --live" + d.dirFlag
	case first.killed:
		f.Severity = Error
		f.Message = fmt.Sprintf("`%s` did not answer within the hook's budget of %s, so the hook prints nothing", cmd, q.budget)
		f.Fix = fmt.Sprintf("time `%s` in %s; if it is slow but works, %s", cmd, d.show(q.dir), d.setupFix("", "--timeout "+nextBudget(q.budget)))
		if q.budget >= maxBudget {
			f.Fix = fmt.Sprintf("time `%s` in %s: it takes longer than the largest budget a hook may have (%s); make it faster, e.g. configure Kanbus without AI summaries so the hook's --raw retry answers", cmd, d.show(q.dir), maxBudget)
		}
	case first.exit != 0 && isNoAI(first.stderr):
		raw := q.raw
		switch {
		case raw == nil || raw.startErr != nil || raw.killed || raw.exit != 0:
			f.Severity = Error
			f.Message = fmt.Sprintf("`%s` fails because Kanbus has no AI configured for summaries (%s), and the --raw retry fails too, so the hook prints nothing", cmd, firstLine(first.stderr))
			f.Fix = "check by hand: kbs now --json --list --raw"
		default:
			n, ok := countItems(raw.stdout)
			if !ok {
				f.Severity = Error
				f.Message = fmt.Sprintf("`%s` fails for lack of AI configuration, and the --raw retry prints something that is not a JSON array (%s), so the hook prints nothing", cmd, preview(raw.stdout))
				f.Fix = "check by hand: kbs now --json --list --raw"
				break
			}
			if !q.retries() {
				f.Severity = Error
				f.Message = fmt.Sprintf("Kanbus has no AI configured for right-now summaries (%s), and with a budget of %s the hook has less than 1s left to retry with --raw, so it prints nothing", firstLine(first.stderr), q.budget)
				f.Fix = d.setupFix("", "--timeout 5s")
				break
			}
			f.Severity = Warn
			f.Message = fmt.Sprintf("Kanbus has no AI configured for right-now summaries (%s): the hook falls back to --raw, which answered %s in %s, without summaries", firstLine(first.stderr), diag.Plural(n, "item"), round(raw.elapsed))
			f.Fix = "configure ai.provider in .kanbus.yml (see Kanbus's docs) to get summaries"
		}
	case first.exit != 0:
		f.Severity = Error
		f.Message = fmt.Sprintf("`%s` exits %d (%s)", cmd, first.exit, firstLine(first.stderr))
		if n := q.items(); n >= 0 {
			f.Severity = Warn
			f.Message += fmt.Sprintf("; the hook's --raw retry answered %s, without summaries", diag.Plural(n, "item"))
		} else if q.retries() {
			f.Message += "; the --raw retry fails too, so the hook prints nothing"
		} else {
			f.Message += fmt.Sprintf("; with a budget of %s the hook has no time left to retry with --raw, so it prints nothing", q.budget)
		}
		f.Fix = "run `" + cmd + "` in " + d.show(q.dir) + " and fix what it reports"
	default:
		n, ok := countItems(first.stdout)
		if !ok {
			f.Severity = Error
			f.Message = fmt.Sprintf("`%s` printed something that is not a JSON array (%s), so the hook prints nothing", cmd, preview(first.stdout))
			f.Fix = "run `" + cmd + "` in " + d.show(q.dir) + "; update Kanbus if its output is not a JSON array"
			break
		}
		f.Message = fmt.Sprintf("`%s` answered in %s with %s in progress (budget %s)", cmd, round(first.elapsed), diag.Plural(n, "item"), q.budget)
		if n == 0 {
			f.Message += "; the hook prints nothing while nothing is in progress"
		}
	}
	return []Finding{f}
}}

// items is the number of items the hook would print: from the first
// answer, or from the --raw retry when the hook has the time to make it;
// -1 when it prints nothing.
func (q kbsQuery) items() int {
	ok := func(r *procResult) bool { return r != nil && r.startErr == nil && !r.killed && r.exit == 0 }
	if ok(&q.first) {
		if n, valid := countItems(q.first.stdout); valid {
			return n
		}
		return -1
	}
	if q.retries() && ok(q.raw) {
		if n, valid := countItems(q.raw.stdout); valid {
			return n
		}
	}
	return -1
}

// retries reports whether the hook retries with --raw after the first
// call failed: only with a second of its budget left.
func (q kbsQuery) retries() bool {
	return q.budget-q.first.elapsed >= time.Second
}

func isNoAI(stderr []byte) bool {
	for _, m := range noAIMarkers {
		if bytes.Contains(stderr, []byte(m)) {
			return true
		}
	}
	return false
}

// countItems counts the items of a `kbs now --json --list` answer.
func countItems(out []byte) (int, bool) {
	out = bytes.TrimPrefix(bytes.TrimSpace(out), []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(out, []byte("[")) {
		return 0, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(out, &items); err != nil {
		return 0, false
	}
	return len(items), true
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "no message"
	}
	line, _, _ := strings.Cut(s, "\n")
	return truncate(strings.TrimSpace(line), 160)
}

func preview(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "nothing"
	}
	return fmt.Sprintf("%d bytes starting %q", len(b), truncate(s, 40))
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func round(t time.Duration) string {
	return fmt.Sprintf("%.2fs", t.Seconds())
}

// maxBudget is the largest budget setup allows.
const maxBudget = 30 * time.Second

// nextBudget suggests a larger budget, within setup's 1s–30s.
func nextBudget(b time.Duration) string {
	return min(max(2*b, 10*time.Second), maxBudget).String()
}

// queryDir is where the hook runs kbs: the directory of .kanbus.yml.
func (d *doctor) queryDir() string {
	return filepath.Dir(d.kanbus.Config)
}
