package doctor

import (
	"path/filepath"
	"slices"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// Doctor judges sessions started at the root and in every folder where one
// plausibly starts (agentpkg.StartFolders: a folder with an instruction
// file of some agent, a package root), or in the one folder of doctor
// --from. The rows that depend on the start folder (reach, an agent's
// budget row, subfolders) come from the agent table's one judgement of
// what the agent reads and runs there (agentpkg.Agent.Verdict); a folder's
// row is shown where it differs from the root's, with "from" naming the
// folder, and in the table "started in DIR/:".

// scanFolders finds the folders to judge: doctor --from's alone, else the
// start folders, with the working directory among them where it lies
// inside the repository.
func (d *doctor) scanFolders() {
	d.rows = map[*agent][]Finding{}
	if d.only != "" {
		d.files = agentpkg.WithRecordedTrust(agentpkg.DirFilesFrom(d.root, nil, d.env, engine.RecordKept(d.root)), engine.RecordTrusted(d.root))
		return
	}
	if !d.startsGiven {
		d.starts = agentpkg.StartFolders(d.root)
	}
	if d.fromWD && d.from != d.root {
		if wd := relFolder(d.root, d.from); wd != "." && !slices.Contains(d.starts, wd) {
			d.starts = append(d.starts, wd)
			slices.Sort(d.starts)
		}
	}
	d.files = agentpkg.WithRecordedTrust(agentpkg.DirFilesFrom(d.root, d.starts, d.env, engine.RecordKept(d.root)), engine.RecordTrusted(d.root))
}

// relFolder is dir relative to root, slash-separated, "." for root.
func relFolder(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "" {
		return "."
	}
	return filepath.ToSlash(rel)
}

// judged are the folders whose sessions doctor judges: the root first.
func (d *doctor) judged() []string {
	if d.only != "" {
		return []string{d.only}
	}
	return append([]string{"."}, d.starts...)
}

// folderRows are the agent's rows of its judgement (agentpkg.Verdict) for
// every folder judged: the root's, then each folder's that differs from
// the root's row of the same name.
func (d *doctor) folderRows(a *agent) []Finding {
	if rows, ok := d.rows[a]; ok {
		return rows
	}
	o := agentpkg.VerdictOptions{SetupFix: d.setupFix, SetupIn: d.setupIn}
	var out, root []Finding
	for i, from := range d.judged() {
		rows := a.p.Verdict(d.files, a.mode, from, o)
		if i == 0 {
			root = rows
			out = append(out, rows...)
			continue
		}
		for _, r := range rows {
			if differs(r, root) {
				out = append(out, r)
			}
		}
	}
	d.rows[a] = out
	return out
}

// differs reports whether a folder's row says something else than the
// root's row of the same name: another severity, or another problem.
func differs(r Finding, root []Finding) bool {
	for _, x := range root {
		if x.Check != r.Check {
			continue
		}
		if x.Severity != r.Severity {
			return true
		}
		_, msg, _ := strings.Cut(r.Message, "/: ")
		return r.Severity > OK && msg != x.Message
	}
	return true
}

// rowsNamed keeps the rows of one name, with the name cleared for the
// runner.
func rowsNamed(rows []Finding, name string) []Finding {
	var out []Finding
	for _, r := range rows {
		if r.Check == name {
			r.Check = ""
			out = append(out, r)
		}
	}
	return out
}

// reachCheck: the file that carries the agent's kbs-now teaching, and that
// the agent loads it, read whole, in a session started at the root and in
// each start folder (agentpkg.Agent.Verdict; no client is run).
var reachCheck = checkFunc{agentpkg.ReachRow, func(d *doctor, a *agent) []Finding {
	if a.mode == "" {
		return nil // the mode row says that nowhook has not set it up
	}
	return rowsNamed(d.folderRows(a), agentpkg.ReachRow)
}}

// budgetCheck: for an agent that reads its instruction files under a cap
// (Codex's project_doc_max_bytes), whether nowhook's block fits together
// with the team's own text, from the root and from each start folder.
type budgetCheck struct{ name string }

func (c budgetCheck) Name() string { return c.name }

func (c budgetCheck) Run(d *doctor, a *agent) []Finding {
	if a.mode == "" {
		return nil
	}
	return rowsNamed(d.folderRows(a), c.name)
}
