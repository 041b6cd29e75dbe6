package doctor

import (
	"fmt"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// reachCheck: the file that carries the agent's kbs-now teaching, and that
// the agent loads it, from the agent table's facts about what it reads
// (agentpkg.Reads; no client is run). ok when a file it loads has the
// block; an error when the block sits only in files it never reads (a
// CLAUDE.md without @AGENTS.md hides AGENTS.md from Claude Code); a
// warning when no file has it.
var reachCheck = checkFunc{"reach", func(d *doctor, a *agent) []Finding {
	if a.mode == "" {
		return nil // the mode row says that nowhook has not set it up
	}
	files := agentpkg.DirFiles(d.root)
	r := &a.p.Reads
	loads := a.p.Loads(files)
	facts := fmt.Sprintf("%s reads %s (%s)", a.p.Title, r.Describe(), r.Client)
	hidden := hiddenFiles(a.p, files)
	if bySetting := a.p.Doctor.Loads; bySetting != nil {
		names, source := bySetting(a.files)
		facts = fmt.Sprintf("%s reads %s (%s)", a.p.Title, joinFiles(names), source)
		loads, hidden = nil, ""
		for _, n := range names {
			if _, ok := files.Read(n); ok {
				loads = append(loads, n)
			}
		}
	}
	fix := d.setupFix(a.p.Name + "=" + string(a.mode))
	var teaches []string
	for _, f := range loads {
		if b, _ := files.Read(f); agentpkg.OnDemandBlock.Present(b) {
			teaches = append(teaches, f)
		}
	}
	if len(teaches) > 0 {
		var where []string
		for _, f := range teaches {
			s := f
			if m := readMD(d.root, f); m.block(agentpkg.OnDemandBlock.Block.Name) != nil {
				s = fmt.Sprintf("%s:%d", f, m.block(agentpkg.OnDemandBlock.Block.Name).span.Line)
			}
			if through := r.Through(files, f); through != "" {
				s += " (" + through + ")"
			}
			where = append(where, s)
		}
		msg := fmt.Sprintf("%s loads %s; the kbs-now block that teaches `kbs now` is in %s", a.p.Title, joinFiles(loads), joinFiles(where))
		if hidden != "" {
			msg += "; " + hidden
		}
		return []Finding{{Path: teaches[0], Message: msg}}
	}
	var holders []string
	for _, f := range blockFiles() {
		if m := readMD(d.root, f); m.block(agentpkg.OnDemandBlock.Block.Name) != nil && !containsString(loads, f) {
			holders = append(holders, f)
		}
	}
	loaded := "no instruction file"
	if len(loads) > 0 {
		loaded = joinFiles(loads)
	}
	if len(holders) > 0 {
		msg := fmt.Sprintf("the kbs-now block is in %s, which %s never loads, so it never learns to run `kbs now`: it loads %s", joinFiles(holders), a.p.Title, loaded)
		if hidden != "" {
			msg += "; " + hidden
		}
		return []Finding{{Severity: Error, Path: holders[0], Message: msg + " (" + facts + ")", Fix: fix}}
	}
	return []Finding{{Severity: Warn, Message: fmt.Sprintf("no file %s loads has the kbs-now block, so it never learns to run `kbs now`: it loads %s (%s)", a.p.Title, loaded, facts), Fix: fix}}
}}

// hiddenFiles says which instruction files the agent skips and what hides
// each, or "".
func hiddenFiles(p *agentpkg.Agent, files agentpkg.Files) string {
	var parts []string
	for _, in := range p.Reads.Files {
		by, ok := p.Hidden(files)[in.File]
		switch {
		case !ok:
		case by != "":
			parts = append(parts, fmt.Sprintf("%s hides %s from it", by, in.File))
		case in.Setting != "":
			parts = append(parts, fmt.Sprintf("it reads %s only where %s lists it", in.File, in.Setting))
		}
	}
	return strings.Join(parts, ", ")
}

// blockFiles are the files where the agent table puts a kbs-now block.
func blockFiles() []string {
	var out []string
	for _, a := range agentpkg.All {
		for _, art := range a.Owned() {
			b, ok := agentpkg.BlockOf(art)
			if ok && b.Block.Name == agentpkg.OnDemandBlock.Block.Name && !containsString(out, b.File) {
				out = append(out, b.File)
			}
		}
	}
	return out
}
