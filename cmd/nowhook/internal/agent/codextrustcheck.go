package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
	"github.com/nowhook/nowhook/scripts"
)

// Doctor's judgement of Codex CLI's hook trust: from codex app-server's
// hooks/list when codex runs here, else computed from the user config as
// Codex does (docs/platforms.md#codex-cli).

// codexTrustCheck: Codex runs a project hook only when the user's
// config.toml trusts the project and holds the hook's current hash.
// Codex's own answer (app-server hooks/list) is used when codex is on
// PATH; otherwise nowhook computes the hash and reads the config itself.
// It reports the trust of every hook entry of ours: the compact hook's
// and the checkpoint's (each entry is trusted on its own). In a linked git
// worktree Codex loads the project hooks from the main checkout's
// .codex/hooks.json, so those entries are the ones judged.
var codexTrustCheck = Check{Name: "trust",
	Run: func(v View) []diag.Finding {
		return codexTrust(v, nil, "doctor's file checks start no program")
	},
	Start: startCodexTrust,
}

// startCodexTrust asks codex app-server for the hooks' trust, in the
// background, under doctor --live, when our hook is installed and codex
// has been run here before (it writes its state under CODEX_HOME).
// Without --live doctor computes the trust from the user config, as Codex
// does (measured on the pinned client; the client row says whether this
// codex is that one). Without codex on PATH nothing on this machine runs
// the hook: the rows are info, with the command that installs Codex and
// trusts the hook.
func startCodexTrust(ctx context.Context, v View) func() []diag.Finding {
	if len(codexOurHandlers(v.Agent(), v.HookFiles(), false)) == 0 {
		return func() []diag.Finding { return codexTrust(v, nil, "") }
	}
	codexHome := codexpkg.Home(v.Env())
	bin, err := codexpkg.Find(v.Env(), CodexBinary)
	if err != nil {
		return func() []diag.Finding { return codexNotInstalled(codexTrust(v, nil, CodexBinary+" is not on PATH")) }
	}
	if !v.Live() {
		return func() []diag.Finding { return codexTrust(v, nil, "nowhook doctor --live asks codex app-server") }
	}
	if _, err := os.Lstat(codexHome); err != nil {
		return func() []diag.Finding {
			return codexTrust(v, nil, "codex has not been run here ("+codexHome+" does not exist)")
		}
	}
	var res codexListing
	wait := v.Go(func() { res = listCodex(ctx, v, bin) })
	return func() []diag.Finding {
		wait()
		return codexTrust(v, &res, "")
	}
}

// codexCapTrust is the trust row of a Codex set up without a hook of ours
// (codex=ondemand) where the project's .codex/config.toml sets
// project_doc_max_bytes: Codex takes that cap only from a project it
// trusts (measured on 0.171.0), so the trust decides which cap the
// agents-md-cap row judges the block under.
func codexCapTrust(v View) []diag.Finding {
	user, project := codexLayers(v)
	n, ok := project.Doc["project_doc_max_bytes"].(int64)
	if !ok || v.Mode() == "" {
		return nil
	}
	root := v.Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if trusted, _ := codexProjectTrust(user, root); trusted {
		return []diag.Finding{{Path: user.show,
			Message: fmt.Sprintf("Codex trusts the project (%s), so project_doc_max_bytes = %d in %s counts", user.show, n, project.show)}}
	}
	_, state := codexProjectTrust(user, root)
	return []diag.Finding{{Severity: diag.Info, Path: user.show,
		Message: fmt.Sprintf("project_doc_max_bytes = %d in %s does not count: Codex ignores the project's config.toml until it trusts the project, and %s; the agents-md-cap row judges the kbs-now block under the cap that counts", n, project.show, state),
		Fix:     fmt.Sprintf("trust the project: add [projects.%s] with trust_level = \"trusted\" to %s (Codex asks when started here)", codexpkg.TOMLKey(root), user.show)}}
}

// codexNotInstalled makes the trust rows of a machine without codex
// info: no Codex here skips the hook, and each user with Codex trusts it
// on their own machine; the fix installs the pinned Codex first.
func codexNotInstalled(fs []diag.Finding) []diag.Finding {
	install := "npm install -g @openai/codex"
	if pins := scripts.Proven(codexName); len(pins) > 0 {
		install = pins[len(pins)-1].Install()
	}
	for i := range fs {
		if fs[i].Severity == diag.Warn && strings.HasPrefix(fs[i].Fix, "nowhook setup") {
			fs[i].Severity = diag.Info
			fs[i].Message += "; Codex CLI is not installed here, so nothing on this machine skips it yet"
			fs[i].Fix = install + " && " + fs[i].Fix
		}
	}
	return fs
}

