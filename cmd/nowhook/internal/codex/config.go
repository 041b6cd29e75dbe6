package codex

// Codex's config.toml, read only (docs/platforms.md#codex-cli). Codex CLI
// 0.171.0 reads two layers that matter to nowhook: the user's
// ($CODEX_HOME/config.toml, else ~/.codex/config.toml), the only place
// where trust counts ([projects."<root>"] trust_level and
// [hooks.state."<key>"] trusted_hash), and the project's
// (.codex/config.toml), which it loads once the project is trusted and
// which overrides the user's. Codex refuses to start with either one
// broken. nowhook never writes them itself: trust goes through app-server
// (hooks.go, forget.go), which keeps the file's comments and layout.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// maxConfig bounds how much of a config.toml is read.
const maxConfig = 8 << 20

// Config is both config.toml layers, read once.
type Config struct {
	User    *ConfigFile // ${CODEX_HOME:-~/.codex}/config.toml
	Project *ConfigFile // <root>/.codex/config.toml
}

// ConfigFile is one config.toml layer.
type ConfigFile struct {
	// Path is the file's absolute path ("" for the user layer when neither
	// CODEX_HOME nor HOME is set).
	Path string
	// Exists reports whether anything is at Path (a dangling link too).
	Exists bool
	// Err says why Codex cannot read the file: a *TOMLError when it does
	// not parse, otherwise why it cannot be read. Nil when the file parses
	// or is absent.
	Err error
	// Doc is the parsed file; nil when it is absent or Err is set.
	Doc map[string]any
}

// TOMLError is a config.toml that does not parse.
type TOMLError struct {
	Line, Column int // where the parser stopped; 0 when it does not say
	Reason       string
}

func (e *TOMLError) Error() string { return "is not valid TOML (" + e.Reason + ")" }

// Home is Codex's home directory: $CODEX_HOME, else ~/.codex; "" when
// neither CODEX_HOME nor HOME is set. A nil env is this process's.
func Home(env []string) string {
	if env == nil {
		env = os.Environ()
	}
	if dir := osutil.Getenv(env, "CODEX_HOME"); dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs
		}
		return dir
	}
	if home := osutil.Getenv(env, "HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}

// ReadConfig reads the user layer (found through env, nil for this
// process's) and the project layer of the repository at root.
func ReadConfig(env []string, root string) Config {
	user := &ConfigFile{}
	if home := Home(env); home != "" {
		user = readConfigFile(filepath.Join(home, "config.toml"))
	}
	return Config{User: user, Project: readConfigFile(filepath.Join(root, ".codex", "config.toml"))}
}

func readConfigFile(path string) *ConfigFile {
	f := &ConfigFile{Path: path}
	if _, err := os.Lstat(path); err != nil {
		return f
	}
	f.Exists = true
	b, err := readBounded(path)
	if err != nil {
		f.Err = err
		return f
	}
	if err := toml.Unmarshal(b, &f.Doc); err != nil {
		te := &TOMLError{Reason: err.Error()}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			te.Line, te.Column = de.Position()
			te.Reason = de.Error()
		}
		f.Err, f.Doc = te, nil
	}
	return f
}

func readBounded(path string) ([]byte, error) { return osutil.ReadBounded(path, maxConfig) }

// Problem says why Codex cannot read the file, naming it as shown: with
// line and column where the parser gives them. "" when nothing is wrong.
func (f *ConfigFile) Problem(shown string) string {
	var te *TOMLError
	var tl *osutil.TooLargeError
	var nr *osutil.NotRegularError
	switch {
	case f.Err == nil:
		return ""
	case errors.As(f.Err, &tl) || errors.As(f.Err, &nr):
		return fmt.Sprintf("%s %v", shown, f.Err) // too large, or a named pipe: not unreadable
	case !errors.As(f.Err, &te):
		return fmt.Sprintf("%s cannot be read: %v", shown, f.Err)
	case te.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %v", shown, te.Line, te.Column, te)
	default:
		return fmt.Sprintf("%s: %v", shown, te)
	}
}

// Table returns the table at the dotted path (Table("hooks", "state") is
// [hooks.state]), nil when it is absent; ok is false when a key on the
// path holds something other than a table, which Codex refuses.
func (f *ConfigFile) Table(path ...string) (t map[string]any, ok bool) {
	t = f.Doc
	for _, k := range path {
		v, present := t[k]
		if !present {
			return nil, true
		}
		if t, ok = v.(map[string]any); !ok {
			return nil, false
		}
	}
	return t, true
}

// InlineHooks lists, sorted, the events the file defines hooks for inline
// ([hooks.<event>]; [hooks.state] holds trust, not hooks). With a
// hooks.json in the same layer Codex loads both and warns.
func (f *ConfigFile) InlineHooks() []string {
	hooks, _ := f.Table("hooks")
	var events []string
	for k := range hooks {
		if k != "state" {
			events = append(events, k)
		}
	}
	sort.Strings(events)
	return events
}
