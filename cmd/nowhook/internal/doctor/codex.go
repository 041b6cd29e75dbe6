package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/generate"
)

// The checks only Codex CLI needs (docs/platforms.md#codex-cli): its
// config.toml layers, the [features] flag, hook trust, and the AGENTS.md
// size cap. The agent table's codex row names them.

func init() {
	register(codexConfigCheck, codexFeaturesCheck, codexLayersCheck, codexTrustCheck{}, codexDocCapCheck)
	transcriptProbes["codex"] = codexRollout
}

// codexRollout is a Codex rollout for the checkpoint's live runs
// (docs/platforms.md, "Checkpoint: reading the context use"): the
// session, a task_started with the model_context_window (95000: what
// Codex 0.171.0 reports for a configured 100000), the function call and
// the token_usage_record of its reply. Codex's payloads add turn_id and
// model.
var codexRollout = transcriptProbe{
	about:  "a synthetic Codex rollout with model_context_window 95000",
	window: 95_000,
	toolID: "call_nowhook_doctor",
	write: func(used int64) []byte {
		return fmt.Appendf(nil, `{"timestamp":"2026-11-30T00:00:00.000Z","type":"session_meta","payload":{"id":"nowhook-doctor","cwd":"/","originator":"nowhook_doctor","cli_version":"0.171.0"}}
{"timestamp":"2026-11-30T00:00:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"nowhook-doctor","model_context_window":95000}}
{"timestamp":"2026-11-30T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"true\"}","call_id":"call_nowhook_doctor"}}
{"timestamp":"2026-11-30T00:00:01.000Z","type":"token_usage_record","payload":{"thread_id":"nowhook-doctor","turn_id":"nowhook-doctor","response_id":"nowhook-doctor","usage":{"input_tokens":%d,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":%d}}}
`, used-5, used)
	},
	payload: func(pl map[string]any) {
		pl["turn_id"], pl["model"] = "nowhook-doctor", "gpt-5-codex"
	},
}

// tomlFile is a Codex config.toml layer as doctor shows it.
type tomlFile struct {
	*codex.ConfigFile
	show string
	err  string // why Codex cannot read it, with line:column
}

// codexLayers are the user and project config.toml, read once.
func (d *doctor) codexLayers() (user, project *tomlFile) {
	if d.codexUser == nil {
		c := codex.ReadConfig(d.env, d.root)
		d.codexUser, d.codexProject = d.tomlFile(c.User), d.tomlFile(c.Project)
	}
	return d.codexUser, d.codexProject
}

func (d *doctor) tomlFile(f *codex.ConfigFile) *tomlFile {
	show := d.show(f.Path)
	return &tomlFile{ConfigFile: f, show: show, err: f.Problem(show)}
}

func table(doc map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := doc[k].(map[string]any)
		if next == nil {
			return nil
		}
		doc = next
	}
	return doc
}

// codexConfigCheck: the config.toml files Codex reads parse; Codex refuses
// to start with a broken one.
var codexConfigCheck = checkFunc{"config", func(d *doctor, a *agent) []Finding {
	var out []Finding
	user, project := d.codexLayers()
	for _, t := range []*tomlFile{user, project} {
		if !t.Exists {
			continue
		}
		f := Finding{Path: t.show}
		if t.err != "" {
			f.Severity = Error
			f.Message = t.err + "; Codex refuses to start with it"
			f.Fix = "correct the TOML by hand (codex exec --strict-config names every problem)"
		} else {
			f.Message = t.show + " parses as TOML"
		}
		out = append(out, f)
	}
	if project.Doc != nil && table(project.Doc, "hooks", "state") != nil {
		out = append(out, Finding{Severity: Warn, Path: project.show,
			Message: project.show + " has [hooks.state] trust entries, which Codex ignores there: trust counts only in " + user.show,
			Fix:     d.setupFix(a.p.Name, "--trust-codex")})
	}
	return out
}}

// codexFeaturesCheck: [features] hooks = false (or the older codex_hooks)
// turns every hook off; the project layer overrides the user layer.
var codexFeaturesCheck = checkFunc{"features", func(d *doctor, a *agent) []Finding {
	user, project := d.codexLayers()
	var out []Finding
	var effective *tomlFile
	var effectiveKey string
	for _, t := range []*tomlFile{user, project} {
		features := table(t.Doc, "features")
		for _, key := range []string{"codex_hooks", "hooks"} {
			if v, ok := features[key].(bool); ok {
				if !v {
					effective, effectiveKey = t, key
				} else {
					effective, effectiveKey = nil, ""
				}
			}
		}
	}
	if effective != nil {
		out = append(out, Finding{Severity: Error, Path: effective.show,
			Message: fmt.Sprintf("%s sets [features] %s = false, so Codex runs no hooks at all, the compact hook included", effective.show, effectiveKey),
			Fix:     fmt.Sprintf("delete `%s = false` from [features] in %s", effectiveKey, effective.show)})
	}
	return out
}}

