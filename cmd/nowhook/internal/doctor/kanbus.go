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
	budget time.Duration
	first  procResult
	raw    *procResult
}

func (d *doctor) runQuery(ctx context.Context, prog, dir string, budget time.Duration) kbsQuery {
	q := kbsQuery{prog: prog, dir: dir, budget: budget}
	run := func(raw bool) procResult {
		argv := []string{prog, "now", "--json", "--list"}
		if raw {
			argv = append(argv, "--raw")
		}
		return runProc(ctx, proc{argv: argv, dir: dir, env: d.env, limit: budget})
	}
	q.first = run(false)
	if q.first.startErr == nil && !q.first.killed && q.first.exit != 0 {
		r := run(true)
		q.raw = &r
	}
	return q
}

// kanbusConfigCheck: the hook prints nothing outside a Kanbus project. It
// looks for .kanbus.yml as the hook runtime and setup do: from the session's
// directory (the working directory, when it is inside the repository) up
// to the git root. A monorepo's sub-project below the root is fine, in
// sessions that start there; kbs init is advised only when there is no
// project on the way up, since it would make a second one.
var kanbusConfigCheck = checkFunc{"kanbus.config", func(d *doctor, _ *agent) []Finding {
	var f Finding
	if d.kanbus.Config != "" {
		f.Path = d.show(d.kanbus.Config)
		f.Message = "found " + d.show(d.kanbus.Config)
		if dir, below := d.kanbus.Below(d.root); below {
			f.Message += fmt.Sprintf(": the Kanbus project is %s/, below the repository root: the hook finds it in agent sessions whose directory is %s/ or below it, and prints nothing in sessions started elsewhere; if your agents start in %s/, set nowhook up there: nowhook setup --dir %s",
				dir, dir, dir, shellQuote(d.pathFromWD(filepath.Dir(d.kanbus.Config))))
		}
		return []Finding{f}
	}
	f.Severity = Error
	f.Message = "no .kanbus.yml in " + d.from + " or above it up to the git root: the hook prints nothing until this is a Kanbus project"
	if !d.hooksInstalled() {
		f.Severity = Warn
	}
	f.Fix = "kbs init (if your Kanbus project lives in a subfolder, run nowhook doctor there instead: kbs init would make a second project)"
	return []Finding{f}
}}

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
			f.Message = fmt.Sprintf("Kanbus has no AI configured for right-now summaries (%s): the hook falls back to --raw, which answered %s in %s, without summaries", firstLine(first.stderr), plural(n, "item"), round(raw.elapsed))
			f.Fix = "configure ai.provider in .kanbus.yml (see Kanbus's docs) to get summaries"
		}
	case first.exit != 0:
		f.Severity = Error
		f.Message = fmt.Sprintf("`%s` exits %d (%s)", cmd, first.exit, firstLine(first.stderr))
		if n := q.items(); n >= 0 {
			f.Severity = Warn
			f.Message += fmt.Sprintf("; the hook's --raw retry answered %s, without summaries", plural(n, "item"))
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
		f.Message = fmt.Sprintf("`%s` answered in %s with %s in progress (budget %s)", cmd, round(first.elapsed), plural(n, "item"), q.budget)
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
