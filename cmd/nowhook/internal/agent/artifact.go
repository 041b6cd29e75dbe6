package agent

import (
	"errors"
	"fmt"

	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/templates"
)

// An Artifact is one thing nowhook owns in one file: a hook entry in a
// JSON file, a script it owns whole, or a Markdown block. Each knows how
// to render itself (current version), recognise itself (this and every
// earlier version, and Kanbus's hand-copied recipe) and remove itself.
// Artifacts are pure: bytes in, bytes out; the caller reads and writes.
type Artifact interface {
	// Path is the file, relative to the repository root, slash-separated.
	Path() string
	// Apply returns cur with the artifact present and current.
	Apply(cur []byte, o Options) (Edit, error)
	// Remove returns cur without the artifact. drop says whether a JSON
	// container left empty ("hooks", "hooks.<Event>") was nowhook's.
	Remove(cur []byte, drop func(path string) bool) (Edit, error)
	// Present reports whether cur holds the artifact, in any version.
	Present(cur []byte) bool
}

// Edit is what an artifact makes of a file.
type Edit struct {
	Next []byte
	// Exec: the file must be executable (a script).
	Exec bool
	// Whole: nowhook owns the file whole (a script or plugin).
	Whole bool
	// Delete: the file was ours whole and goes.
	Delete bool
	// Empty: nothing is left in the file; it goes if nowhook created it.
	Empty bool
	// Created lists the JSON containers this edit created; Gone those a
	// removal took out.
	Created, Gone []string
	// Done says what the edit did to the file when it kept it: "removed"
	// for our part taken out; "" otherwise.
	Done string
	// Note says what was left alone and why.
	Note string
	// Backup: the old content is kept beside the file, as FILE.bak,
	// because the edit replaces a script or a block that was not nowhook's
	// as written (setup --force).
	Backup bool
}

// HookEntry is our entry in an agent's JSON hook file, or, where TOML is
// set, our tables in its TOML settings (Kimi Code's config.toml; File
// then gives only the path).
type HookEntry struct {
	File generate.HookFile
	// Hook is the entry for the options; its Ours recognises every
	// version of it.
	Hook func(Options) generate.Hook
	// Script is the script the entry's command runs, relative to the root.
	Script string
	// TOML, if set, is our tables for the options, in place of Hook.
	TOML func(Options) generate.TOMLTables
}

func (h *HookEntry) Path() string { return h.File.Path }

// tables is TOML for the options, at the entry's path.
func (h *HookEntry) tables(o Options) generate.TOMLTables {
	t := h.TOML(o)
	t.Path = h.File.Path
	return t
}

func (h *HookEntry) Apply(cur []byte, o Options) (Edit, error) {
	if h.TOML != nil {
		next, err := h.tables(o).Merge(cur)
		return Edit{Next: next}, err
	}
	next, err := h.File.MergeHook(cur, h.Hook(o))
	if err != nil {
		return Edit{}, err
	}
	return Edit{Next: next, Created: h.File.Missing(cur)}, nil
}

func (h *HookEntry) Remove(cur []byte, drop func(string) bool) (Edit, error) {
	if h.TOML != nil {
		next, n, empty, err := h.tables(Options{Budget: DefaultBudget}).Remove(cur)
		if err != nil {
			return Edit{}, err
		}
		e := Edit{Next: next, Empty: empty}
		if n > 0 {
			e.Done = "removed"
		}
		return e, nil
	}
	next, r, err := h.File.RemoveHook(cur, h.ours(), drop)
	if err != nil {
		return Edit{}, err
	}
	e := Edit{Next: next, Empty: r.Empty}
	if r.Handlers > 0 {
		e.Done = "removed"
		e.Gone = h.File.Missing(next)
	}
	return e, nil
}

func (h *HookEntry) Present(cur []byte) bool {
	if h.TOML != nil {
		return h.tables(Options{Budget: DefaultBudget}).Present(cur)
	}
	_, r, err := h.File.RemoveHook(cur, h.ours(), func(string) bool { return false })
	return err == nil && r.Handlers > 0
}

func (h *HookEntry) ours() func(string) bool {
	return h.Hook(Options{Budget: DefaultBudget}).Ours
}

