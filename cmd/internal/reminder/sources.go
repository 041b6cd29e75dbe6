package reminder

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The reminder's sources (README, "Sources"): what comes back after a
// compaction besides, or instead of, the Kanbus board. Setup chooses them
// per repository (setup --sources) and the wrapper passes them on
// (--sources LIST); the default is the board alone, which prints exactly
// the reminder Kanbus documents.
//
//   - kanbus: the board's work in progress (kbs now --json --list).
//   - samemind: `samemind handoff`, the knowledge base's work state
//     (samemind.go).
//   - rules: the user's own words from before the compaction, verbatim,
//     read from the client's own transcript (rules.go).
//   - git: branch, HEAD, changed files, ahead and behind, and where the
//     session started, read fresh (gitfacts.go).
//
// samemind takes one option, samemind=note: besides the handoff after the
// compaction, the pre-compaction hook appends samemind's dated
// pre-compact note to its inbox (samemind_note.go). The option is opt-in
// because the note is written into the user's knowledge base, outside the
// repository.
//
// Each source fails on its own: one that fails, hangs or prints garbage is
// left out and the others still print. They share one time budget (the
// wrapper's --timeout) and one byte cap for the whole reminder, which fits
// the client's limit on what a hook may print (capFor).

// sourceSet is a set of sources.
type sourceSet uint8

const (
	srcKanbus sourceSet = 1 << iota
	srcSamemind
	srcRules
	srcGit
	// srcNote: samemind=note, the pre-compact note in samemind's inbox
	// (always with srcSamemind).
	srcNote
)

// NoteOption is the option of samemind that writes the pre-compact note:
// --sources samemind=note.
const NoteOption = "samemind=note"

// sourceOptions are the NAME=OPTION forms --sources accepts, each the
// source it implies and the bits it sets.
var sourceOptions = []struct {
	name string
	bit  sourceSet
}{
	{NoteOption, srcSamemind | srcNote},
}

// DefaultSources is what the hook prints without --sources.
const DefaultSources = "kanbus"

// sourceNames are the sources in the order their parts print: the user's
// words first (the task and its constraints are best recalled at the
// start), then the board, the knowledge base, and the git facts last.
var sourceNames = []struct {
	name string
	bit  sourceSet
}{
	{"rules", srcRules},
	{"kanbus", srcKanbus},
	{"samemind", srcSamemind},
	{"git", srcGit},
}

// SourceNames lists the source names --sources accepts, in printing
// order (samemind=note is an option of samemind: sourceOptions).
func SourceNames() []string {
	names := make([]string, len(sourceNames))
	for i, s := range sourceNames {
		names[i] = s.name
	}
	return names
}

// parseSources reads a comma-separated list of source names. Unknown
// names are returned in bad and left out; an empty list is the default.
func parseSources(list string) (set sourceSet, bad []string) {
	if strings.TrimSpace(list) == "" {
		list = DefaultSources
	}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		found := false
		for _, s := range sourceNames {
			if s.name == f {
				set |= s.bit
				found = true
			}
		}
		for _, s := range sourceOptions {
			if s.name == f {
				set |= s.bit
				found = true
			}
		}
		if !found {
			bad = append(bad, f)
		}
	}
	return set, bad
}

// has reports whether s holds every source of t.
func (s sourceSet) has(t sourceSet) bool { return s&t == t }

// String is the set as --sources takes it, in printing order, samemind
// with its option where it has it.
func (s sourceSet) String() string {
	var names []string
	for _, n := range sourceNames {
		if s.has(n.bit) {
			name := n.name
			if n.bit == srcSamemind && s.has(srcNote) {
				name = NoteOption
			}
			names = append(names, name)
		}
	}
	return strings.Join(names, ",")
}

// The byte cap of the whole reminder, per client (docs/platforms.md,
// "Sources"). Claude Code replaces hook output of about 10,000
// characters or more by a preview; Codex cuts output above about 2,500
// tokens in the middle. Every other client that re-injects takes at least
// as much (measured with the e2e tests' largest reminder).
const (
	// maxReminderBytes is the cap for every client: under Claude Code's
	// 10,000 characters (a character takes a byte or more), and under
	// Codex's 2,500 tokens for text of about 3.6 bytes a token or more.
	maxReminderBytes = 9000
	// partGap separates two parts of the reminder.
	partGap = "\n"
)

