package install

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/doctor"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
	"github.com/nowhook/nowhook/detect"
)

// Setup, setup --check and doctor come to one verdict: before writing,
// setup asks doctor's file checks (doctor.Static) about the repository as
// it is and as the plan would leave it (a shadow of it: engine.Shadow),
// and takes the plan's own verdict on what every agent in use reads from
// the root and every start folder (engine.Plan.Verdict, made by the same
// judgement as doctor's reach and budget rows). An error that the plan
// leaves is one only the user can fix: setup refuses and writes nothing,
// setup --check exits 1; an error of now that the plan takes away is one
// setup fixes, which setup --check lists too.

// verdict is what doctor calls an error, now and after the plan.
type verdict struct {
	// fixes are the errors of now that the plan takes away; stays those
	// the plan leaves.
	fixes, stays []diag.Finding
}

// sharedRows are the names of doctor's rows about every agent (the Kanbus
// project, the machine's PATH: doctor.Kind.Shared). An error of theirs
// that the plan leaves does not make setup refuse: what setup writes is
// right and works once the user fixes it, so setup writes, then exits 1
// naming it (afterWrite).
var sharedRows = func() map[string]bool {
	out := map[string]bool{}
	for _, k := range doctor.Kinds() {
		if k.Shared {
			out[k.Row] = true
		}
	}
	return out
}()

// folderRows are the names of doctor's rows that the plan's own verdict
// makes (per start folder, on the plan's files): doctor's rows of that
// name on the shadow are left out.
func folderRows(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		for _, a := range agent.All {
			if a.Name != n {
				continue
			}
			out[n+"."+agent.ReachRow] = true
			if r := a.Reads.BudgetRow(); r != "" {
				out[n+"."+r] = true
			}
		}
	}
	return out
}

// judgePlan is doctor's verdict, now and as pl would leave the repository
// at root, for the agents of targets (after the plan, in their target
// modes).
func judgePlan(root string, pl *engine.Plan, targets []engine.Target) (verdict, error) {
	var names []string
	modes := map[string]agent.Mode{}
	for _, t := range targets {
		names = append(names, t.Agent.Name)
		modes[t.Agent.Name] = t.Mode
	}
	env := os.Environ()
	// The Kanbus projects as the hook finds them from here (the shadow's
	// folders are links, which the search below the root skips).
	from, _ := os.Getwd()
	if !engine.Within(root, from) {
		from = root
	}
	k := detect.DetectKanbusFrom(root, from)
	now := errorsOf(doctor.Files(root, names, env, doctor.FilesOptions{StaticOptions: doctor.StaticOptions{Starts: pl.StartFolders(), Found: true}, Kanbus: &k}))
	made := folderRows(names)
	var after []diag.Finding
	if !pl.Changed() {
		// The shadow would be the repository itself.
		for _, f := range now {
			if !made[f.Check] {
				after = append(after, f)
			}
		}
	} else {
		shadow, remove, err := pl.Shadow()
		if err != nil {
			// No temporary folder to judge the plan in: what setup does not
			// touch keeps its errors, which is all that can be told.
			return judgedWithoutShadow(pl, now, made), nil
		}
		defer remove()
		// The rows of the start folders come from the plan's own verdict:
		// the shadow's are left out, and its folders not looked for.
		for _, f := range errorsOf(doctor.Files(shadow, names, env, doctor.FilesOptions{StaticOptions: doctor.StaticOptions{Modes: modes, Found: true}, Kanbus: &k})) {
			if made[f.Check] {
				continue
			}
			f.Message = strings.ReplaceAll(f.Message, shadow, root)
			f.Fix = strings.ReplaceAll(f.Fix, shadow, root)
			f.Path = strings.ReplaceAll(f.Path, shadow, root)
			after = append(after, f)
		}
	}
	for _, f := range pl.Verdict() {
		if f.Severity == diag.Error {
			after = append(after, f)
		}
	}
	var v verdict
	v.stays = after
	for _, f := range now {
		if !slices.ContainsFunc(after, func(x diag.Finding) bool { return sameRow(x, f) }) {
			v.fixes = append(v.fixes, f)
		}
	}
	return v, nil
}

// judgedWithoutShadow is the verdict where no shadow can be made: the
// errors of now about files the plan does not change stay, with the plan's
// own verdict.
func judgedWithoutShadow(pl *engine.Plan, now []diag.Finding, made map[string]bool) verdict {
	changed := map[string]bool{}
	for _, c := range pl.Changes() {
		changed[c.Name] = true
		changed[c.Path] = true
	}
	var v verdict
	for _, f := range now {
		switch {
		case made[f.Check]:
		case changed[f.Path]:
			v.fixes = append(v.fixes, f)
		default:
			v.stays = append(v.stays, f)
		}
	}
	for _, f := range pl.Verdict() {
		if f.Severity == diag.Error {
			v.stays = append(v.stays, f)
		}
	}
	return v
}

