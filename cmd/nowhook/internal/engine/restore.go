package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// restore makes remove give back what the record kept, where taking
// nowhook's artifacts out would not: a file outside the repository that
// setup wrote through a link with --follow-outside-links gets the bytes it
// had before instead of being deleted (a script of the user's that setup
// --force replaced there), and a file that held only white space before
// setup wrote into it gets that white space back instead of "{}". It
// returns the files it gave back, for the record to forget.
func restore(p *plan, rec *record) map[string]bool {
	restored := map[string]bool{}
	for _, c := range p.changes {
		if c.touched || !c.existed {
			continue // an apply wrote it: nothing to give back
		}
		if c.remove {
			old, mode, ok := rec.original(c.target)
			if !ok {
				continue
			}
			c.remove, c.next, c.mode = false, old, mode
			restored[c.target] = true
			p.rmdirs = slices.DeleteFunc(p.rmdirs, func(d string) bool { return Within(d, c.target) })
			p.note("%s: given back the %s it held before nowhook setup wrote it through a link out of the repository (%s).", c.rel, osutil.Bytes(int64(len(old))), osutil.TildeHome(c.target))
			continue
		}
		if !c.unhooked {
			continue
		}
		blank, ok := rec.wasBlank(c.target)
		rest := bytes.TrimSpace(bytes.TrimPrefix(c.next, []byte("\xef\xbb\xbf")))
		if ok && (len(rest) == 0 || string(rest) == "{}") {
			c.next = []byte(blank)
			restored[c.target] = true
		}
	}
	outsideFolders(p, rec)
	return restored
}

// outsideFolders plans the deletion of the folders that setup created
// outside the repository with --follow-outside-links (through a link that
// led to a folder that did not exist yet) once the files remove deletes
// leave them empty: reconcile's planFolders climbs only the repository's
// own folders.
func outsideFolders(p *plan, rec *record) {
	gone := map[string]bool{}
	for _, c := range p.changes {
		if c.remove {
			gone[c.target] = true
		}
	}
	for _, d := range p.rmdirs {
		gone[d] = true
	}
	added := false
	for _, c := range p.changes {
		if !c.remove || !rec.consented(c.target) {
			continue
		}
		for d := filepath.Dir(c.target); !gone[d] && rec.lines["d "+rec.key(d)] && rec.consented(d); d = filepath.Dir(d) {
			entries, err := os.ReadDir(d)
			if err != nil {
				break
			}
			empty := true
			for _, e := range entries {
				if !gone[filepath.Join(d, e.Name())] {
					empty = false
				}
			}
			if !empty {
				break
			}
			gone[d] = true
			p.rmdirs = append(p.rmdirs, d)
			added = true
		}
	}
	if added {
		sort.SliceStable(p.rmdirs, func(i, j int) bool { return len(p.rmdirs[i]) > len(p.rmdirs[j]) })
	}
}

// outsideWithoutRecord refuses --follow-outside-links where nowhook keeps
// no record (outside git): remove could not give the files back.
func outsideWithoutRecord(p *plan, g *guard) error {
	for _, c := range p.changes {
		if _, ok := g.inside(c.target); c.changed() && !ok && len(g.areas) > 0 {
			return fmt.Errorf("%s: lies outside %s (%s), and here, outside git, nowhook keeps no record in which to save its old bytes for nowhook remove; --follow-outside-links needs one: run nowhook in a git repository, or replace the link with a file of %s's own", c.rel, g.areas[0].name, osutil.TildeHome(c.target), g.areas[0].name)
		}
	}
	return nil
}
