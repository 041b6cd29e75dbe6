package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// mdFile is a Markdown file at the repository root.
type mdFile struct {
	rel     string
	Raw     []byte
	exists  bool
	ReadErr error
}

func readMD(root, rel string) *mdFile {
	m := &mdFile{rel: rel}
	path := filepath.Join(root, rel)
	if _, err := os.Stat(path); err != nil {
		if !os.IsNotExist(err) {
			m.exists, m.ReadErr = true, err
		}
		return m
	}
	m.exists = true
	m.Raw, m.ReadErr = diag.ReadBounded(path)
	return m
}

// mdBlock is a managed block found in a file, or why it is broken.
type mdBlock struct {
	span generate.BlockSpan
	err  error
	// edited: its text is none that nowhook wrote (a newer template's
	// cannot be judged and is never edited).
	edited bool
}

// block returns the named block, nil when the file has none.
func (m *mdFile) block(name string) *mdBlock {
	if m == nil || !m.exists || m.ReadErr != nil {
		return nil
	}
	span, found, err := generate.FindBlock(m.Raw, name)
	if err != nil {
		return &mdBlock{err: err}
	}
	if !found {
		return nil
	}
	ours, known := tableBlock(name)
	return &mdBlock{span: span, edited: known && span.Version <= templateVersion && !ours.Wrote(span.Body)}
}

// tableBlock is the managed block named name in the agent table.
func tableBlock(name string) (generate.Block, bool) {
	for _, a := range agentpkg.All {
		for _, art := range a.Owned() {
			if b, ok := agentpkg.BlockOf(art); ok && b.Block.Name == name {
				return b.Block, true
			}
		}
	}
	return generate.Block{}, false
}

// blockFinding reports one managed block: present and current, older,
// edited by hand, broken, or missing. fix is the setup command that
// writes it.
func (d *doctor) blockFinding(m *mdFile, name, purpose, fix string) Finding {
	f := Finding{Path: m.rel}
	if m.ReadErr != nil {
		f.Severity, f.Message = Error, fmt.Sprintf("%s cannot be read: %v", m.rel, m.ReadErr)
		return f
	}
	b := m.block(name)
	switch {
	case b == nil && !m.exists:
		f.Severity, f.Message, f.Fix = Warn, fmt.Sprintf("%s does not exist, so %s", m.rel, purpose), fix
	case b == nil:
		f.Severity, f.Message, f.Fix = Warn, fmt.Sprintf("%s has no nowhook %s block, so %s", m.rel, name, purpose), fix
	case b.err != nil:
		f.Severity, f.Message = Error, fmt.Sprintf("%s: %v", m.rel, b.err)
		f.Fix = "repair the nowhook markers by hand, then run " + fix
	case b.edited:
		f.Severity = Warn
		f.Message = fmt.Sprintf("%s:%d: the %s block was edited by hand (its text is not one nowhook wrote), so setup leaves it alone and agents read it as it is; --force replaces it with the current text and keeps the file as it was as %s.bak", m.rel, b.span.Line, name, m.rel)
		f.Fix = fix + " --force"
	case b.span.Version < templateVersion:
		f.Severity, f.Message, f.Fix = Warn, fmt.Sprintf("%s:%d: the %s block is template v%d, older than this nowhook's v%d", m.rel, b.span.Line, name, b.span.Version, templateVersion), fix
	case b.span.Version > templateVersion:
		f.Severity, f.Message = Warn, fmt.Sprintf("%s:%d: the %s block is template v%d, newer than this nowhook's v%d", m.rel, b.span.Line, name, b.span.Version, templateVersion)
		f.Fix = "upgrade nowhook (./install.sh in a current nowhook checkout)"
	default:
		f.Message = fmt.Sprintf("%s:%d has the %s block (template v%d)", m.rel, b.span.Line, name, b.span.Version)
	}
	return f
}

// agentsMDCheck: AGENTS.md teaches `kbs now`, the one thing every agent
// can do, and the only one on Cursor and Antigravity.
var agentsMDCheck = checkFunc{"agents-md", func(d *doctor, _ *agent) []Finding {
	var readers []string
	files := agentpkg.DirFiles(d.root)
	for _, a := range d.agents {
		// Its readers: the agents set up that load it, and where it does
		// not exist, those that no other file teaches (setup spares
		// AGENTS.md where it would hide CLAUDE.md from an agent).
		if !a.present() || a.mode == "" {
			continue
		}
		if containsString(a.p.Loads(files), agentpkg.OnDemandBlock.File) || (!d.agentsMD.exists && len(a.p.Teaches(files)) == 0) {
			readers = append(readers, a.p.Title)
		}
	}
	name := agentpkg.OnDemandBlock.Block.Name
	if len(readers) == 0 && d.agentsMD.block(name) == nil {
		return nil
	}
	purpose := "no agent learns to run `kbs now` on demand"
	f := d.blockFinding(d.agentsMD, name, purpose, d.setupFix(""))
	if f.Severity == OK && len(readers) > 0 {
		f.Message += ": on-demand `kbs now` for " + strings.Join(readers, ", ")
	}
	return []Finding{f}
}}

