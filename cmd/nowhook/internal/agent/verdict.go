package agent

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The verdict on what an agent gets from the instruction files in one
// start folder, from its judgement (judge.go): doctor's reach row and, for
// an agent with a budget, its budget row, for the root and each start
// folder; setup makes the same rows on the files as its plan leaves them
// and refuses what they call an error (engine/vet.go). A warning or an
// error means a session started there does not get what nowhook promises:
// the kbs-now teaching, read whole, with every byte of the team's own text
// it read without nowhook.

// ReachRow is the name of the reach row.
const ReachRow = "reach"

// VerdictOptions shape the rows' fixes.
type VerdictOptions struct {
	// SetupFix is the setup command for agents (as --agents lists them)
	// with extra flags, as doctor spells it.
	SetupFix func(agents string, extra ...string) string
	// SetupIn is the setup command that sets agents up in the start
	// folder from as a repository of its own (setup --dir).
	SetupIn func(from, agents string) string
	// Before, where set, is the repository before a plan (setup's vet):
	// a block it does not hold yet is one setup is about to write.
	Before Files
}

// Verdict returns the rows of agent a, set up in mode m, for a session
// started in from, as f shows the repository: each with its Check set to
// the row's name (ReachRow, or the budget's Row) and From to the folder.
func (a *Agent) Verdict(f Files, m Mode, from string, o VerdictOptions) []diag.Finding {
	j := a.Judge(f, from)
	bare := a.Judge(Bare(f), from)
	losses := j.Losses(bare)
	reach := a.reachRow(j, m, losses, o)
	out := []diag.Finding{reach}
	if row, ok := a.budgetRow(j, losses, o); ok {
		if row.Severity == diag.Error && reach.Severity == diag.Error && j.cutOnly() {
			// The budget's row says it, with the numbers and the fix.
			out[0].Severity, out[0].Fix = diag.Info, ""
			out[0].Message = startedIn(j.From, fmt.Sprintf("%s loads %s, but does not read the kbs-now block whole: see the %s.%s row", a.Title, joinNames(j.shownFiles()), a.Name, row.Check))
		}
		out = append(out, row)
	}
	for i := range out {
		out[i].From = j.From
	}
	return out
}

// startedIn prefixes a message about a start folder other than the root.
func startedIn(from, msg string) string {
	if from == "." {
		return msg
	}
	return "started in " + from + "/: " + msg
}

