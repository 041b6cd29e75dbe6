package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/generate"
)

// maxRead bounds every file doctor reads.
const maxRead = 8 << 20

// hookFile is one of an agent's hook files, read and walked the way the
// agent reads it.
type hookFile struct {
	abs  string // absolute path
	show string // as shown: relative to the root, or absolute
	user bool   // outside the repository (a user-level file)
	raw  []byte
	// readErr is set when the file exists but cannot be read.
	readErr error
	// parseErr is set when the agent cannot load the file at all.
	parseErr *generate.FileError
	// dropped is set when the file parses but the agent's own validation
	// drops all of it (Codex: an unknown top-level key, for example).
	dropped *generate.FileError
	// refused is set when setup refuses to edit the file: the error
	// generate's MergeHook gives for it, word for word (a value of the
	// wrong type the agent rejects, a key that appears twice, or any error
	// of parseErr, in the same words).
	refused  *generate.FileError
	doc      map[string]any // the top-level object; nil when empty or broken
	handlers []handler
	// shape lists entries the agent rejects, found while walking.
	shape []shapeProblem
}

// shapeProblem is an entry of the wrong type in a hook file.
type shapeProblem struct {
	at   string // JSON path
	line int
	what string
}

// handler is one hook handler in a hook file.
type handler struct {
	file  *hookFile
	event string
	name  string // the named group (LayoutNamed)
	// group is the index in the event's array; index is the handler's
	// index in the group's "hooks" (LayoutGrouped), else -1.
	group, index int
	// wrapped is false for a handler placed directly in a grouped
	// layout's event array, without the {"matcher", "hooks"} wrapper.
	wrapped  bool
	matcher  *string // nil when the group has no matcher (or it is null)
	badMatch bool    // the matcher is not a string
	obj      map[string]any
	command  string // the command string; an array is joined with spaces
	line     int
	at       string // JSON path, e.g. hooks.SessionStart[0].hooks[0]
	// groupJSON is the standard JSON of the handler's matcher group.
	groupJSON []byte
}

// where names the handler for messages: file:line (JSON path).
func (h handler) where() string {
	return fmt.Sprintf("%s:%d (%s)", h.file.show, h.line, h.at)
}

// readHookFile reads path by the rules of the agent's format. It returns
// nil when the file does not exist.
func readHookFile(abs, show string, user bool, p *agentpkg.Agent) *hookFile {
	info, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return &hookFile{abs: abs, show: show, user: user, readErr: err}
	}
	f := &hookFile{abs: abs, show: show, user: user}
	if info.IsDir() {
		f.readErr = fmt.Errorf("is a directory, where %s expects a file", p.Title)
		return f
	}
	if f.raw, err = readBounded(abs); err != nil {
		f.readErr = err
		return f
	}
	schema := generate.HookFile{Path: show, Agent: p.Title, Strict: p.Hooks.Strict}
	parsed, err := schema.ParseHookFile(f.raw)
	if err != nil {
		fe, ok := err.(*generate.FileError)
		if !ok {
			fe = &generate.FileError{Path: show, Problem: err.Error()}
		}
		f.parseErr = fe
		return f
	}
	if parsed.Doc == nil {
		return f // empty: the agent loads nothing from it, and that is fine
	}
	src := bytes.TrimPrefix(f.raw, []byte("\xef\xbb\xbf"))
	tree, err := hujson.Parse(src)
	if err != nil { // cannot happen: ParseHookFile parsed it
		f.parseErr = &generate.FileError{Path: show, Problem: "is not valid JSON (" + err.Error() + ")"}
		return f
	}
	root, ok := tree.Value.(*hujson.Object)
	if !ok {
		f.parseErr = &generate.FileError{Path: show, Line: 1, Col: 1, Problem: "the top level is " + generate.KindName(&tree) + ", not an object",
			Consequence: p.Title + " loads no hooks from it"}
		return f
	}
	f.doc, _ = parsed.Doc.(map[string]any)
	w := walker{f: f, src: src}
	switch p.Hooks.Layout {
	case agentpkg.LayoutGrouped, agentpkg.LayoutFlat:
		for i := range root.Members {
			m := &root.Members[i]
			if memberName(m) != "hooks" {
				continue
			}
			events, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				w.problem("hooks", &m.Value, "is "+generate.KindName(&m.Value)+", not an object of events")
				continue
			}
			for j := range events.Members {
				e := &events.Members[j]
				w.event("", memberName(e), "hooks."+memberName(e), &e.Value, p.Hooks.Layout == agentpkg.LayoutGrouped)
			}
		}
	case agentpkg.LayoutNamed:
		for i := range root.Members {
			m := &root.Members[i]
			name := memberName(m)
			events, ok := m.Value.Value.(*hujson.Object)
			if !ok {
				continue // not a hook group (a "$schema" or a comment key)
			}
			for j := range events.Members {
				e := &events.Members[j]
				w.event(name, memberName(e), name+"."+memberName(e), &e.Value, false)
			}
		}
	}
	return f
}

