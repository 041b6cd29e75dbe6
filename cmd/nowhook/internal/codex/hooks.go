package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Trust statuses reported by hooks/list.
const (
	StatusTrusted   = "trusted"
	StatusUntrusted = "untrusted"
	StatusModified  = "modified" // trusted once, changed since
	StatusManaged   = "managed"
)

// Hook is one hook as hooks/list reports it.
type Hook struct {
	Key         string `json:"key"`       // "<file>:<event>:<group>:<handler>", the [hooks.state] key
	EventName   string `json:"eventName"` // camelCase, e.g. "sessionStart"
	HandlerType string `json:"handlerType"`
	Command     string `json:"command"`
	Async       bool   `json:"async"`
	// Matcher is nil when the group has none (or the event ignores matchers).
	Matcher                *string     `json:"matcher"`
	TimeoutSec             json.Number `json:"timeoutSec"`
	StatusMessage          *string     `json:"statusMessage"`
	AdditionalContextLimit *int64      `json:"additionalContextLimit"`
	SourcePath             string      `json:"sourcePath"` // the hooks.json or config.toml it came from
	Source                 string      `json:"source"`     // "user", "project", ...
	Enabled                bool        `json:"enabled"`
	IsManaged              bool        `json:"isManaged"`
	CurrentHash            string      `json:"currentHash"` // "sha256:<hex>"
	TrustStatus            string      `json:"trustStatus"` // one of the Status constants
}

// HookError is a hooks/list error entry.
type HookError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ProjectLayer is one project config layer (a .codex directory) Codex found
// between the listed directory and its project root.
type ProjectLayer struct {
	Dir string // the .codex directory
	// DisabledReason is Codex's explanation when it does not load the layer
	// (the project is not trusted): it names the path to trust. Empty when loaded.
	DisabledReason string
}

// Trusted reports whether Codex loads the layer (the project is trusted).
func (p ProjectLayer) Trusted() bool { return p.DisabledReason == "" }

// Listing is what Codex reports for one directory.
type Listing struct {
	// Root is the listed directory, symlinks resolved (Codex resolves its
	// own working directory, so the hook keys of real sessions use it).
	Root string
	// Hooks holds the hooks Codex loads for Root. Project hooks appear only
	// when the project is trusted.
	Hooks    []Hook
	Warnings []string    // e.g. a hooks.json Codex dropped, and why
	Errors   []HookError // e.g. an invalid config.toml
	// CodexHome is the server's $CODEX_HOME.
	CodexHome string
	// UserConfig is the user config.toml (it need not exist).
	UserConfig string
	// UserConfigVersion is Codex's version stamp of UserConfig.
	UserConfigVersion string
	// ProjectLayers lists the project layers Codex found, innermost first.
	ProjectLayers []ProjectLayer
	// HooksDisabled is true when the effective config turns hooks off
	// ([features] hooks = false, or the older codex_hooks = false): Codex
	// then lists and runs no hook at all, without a warning.
	HooksDisabled bool
	// ConfigError is set when Codex could not read its configuration layers
	// (ProjectLayers, UserConfig and HooksDisabled are then unknown).
	ConfigError string
}

// Hook returns the listed hook with the given key.
func (l *Listing) Hook(key string) (Hook, bool) {
	for _, h := range l.Hooks {
		if h.Key == key {
			return h, true
		}
	}
	return Hook{}, false
}

// ProjectLayer returns the layer for dir (a .codex directory).
func (l *Listing) ProjectLayer(dir string) (ProjectLayer, bool) {
	for _, p := range l.ProjectLayers {
		if p.Dir == dir {
			return p, true
		}
	}
	return ProjectLayer{}, false
}

// CanonicalRoot returns root as Codex sees it: absolute, symlinks resolved.
func CanonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("repository root: %w", err)
	}
	return real, nil
}