// A part is one source's text, rendered within a byte limit.
type part struct {
	// render returns the part in at most limit bytes, or nil when it has
	// nothing to say in that room. It is called with the part's want
	// first, then perhaps with less.
	render func(limit int) []byte
	// floor is the room the part is sure to get (when it needs it), want
	// the most it asks for.
	floor, want int
}

// assemble renders the parts, in printing order, into at most total
// bytes: each part first gets up to its floor, then the room left goes to
// the parts in order, up to their want. A part that renders nothing takes
// no room, and its gap goes too.
func assemble(parts []part, total int) []byte {
	sized := make([]int, len(parts))   // the room each part gets
	natural := make([]int, len(parts)) // what it takes at its want
	rendered := make([][]byte, len(parts))
	room := total
	some := false
	for i, p := range parts {
		rendered[i] = p.render(p.want)
		natural[i] = len(rendered[i])
		if natural[i] == 0 {
			continue
		}
		if some {
			room -= len(partGap)
		}
		some = true
	}
	for i, p := range parts {
		give := min(natural[i], p.floor, max(room, 0))
		sized[i] = give
		room -= give
	}
	for i := range parts {
		more := min(natural[i]-sized[i], max(room, 0))
		sized[i] += more
		room -= more
	}
	var out []byte
	for i, p := range parts {
		if natural[i] == 0 || sized[i] == 0 {
			continue
		}
		b := rendered[i]
		if sized[i] < natural[i] {
			b = p.render(sized[i])
		}
		if len(b) == 0 || len(b) > sized[i] {
			continue // a part that cannot fit its room is left out
		}
		if len(out) > 0 {
			out = append(out, partGap...)
		}
		out = append(out, b...)
	}
	return out
}

// lookPath finds a program on PATH, as an absolute path (a relative entry
// of PATH is taken from the working directory).
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return "", err
	}
	return filepath.Abs(path)
}

// The room each source asks for, and is sure to get when it needs it
// (assemble). The board keeps today's cap; git's few lines always fit.
const (
	kanbusFloor = 2500
	gitWant     = 1024
	// gitReserve is the end of the budget kept for git: its two bounded
	// calls and a margin.
	gitReserve = gitFactsMax + gitStatusMax + 50*time.Millisecond
)

// kanbusProject finds the Kanbus project for a session in cwd when the
// board is one of the sources. ok is false when the board is the only
// source and there is no project: then there is nothing to say.
func (o options) kanbusProject(cwd string) (dir string, ok bool) {
	set := o.chosen()
	if !set.has(srcKanbus) {
		return "", true
	}
	dir = o.project(cwd)
	return dir, dir != "" || set != srcKanbus
}

// chosen is the set of sources: the board alone unless --sources said
// otherwise.
func (o options) chosen() sourceSet {
	if o.sources == 0 {
		return srcKanbus
	}
	return o.sources
}

// sourcePayload is what the sources read of a hook payload.
func (pl payload) sourcePayload() sourcePayload {
	return sourcePayload{transcriptPath: pl.transcriptPath, previousSessionID: pl.previousSessionID,
		userMessages: pl.userMessages, hasUserMessages: pl.hasUserMessages}
}