// codexLayersCheck: a layer with both hooks.json and inline [hooks]
// tables makes Codex load both and warn.
var codexLayersCheck = checkFunc{"layers", func(d *doctor, a *agent) []Finding {
	user, project := d.codexLayers()
	var out []Finding
	for _, t := range []*tomlFile{user, project} {
		inline := t.InlineHooks()
		hooksJSON := filepath.Join(filepath.Dir(t.Path), "hooks.json")
		if len(inline) == 0 || !exists(hooksJSON) {
			continue
		}
		out = append(out, Finding{Severity: Warn, Path: t.show,
			Message: fmt.Sprintf("%s and inline [hooks.%s] in %s are in one layer: Codex loads both and warns at every start", d.show(hooksJSON), strings.Join(inline, "], [hooks."), t.show),
			Fix:     fmt.Sprintf("move the [hooks.%s] tables from %s into %s", strings.Join(inline, "], [hooks."), t.show, d.show(hooksJSON))})
	}
	return out
}}

// codexTrustCheck: Codex runs a project hook only when the user's
// config.toml trusts the project and holds the hook's current hash.
// Codex's own answer (app-server hooks/list) is used when codex is on
// PATH; otherwise nowhook computes the hash and reads the config itself.
type codexTrustCheck struct{}

func (codexTrustCheck) Name() string { return "trust" }

// Start asks codex app-server for the hooks' trust, in the background,
// when our hook is installed and codex has been run here before (it
// writes its state under CODEX_HOME).
func (codexTrustCheck) Start(ctx context.Context, d *doctor, a *agent) {
	if !d.hasOurs(a) {
		return
	}
	codexHome := codex.Home(d.env)
	bin, err := codex.Find(d.env, agentpkg.CodexBinary)
	switch {
	case err != nil:
		a.listingSkipped = agentpkg.CodexBinary + " is not on PATH"
	case !exists(codexHome):
		a.listingSkipped = "codex has not been run here (" + codexHome + " does not exist)"
	default:
		a.listing = start(func() codexListing { return d.listCodex(ctx, bin) })
	}
}

// Run reports the trust of every hook entry of ours: the compact hook's
// and the checkpoint's (each entry is trusted on its own). In a linked
// git worktree Codex loads the project hooks from the main checkout's
// .codex/hooks.json, so those entries are the ones judged.
func (codexTrustCheck) Run(d *doctor, a *agent) []Finding {
	ours := wrappedOurs(a, a.files)
	if len(ours) == 0 {
		return nil
	}
	fix := d.setupFix(a.agentArg(), "--trust-codex")
	var out []Finding
	if file, main := agentpkg.CodexHooksFor(d.root); main != "" {
		var wt Finding
		ours, wt = d.worktreeHooks(a, ours, file, main)
		out = append(out, wt)
		if wt.Severity == Error {
			return out
		}
	}
	if a.listing != nil {
		res := a.listing.wait()
		if res.err == nil {
			return append(out, d.trustFromListing(ours, res, fix)...)
		}
		return append(out, d.trustComputed(a, ours, fmt.Sprintf("computed by nowhook: codex app-server failed: %v", res.err), fix)...)
	}
	return append(out, d.trustComputed(a, ours, "computed by nowhook from the user config; "+a.listingSkipped, fix)...)
}

// wrappedOurs lists our handlers in files (the compact hook's and the
// checkpoint's) that Codex can key: wrapped in a matcher group.
func wrappedOurs(a *agent, files []*hookFile) []handler {
	var ours []handler
	for _, s := range append(append([]*ourSpec(nil), a.specs...), a.checkpoint...) {
		runs := generate.RunsScript(s.script)
		for _, f := range files {
			for _, h := range f.handlers {
				if h.event == s.schema.Event && runs(h.command) && h.wrapped && h.index >= 0 {
					ours = append(ours, h)
				}
			}
		}
	}
	return ours
}