// List starts codex app-server and reports the hooks, their trust, and the
// project layers Codex sees from root.
func List(ctx context.Context, opts Options, root string) (*Listing, error) {
	c, l, err := startListing(ctx, opts, root)
	if err != nil {
		return nil, err
	}
	c.Close()
	return l, nil
}

// startListing starts codex app-server and lists what it sees from root
// (made canonical first): how List, Trust and Forget begin. The caller
// closes the session.
func startListing(ctx context.Context, opts Options, root string) (*Conn, *Listing, error) {
	root, err := CanonicalRoot(root)
	if err != nil {
		return nil, nil, err
	}
	c, err := Start(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	l, err := c.List(ctx, root)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, l, nil
}

// List reports the hooks and project layers Codex sees from root (used as
// given; see CanonicalRoot).
func (c *Conn) List(ctx context.Context, root string) (*Listing, error) {
	l := &Listing{Root: root, CodexHome: c.CodexHome}
	if err := c.readLayers(ctx, l); err != nil {
		var rpc *RPCError
		if !errors.As(err, &rpc) {
			return nil, err
		}
		l.ConfigError = rpc.Message
	}
	if err := c.listHooks(ctx, l); err != nil {
		return nil, err
	}
	return l, nil
}

func (c *Conn) readLayers(ctx context.Context, l *Listing) error {
	var resp struct {
		Config struct {
			Features map[string]any `json:"features"`
		} `json:"config"`
		Layers []struct {
			Name struct {
				Type         string `json:"type"`
				File         string `json:"file"`
				DotCodexDir  string `json:"dotCodexFolder"`
				ProfileLayer any    `json:"profile"`
			} `json:"name"`
			Version        string  `json:"version"`
			DisabledReason *string `json:"disabledReason"`
		} `json:"layers"`
	}
	params := map[string]any{"includeLayers": true, "cwd": l.Root}
	if err := c.Call(ctx, "config/read", params, &resp); err != nil {
		return err
	}
	// "hooks" wins over the deprecated "codex_hooks" (measured on 0.171.0).
	flag, ok := resp.Config.Features["hooks"].(bool)
	if !ok {
		flag, ok = resp.Config.Features["codex_hooks"].(bool)
	}
	l.HooksDisabled = ok && !flag
	for _, layer := range resp.Layers {
		switch layer.Name.Type {
		case "user":
			if layer.Name.ProfileLayer == nil { // the base file, not a profile on top
				l.UserConfig = layer.Name.File
				l.UserConfigVersion = layer.Version
			}
		case "project":
			p := ProjectLayer{Dir: layer.Name.DotCodexDir}
			if layer.DisabledReason != nil {
				p.DisabledReason = *layer.DisabledReason
			}
			l.ProjectLayers = append(l.ProjectLayers, p)
		}
	}
	return nil
}

func (c *Conn) listHooks(ctx context.Context, l *Listing) error {
	var resp struct {
		Data []struct {
			Cwd      string      `json:"cwd"`
			Hooks    []Hook      `json:"hooks"`
			Warnings []string    `json:"warnings"`
			Errors   []HookError `json:"errors"`
		} `json:"data"`
	}
	if err := c.Call(ctx, "hooks/list", map[string]any{"cwds": []string{l.Root}}, &resp); err != nil {
		return err
	}
	for _, d := range resp.Data {
		if d.Cwd != l.Root {
			continue
		}
		l.Hooks, l.Warnings, l.Errors = d.Hooks, d.Warnings, d.Errors
		return nil
	}
	return fmt.Errorf("codex app-server: hooks/list did not answer for %s", l.Root)
}

// Edit is one config/batchWrite edit.
type Edit struct {
	KeyPath       string `json:"keyPath"`
	Value         any    `json:"value"`
	MergeStrategy string `json:"mergeStrategy"` // "upsert" or "replace"
}

// WriteResult is config/batchWrite's answer.
type WriteResult struct {
	Status   string `json:"status"`
	Version  string `json:"version"`
	FilePath string `json:"filePath"`
}

// BatchWrite applies edits to the user config.toml through Codex, which
// keeps the file's comments and layout and writes through a symlink. With
// expectedVersion set, Codex refuses if the file changed since it was read.
func (c *Conn) BatchWrite(ctx context.Context, edits []Edit, expectedVersion string) (WriteResult, error) {
	params := map[string]any{
		"edits":            edits,
		"filePath":         nil,
		"expectedVersion":  nil,
		"reloadUserConfig": false,
	}
	if expectedVersion != "" {
		params["expectedVersion"] = expectedVersion
	}
	var res WriteResult
	err := c.Call(ctx, "config/batchWrite", params, &res)
	return res, err
}

// HookTrustKeyPath is the config key path of a hook's trusted hash:
// hooks.state."<key>".trusted_hash (the form Codex's own /hooks screen uses).
func HookTrustKeyPath(key string) string {
	return HookStateKeyPath(key) + ".trusted_hash"
}

// ProjectTrustKeyPath is the config key path of a project's trust level:
// projects."<root>".trust_level.
func ProjectTrustKeyPath(root string) string {
	return "projects." + keyPathQuote(root) + ".trust_level"
}

// tomlQuote writes s as a TOML basic string, with the escapes Codex
// (toml_edit) uses: \b \t \n \f \r \" \\ and \uXXXX for other control
// characters. See TOMLKey for how Codex picks the form of a key.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TrustRequest says what Trust records.
type TrustRequest struct {
	// Root is the repository root.
	Root string
	// Project also records [projects."<root>"] trust_level = "trusted" when
	// Codex does not load the project's .codex yet. Without it Codex lists
	// no project hooks, so Trust fails for an untrusted project.
	Project bool
	// Select picks the hooks to trust, e.g. by Command and SourcePath. It
	// sees every command hook Codex lists; managed hooks are never offered.
	Select func(Hook) bool
	// ProjectRoot is the path whose [projects."<path>"] entry records the
	// project's trust; "" for Root. In a linked git worktree it is the main
	// checkout, whose trust Codex applies to the worktree (and whose path
	// Codex itself names when it asks for trust).
	ProjectRoot string
}

// TrustResult says what Trust did.
type TrustResult struct {
	// ConfigFile is the user config.toml Codex wrote ("" when nothing was written).
	ConfigFile string
	// ProjectTrusted is true when this call recorded the project's trust.
	ProjectTrusted bool
	// Recorded lists the keys whose trusted hash this call wrote.
	Recorded []string
	// Hooks are the selected hooks as Codex lists them afterwards (all trusted).
	Hooks []Hook
	// After is the listing after the writes.
	After *Listing
}

// Trust records, through Codex's app-server, the trust of exactly the hooks
// req.Select picks (and the project's trust when req.Project is set), then
// lists again to prove Codex now reports them trusted and every other hook's
// trust unchanged. Hooks already trusted are not written again.
func Trust(ctx context.Context, opts Options, req TrustRequest) (*TrustResult, error) {
	if req.Select == nil {
		return nil, errors.New("codex.Trust: no hook selector")
	}
	c, before, err := startListing(ctx, opts, req.Root)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if before.ConfigError != "" {
		return nil, fmt.Errorf("codex cannot read its configuration, nothing written: %s", before.ConfigError)
	}
	res := &TrustResult{}
	version := before.UserConfigVersion
	if before, version, err = c.trustProject(ctx, req, before, version, res); err != nil {
		return res, err
	}

	var selected []Hook
	var edits []Edit
	for _, h := range before.Hooks {
		if h.IsManaged || h.HandlerType != "command" || !req.Select(h) {
			continue
		}
		if h.CurrentHash == "" {
			return res, fmt.Errorf("codex listed hook %s without a hash; nothing written", h.Key)
		}
		selected = append(selected, h)
		if h.TrustStatus != StatusTrusted {
			edits = append(edits, Edit{KeyPath: HookTrustKeyPath(h.Key), Value: h.CurrentHash, MergeStrategy: "upsert"})
			res.Recorded = append(res.Recorded, h.Key)
		}
	}
	if len(selected) == 0 {
		return res, fmt.Errorf("codex lists no matching hook for %s%s", before.Root, describeProblems(before))
	}
	after := before
	if len(edits) > 0 {
		w, err := c.BatchWrite(ctx, edits, version)
		if err != nil {
			return res, fmt.Errorf("recording hook trust: %w", err)
		}
		res.ConfigFile = w.FilePath
		if after, err = c.List(ctx, before.Root); err != nil {
			return res, err
		}
	}
	res.After = after

	// Prove it: ours trusted, everyone else's trust as it was.
	picked := map[string]bool{}
	for _, h := range selected {
		picked[h.Key] = true
		now, ok := after.Hook(h.Key)
		if !ok {
			return res, fmt.Errorf("hook %s disappeared from codex's list after trusting it", h.Key)
		}
		if now.TrustStatus != StatusTrusted {
			return res, fmt.Errorf("codex reports hook %s %s after recording its trust", h.Key, now.TrustStatus)
		}
		res.Hooks = append(res.Hooks, now)
	}
	return res, othersUnchanged(before, after, picked)
}

// trustProject records the project's trust when Codex does not load its
// .codex yet (and req.Project allows it), and returns the listing and the
// user config's version after that.
func (c *Conn) trustProject(ctx context.Context, req TrustRequest, before *Listing, version string, res *TrustResult) (*Listing, string, error) {
	dotCodex := filepath.Join(before.Root, ".codex")
	layer, ok := before.ProjectLayer(dotCodex)
	if !ok || layer.Trusted() {
		return before, version, nil
	}
	if !req.Project {
		return nil, "", fmt.Errorf("codex does not load %s because the project is not trusted: %s", dotCodex, layer.DisabledReason)
	}
	project := before.Root
	if req.ProjectRoot != "" {
		project = req.ProjectRoot
	}
	w, err := c.BatchWrite(ctx, []Edit{{KeyPath: ProjectTrustKeyPath(project), Value: "trusted", MergeStrategy: "upsert"}}, version)
	if err != nil {
		return nil, "", fmt.Errorf("recording trust of project %s: %w", project, err)
	}
	res.ConfigFile, res.ProjectTrusted = w.FilePath, true
	now, err := c.List(ctx, before.Root)
	if err != nil {
		return nil, "", err
	}
	if layer, ok := now.ProjectLayer(dotCodex); ok && !layer.Trusted() {
		return nil, "", fmt.Errorf("codex still does not load %s after trusting %s: %s", dotCodex, project, layer.DisabledReason)
	}
	return now, w.Version, nil
}

// othersUnchanged fails when a hook not in skip has another trust status
// after than before.
func othersUnchanged(before, after *Listing, skip map[string]bool) error {
	for _, h := range before.Hooks {
		if skip[h.Key] {
			continue
		}
		if now, ok := after.Hook(h.Key); ok && now.TrustStatus != h.TrustStatus {
			return fmt.Errorf("trust of another hook changed (%s: %s -> %s)", h.Key, h.TrustStatus, now.TrustStatus)
		}
	}
	return nil
}

func describeProblems(l *Listing) string {
	var parts []string
	if l.HooksDisabled {
		parts = append(parts, "hooks are turned off by [features] in "+l.UserConfig+" or a project config")
	}
	parts = append(parts, l.Warnings...)
	for _, e := range l.Errors {
		parts = append(parts, e.Path+": "+e.Message)
	}
	for _, p := range l.ProjectLayers {
		if !p.Trusted() {
			parts = append(parts, p.DisabledReason)
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return fmt.Sprintf(" (it lists %d hooks)", len(l.Hooks))
	}
	return fmt.Sprintf(" (it lists %d hooks; %s)", len(l.Hooks), strings.Join(parts, "; "))
}
