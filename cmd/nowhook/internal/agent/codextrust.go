package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	codexpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/detect"
)

// Codex CLI's trust step: setup --trust-codex records, and remove
// forgets, the trust of our hooks and of the project in the user's
// Codex config (docs/platforms.md#codex-cli).

// Trust is a step outside the repository that makes an agent run our hook
// at all: Codex's hook trust, recorded in the user's Codex config.
type Trust struct {
	// Hook is the artifact whose entries need trust.
	Hook *HookEntry
	// Hint is printed when the hook was written without the step.
	Hint string
	// Available reports whether the step can run here.
	Available func() error
	// Record records the trust of our hook (and the project) and says what
	// it did.
	Record func(ctx context.Context, root string) (TrustRecorded, error)
	// Keys lists the trust keys of our entries under event in the hook
	// file content cur (positions: compute them before an entry is removed).
	Keys func(root string, cur []byte, event string) []string
	// Forget removes the trust recorded for keys, and the project's trust
	// if Record recorded it (project, from nowhook's record; "" for none)
	// and nothing else of the user's needs it, or says how to, or why it
	// keeps it. forgotten reports that the project's trust is gone.
	Forget func(ctx context.Context, root string, keys []string, project string) (msg string, forgotten bool, err error)
	// Preflight refuses a setup that the agent's other config makes
	// unsafe, before anything is written.
	Preflight func(root string) error
}

// trustTimeout bounds the whole conversation with codex app-server; a real
// run takes one to two seconds.
const trustTimeout = 30 * time.Second

func findCodex() error {
	if _, err := codexpkg.Find(nil, CodexBinary); err != nil {
		return fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	return nil
}

// TrustRecorded is what Record did: its words, and the project whose
// trust it recorded ("" when the project was trusted already), which
// nowhook's record keeps so that remove can forget it again.
type TrustRecorded struct {
	Message, Project string
}

// recordCodexTrust records, through Codex's own app-server, the trust of
// exactly our hook and of the project.
func recordCodexTrust(ctx context.Context, root string) (TrustRecorded, error) {
	msg, project, err := recordCodexTrustAt(ctx, root)
	return TrustRecorded{Message: msg, Project: project}, err
}

func recordCodexTrustAt(ctx context.Context, root string) (msg, trusted string, err error) {
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		return "", "", fmt.Errorf("%w, then run nowhook setup --yes --agents codex --trust-codex", err)
	}
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", "", err
	}
	hooksFile, main := CodexHooksFor(canonical)
	project, about := canonical, ""
	if main != "" {
		b, _ := diag.ReadBounded(hooksFile)
		if !codexHook.Present(b) {
			return "", "", fmt.Errorf("%s is a git worktree of %s, and Codex loads a worktree's project hooks from the main checkout's %s, which has no hook of nowhook's: Codex runs none in this worktree, whatever its own .codex/hooks.json holds. Bring .codex/ into the main checkout (commit it here and merge it there), or set it up there: nowhook setup --yes --agents codex --trust-codex --dir %s", canonical, main, hooksFile, main)
		}
		project, about = main, "; Codex takes this worktree's project hooks and trust from its main checkout, "+main
	}
	ctx, cancel := context.WithTimeout(ctx, trustTimeout)
	defer cancel()
	res, err := codexpkg.Trust(ctx, codexpkg.Options{Codex: bin, Dir: canonical, ClientVersion: "nowhook"}, codexpkg.TrustRequest{
		Root:        canonical,
		Project:     true,
		ProjectRoot: project,
		Select: func(h codexpkg.Hook) bool {
			return h.SourcePath == hooksFile && codexOurs(h.Command)
		},
	})
	if err != nil {
		return "", "", err
	}
	var done []string
	if res.ProjectTrusted {
		done = append(done, "the project "+project)
		trusted = project
	}
	if len(res.Recorded) > 0 {
		done = append(done, "hook "+strings.Join(res.Recorded, ", "))
	}
	where := res.ConfigFile
	if where == "" && res.After != nil {
		where = res.After.UserConfig
	}
	if where == "" {
		where = "your Codex config"
	}
	if len(done) == 0 {
		return "codex: our hook and the project were already trusted in " + where + about, "", nil
	}
	return "codex: trusted " + strings.Join(done, " and ") + " in " + where + about, trusted, nil
}

// CodexHooksFor returns the project hooks.json that Codex loads for
// sessions in root, as Codex names it (links resolved): in a linked git
// worktree the main checkout's, never the worktree's own, and main is
// then that checkout; elsewhere root's, and main is "". (Measured on
// 0.171.0: docs/platforms.md, "Codex CLI: git worktrees".)
func CodexHooksFor(root string) (file, main string) {
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		canonical = root
	}
	if top, m, _, ok := detect.Worktree(canonical); ok && top == canonical {
		return filepath.Join(m, filepath.FromSlash(CodexHooks.Path)), m
	}
	return filepath.Join(canonical, filepath.FromSlash(CodexHooks.Path)), ""
}