// sameRow reports whether two rows are about one thing: one check, one
// start folder, one file.
func sameRow(a, b diag.Finding) bool {
	return a.Check == b.Check && a.From == b.From && a.Path == b.Path
}

func errorsOf(fs []diag.Finding) []diag.Finding {
	var out []diag.Finding
	for _, f := range fs {
		if f.Severity == diag.Error {
			if f.From == "" {
				f.From = "."
			}
			out = append(out, f)
		}
	}
	return out
}

// others is v less the errors of the plan's own verdict, which
// engine.Plan.Refusal says in its words.
func (v verdict) others(pl *engine.Plan) verdict {
	var out verdict
	out.fixes = v.fixes
	for _, f := range v.stays {
		if !slices.ContainsFunc(pl.Verdict(), func(x diag.Finding) bool { return sameRow(x, f) && x.Message == f.Message }) {
			out.stays = append(out.stays, f)
		}
	}
	return out
}

// refusal is setup's refusal of a plan that leaves errors in the agents'
// own rows, nil for none.
func (v verdict) refusal() error {
	var stays []diag.Finding
	for _, f := range v.stays {
		if !sharedRows[f.Check] {
			stays = append(stays, f)
		}
	}
	if len(stays) == 0 {
		return nil
	}
	return errors.New(listErrors("as setup would leave the repository", stays) + "\nFix them, then run nowhook setup again.")
}

// afterWrite is setup's failure once it wrote a plan that leaves errors
// in doctor's shared rows (a repository without a Kanbus project, kbs not
// on PATH), nil for none: exit 1.
func (v verdict) afterWrite() error {
	var stays []diag.Finding
	for _, f := range v.stays {
		if sharedRows[f.Check] {
			stays = append(stays, f)
		}
	}
	if len(stays) == 0 {
		return nil
	}
	return FailedAfterWrite(errors.New(listErrors("as setup left the repository", stays)), "The files were written; the hook works once this is fixed, and nowhook doctor says so.")
}

// listErrors says errors that only the user can fix, each with its fix.
func listErrors(as string, stays []diag.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, nowhook doctor calls %s, which only you can fix:", as, counted(len(stays), "error"))
	for _, f := range stays {
		fmt.Fprintf(&b, "\n  %s: %s", where(f), f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "\n    fix: %s", f.Fix)
		}
	}
	return b.String()
}

// where names a row for a listing: its file, or its check.
func where(f diag.Finding) string {
	s := f.Check
	if f.Path != "" {
		s = osutil.TildeHome(f.Path) + " (" + f.Check + ")"
	}
	if f.From != "" && f.From != "." {
		s += " from " + f.From + "/"
	}
	return s
}

// covered leaves out of v.fixes the errors about a file the plan changes
// (changes lists it already, with what setup does to it).
func (v verdict) covered(changes []engine.Difference) verdict {
	out := verdict{stays: v.stays}
	for _, f := range v.fixes {
		if !slices.ContainsFunc(changes, func(d engine.Difference) bool { return d.Path == f.Path || d.Name == f.Path }) {
			out.fixes = append(out.fixes, f)
		}
	}
	return out
}

// differences are the verdict's errors as setup --check lists them: each
// one setup fixes, then each only the user can fix, with its fix.
func (v verdict) differences(root string) []engine.Difference {
	var out []engine.Difference
	at := func(f diag.Finding, what string) engine.Difference {
		d := engine.Difference{Name: osutil.TildeHome(f.Path), Path: f.Path, Line: 1, What: what}
		if f.Path == "" {
			d.Name, d.Line = f.Check, 0
		} else if !strings.HasPrefix(f.Path, "/") {
			d.Path = root + "/" + f.Path
		}
		return d
	}
	for _, f := range v.fixes {
		out = append(out, at(f, "nowhook doctor's "+f.Check+" row calls this an error: "+f.Message+"; setup fixes it"))
	}
	for _, f := range v.stays {
		what := "nowhook doctor's " + f.Check + " row calls this an error, which setup cannot fix: " + f.Message
		if f.Fix != "" {
			what += "; only you can fix it: " + f.Fix
		}
		out = append(out, at(f, what))
	}
	return out
}