// worktreeHooks takes, in a linked worktree of main, our handlers from
// main's hooks.json (file) in place of the worktree's own, which Codex
// does not load; the user-level ones stay. The finding says so, and is an
// error when main's file has no hook of ours: Codex then runs none in the
// worktree's sessions.
func (d *doctor) worktreeHooks(a *agent, ours []handler, file, main string) ([]handler, Finding) {
	var kept []handler
	for _, h := range ours {
		if h.file.user {
			kept = append(kept, h)
		}
	}
	var fromMain []handler
	if mf := readHookFile(file, d.show(file), false, a.p); mf != nil {
		fromMain = wrappedOurs(a, []*hookFile{mf})
	}
	shown := d.show(file)
	if len(fromMain) == 0 {
		return nil, Finding{Severity: Error, Path: shown,
			Message: fmt.Sprintf("this is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, not from .codex/hooks.json here; that file has no hook of nowhook's, so Codex runs none in sessions started in this worktree", main, shown),
			Fix:     "bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents " + a.p.Name + " --dir " + shellQuote(main)}
	}
	return append(fromMain, kept...), Finding{Path: shown,
		Message: fmt.Sprintf("this is a git worktree of %s: Codex loads its project hooks from the main checkout's %s, which has nowhook's hook, and takes its project trust from there too; the trust below is that of the main checkout's entries", main, shown)}
}

func (d *doctor) listCodex(ctx context.Context, bin string) codexListing {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, err := codex.CanonicalRoot(d.root)
	if err != nil {
		return codexListing{err: err}
	}
	c, err := codex.Start(ctx, codex.Options{Codex: bin, Env: d.env, Dir: root, ClientVersion: "doctor"})
	if err != nil {
		return codexListing{err: err}
	}
	defer c.Close()
	l, err := c.List(ctx, root)
	return codexListing{listing: l, userAgent: c.UserAgent, err: err}
}

// hookKey is a handler's [hooks.state] key, with the file as Codex sees it.
func hookKey(h handler) string {
	abs := h.file.abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return codex.HookKey(abs, h.event, h.group, h.index)
}

func (d *doctor) canonicalRoot() string {
	if real, err := filepath.EvalSymlinks(d.root); err == nil {
		return real
	}
	return d.root
}

func (d *doctor) trustComputed(a *agent, ours []handler, source, fix string) []Finding {
	user, _ := d.codexLayers()
	if user.err != "" {
		return []Finding{{Severity: Warn, Path: user.show,
			Message: "cannot tell whether Codex trusts the hook: " + user.err + " (" + source + ")", Fix: "correct " + user.show}}
	}
	var out []Finding
	root := d.canonicalRoot()
	needsProject := false
	for _, h := range ours {
		if !h.file.user {
			needsProject = true
		}
	}
	if needsProject {
		// In a linked worktree Codex reads the worktree's own entry
		// first, then the main checkout's (measured, 0.171.0).
		roots := []string{root}
		if _, main := agentpkg.CodexHooksFor(d.root); main != "" {
			roots = append(roots, main)
		}
		level, at := "", roots[len(roots)-1]
		for _, r := range roots {
			if l, ok := table(user.Doc, "projects", r)["trust_level"].(string); ok {
				level, at = l, r
				break
			}
		}
		if level != "trusted" {
			state := "has no [projects." + codex.TOMLKey(at) + "] entry"
			if at != root {
				state += " (the main checkout of this worktree, whose trust Codex applies to it)"
			}
			if level != "" {
				state = fmt.Sprintf("sets trust_level = %q for it", level)
				if at != root {
					state = fmt.Sprintf("sets trust_level = %q for %s, the main checkout of this worktree", level, at)
				}
			}
			out = append(out, Finding{Severity: Warn, Path: user.show,
				Message: fmt.Sprintf("Codex does not load .codex/ here: %s %s, so Codex skips every project hook without a word (%s)", user.show, state, source),
				Fix:     fix})
		}
	}
	states := table(user.Doc, "hooks", "state")
	for _, h := range ours {
		key := hookKey(h)
		hash, err := codex.HookHash(h.event, h.groupJSON, h.index)
		if err != nil {
			out = append(out, Finding{Severity: Error, Path: h.file.show,
				Message: fmt.Sprintf("%s: Codex cannot load this hook: %v", h.where(), err), Fix: d.setupFix(a.p.Name)})
			continue
		}
		recorded, _ := table(states, key)["trusted_hash"].(string)
		f := Finding{Path: h.file.show, Severity: Warn, Fix: fix}
		switch {
		case recorded == "":
			f.Message = fmt.Sprintf("%s is not trusted: %s has no [hooks.state.%s], so Codex skips the hook without a word (%s)", h.where(), user.show, codex.TOMLKey(key), source)
		case recorded != hash:
			f.Message = fmt.Sprintf("%s changed since it was trusted: %s holds %s, the hook's hash is now %s, so Codex skips it without a word (%s)", h.where(), user.show, short(recorded), short(hash), source)
		default:
			f.Severity, f.Fix = OK, ""
			f.Message = fmt.Sprintf("%s is trusted: %s holds its current hash %s (%s)", h.where(), user.show, short(hash), source)
		}
		out = append(out, f)
	}
	return out
}