// reachRow: ok where a file the agent loads holds the kbs-now block, read
// whole, and no file of nowhook's hides the team's own; an error where the
// block sits only in files it does not read from there, or a file of
// nowhook's hides the team's; a warning where no file has the block, or
// where the agent reads only the start folder's own files (a session
// started in a sub-folder), which setup at the root does not write.
func (a *Agent) reachRow(j Judgement, m Mode, losses []Loss, o VerdictOptions) diag.Finding {
	f := diag.Finding{Check: ReachRow}
	fix := o.SetupFix(a.ArgFor(m))
	facts := fmt.Sprintf("%s reads %s (%s)", a.Title, a.Reads.Describe(), a.Reads.Client)
	if names := j.namedFiles(); j.Source != "" && j.Source != geminiDefaultSource && j.Source != qwenDefaultSource && len(names) > 0 {
		facts = fmt.Sprintf("%s reads %s; here also %s (%s) (%s)", a.Title, a.Reads.Describe(), joinNames(names), j.Source, a.Reads.Client)
	}
	loaded := "no instruction file"
	if shown := j.shownFiles(); len(shown) > 0 {
		loaded = joinNames(shown)
	}
	hidden := j.hiddenText()
	with := func(msg string) string {
		if hidden != "" {
			msg += "; " + hidden
		}
		return msg
	}
	if teaches := j.Teaches(); len(teaches) > 0 {
		var where []string
		for _, t := range teaches {
			span, _ := j.block(t)
			s := fmt.Sprintf("%s:%d", t, span.Line)
			if l, _ := j.Load(t); l.Via != "" {
				s += " (" + l.Via
				if c := a.Reads.caveat(t); c != "" && j.From == "." {
					s += "; " + c
				}
				s += ")"
			}
			where = append(where, s)
		}
		f.Path = teaches[0]
		f.Message = startedIn(j.From, with(fmt.Sprintf("%s loads %s; the kbs-now block that teaches `kbs now` is in %s", a.Title, loaded, joinNames(where))))
		var lost, fixes []string
		for _, l := range losses {
			if l.By == "" {
				continue // a budget's: its own row says so
			}
			// A file of nowhook's that hides the team's takes their text
			// out of what the agent reads: an error, so that setup
			// refuses to create it (engine/vet.go) where sparing it would
			// leave an agent set up untaught (engine/reads.go).
			if len(lost) == 0 {
				f.Severity, f.Path = diag.Error, l.By
			}
			lost = append(lost, fmt.Sprintf("%s (%d bytes of the team's text)", l.File, l.Bytes))
			keep := a.keepFix(j, l, o)
			fixes = append(fixes, "for "+l.File+": "+keep)
			f.Fix = keep
			if len(fixes) > 1 {
				f.Fix = strings.Join(fixes, "; ")
			}
			hider := l.By + ", which holds nothing but nowhook's blocks"
			if o.Before != nil && !exists(o.Before, l.By) {
				hider = l.By + ", which setup creates"
			}
			f.Message = startedIn(j.From, fmt.Sprintf("%s no longer reads %s: %s, hides it (%s)", a.Title, joinNames(lost), hider, facts))
		}
		return f
	}
	var holders, why []string
	for _, file := range blockFiles() {
		b, ok := j.files.Read(file)
		if !ok || !OnDemandBlock.Present(b) {
			continue
		}
		holders = append(holders, file)
		if l, ok := j.Load(file); ok && j.Budget != nil {
			span, _ := j.block(file)
			why = append(why, fmt.Sprintf("%s reads only the first %d bytes of %s and the block ends at byte %d (%s = %d, %s)", a.Title, l.Read, file, span.End, j.Budget.Setting, j.Budget.Limit, j.Budget.Source))
		}
	}
	if len(holders) == 0 {
		f.Severity, f.Fix = diag.Warn, fix
		f.Message = startedIn(j.From, fmt.Sprintf("no file %s loads has the kbs-now block, so it never learns to run `kbs now`: it loads %s (%s)", a.Title, loaded, facts))
		return f
	}
	f.Severity, f.Path, f.Fix = diag.Error, holders[0], fix
	if h, ok := j.skippedFor(holders); ok {
		// Setup wrote the block where the agent reads it by default; the
		// team's setting or link keeps it out: theirs to change, so setup
		// again is no fix.
		if h.Link {
			f.Fix = fmt.Sprintf("make %s a regular file (%s reads no symbolic link), or leave %s out of --agents", h.File, a.Title, a.Name)
		} else {
			f.Fix = fmt.Sprintf("add %q to %s, beside %s", path.Base(h.File), j.Source, joinNames(j.namedFiles()))
		}
	}
	msg := fmt.Sprintf("the kbs-now block is in %s, which %s never loads, so it never learns to run `kbs now`: it loads %s", joinNames(holders), a.Title, loaded)
	if len(why) > 0 {
		msg = fmt.Sprintf("the kbs-now block is in %s, which %s does not read whole, so it never learns to run `kbs now`: %s", joinNames(holders), a.Title, strings.Join(why, "; "))
	}
	if j.From != "." && a.Reads.Walk == StartOnly {
		// Setup at the root writes nothing a session started here reads.
		f.Severity = diag.Warn
		f.Fix = o.SetupIn(j.From, a.ArgFor(m))
		msg += fmt.Sprintf(" (%s reads only the folder a session starts in: set nowhook up in %s/ too)", a.Title, j.From)
	}
	f.Message = startedIn(j.From, with(msg)+" ("+facts+")")
	return f
}