// codexTrustKeys lists the hooks.state keys of our handlers under event
// in hooks.json. In a git worktree there are none to forget: Codex trusts
// the main checkout's entries, which a change to the worktree's file does
// not touch.
func codexTrustKeys(root string, cur []byte, event string) []string {
	p, err := CodexHooks.ParseHookFile(cur)
	if err != nil || p.Doc == nil {
		return nil
	}
	hooksFile, main := CodexHooksFor(root)
	if main != "" {
		return nil
	}
	doc, _ := p.Doc.(map[string]any)
	events, _ := doc["hooks"].(map[string]any)
	groups, _ := events[event].([]any)
	var keys []string
	for gi, g := range groups {
		group, _ := g.(map[string]any)
		handlers, _ := group["hooks"].([]any)
		for hi, h := range handlers {
			handler, _ := h.(map[string]any)
			if cmd, _ := handler["command"].(string); codexOurs(cmd) {
				keys = append(keys, codexpkg.HookKey(hooksFile, event, gi, hi))
			}
		}
	}
	return keys
}

// forgetCodexTrust removes our hooks' trust through codex app-server when
// codex is found, otherwise says which lines to delete by hand. The
// project's trust goes too when nowhook recorded it (project) and nothing
// else of the user's needs it (codexpkg.ProjectNeeds); a trust the user
// gave stays.
func forgetCodexTrust(ctx context.Context, root string, keys []string, project string) (string, bool, error) {
	config, recorded, projectTrusted := recordedTrust(root, keys, project)
	gone := !projectTrusted // nothing to forget of the project, and nothing to keep
	if gone {
		project = ""
	}
	if len(recorded) == 0 && project == "" {
		return "", gone, nil
	}
	bin, err := codexpkg.Find(nil, CodexBinary)
	if err != nil {
		if !errors.Is(err, codexpkg.ErrCodexNotFound) {
			return "", false, err
		}
		lines := codexpkg.ForgetLines(recorded)
		why := ""
		if project != "" {
			if why = codexpkg.ProjectNeeds(project, nil); why == "" {
				lines += codexpkg.ForgetProjectLines(project)
			}
		}
		msg := "codex is not on PATH, so nowhook cannot forget the trust it recorded; delete these lines from " + config + ":\n" + lines
		if why != "" {
			msg += "\n" + keptProject(project, why)
		}
		return msg, false, nil
	}
	canonical, err := codexpkg.CanonicalRoot(root)
	if err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, trustTimeout)
	defer cancel()
	res, err := codexpkg.Forget(ctx, codexpkg.Options{Codex: bin, Dir: canonical, ClientVersion: "nowhook"}, codexpkg.ForgetRequest{Root: canonical, Keys: recorded, Project: project})
	if err != nil {
		return "", false, err
	}
	var done []string
	if len(res.Removed) > 0 {
		done = append(done, "hook "+strings.Join(res.Removed, ", "))
	}
	if res.ProjectForgotten {
		done = append(done, "the project "+project+" (nowhook setup --trust-codex had recorded it)")
	}
	var msg []string
	if len(done) > 0 {
		tail := ""
		if project == "" && res.ProjectTrusted {
			tail = " (the project's own trust stays: nowhook did not record it)"
		}
		msg = append(msg, "codex: forgot the trust of "+strings.Join(done, " and ")+tail)
	}
	if res.ProjectKept != "" {
		msg = append(msg, keptProject(project, res.ProjectKept))
	}
	return strings.Join(msg, "\n"), gone || res.ProjectForgotten, nil
}

// keptProject says why the project trust nowhook recorded stays.
func keptProject(project, why string) string {
	return "codex: kept the trust of the project " + project + " that nowhook setup --trust-codex recorded, because " + why + "; to drop it anyway, delete [projects." + codexpkg.TOMLKey(project) + "] from your Codex config.toml"
}

// recordedTrust returns the user's Codex config, which of keys it records
// trust for, and whether it trusts the project ("" for none asked).
func recordedTrust(root string, keys []string, project string) (string, []string, bool) {
	user := codexpkg.ReadConfig(nil, root).User
	var broken *codexpkg.TOMLError
	if !user.Exists || user.Err != nil && !errors.As(user.Err, &broken) {
		return user.Path, nil, false // absent, or not readable at all
	}
	state, ok := user.Table("hooks", "state")
	if broken != nil || !ok {
		return user.Path, keys, project != "" // unreadable here: say what to look for
	}
	var recorded []string
	for _, k := range keys {
		if _, ok := state[k]; ok {
			recorded = append(recorded, k)
		}
	}
	trusted := false
	if project != "" {
		if p, _ := user.Table("projects", project); p["trust_level"] == "trusted" {
			trusted = true
		}
	}
	return user.Path, recorded, trusted
}