// codexTrust reports the trust of our entries: from codex app-server's
// listing when there is one, else computed, skipped saying why codex was
// not asked.
func codexTrust(v View, listing *codexListing, skipped string) []diag.Finding {
	ours := codexOurHandlers(v.Agent(), v.HookFiles(), true)
	if len(ours) == 0 {
		return codexCapTrust(v)
	}
	fix := v.SetupFix(v.Agent().ArgFor(v.Mode()), "--trust-codex")
	var out []diag.Finding
	if file, main := CodexHooksFor(v.Root()); main != "" {
		var wt diag.Finding
		ours, wt = codexWorktreeHooks(v, ours, file, main)
		out = append(out, wt)
		if wt.Severity == diag.Error {
			return out
		}
	}
	switch {
	case listing != nil && listing.err == nil:
		return append(out, codexTrustFromListing(v, ours, *listing, fix)...)
	case listing != nil:
		return append(out, codexTrustComputed(v, ours, fmt.Sprintf("computed by nowhook: codex app-server failed: %v", listing.err), fix)...)
	}
	return append(out, codexTrustComputed(v, ours, "computed by nowhook from the user config; "+skipped, fix)...)
}

// codexOurHandlers lists our handlers in files (the compact hook's and the
// checkpoint's), each under its entry's event and running its script;
// keyed: only those Codex can key, wrapped in a matcher group.
func codexOurHandlers(a *Agent, files []*diag.HookFile, keyed bool) []diag.Handler {
	var entries []*HookEntry
	for _, mh := range a.HookEntries() {
		entries = append(entries, mh.Hook)
	}
	for _, art := range a.Checkpoint {
		if h, ok := art.(*HookEntry); ok {
			entries = append(entries, h)
		}
	}
	var ours []diag.Handler
	for _, e := range entries {
		runs := generate.RunsScript(e.Script)
		for _, f := range files {
			for _, h := range f.Handlers {
				if h.Event == e.File.Event && runs(h.Command) && (!keyed || h.Wrapped && h.Index >= 0) {
					ours = append(ours, h)
				}
			}
		}
	}
	return ours
}

// codexWorktreeHooks takes, in a linked worktree of main, our handlers
// from main's hooks.json (file) in place of the worktree's own, which
// Codex does not load; the user-level ones stay. The finding says so, and
// is an error when main's file has no hook of ours: Codex then runs none
// in the worktree's sessions.
func codexWorktreeHooks(v View, ours []diag.Handler, file, main string) ([]diag.Handler, diag.Finding) {
	a := v.Agent()
	var kept []diag.Handler
	for _, h := range ours {
		if h.File.User {
			kept = append(kept, h)
		}
	}
	shown := v.Show(file)
	var fromMain []diag.Handler
	if mf := diag.ReadHookFile(file, shown, false, diag.Format{Title: a.Title, Strict: a.Hooks.Strict, Layout: a.Hooks.Layout}); mf != nil {
		fromMain = codexOurHandlers(a, []*diag.HookFile{mf}, true)
	}
	if len(fromMain) == 0 {
		return nil, diag.Finding{Severity: diag.Error, Path: shown,
			Message: fmt.Sprintf("this is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, not from .codex/hooks.json here; that file has no hook of nowhook's, so Codex runs none in sessions started in this worktree", main, shown),
			Fix:     "bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents " + a.Name + " --dir " + diag.ShellQuote(main)}
	}
	return append(fromMain, kept...), diag.Finding{Path: shown,
		Message: fmt.Sprintf("this is a git worktree of %s: Codex loads its project hooks from the main checkout's %s, which has nowhook's hook, and takes its project trust from there too; the trust below is that of the main checkout's entries", main, shown)}
}

// codexListing is what codex app-server said.
type codexListing struct {
	listing   *codexpkg.Listing
	userAgent string
	err       error
}

func listCodex(ctx context.Context, v View, bin string) codexListing {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, err := codexpkg.CanonicalRoot(v.Root())
	if err != nil {
		return codexListing{err: err}
	}
	c, err := codexpkg.Start(ctx, codexpkg.Options{Codex: bin, Env: v.Env(), Dir: root, ClientVersion: "doctor"})
	if err != nil {
		return codexListing{err: err}
	}
	defer c.Close()
	l, err := c.List(ctx, root)
	return codexListing{listing: l, userAgent: c.UserAgent, err: err}
}

// codexHookKey is a handler's [hooks.state] key, with the file as Codex
// sees it.
func codexHookKey(h diag.Handler) string {
	abs := h.File.Abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return codexpkg.HookKey(abs, h.Event, h.Group, h.Index)
}

