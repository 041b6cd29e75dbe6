package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// ForgetRequest says which hook trust Forget removes.
type ForgetRequest struct {
	// Root is the repository root; Forget lists its hooks before and after
	// the write to prove that only the forgotten keys lost their trust.
	Root string
	// Keys are the [hooks.state] keys to remove, raw, e.g.
	// "/repo/.codex/hooks.json:session_start:0:0". Compute them from
	// hooks.json before removing our group: the key is the group's position,
	// which is gone afterwards.
	Keys []string
	// Project is the path whose [projects."<path>"] trust_level nowhook's
	// own --trust-codex recorded ("" when it recorded none: the user's
	// trust is never touched). Forget removes that trust too, unless
	// something else of the user's in the project needs it (ProjectNeeds),
	// and then says what.
	Project string
}

// ForgetResult says what Forget did.
type ForgetResult struct {
	// ConfigFile is the user config.toml Codex wrote ("" when nothing was written).
	ConfigFile string
	// Removed lists the keys whose [hooks.state] entry this call removed.
	Removed []string
	// Absent lists the keys that had no [hooks.state] entry in the user
	// config (nothing to remove).
	Absent []string
	// ProjectTrusted reports that the user config holds
	// [projects."<root>"] trust_level = "trusted" afterwards. Forget
	// removes it only where nowhook recorded it (ForgetRequest.Project)
	// and nothing else needs it.
	ProjectTrusted bool
	// ProjectForgotten: this call removed the project trust nowhook had
	// recorded; ProjectKept says why it kept it ("" otherwise).
	ProjectForgotten bool
	ProjectKept      string
	// After is the listing after the write (or the only listing, when
	// nothing was written).
	After *Listing
}

// HookStateKeyPath is the config key path of a hook's whole [hooks.state]
// entry: hooks.state."<key>". config/batchWrite with this path and a null
// value removes the table (header, keys, and the comment lines directly
// above its header); clearing only .trusted_hash would leave an empty
// [hooks.state."<key>"] header behind (measured on codex 0.171.0).
func HookStateKeyPath(key string) string {
	return "hooks.state." + keyPathQuote(key)
}

// Forget removes, through Codex's app-server (config/batchWrite, a null
// value per hooks.state."<key>"), exactly the [hooks.state] entries named
// by req.Keys from the user config.toml, keeping every other byte of it as
// Codex's own writer does. It never touches project trust. It then reads
// the config and lists the hooks again to prove the entries are gone, the
// rest of the user config is unchanged, no removed key is still trusted,
// and every other hook's trust is as it was. Keys without an entry are
// reported in Absent; when no key has one, nothing is written.
//
// When codex is not found the error wraps ErrCodexNotFound; print
// ForgetLines(req.Keys) for the user then.
func Forget(ctx context.Context, opts Options, req ForgetRequest) (*ForgetResult, error) {
	keys, err := uniqueKeys(req.Keys, req.Project != "")
	if err != nil {
		return nil, err
	}
	c, before, err := startListing(ctx, opts, req.Root)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	root := before.Root
	user, err := c.readUserLayer(ctx)
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return nil, fmt.Errorf("codex cannot read its configuration, nothing written: %s", rpc.Message)
		}
		return nil, err
	}
	res := &ForgetResult{After: before, ProjectTrusted: user.projectTrusted(root)}
	state := user.hookState()
	var present []string
	var edits []Edit
	for _, k := range keys {
		if _, ok := state[k]; !ok {
			res.Absent = append(res.Absent, k)
			continue
		}
		present = append(present, k)
		edits = append(edits, Edit{KeyPath: HookStateKeyPath(k), Value: nil, MergeStrategy: "replace"})
	}
	project := ""
	if req.Project != "" && user.projectTrusted(req.Project) {
		var others []string
		for k := range state {
			if !slices.Contains(keys, k) {
				others = append(others, k)
			}
		}
		for _, h := range before.Hooks {
			if !slices.Contains(keys, h.Key) && h.Source == "project" {
				others = append(others, h.Key)
			}
		}
		if res.ProjectKept = ProjectNeeds(req.Project, others); res.ProjectKept == "" {
			project = req.Project
			edits = append(edits, Edit{KeyPath: user.projectKeyPath(project), Value: nil, MergeStrategy: "replace"})
		}
	}
	if len(edits) == 0 {
		return res, nil
	}
	w, err := c.BatchWrite(ctx, edits, user.Version)
	if err != nil {
		return res, fmt.Errorf("removing trust from %s: %w", user.File, err)
	}
	res.ConfigFile, res.Removed = w.FilePath, present

	// Prove it: the entries are gone and nothing else in the user config moved.
	now, err := c.readUserLayer(ctx)
	if err != nil {
		return res, err
	}
	for _, k := range res.Removed {
		if _, ok := now.hookState()[k]; ok {
			return res, fmt.Errorf("codex still has [hooks.state.%s] in %s after removing it", TOMLKey(k), w.FilePath)
		}
	}
	if project != "" {
		if now.projectTrusted(project) {
			return res, fmt.Errorf("codex still trusts the project %s in %s after removing its trust", project, w.FilePath)
		}
		res.ProjectForgotten = true
		res.ProjectTrusted = now.projectTrusted(root)
	}
	want := user.without(res.Removed, project)
	if got := pruneHookState(now.Config); !reflect.DeepEqual(got, want) {
		return res, fmt.Errorf("codex changed more than the forgotten hook trust in %s (config/read reports other settings changed too): check the file by hand", w.FilePath)
	}
	if res.After, err = c.List(ctx, root); err != nil {
		return res, err
	}
	forgotten := map[string]bool{}
	for _, k := range res.Removed {
		forgotten[k] = true
		if h, ok := res.After.Hook(k); ok && h.TrustStatus == StatusTrusted {
			return res, fmt.Errorf("codex still reports hook %s trusted after removing its trust", k)
		}
	}
	return res, othersUnchanged(before, res.After, forgotten)
}