// fromSources reads the chosen sources for a session in cwd by the
// deadline and returns the reminder, nil when none has anything to say.
// project is the Kanbus project ("" when there is none, or the board is
// not a source).
//
// The sources that run programs (kbs, samemind, git) run one after the
// other, each within its own bound: kbs, which keeps a third of the
// budget back for samemind when that is a source, so that neither a
// hanging kbs nor a hanging samemind leaves the other without time, then
// git in the gitReserve both leave it. The user's words are read from the
// transcript meanwhile.
func (o options) fromSources(project, cwd string, sp sourcePayload, deadline time.Time) []byte {
	set := o.chosen()
	start := cwd
	if start == "" {
		start = o.wd
	}
	// The words are read meanwhile, and handed over on a channel: a read
	// still running at the deadline is left to itself.
	read := make(chan wordsResult, 1)
	if set.has(srcRules) {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					read <- wordsResult{err: fmt.Errorf("internal error: %v", r)}
				}
			}()
			w, err := readUserWords(sp)
			read <- wordsResult{w, err}
		}()
	}
	var (
		facts  gitFacts
		gitOK  bool
		items  []item
		handof []byte
	)
	// git runs last, in the room kept for it: a git status killed at its
	// bound may take a while to die in a large repository, and a call
	// after it would wait for that (the orphans' reaping).
	end := deadline
	if set.has(srcGit) {
		end = deadline.Add(-gitReserve)
	}
	if set.has(srcKanbus) && project != "" {
		kd := end
		if set.has(srcSamemind) {
			kd = end.Add(-o.budget / samemindShare)
		}
		items, _, _ = o.inProgress(project, kd, false)
	}
	if set.has(srcSamemind) {
		handof = readHandoff(start, end, o.stop, o.log)
	}
	if set.has(srcGit) {
		facts, gitOK = readGitFacts(start, deadline, defaultGitOptions, o.stop, o.log)
	}
	var words userWords
	if set.has(srcRules) {
		r, ok, stopped := o.awaitWords(read, deadline)
		switch {
		case stopped:
			return nil
		case !ok:
			o.log.printf("rules: the transcript was not read by the deadline")
		case r.err != nil:
			o.log.printf("rules: %v", r.err)
		default:
			words = r.words
			o.log.printf("rules: %d messages of the user's from %s", len(words.msgs), words.from)
		}
	}
	root := samemindRoot(o.getenv)
	var parts []part
	for _, n := range sourceNames {
		if !set.has(n.bit) {
			continue
		}
		switch n.bit {
		case srcRules:
			w := words
			parts = append(parts, part{floor: rulesFloor, want: rulesWant, render: func(limit int) []byte { return renderRules(w, limit) }})
		case srcKanbus:
			parts = append(parts, part{floor: kanbusFloor, want: maxOutBytes, render: func(limit int) []byte { return formatWithin(items, limit) }})
		case srcSamemind:
			parts = append(parts, part{floor: samemindFloor, want: samemindWant, render: func(limit int) []byte { return renderHandoff(handof, root, limit) }})
		case srcGit:
			if gitOK {
				parts = append(parts, part{floor: gitWant, want: gitWant, render: func(limit int) []byte { return renderGit(facts, limit) }})
			}
		}
	}
	out := assemble(parts, maxReminderBytes)
	if len(out) == 0 {
		o.log.printf("no source had anything to say: printing nothing")
	}
	return out
}

// wordsResult is what the reading of the user's words came to.
type wordsResult struct {
	words userWords
	err   error
}

// awaitWords waits for the words, at most until the deadline: ok is false
// when they did not come by then, stopped true when a stop signal came
// first. Words already read win over a deadline already past (a select
// between two ready cases picks at random).
func (o options) awaitWords(read <-chan wordsResult, deadline time.Time) (r wordsResult, ok, stopped bool) {
	select {
	case r = <-read:
		return r, true, false
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r = <-read:
		return r, true, false
	case <-timer.C:
		return r, false, false
	case s := <-o.stop:
		o.log.printf("stopped by %v", s)
		return r, false, true
	}
}

// NormalSources checks a --sources list for setup and returns it in
// printing order, each source once: an unknown name or an empty list is
// an error that names the sources there are.
func NormalSources(list string) (string, error) {
	if strings.TrimSpace(strings.ReplaceAll(list, ",", "")) == "" {
		return "", fmt.Errorf("--sources names no source: give one or more of %s, comma-separated", strings.Join(SourceNames(), ", "))
	}
	set, bad := parseSources(list)
	if len(bad) > 0 {
		return "", fmt.Errorf("--sources: unknown source %s: the sources are %s (and %s, samemind with its pre-compact note)", strings.Join(bad, ", "), strings.Join(SourceNames(), ", "), NoteOption)
	}
	return set.String(), nil
}

// NoteChosen reports whether a --sources list chooses samemind's
// pre-compact note (samemind=note).
func NoteChosen(list string) bool {
	set, _ := parseSources(list)
	return set.has(srcNote)
}
