package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// What a hook handler of an agent's hook file (diag.HookFile, read the way
// the agent reads it) selects and runs: its group's matcher, and the
// files and the reminder its command runs.

// Matchers, the way Claude Code and Codex read them (docs/platforms.md#claude-code, #codex-cli): case
// sensitive; "*", empty or absent match everything; names joined by "|"
// match exactly; anything with other regex metacharacters is an unanchored
// regex search, and a regex that does not compile never matches.

const regexMeta = `.^$*+?()[]{}\`

// sources are the SessionStart sources besides compact (Claude Code and
// Codex; fork is Claude Code's only).
var sources = []string{"startup", "resume", "clear", "fork"}

// matcherResult says whether a matcher selects a value, and how.
type matcherResult struct {
	matches bool
	all     bool     // no matcher, "" or "*": every source
	others  []string // the other sources it selects too
	why     string   // how it was read
}

func matchMatcher(matcher *string, value string) matcherResult {
	if matcher == nil {
		return matcherResult{matches: true, all: true, others: sources, why: "no matcher selects every source"}
	}
	m := *matcher
	if m == "" || m == "*" {
		return matcherResult{matches: true, all: true, others: sources, why: fmt.Sprintf("matcher %q selects every source", m)}
	}
	ok, why := selects(m, value)
	r := matcherResult{matches: ok, why: why}
	if ok {
		for _, s := range sources {
			if also, _ := selects(m, s); also {
				r.others = append(r.others, s)
			}
		}
	}
	return r
}

// selects reports whether a matcher other than "", "*" selects value.
func selects(m, value string) (bool, string) {
	if !strings.ContainsAny(m, regexMeta) {
		for _, name := range strings.Split(m, "|") {
			if name == value {
				return true, fmt.Sprintf("matcher %q names %s", m, value)
			}
		}
		return false, fmt.Sprintf("matcher %q does not name %s (names match exactly and case-sensitively)", m, value)
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return false, fmt.Sprintf("matcher %q is not a valid regular expression, so it never matches", m)
	}
	if !re.MatchString(value) {
		return false, fmt.Sprintf("matcher %q, a regular expression, does not match %s", m, value)
	}
	return true, fmt.Sprintf("matcher %q, a regular expression, matches %s", m, value)
}

// kbsNowRE finds a command that runs `kbs now` or `kanbus now`.
var kbsNowRE = regexp.MustCompile(`(^|[\s;&|(/"'=])(kbs|kanbus)["']?\s+now\b`)

// runsReminder reports whether a command prints the Kanbus reminder: our
// wrappers in any spelling, `nowhook reminder`, or `kbs now` itself.
func runsReminder(command string) bool {
	for _, s := range agentpkg.ReminderScripts() {
		if generate.RunsScript(s)(command) {
			return true
		}
	}
	return strings.Contains(command, "kanbus-compaction-right-now") ||
		strings.Contains(command, "nowhook reminder") ||
		strings.Contains(command, "nowhook-reminder") ||
		kbsNowRE.MatchString(command)
}

// commandFiles returns the files a hook command of agent a runs or
// reads, as far as its words tell: every word that names an existing
// regular file, e.g. `.claude/hooks/x.sh`, `"$CLAUDE_PROJECT_DIR"/x`,
// `bash --norc x.sh`, `uv run x.py`, `~/.claude/hooks/x.py` or
// `$(git rev-parse --show-toplevel)/x`. The command runs in the project
// directory, so relative words are relative to the root; the agent's
// project variable is the root, $HOME and ~ the home directory. The first
// word of a command that holds no slash is a program on PATH, not a file.
func (d *doctor) commandFiles(a *agent, command string) []string {
	var out []string
	for _, simple := range commandSepRE.Split(d.expandCommand(a, command), -1) {
		first := true
		for _, w := range strings.Fields(simple) {
			if first && assignRE.MatchString(w) {
				continue // VAR=value before the program
			}
			path, ok := d.wordPath(w, first)
			first = false
			if !ok {
				continue
			}
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && !containsString(out, path) {
				out = append(out, path)
				if len(out) == maxCommandFiles {
					return out
				}
			}
		}
	}
	return out
}

// expandCommand is a hook command of agent a without its quotes, with the
// git root, the agent's project variable and $HOME put in.
func (d *doctor) expandCommand(a *agent, command string) string {
	c := strings.NewReplacer(`"`, "", `'`, "", "`", " ", "$(git rev-parse --show-toplevel)", d.root).Replace(command)
	vars := map[string]string{"HOME": d.home}
	if v := a.p.Hooks.ProjectDirEnv; v != "" {
		vars[v] = d.root
	}
	return varRefRE.ReplaceAllStringFunc(c, func(ref string) string {
		m := varRefRE.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if v, ok := vars[name]; ok && v != "" {
			return v
		}
		return ref
	})
}

// wordPath is the file a word of a command names, if it can name one: not
// a flag, nor a word with a variable left in it, nor the program of a
// simple command that holds no slash (a program on PATH).
func (d *doctor) wordPath(w string, program bool) (string, bool) {
	switch {
	case strings.HasPrefix(w, "-"), strings.Contains(w, "$"):
		return "", false
	case w == "~" || strings.HasPrefix(w, "~/"):
		if d.home == "" {
			return "", false
		}
		return filepath.Join(d.home, w[1:]), true
	case program && !strings.Contains(w, "/"):
		return "", false
	case !filepath.IsAbs(w):
		return filepath.Join(d.root, w), true
	}
	return w, true
}

// maxCommandFiles bounds how many files doctor reads for one command.
const maxCommandFiles = 8

var (
	// varRefRE finds $NAME and ${NAME}.
	varRefRE = regexp.MustCompile(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})`)
	// commandSepRE splits a command line into simple commands.
	commandSepRE = regexp.MustCompile(`&&|\|\||[;&|()\n]`)
	// assignRE finds an environment assignment, VAR=value.
	assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hookFormat is how agent p reads its hook files.
func hookFormat(p *agentpkg.Agent) diag.Format {
	return diag.Format{Title: p.Title, Strict: p.Hooks.Strict, Layout: p.Hooks.Layout}
}
