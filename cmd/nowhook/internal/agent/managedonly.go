package agent

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// ManagedOnly is a client's managed-only switch (docs/platforms.md,
// "Managed channels"): set in one of its managed files, the client runs
// the managed layer's hooks alone and drops the user's and the project's,
// nowhook's among them. Doctor reports it beside the install it stops.
type ManagedOnly struct {
	// Files are the managed files that may hold the switch, as the machine
	// has them; one ending in "/*.json" stands for every *.json file of
	// that folder whose name does not start with a dot, in name order.
	Files []string
	// Key is the switch: a top-level key, true.
	Key string
	// TOML: the files are TOML; else JSON (Strict: strict JSON).
	TOML, Strict bool
	// Broken, if set, is what the client does when one of Files does not
	// parse (it stops every session); "" where it passes the file by.
	Broken string
	// Ignored says where the same key does nothing.
	Ignored string
	// Known is how nowhook knows what the switch does.
	Known string
}

// ManagedFile is one of a ManagedOnly's files found in a tree.
type ManagedFile struct {
	// Path is the file as the machine has it, Abs where it was read (under
	// the tree's root).
	Path, Abs string
	// Set: the file sets the switch.
	Set bool
	// Err is why the file cannot be read or parsed as the client parses
	// it; nil where it can.
	Err error
}

// Read lists the switch's files that exist in the tree under root ("/"
// on the machine), in the order the client reads them, each with whether
// it sets the switch or why the client cannot parse it.
func (m *ManagedOnly) Read(root string) []ManagedFile {
	var out []ManagedFile
	for _, f := range m.Files {
		paths := []string{f}
		if dir, ok := strings.CutSuffix(f, "/*.json"); ok {
			paths = nil
			entries, _ := os.ReadDir(underRoot(root, dir))
			for _, e := range entries {
				if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
					paths = append(paths, path.Join(dir, n))
				}
			}
			sort.Strings(paths)
		}
		for _, p := range paths {
			abs := underRoot(root, p)
			if info, err := os.Stat(abs); err != nil && errors.Is(err, os.ErrNotExist) || err == nil && info.IsDir() {
				continue
			}
			mf := ManagedFile{Path: p, Abs: abs}
			mf.Set, mf.Err = m.read(abs)
			out = append(out, mf)
		}
	}
	return out
}

// read reports whether the file at abs sets the switch, or why it cannot
// be parsed.
func (m *ManagedOnly) read(abs string) (bool, error) {
	b, err := diag.ReadBounded(abs)
	if err != nil {
		return false, err
	}
	var doc map[string]any
	if m.TOML {
		if err := toml.Unmarshal(b, &doc); err != nil {
			return false, errors.New("is not valid TOML (" + strings.ReplaceAll(err.Error(), "\n", " ") + ")")
		}
		return doc[m.Key] == true, nil
	}
	f := diag.ReadHookFile(abs, abs, true, diag.Format{Strict: m.Strict, Title: "the client"})
	switch {
	case f == nil:
		return false, nil
	case f.ReadErr != nil:
		return false, f.ReadErr
	case f.ParseErr != nil:
		return false, errors.New(f.ParseErr.Problem)
	}
	return f.Doc[m.Key] == true, nil
}

// ManagedFolderOf is the machine path of p under root, for messages:
// p itself where root is the machine's.
func ManagedFolderOf(root, p string) string {
	if root == "" || root == string(filepath.Separator) {
		return p
	}
	return underRoot(root, p)
}