// contributingMDCheck: where CONTRIBUTING_AGENT.md exists (the agent guide
// Kanbus's `kanbus setup agents` writes), setup puts the kbs-now block
// there too (agentpkg.KanbusAgentsBlock), and a later `kanbus setup
// agents` regenerates the file and may drop it.
var contributingMDCheck = checkFunc{"contributing-md", func(d *doctor, _ *agent) []Finding {
	art := agentpkg.KanbusAgentsBlock
	m := readMD(d.root, art.File)
	if !m.exists {
		return nil
	}
	var readers []string
	for _, a := range d.agents {
		if a.present() && a.mode != "" && a.p.Wants(a.mode, art) {
			readers = append(readers, a.p.Title)
		}
	}
	if len(readers) == 0 && m.block(art.Block.Name) == nil {
		return nil
	}
	purpose := "agents that read it are not taught to run `kbs now` (`kanbus setup agents` rewrites this file and may have dropped the block)"
	f := d.blockFinding(m, art.Block.Name, purpose, d.setupFix(""))
	if f.Severity == OK && len(readers) > 0 {
		f.Message += ": on-demand `kbs now` for " + strings.Join(readers, ", ")
	}
	return []Finding{f}
}}

// mdCheck: the Markdown blocks the agent's mode writes into files of the
// agent's own (the row's Doctor.BlockMisses names them, with what the
// agent misses without each: Claude Code's Compact Instructions, Qwen
// Code's kbs-now block in QWEN.md) are present and current, each in the
// file the agent table puts it in for the repository as it is. The
// kbs-now blocks of AGENTS.md and CONTRIBUTING_AGENT.md, every agent's,
// have rows of their own.
var mdCheck = checkFunc{"md", func(d *doctor, a *agent) []Finding {
	if a.mode == "" {
		return nil
	}
	spec, _ := a.p.Spec(a.mode)
	disk := agentpkg.DirFiles(d.root)
	var needed, elsewhere []*agentpkg.Block
	for _, art := range spec.Artifacts {
		b, ok := agentpkg.BlockOf(art)
		if !ok || b == agentpkg.OnDemandBlock || b == agentpkg.KanbusAgentsBlock {
			continue
		}
		if _, judged := a.p.Doctor.BlockMisses[b.Block.Name]; !judged {
			continue
		}
		if c, ok := art.(agentpkg.Conditional); ok && !c.Needed(disk, disk) {
			elsewhere = append(elsewhere, b)
			continue
		}
		needed = append(needed, b)
	}
	var out []Finding
	fix := d.setupFix(a.agentArg())
	for _, b := range needed {
		out = append(out, d.mdFinding(a, b, elsewhere, fix))
	}
	return out
}}

// mdFinding reports the block b of the agent's mode, with the blocks of
// the same mode that the table puts elsewhere for the repository as it is.
// The files on disk cannot tell an instruction file of the user's that
// setup filled (it then holds nothing but nowhook's blocks) from one that
// nowhook created; setup knows from its record and keeps the block there.
// Where b's file does not exist and another file holds the block, that
// file is judged; where b's file is one the agent reads as instructions
// and exists without the block (a CLAUDE.md the user wrote after setup),
// the block still reaches the agent from the other, and setup moves it.
func (d *doctor) mdFinding(a *agent, b *agentpkg.Block, elsewhere []*agentpkg.Block, fix string) Finding {
	name := b.Block.Name
	m := readMD(d.root, b.File)
	var other *mdFile
	if m.block(name) == nil && m.ReadErr == nil {
		for _, o := range elsewhere {
			if om := readMD(d.root, o.File); o.Block.Name == name && om.block(name) != nil && om.block(name).err == nil {
				other = om
				break
			}
		}
	}
	switch {
	case other != nil && !m.exists:
		m = other
	case other != nil && readsFile(a.p, m.rel):
		return Finding{Path: m.rel, Severity: Warn, Fix: fix,
			Message: fmt.Sprintf("%s has no nowhook %s block; %s still reads the one in %s:%d, and setup moves it into %s (a file of yours) and deletes %s", m.rel, name, a.p.Title, other.rel, other.block(name).span.Line, m.rel, other.rel)}
	}
	return d.blockFinding(m, name, a.p.Doctor.BlockMisses[name], fix)
}

// readsFile reports whether the agent reads file as instructions.
func readsFile(p *agentpkg.Agent, file string) bool {
	for _, in := range p.Reads.Files {
		if in.File == file {
			return true
		}
	}
	return false
}