// keepFix says how the team keeps file l.File in the agent's view beside
// the file l.By of nowhook's that hides it: where the agent looks for
// l.By's name in l.File's folder, that name made a link to l.File (the
// agent then reads the team's text through it, and setup writes its block
// into l.File through the link); at the root, the agent's own way (Keep,
// OpenCode's "instructions"), where it is not a link too.
func (a *Agent) keepFix(j Judgement, l Loss, o VerdictOptions) string {
	dir, name, target := path.Dir(l.File), path.Base(l.By), path.Base(l.File)
	link := path.Join(dir, name)
	var ways []string
	if hasInstruction(a.Reads.Files, name) {
		ln := "ln -s " + target + " " + name
		if dir != "." {
			ln = "cd " + dir + " && " + ln
		}
		switch {
		case link != l.By:
			ways = append(ways, fmt.Sprintf("make %s a link to %s (%s), which %s reads from there", link, target, ln, a.Title))
		case o.Before != nil && !exists(o.Before, l.By):
			ways = append(ways, fmt.Sprintf("create %s yourself as a link to %s (%s): setup then writes its block into %s through it, and every agent that reads %s reads the team's text", l.By, target, ln, l.File, l.By))
		default:
			ways = append(ways, fmt.Sprintf("replace %s by a link to %s: nowhook remove, then %s, then %s", l.By, target, ln, o.SetupFix(a.Name)))
		}
	}
	if keep := a.Reads.Keep(l.File); keep != "" && j.From == "." && !strings.Contains(keep, "ln -s") {
		ways = append(ways, keep)
	}
	if len(ways) == 0 {
		return fmt.Sprintf("move the team's text of %s into a file %s reads beside %s", l.File, a.Title, l.By)
	}
	return strings.Join(ways, ", or ")
}

// exists reports whether f holds file.
func exists(f Files, file string) bool {
	_, ok := f.Read(file)
	return ok
}

// skippedFor returns the first of files that the agent skips from here
// because it is a symbolic link or its settings name other files
// (context.fileName), the reasons that setup cannot change.
func (j Judgement) skippedFor(files []string) (Skipped, bool) {
	for _, file := range files {
		for _, h := range j.Hidden {
			if h.File == file && (h.Link || h.Setting != "" && j.Source != "") {
				return h, true
			}
		}
	}
	return Skipped{}, false
}

// shownFiles are the loaded files a row names: all but those that hold
// nothing but nowhook's blocks other than the kbs-now block (Claude Code's
// Compact Instructions in .claude/rules/, which teach nothing of kbs now).
func (j Judgement) shownFiles() []string {
	var out []string
	for _, l := range j.Loads {
		b, _ := j.files.Read(l.File)
		if _, teaches := j.block(l.File); !teaches && len(oursSpans(b)) > 0 {
			if bare, _ := Bare(j.files).Read(l.File); len(bytes.TrimSpace(bare)) == 0 {
				continue
			}
		}
		out = append(out, l.File)
	}
	return out
}

// cutOnly reports whether every file with the kbs-now block is one the
// agent loads and a budget cuts.
func (j Judgement) cutOnly() bool {
	for _, file := range blockFiles() {
		b, ok := j.files.Read(file)
		if !ok || !OnDemandBlock.Present(b) {
			continue
		}
		if _, loaded := j.Load(file); !loaded {
			return false
		}
	}
	return j.Budget != nil
}

// namedFiles are the file names the agent's settings made it look for.
func (j Judgement) namedFiles() []string {
	if j.Agent == nil || j.Agent.Reads.Named == nil {
		return nil
	}
	names, _ := j.Agent.Reads.Named(j.files, j.From)
	return names
}

// hiddenText says which files on the walk the agent skips and why, or "".
func (j Judgement) hiddenText() string {
	var parts []string
	for _, h := range j.Hidden {
		switch {
		case h.Link:
			parts = append(parts, fmt.Sprintf("it does not read %s, a symbolic link", h.File))
		case h.By != "":
			parts = append(parts, fmt.Sprintf("%s hides %s from it", h.By, h.File))
		case h.Setting != "":
			parts = append(parts, fmt.Sprintf("it reads %s only where %s lists it", h.File, h.Setting))
		}
	}
	return strings.Join(parts, ", ")
}