type walker struct {
	f   *hookFile
	src []byte
}

func (w walker) line(v *hujson.Value) int {
	return bytes.Count(w.src[:min(v.StartOffset, len(w.src))], []byte("\n")) + 1
}

func (w walker) problem(at string, v *hujson.Value, what string) {
	w.f.shape = append(w.f.shape, shapeProblem{at: at, line: w.line(v), what: what})
}

// event walks one event's array.
func (w walker) event(name, event, at string, v *hujson.Value, grouped bool) {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		w.problem(at, v, "is "+generate.KindName(v)+", not an array")
		return
	}
	for gi := range arr.Elements {
		el := &arr.Elements[gi]
		elAt := fmt.Sprintf("%s[%d]", at, gi)
		obj, ok := el.Value.(*hujson.Object)
		if !ok {
			w.problem(elAt, el, "is "+generate.KindName(el)+", not an object")
			continue
		}
		if !grouped {
			w.handler(handler{event: event, name: name, group: gi, index: -1, wrapped: true, at: elAt}, el)
			continue
		}
		var hooks *hujson.Value
		var matcher *string
		badMatch := false
		for i := range obj.Members {
			m := &obj.Members[i]
			switch memberName(m) {
			case "hooks":
				hooks = &m.Value
			case "matcher":
				switch x := decode(&m.Value).(type) {
				case string:
					matcher = &x
				case nil:
				default:
					badMatch = true
				}
			}
		}
		if hooks == nil {
			// A handler without the group wrapper, or an empty group.
			w.handler(handler{event: event, group: gi, index: -1, wrapped: false, at: elAt, groupJSON: standard(el)}, el)
			continue
		}
		hs, ok := hooks.Value.(*hujson.Array)
		if !ok {
			w.problem(elAt+".hooks", hooks, "is "+generate.KindName(hooks)+", not an array of handlers")
			continue
		}
		for hi := range hs.Elements {
			h := &hs.Elements[hi]
			w.handler(handler{event: event, group: gi, index: hi, wrapped: true, matcher: matcher, badMatch: badMatch,
				at: fmt.Sprintf("%s.hooks[%d]", elAt, hi), groupJSON: standard(el)}, h)
		}
	}
}

func (w walker) handler(h handler, v *hujson.Value) {
	h.file = w.f
	h.line = w.line(v)
	obj, ok := decode(v).(map[string]any)
	if !ok {
		w.problem(h.at, v, "is "+generate.KindName(v)+", not a handler object")
		return
	}
	h.obj = obj
	switch c := obj["command"].(type) {
	case string:
		h.command = c
	case []any:
		var parts []string
		for _, p := range c {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		h.command = strings.Join(parts, " ")
	}
	w.f.handlers = append(w.f.handlers, h)
}

func memberName(m *hujson.ObjectMember) string {
	if lit, ok := m.Name.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

func standard(v *hujson.Value) []byte {
	c := v.Clone()
	c.Standardize()
	return c.Pack()
}

// decode returns v as encoding/json decodes it, numbers as json.Number.
func decode(v *hujson.Value) any {
	d := json.NewDecoder(bytes.NewReader(standard(v)))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return nil
	}
	return x
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, maxRead+1)); err != nil {
		return nil, err
	}
	if b.Len() > maxRead {
		return nil, fmt.Errorf("is larger than %d MiB", maxRead>>20)
	}
	return b.Bytes(), nil
}

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
	c := strings.NewReplacer(`"`, "", `'`, "", "`", " ", "$(git rev-parse --show-toplevel)", d.root).Replace(command)
	vars := map[string]string{"HOME": d.home}
	if v := a.p.Hooks.ProjectDirEnv; v != "" {
		vars[v] = d.root
	}
	c = varRefRE.ReplaceAllStringFunc(c, func(ref string) string {
		m := varRefRE.FindStringSubmatch(ref)
		name := m[1] + m[2]
		if v, ok := vars[name]; ok && v != "" {
			return v
		}
		return ref
	})
	var out []string
	for _, simple := range commandSepRE.Split(c, -1) {
		first := true
		for _, w := range strings.Fields(simple) {
			if first && assignRE.MatchString(w) {
				continue // VAR=value before the program
			}
			program := first
			first = false
			switch {
			case strings.HasPrefix(w, "-"), strings.Contains(w, "$"):
				continue
			case w == "~" || strings.HasPrefix(w, "~/"):
				if d.home == "" {
					continue
				}
				w = filepath.Join(d.home, w[1:])
			case program && !strings.Contains(w, "/"):
				continue // a program on PATH
			case !filepath.IsAbs(w):
				w = filepath.Join(d.root, w)
			}
			if info, err := os.Stat(w); err == nil && info.Mode().IsRegular() && !containsString(out, w) {
				out = append(out, w)
				if len(out) == maxCommandFiles {
					return out
				}
			}
		}
	}
	return out
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