// Script is a file nowhook owns whole, signed with its template version
// and a hash of its body.
type Script struct {
	File string
	Body func(Options) string
	// Reminder: the script prints the Kanbus reminder (a wrapper).
	Reminder bool
	// Comment starts the signature line: "#" (the default) or "//" for a
	// JavaScript plugin.
	Comment string
	// NotExec: the file is read by the agent, not run (a plugin).
	NotExec bool
}

func (s *Script) render(o Options) []byte {
	comment := s.Comment
	if comment == "" {
		comment = "#"
	}
	return generate.Signed(s.Body(o), templates.Version, comment)
}

func (s *Script) Path() string { return s.File }

func (s *Script) Apply(cur []byte, o Options) (Edit, error) {
	keep := Edit{Next: cur}
	state, version := generate.InspectScript(cur)
	if (state == generate.ScriptOurs || state == generate.ScriptModified) && version > templates.Version {
		keep.Note = fmt.Sprintf("%v; left it alone (upgrade nowhook).", &generate.NewerError{Path: s.File, Found: version, Ours: templates.Version})
		return keep, nil
	}
	e := Edit{Next: s.render(o), Exec: !s.NotExec, Whole: true}
	switch state {
	case generate.ScriptModified:
		if !o.Force {
			keep.Note = s.File + " was changed by hand since nowhook wrote it; left it alone (nowhook setup --force replaces it and keeps yours as " + s.File + ".bak)."
			return keep, nil
		}
		e.Backup = true
	case generate.ScriptKanbusLike:
		if !o.Force {
			keep.Note = s.File + " is a hand-made Kanbus compaction wrapper, not a copy nowhook knows, so it is yours; left it alone. It " + wrapperLacks + "; nowhook setup --force replaces it and keeps yours as " + s.File + ".bak."
			return keep, nil
		}
		e.Backup = true
		e.Note = s.File + " was a hand-made Kanbus compaction wrapper; replaced it with nowhook's and kept it as " + s.File + ".bak."
	case generate.ScriptForeign:
		if !o.Force {
			keep.Note = s.File + " has no nowhook signature line, so it is yours; left it alone (nowhook setup --force replaces it and keeps yours as " + s.File + ".bak)."
			return keep, nil
		}
		e.Backup = true
	case generate.ScriptKanbus:
		e.Note = s.File + " was Kanbus's example wrapper, copied unchanged; replaced it with nowhook's."
	}
	return e, nil
}

func (s *Script) Remove(cur []byte, _ func(string) bool) (Edit, error) {
	state, _ := generate.InspectScript(cur)
	switch state {
	case generate.ScriptOurs:
		return Edit{Delete: true}, nil
	case generate.ScriptModified:
		return Edit{Next: cur, Note: s.File + " was changed by hand since nowhook wrote it; kept it (delete it yourself if you no longer want it)."}, nil
	case generate.ScriptForeign, generate.ScriptKanbus, generate.ScriptKanbusLike:
		return Edit{Next: cur, Note: s.File + " has no nowhook signature line, so it is yours; kept it."}, nil
	}
	return Edit{Next: cur}, nil
}

func (s *Script) Present(cur []byte) bool {
	state, _ := generate.InspectScript(cur)
	return state == generate.ScriptOurs || state == generate.ScriptModified
}

// Block is a managed Markdown block in a file.
type Block struct {
	File  string
	Block generate.Block
	// IfPresent: the block goes only into a file that already exists
	// (someone else's file that nowhook never creates).
	IfPresent bool
}

func (b *Block) Path() string { return b.File }