// budgetRow: where the agent reads its files under a budget, whether
// nowhook's kbs-now block lies within it together with the team's text:
// ok within; an error where it starts or ends beyond the budget, or pushes
// team text that the agent read without it out of what it reads. No row
// where no file the agent loads has the block (the reach row says so).
func (a *Agent) budgetRow(j Judgement, losses []Loss, o VerdictOptions) (diag.Finding, bool) {
	b := j.Budget
	if b == nil {
		return diag.Finding{}, false
	}
	var file string
	var span generate.BlockSpan
	for _, l := range j.Loads {
		if s, ok := j.block(l.File); ok {
			file, span = l.File, s
			break
		}
	}
	if file == "" {
		return diag.Finding{}, false
	}
	f := diag.Finding{Check: b.Row, Path: file}
	off := j.Offset(file)
	start, end := off+span.Start, off+span.End
	where := file
	if len(j.Loads) > 1 {
		where = "what " + a.Title + " reads (" + j.sizes() + ")"
	}
	limit := fmt.Sprintf("%s = %d (%s)", b.Setting, b.Limit, b.Source)
	need := j.Total()
	fix := fmt.Sprintf("move the nowhook kbs-now block (with its markers) nearer the top of %s, or raise %s in %s", file, b.Setting, b.Fix)
	if fresh(o.Before, file) || len(j.Loads) > 1 {
		fix = fmt.Sprintf("raise %s in %s to at least %d (%s = %d), or shorten %s by at least %d bytes", b.Setting, b.Fix, need, b.Setting, need, joinNames(j.Files()), int64(need)-b.Limit)
	}
	var pushed []string
	lost := 0
	for _, l := range losses {
		if l.By == "" {
			pushed = append(pushed, fmt.Sprintf("%d bytes of %s", l.Bytes, l.File))
			lost += l.Bytes
		}
	}
	switch {
	case int64(start) >= b.Limit:
		f.Severity, f.Fix = diag.Error, fix
		f.Message = fmt.Sprintf("the kbs-now block starts at byte %d of %s, beyond %s: %s never sees it", start, where, limit, shortTitle(a))
	case int64(end) > b.Limit:
		f.Severity, f.Fix = diag.Error, fix
		f.Message = fmt.Sprintf("the kbs-now block ends at byte %d of %s, beyond %s: %s sees it cut", end, where, limit, shortTitle(a))
	case lost > 0:
		f.Severity, f.Fix = diag.Error, fix
		f.Message = fmt.Sprintf("the kbs-now block (bytes %d-%d of %s) fits within %s, but pushes %s out of what %s reads (the team's own text, which it read in full without the block)", start, end, where, limit, strings.Join(pushed, " and "), shortTitle(a))
	default:
		f.Message = fmt.Sprintf("the kbs-now block (bytes %d-%d of %s) is within %s", start, end, where, limit)
		if len(j.Loads) > 1 {
			f.Message += fmt.Sprintf(", with the %d bytes %s reads in all", need, shortTitle(a))
		}
	}
	if b.Ignored != "" {
		f.Message += "; " + b.Ignored
	}
	f.Message = startedIn(j.From, f.Message)
	return f, true
}

// sizes lists the loaded files with their sizes: "AGENTS.md, 705 bytes, and
// pkg/AGENTS.md, 690 bytes".
func (j Judgement) sizes() string {
	var parts []string
	for _, l := range j.Loads {
		parts = append(parts, fmt.Sprintf("%s, %d bytes", l.File, l.Size))
	}
	return joinNames(parts)
}

// shortTitle is the agent's name in a sentence ("Codex" for Codex CLI).
func shortTitle(a *Agent) string { return strings.TrimSuffix(a.Title, " CLI") }

// fresh reports whether before (a plan's repository before it) lacks the
// kbs-now block in file: the block is one setup is about to write.
func fresh(before Files, file string) bool {
	if before == nil {
		return false
	}
	b, _ := before.Read(file)
	return !hasBlock(b, OnDemandBlock.Block.Name)
}

// blockFiles are the files where the agent table puts a kbs-now block, in
// table order.
func blockFiles() []string {
	var out []string
	for _, a := range All {
		for _, art := range a.Owned() {
			b, ok := BlockOf(art)
			if ok && b.Block.Name == OnDemandBlock.Block.Name && !contains(out, b.File) {
				out = append(out, b.File)
			}
		}
	}
	return out
}