func codexTrustComputed(v View, ours []diag.Handler, source, fix string) []diag.Finding {
	user, _ := codexLayers(v)
	if user.err != "" {
		return []diag.Finding{{Severity: diag.Warn, Path: user.show,
			Message: "cannot tell whether Codex trusts the hook: " + user.err + " (" + source + ")", Fix: "correct " + user.show}}
	}
	var out []diag.Finding
	root := v.Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	needsProject := false
	for _, h := range ours {
		if !h.File.User {
			needsProject = true
		}
	}
	if needsProject {
		// In a linked worktree Codex reads the worktree's own entry
		// first, then the main checkout's (measured, 0.171.0).
		roots := []string{root}
		if _, main := CodexHooksFor(v.Root()); main != "" {
			roots = append(roots, main)
		}
		level, at := "", roots[len(roots)-1]
		for _, r := range roots {
			if l, ok := tomlTable(user.Doc, "projects", r)["trust_level"].(string); ok {
				level, at = l, r
				break
			}
		}
		if level != "trusted" {
			state := "has no [projects." + codexpkg.TOMLKey(at) + "] entry"
			if at != root {
				state += " (the main checkout of this worktree, whose trust Codex applies to it)"
			}
			if level != "" {
				state = fmt.Sprintf("sets trust_level = %q for it", level)
				if at != root {
					state = fmt.Sprintf("sets trust_level = %q for %s, the main checkout of this worktree", level, at)
				}
			}
			out = append(out, diag.Finding{Severity: diag.Warn, Path: user.show,
				Message: fmt.Sprintf("Codex does not load .codex/ here: %s %s, so Codex skips every project hook without a word (%s)", user.show, state, source),
				Fix:     fix})
		}
	}
	states := tomlTable(user.Doc, "hooks", "state")
	for _, h := range ours {
		key := codexHookKey(h)
		hash, err := codexpkg.HookHash(h.Event, h.GroupJSON, h.Index)
		if err != nil {
			out = append(out, diag.Finding{Severity: diag.Error, Path: h.File.Show,
				Message: fmt.Sprintf("%s: Codex cannot load this hook: %v", h.Where(), err), Fix: v.SetupFix(v.Agent().Name)})
			continue
		}
		recorded, _ := tomlTable(states, key)["trusted_hash"].(string)
		f := diag.Finding{Path: h.File.Show, Severity: diag.Warn, Fix: fix}
		switch {
		case recorded == "":
			f.Message = fmt.Sprintf("%s is not trusted: %s has no [hooks.state.%s], so Codex skips the hook without a word (%s)", h.Where(), user.show, codexpkg.TOMLKey(key), source)
		case recorded != hash:
			f.Message = fmt.Sprintf("%s changed since it was trusted: %s holds %s, the hook's hash is now %s, so Codex skips it without a word (%s)", h.Where(), user.show, shortHash(recorded), shortHash(hash), source)
		default:
			f.Severity, f.Fix = diag.OK, ""
			f.Message = fmt.Sprintf("%s is trusted: %s holds its current hash %s (%s)", h.Where(), user.show, shortHash(hash), source)
		}
		out = append(out, f)
	}
	return out
}

func shortHash(hash string) string {
	if len(hash) > len("sha256:")+12 {
		return hash[:len("sha256:")+12] + "…"
	}
	return hash
}

func codexTrustFromListing(v View, ours []diag.Handler, res codexListing, fix string) []diag.Finding {
	l := res.listing
	source := "reported by codex app-server hooks/list"
	if m := codexVersionRE.FindStringSubmatch(res.userAgent); m != nil {
		source = "reported by codex " + m[1] + " app-server hooks/list"
	}
	var out []diag.Finding
	for _, w := range l.Warnings {
		out = append(out, diag.Finding{Severity: diag.Warn, Message: "codex warns: " + w})
	}
	for _, e := range l.Errors {
		out = append(out, diag.Finding{Severity: diag.Error, Path: v.Show(e.Path), Message: "codex reports an error in " + v.Show(e.Path) + ": " + e.Message})
	}
	if l.ConfigError != "" {
		out = append(out, diag.Finding{Severity: diag.Error, Message: "codex cannot read its configuration: " + l.ConfigError})
	}
	layer, hasLayer := l.ProjectLayer(filepath.Join(l.Root, ".codex"))
	projectSkipped := hasLayer && !layer.Trusted()
	if projectSkipped {
		out = append(out, diag.Finding{Severity: diag.Warn, Path: ".codex",
			Message: fmt.Sprintf("Codex does not load .codex/ here, so it skips every project hook without a word: %s (%s)", layer.DisabledReason, source),
			Fix:     fix})
	}
	for _, h := range ours {
		key := codexHookKey(h)
		f := diag.Finding{Path: h.File.Show, Severity: diag.Warn, Fix: fix}
		listed, ok := l.Hook(key)
		switch {
		case !ok && projectSkipped && !h.File.User:
			continue // said above
		case !ok:
			f.Message = fmt.Sprintf("%s: codex does not list this hook (key %s), so it never runs it (%s)", h.Where(), key, source)
			f.Fix = ""
			if len(l.Warnings) == 0 {
				f.Severity = diag.Error
			}
		case listed.TrustStatus == codexpkg.StatusTrusted || listed.TrustStatus == codexpkg.StatusManaged:
			f.Severity, f.Fix = diag.OK, ""
			f.Message = fmt.Sprintf("%s is %s (%s)", h.Where(), listed.TrustStatus, source)
		case listed.TrustStatus == codexpkg.StatusModified:
			f.Message = fmt.Sprintf("%s changed since it was trusted, so Codex skips it without a word (%s)", h.Where(), source)
		default:
			f.Message = fmt.Sprintf("%s is %s: Codex skips it without a word (%s)", h.Where(), listed.TrustStatus, source)
		}
		out = append(out, f)
	}
	return out
}

var codexVersionRE = regexp.MustCompile(`/(\d+\.\d+\.\d+\S*) `)