func (b *Block) Apply(cur []byte, o Options) (Edit, error) {
	if b.IfPresent && len(cur) == 0 {
		return Edit{Next: cur}, nil
	}
	merge := generate.MergeBlock
	if o.Force {
		merge = generate.ReplaceBlock
	}
	blk := b.Block
	if blk.Name == onDemand.Name {
		// It also teaches samemind handoff where samemind is a source.
		blk.Body = templates.OnDemandBody(o.Sources)
	}
	next, err := merge(b.File, cur, blk)
	if newer := (*generate.NewerError)(nil); errors.As(err, &newer) {
		return Edit{Next: cur, Note: fmt.Sprintf("%v; left it alone (upgrade nowhook).", newer)}, nil
	}
	if edited := (*generate.EditedError)(nil); errors.As(err, &edited) {
		return Edit{Next: cur, Note: fmt.Sprintf("%v, so it is yours and agents keep reading it as you wrote it; left it alone (nowhook setup --force replaces it with the current text and keeps the file as it was as %s.bak).", edited, b.File)}, nil
	}
	if err != nil {
		return Edit{}, err
	}
	e := Edit{Next: next}
	if o.Force {
		if span, found, _ := generate.FindBlock(cur, b.Block.Name); found && !b.Block.Wrote(span.Body) {
			e.Backup = true
			e.Note = fmt.Sprintf("%s:%d: the %s block was edited by hand; replaced it with nowhook's current text and kept the file as it was as %s.bak.", b.File, span.Line, b.Block.Name, b.File)
		}
	}
	return e, nil
}

func (b *Block) Remove(cur []byte, _ func(string) bool) (Edit, error) {
	next, removed, empty, err := generate.RemoveBlock(b.File, cur, b.Block)
	if newer := (*generate.NewerError)(nil); errors.As(err, &newer) {
		return Edit{Next: cur, Note: fmt.Sprintf("%v; kept it (remove it with that nowhook, or delete the block by hand).", newer)}, nil
	}
	if edited := (*generate.EditedError)(nil); errors.As(err, &edited) {
		return Edit{Next: cur, Note: fmt.Sprintf("%v, so it is yours; kept it (delete it yourself, from its nowhook:begin line to its nowhook:end line, if you no longer want it).", edited)}, nil
	}
	if err != nil {
		return Edit{}, err
	}
	e := Edit{Next: next, Empty: empty}
	if removed {
		e.Done = "removed"
	}
	return e, nil
}

func (b *Block) Present(cur []byte) bool {
	_, found, err := generate.FindBlock(cur, b.Block.Name)
	return err == nil && found
}

// wrapperLacks says what a hand-made wrapper may lack that nowhook's has.
const wrapperLacks = "may lack what nowhook's wrapper guarantees: a budget that kills kbs and its children in time (without coreutils timeout it waits forever), a retry with --raw when kbs fails, caps on the output's size, and an exit status of 0 on every failure (nowhook doctor runs it against a failing and a hanging kbs to show which)"

// The artifacts every agent shares.
var (
	// OnDemandBlock teaches on-demand `kbs now` in AGENTS.md.
	OnDemandBlock = &Block{File: "AGENTS.md", Block: onDemand}
	// KanbusAgentsBlock is the same block in CONTRIBUTING_AGENT.md, the
	// agent guide Kanbus's own `kanbus setup agents` writes: Kanbus's
	// compaction guide asks for the section there too. Only where that
	// file exists (a later `kanbus setup agents` may drop the block;
	// doctor reports it).
	KanbusAgentsBlock = &Block{File: "CONTRIBUTING_AGENT.md", Block: onDemand, IfPresent: true}

	onDemand = generate.Block{Name: "kbs-now", Version: templates.Version, Body: templates.OnDemand}
)

// onDemandOnly are the artifacts of a mode that only teaches kbs now.
func onDemandOnly() []Artifact { return []Artifact{OnDemandBlock, KanbusAgentsBlock} }

// wrapper is the reminder wrapper script at path.
func wrapper(path string) *Script {
	return &Script{File: path, Body: func(o Options) string { return templates.RenderWrapper(o.Budget, o.Sources) }, Reminder: true}
}

// checkpointScript is the checkpoint script at path, and hintScript the
// summary-hint script: signed like the wrapper, with no fallback.
func checkpointScript(path string) *Script {
	return &Script{File: path, Body: func(o Options) string {
		at := o.CheckpointAt
		if at == 0 {
			at = DefaultCheckpointAt
		}
		return templates.RenderCheckpoint(at, o.Budget)
	}}
}

func hintScript(path string) *Script {
	return &Script{File: path, Body: func(Options) string { return templates.RenderSummaryHint(HintBudget) }}
}