// ProjectNeeds says what else of the user's in the project at path needs
// Codex to trust it, "" for nothing: its .codex/config.toml (Codex loads a
// project's config only when it trusts the project), or other hooks of the
// project, listed or trusted (others: their keys, those of hooks.json
// under the project's path count).
func ProjectNeeds(path string, others []string) string {
	if _, err := os.Lstat(filepath.Join(path, ".codex", "config.toml")); err == nil {
		return filepath.Join(path, ".codex", "config.toml") + " needs it: Codex loads a project's config.toml only while it trusts the project"
	}
	prefix := path + string(filepath.Separator)
	for _, k := range others {
		if strings.HasPrefix(k, prefix) {
			return "the project's other hook " + k + " needs it: Codex runs a project's hooks only while it trusts the project"
		}
	}
	return ""
}

func uniqueKeys(in []string, none bool) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, k := range in {
		if k == "" {
			return nil, errors.New("codex.Forget: empty hook key")
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == 0 && !none {
		return nil, errors.New("codex.Forget: no hook keys to forget")
	}
	return out, nil
}

// userLayer is the base user config.toml as config/read reports it.
type userLayer struct {
	File    string
	Version string
	Config  map[string]any // the file's TOML as JSON
}

// readUserLayer reads the user layer the way config/batchWrite does, with
// no project layers (so a broken project config.toml does not matter).
func (c *Conn) readUserLayer(ctx context.Context) (*userLayer, error) {
	var resp struct {
		Layers []struct {
			Name struct {
				Type         string `json:"type"`
				File         string `json:"file"`
				ProfileLayer any    `json:"profile"`
			} `json:"name"`
			Version string          `json:"version"`
			Config  json.RawMessage `json:"config"`
		} `json:"layers"`
	}
	if err := c.Call(ctx, "config/read", map[string]any{"includeLayers": true}, &resp); err != nil {
		return nil, err
	}
	for _, layer := range resp.Layers {
		if layer.Name.Type != "user" || layer.Name.ProfileLayer != nil {
			continue
		}
		u := &userLayer{File: layer.Name.File, Version: layer.Version, Config: map[string]any{}}
		if len(layer.Config) > 0 && string(layer.Config) != "null" {
			if err := json.Unmarshal(layer.Config, &u.Config); err != nil {
				return nil, fmt.Errorf("codex app-server: config/read: unexpected user layer: %w", err)
			}
		}
		return u, nil
	}
	return nil, errors.New("codex app-server: config/read reported no user config layer")
}

// hookState is the user config's [hooks.state] table (nil when absent).
func (u *userLayer) hookState() map[string]any {
	hooks, _ := u.Config["hooks"].(map[string]any)
	state, _ := hooks["state"].(map[string]any)
	return state
}

func (u *userLayer) projectTrusted(root string) bool {
	projects, _ := u.Config["projects"].(map[string]any)
	p, _ := projects[root].(map[string]any)
	return p["trust_level"] == "trusted"
}

// projectKeyPath is what removing the project's trust takes away: its
// whole [projects."<path>"] table when trust_level is all it holds (an
// empty header would stay otherwise), else the trust_level alone.
func (u *userLayer) projectKeyPath(path string) string {
	projects, _ := u.Config["projects"].(map[string]any)
	if p, _ := projects[path].(map[string]any); len(p) == 1 {
		return "projects." + keyPathQuote(path)
	}
	return ProjectTrustKeyPath(path)
}

// without returns a copy of the config without the given [hooks.state]
// entries and, unless project is "", the project's trust (as
// projectKeyPath takes it away), pruned like pruneHookState.
func (u *userLayer) without(keys []string, project string) map[string]any {
	b, _ := json.Marshal(u.Config)
	var cp map[string]any
	_ = json.Unmarshal(b, &cp)
	if hooks, ok := cp["hooks"].(map[string]any); ok {
		if state, ok := hooks["state"].(map[string]any); ok {
			for _, k := range keys {
				delete(state, k)
			}
		}
	}
	if projects, ok := cp["projects"].(map[string]any); ok && project != "" {
		if p, ok := projects[project].(map[string]any); ok {
			delete(p, "trust_level")
			if len(p) == 0 {
				delete(projects, project)
			}
		}
		if len(projects) == 0 {
			delete(cp, "projects")
		}
	}
	return pruneHookState(cp)
}

// pruneHookState drops an empty [hooks.state] and then an empty [hooks]:
// Codex never writes them as headers of their own (they are implicit), so
// removing the last entry leaves neither behind.
func pruneHookState(cfg map[string]any) map[string]any {
	hooks, ok := cfg["hooks"].(map[string]any)
	if !ok {
		return cfg
	}
	if state, ok := hooks["state"].(map[string]any); ok && len(state) == 0 {
		delete(hooks, "state")
	}
	if len(hooks) == 0 {
		delete(cfg, "hooks")
	}
	return cfg
}

// ForgetLines returns the lines a user deletes from the user config.toml
// by hand to forget the given hook keys when codex is absent: each
// [hooks.state."<key>"] header, quoted as Codex writes it, and its
// trusted_hash line, whose hash is elided (the header names the table; the
// line under it is whatever hash was recorded). See ForgetEntryLines for
// the lines with the hashes.
func ForgetLines(keys []string) string {
	entries := make([]TrustEntry, len(keys))
	for i, k := range keys {
		entries[i] = TrustEntry{Key: k}
	}
	return ForgetEntryLines(entries)
}

// TrustEntry is one [hooks.state] entry: a hook key and its trusted hash
// ("sha256:<hex>", e.g. from HookHash).
type TrustEntry struct {
	Key  string
	Hash string // "" elides it as "sha256:..."
}

// ForgetEntryLines is ForgetLines with the exact trusted_hash lines: the
// entries as Codex writes them, separated by blank lines.
func ForgetEntryLines(entries []TrustEntry) string {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteByte('\n')
		}
		hash := e.Hash
		if hash == "" {
			hash = "sha256:..."
		}
		fmt.Fprintf(&b, "[hooks.state.%s]\ntrusted_hash = %s\n", TOMLKey(e.Key), tomlQuote(hash))
	}
	return b.String()
}

