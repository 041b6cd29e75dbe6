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
