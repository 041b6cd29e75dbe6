package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// setup --check: the plan setup would write, listed as differences and
// written nowhere. It asks nothing and runs no program (where setup would
// ask codex app-server about trust, it reads the user's Codex config), so
// that a pre-commit hook or a CI step can run it on every commit.

// shower names a difference's file for the listing and for GitHub.
type shower struct {
	// name is the file as the listing shows it.
	name func(engine.Difference) string
	// github is the file as a workflow annotation names it: relative to
	// the workspace GitHub checked out, where it lies inside it.
	github func(engine.Difference) string
	// tilde: what is printed shows $HOME as ~ (the user scope's files lie
	// there).
	tilde bool
}

// projectShow names files as the diff does, relative to the repository,
// and for GitHub relative to $GITHUB_WORKSPACE (else the repository).
func projectShow(root string) shower {
	base := os.Getenv("GITHUB_WORKSPACE")
	if base == "" {
		base = root
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	return shower{
		name: func(d engine.Difference) string { return d.Name },
		github: func(d engine.Difference) string {
			if rel, err := filepath.Rel(base, d.Path); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
			return d.Path
		},
	}
}

// userShow names the user scope's files absolutely, $HOME as ~.
var userShow = shower{
	name:   func(d engine.Difference) string { return d.Path },
	github: func(d engine.Difference) string { return d.Path },
	tilde:  true,
}

// checkSetup lists where the repository differs from what setup would
// write (pl) and, with --trust-codex, the trust the user's Codex config
// lacks; then the command that makes it so. It exits 1 when there is a
// difference, 0 when setup would change nothing.
func checkSetup(o Options, pl *engine.Plan, v verdict, trusting []*agent.Agent, show shower, std IO) error {
	var trust []engine.Difference
	if o.Trust {
		trust = trustDifferences(pl, trusting)
	}
	changes := append(pl.Differences(), trust...)
	v = v.covered(changes)
	diffs := append(changes, v.differences(pl.Root)...)
	out := std.Out
	if show.tilde {
		out = &tildeWriter{w: std.Out}
	}
	github := os.Getenv("GITHUB_ACTIONS") == "true"
	for _, d := range diffs {
		place := show.name(d)
		if d.Line > 0 {
			place += ":" + strconv.Itoa(d.Line)
		}
		fmt.Fprintln(out, place+": "+d.What)
		if github {
			fmt.Fprintln(out, engine.Annotation(d, show.github(d), o.Fix))
		}
	}
	if o.DryRun {
		pl.WriteDiff(out, o.FullDiff)
	}
	pl.WriteNotes(out)
	if len(diffs) == 0 {
		fmt.Fprintln(out, "No changes: setup would leave every file as it is.")
		return nil
	}
	if len(changes) > 0 {
		fmt.Fprintf(out, "setup would %s; to make it so, run: %s\n", wouldDo(pl, len(trust) > 0), o.Fix)
	}
	if n := len(v.fixes) + len(v.stays); n > 0 {
		fmt.Fprintf(out, "nowhook doctor calls %s: setup fixes %d, only you can fix %d (each listed above with its fix)\n", counted(n, "error"), len(v.fixes), len(v.stays))
	}
	return Silent{Status: ExitFailed}
}

// wouldDo says what setup would do: change files, delete folders, record
// the agents' trust.
func wouldDo(pl *engine.Plan, trust bool) string {
	files, folders := 0, 0
	for _, c := range pl.Changes() {
		if c.Folder {
			folders++
		} else {
			files++
		}
	}
	var parts []string
	if files > 0 {
		parts = append(parts, "change "+counted(files, "file"))
	}
	if folders > 0 {
		parts = append(parts, "delete "+counted(folders, "folder"))
	}
	if trust {
		parts = append(parts, "record the trust of its Codex hook")
	}
	return strings.Join(parts, " and ")
}

// counted is "1 file" or "N files".
func counted(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// trustDifferences is, for each agent whose hook setup --trust-codex
// would trust, the trust its user config lacks, as doctor's file checks
// judge it (they start no program). Where the plan changes the hook file,
// its differences already say that setup has work to do, and the trust
// of entries not written yet cannot be judged.
func trustDifferences(pl *engine.Plan, trusting []*agent.Agent) []engine.Difference {
	changed := map[string]bool{}
	for _, c := range pl.Changes() {
		changed[c.Name] = true
	}
	var out []engine.Difference
	for _, a := range trusting {
		if changed[a.Trust.Hook.File.Path] {
			continue
		}
		for _, f := range doctor.Static(pl.Root, []string{a.Name}, os.Environ()) {
			if f.Check != a.Name+".trust" || f.Severity != doctor.Warn && f.Severity != doctor.Error {
				continue
			}
			out = append(out, findingDifference(pl.Root, f))
		}
	}
	return out
}

// findingDifference places a doctor finding: on the line its message
// starts with ("FILE:LINE (hooks.X[0]...) is not trusted: ..."), else on
// line 1 of its file.
func findingDifference(root string, f diag.Finding) engine.Difference {
	d := engine.Difference{Name: osutil.TildeHome(f.Path), Path: f.Path, Line: 1, What: f.Message + "; setup --trust-codex records it"}
	if !filepath.IsAbs(f.Path) {
		d.Path = filepath.Join(root, filepath.FromSlash(f.Path))
	}
	rest, ok := strings.CutPrefix(f.Message, f.Path+":")
	if !ok {
		return d
	}
	digits, rest, _ := strings.Cut(rest, " ")
	if n, err := strconv.Atoi(digits); err == nil {
		d.Line = n
		d.What = "our hook entry " + strings.TrimPrefix(strings.Replace(rest, ")", "", 1), "(") + "; setup --trust-codex records it"
	}
	return d
}