// TOMLKey renders s as a TOML key the way Codex (toml_edit) writes one:
// bare when it can be; else a basic string unless that needs escapes for
// '"' or '\\' and a literal string can hold it (no "'", no control
// character but tab); else a basic string with escapes. Measured on codex
// 0.171.0 (TestRealCodexKeyQuoting).
func TOMLKey(s string) string {
	bare := s != ""
	needsEscape, literalOK := false, true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			bare = false
		}
		switch {
		case r == '"' || r == '\\':
			needsEscape = true
		case r == '\'':
			literalOK = false
		case r == '\t':
		case r < 0x20 || r == 0x7f:
			literalOK = false
		}
	}
	switch {
	case bare:
		return s
	case needsEscape && literalOK:
		return "'" + s + "'"
	default:
		return tomlQuote(s)
	}
}

// keyPathQuote quotes one segment of a config/batchWrite keyPath. Codex's
// keyPath parser is not TOML: inside quotes a backslash takes the next
// character as it is, and nothing else is an escape (so "\t" or "\u0009"
// would arrive as "t" or "u0009"); control characters go through raw.
func keyPathQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ForgetProjectLines returns the lines a user deletes from the user
// config.toml by hand to forget the trust of the project at path, as
// Codex writes them.
func ForgetProjectLines(path string) string {
	return "\n[projects." + TOMLKey(path) + "]\ntrust_level = \"trusted\"\n"
}
