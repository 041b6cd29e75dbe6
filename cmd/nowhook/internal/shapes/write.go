package shapes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Write writes the shape's files and links into the folder dir (the
// repository root, which must exist).
func (s Shape) Write(dir string) error {
	for _, f := range s.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if f.Link != "" {
			if err := os.Symlink(filepath.FromSlash(f.Link), p); err != nil {
				return err
			}
			continue
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(f.Content), mode); err != nil {
			return err
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			return err
		}
	}
	return nil
}

// Apply appends e's group to the event array at e.Pointer of current (a
// hook file's JSON, comments allowed; empty when the file is missing),
// creating the objects and the array on the way where they are missing,
// and leaving every other byte as it was.
func (e Edit) Apply(current []byte) ([]byte, error) {
	if len(strings.TrimSpace(string(current))) == 0 {
		current = []byte("{}\n")
	}
	v, err := hujson.Parse(current)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Path, err)
	}
	parts := strings.Split(strings.TrimPrefix(e.Pointer, "/"), "/")
	for i := range parts {
		ptr := "/" + strings.Join(parts[:i+1], "/")
		if v.Find(ptr) != nil {
			continue
		}
		value := "{}"
		if i == len(parts)-1 {
			value = "[]"
		}
		if err := v.Patch([]byte(`[{"op":"add","path":` + quoted(ptr) + `,"value":` + value + `}]`)); err != nil {
			return nil, fmt.Errorf("%s: adding %s: %w", e.Path, ptr, err)
		}
	}
	if err := v.Patch([]byte(`[{"op":"add","path":` + quoted(e.Pointer+"/-") + `,"value":` + e.Group + `}]`)); err != nil {
		return nil, fmt.Errorf("%s: appending to %s: %w", e.Path, e.Pointer, err)
	}
	return v.Pack(), nil
}

// Check reports what makes the shape not a valid repository of its kind:
// paths that are not clean and relative, or given twice; a link whose
// target is not in the shape (or leaves the repository); a marker that is
// not in exactly one file or edit, or in another file than its record
// says; a hook or settings file the agent that reads it would reject
// (Claude Code's strict JSON, Codex's top-level keys); an edit that does
// not apply; a start folder or Kanbus project that is not a folder of the
// shape.
func (s Shape) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	paths := map[string]File{}
	folders := map[string]bool{".": true}
	for _, f := range s.Files {
		if f.Path == "" || path.Clean(f.Path) != f.Path || path.IsAbs(f.Path) || strings.HasPrefix(f.Path, "../") {
			bad("%q is not a clean relative path", f.Path)
		}
		if _, dup := paths[f.Path]; dup {
			bad("%s is given twice", f.Path)
		}
		paths[f.Path] = f
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			folders[d] = true
		}
	}
	for _, f := range s.Files {
		if f.Link == "" {
			continue
		}
		target := path.Join(path.Dir(f.Path), f.Link)
		if strings.HasPrefix(target, "../") || target == ".." {
			bad("%s -> %s leaves the repository", f.Path, f.Link)
			continue
		}
		if _, ok := paths[target]; !ok && !folders[target] {
			bad("%s -> %s: no such file or folder in the shape", f.Path, f.Link)
		}
		if folders[target] {
			folders[f.Path] = true // a linked folder
		}
	}
	where := map[string][]string{}
	for _, f := range s.Files {
		for _, tok := range MarkerPattern.FindAllString(f.Content, -1) {
			where[tok] = append(where[tok], f.Path)
		}
	}
	for _, e := range s.After {
		for _, tok := range MarkerPattern.FindAllString(e.Group, -1) {
			where[tok] = append(where[tok], e.Path)
		}
	}
	seen := map[string]bool{}
	for _, m := range s.Markers {
		if seen[m.Token] {
			bad("marker %s is recorded twice", m.Token)
		}
		seen[m.Token] = true
		got := where[m.Token]
		switch {
		case len(got) != 1:
			bad("marker %s is in %d places (%v), want 1", m.Token, len(got), got)
		case m.Kind == "line" && got[0] != m.Path:
			bad("marker %s is in %s, recorded as in %s", m.Token, got[0], m.Path)
		}
	}
	if len(seen) != len(where) {
		bad("%d marker tokens in the files, %d recorded", len(where), len(seen))
	}
	for _, f := range s.Files {
		if f.Link != "" {
			continue
		}
		if err := checkSettings(f); err != nil {
			bad("%s: %v", f.Path, err)
		}
	}
	for _, e := range s.After {
		cur := []byte(nil)
		if f, ok := paths[e.Path]; ok {
			cur = []byte(f.Content)
		}
		out, err := e.Apply(cur)
		if err != nil {
			bad("edit after setup: %v", err)
			continue
		}
		if err := checkSettings(File{Path: e.Path, Content: string(out)}); err != nil {
			bad("%s after the edit: %v", e.Path, err)
		}
	}
	for _, st := range s.Starts {
		if !folders[st.Dir] {
			bad("start folder %s is not a folder of the shape", st.Dir)
		}
	}
	if len(s.Starts) < 2 {
		bad("%d start folders, want the root and a package at least", len(s.Starts))
	}
	for _, k := range s.Kanbus {
		if _, ok := paths[path.Join(k, ".kanbus.yml")]; !ok {
			bad("Kanbus project %s has no .kanbus.yml", k)
		}
	}
	if len(s.Setup.Modes) != len(Clients) {
		bad("%d modes for %d clients", len(s.Setup.Modes), len(Clients))
	}
	return errors.Join(errs...)
}

// checkSettings parses a settings or hook file as the agent that reads it
// does.
func checkSettings(f File) error {
	switch f.Path {
	case ".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json",
		".factory/hooks.json", ".factory/settings.json", ".gemini/settings.json":
		var v map[string]any
		if err := json.Unmarshal([]byte(f.Content), &v); err != nil {
			return fmt.Errorf("not strict JSON: %w", err)
		}
		if f.Path == ".codex/hooks.json" {
			for k := range v {
				if k != "hooks" && k != "description" {
					return fmt.Errorf("top-level key %q makes Codex drop the file", k)
				}
			}
		}
	case ".qwen/settings.json":
		std, err := hujson.Standardize([]byte(f.Content))
		if err != nil {
			return err
		}
		var v map[string]any
		return json.Unmarshal(std, &v)
	}
	return nil
}