func short(hash string) string {
	if len(hash) > len("sha256:")+12 {
		return hash[:len("sha256:")+12] + "…"
	}
	return hash
}

// codexListing is what codex app-server said.
type codexListing struct {
	listing   *codex.Listing
	userAgent string
	err       error
}

func (d *doctor) trustFromListing(ours []handler, res codexListing, fix string) []Finding {
	l := res.listing
	source := "reported by codex app-server hooks/list"
	if m := versionRE.FindStringSubmatch(res.userAgent); m != nil {
		source = "reported by codex " + m[1] + " app-server hooks/list"
	}
	var out []Finding
	for _, w := range l.Warnings {
		out = append(out, Finding{Severity: Warn, Message: "codex warns: " + w})
	}
	for _, e := range l.Errors {
		out = append(out, Finding{Severity: Error, Path: d.show(e.Path), Message: "codex reports an error in " + d.show(e.Path) + ": " + e.Message})
	}
	if l.ConfigError != "" {
		out = append(out, Finding{Severity: Error, Message: "codex cannot read its configuration: " + l.ConfigError})
	}
	layer, hasLayer := l.ProjectLayer(filepath.Join(l.Root, ".codex"))
	projectSkipped := hasLayer && !layer.Trusted()
	if projectSkipped {
		out = append(out, Finding{Severity: Warn, Path: ".codex",
			Message: fmt.Sprintf("Codex does not load .codex/ here, so it skips every project hook without a word: %s (%s)", layer.DisabledReason, source),
			Fix:     fix})
	}
	for _, h := range ours {
		key := hookKey(h)
		f := Finding{Path: h.file.show, Severity: Warn, Fix: fix}
		listed, ok := l.Hook(key)
		switch {
		case !ok && projectSkipped && !h.file.user:
			continue // said above
		case !ok:
			f.Message = fmt.Sprintf("%s: codex does not list this hook (key %s), so it never runs it (%s)", h.where(), key, source)
			f.Fix = ""
			if len(l.Warnings) == 0 {
				f.Severity = Error
			}
		case listed.TrustStatus == codex.StatusTrusted || listed.TrustStatus == codex.StatusManaged:
			f.Severity, f.Fix = OK, ""
			f.Message = fmt.Sprintf("%s is %s (%s)", h.where(), listed.TrustStatus, source)
		case listed.TrustStatus == codex.StatusModified:
			f.Message = fmt.Sprintf("%s changed since it was trusted, so Codex skips it without a word (%s)", h.where(), source)
		default:
			f.Message = fmt.Sprintf("%s is %s: Codex skips it without a word (%s)", h.where(), listed.TrustStatus, source)
		}
		out = append(out, f)
	}
	return out
}

var versionRE = regexp.MustCompile(`/(\d+\.\d+\.\d+\S*) `)

// defaultDocMax is Codex's default project_doc_max_bytes.
const defaultDocMax = 32 << 10

// codexDocCapCheck: Codex reads AGENTS.md only up to project_doc_max_bytes;
// a block beyond the cap is never seen.
var codexDocCapCheck = checkFunc{"agents-md-cap", func(d *doctor, a *agent) []Finding {
	b := d.agentsMD.block(agentpkg.OnDemandBlock.Block.Name)
	if b == nil || b.err != nil {
		return nil
	}
	user, project := d.codexLayers()
	limit, source := int64(defaultDocMax), "Codex's default"
	for _, t := range []*tomlFile{user, project} {
		if v, ok := t.Doc["project_doc_max_bytes"].(int64); ok {
			limit, source = v, "set in "+t.show
		}
	}
	f := Finding{Path: "AGENTS.md"}
	span := b.span
	switch {
	case int64(span.Start) >= limit:
		f.Severity = Error
		f.Message = fmt.Sprintf("the kbs-now block starts at byte %d of AGENTS.md, beyond project_doc_max_bytes = %d (%s): Codex never sees it", span.Start, limit, source)
		f.Fix = "move the nowhook kbs-now block (with its markers) nearer the top of AGENTS.md, or raise project_doc_max_bytes in " + user.show
	case int64(span.End) > limit:
		f.Severity = Warn
		f.Message = fmt.Sprintf("the kbs-now block ends at byte %d of AGENTS.md, beyond project_doc_max_bytes = %d (%s): Codex sees it cut", span.End, limit, source)
		f.Fix = "move the nowhook kbs-now block (with its markers) nearer the top of AGENTS.md, or raise project_doc_max_bytes in " + user.show
	default:
		f.Message = fmt.Sprintf("the kbs-now block (bytes %d-%d of AGENTS.md) is within project_doc_max_bytes = %d (%s)", span.Start, span.End, limit, source)
	}
	return []Finding{f}
}}
