package prove

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// Codex CLI (measured on 0.171.0, docs/platforms.md#codex-cli): `codex
// app-server` in the view, with CODEX_HOME in the temporary HOME and the
// Responses API mock as its provider: thread/start, a turn, then
// thread/compact/start and a next turn, whose request must carry the
// reminder. Codex runs a project hook only in a trusted project and only
// with the hook's trust recorded in the user's config.toml, so the user's
// trust for the repository (the project's trust level and each hook's
// trusted hash under [hooks.state]) is carried over to the copy's path:
// trust the user forgot is forgotten in the copy too. Codex reports each
// hook's run (hook/completed, with its status and output). Codex has no
// user-scope install (agent/codex.go), so it is proven in projects only.
var codexDriver = &driver{agent: "codex", compaction: "thread/compact/start", run: runCodex,
	fixFor: func(Options, *agentpkg.Agent) string {
		return "nowhook setup --yes --agents codex --trust-codex (records the hook's trust; then nowhook doctor --prove)"
	}}

func runCodex(ctx context.Context, w *world) seen {
	m, err := inNet(w, mockmodel.NewResponses)
	if err != nil {
		return seen{err: err}
	}
	defer m.Close()
	m.NoTool()
	home := filepath.Join(w.home, ".codex")
	if err := codexHome(w, home, m.URL); err != nil {
		return seen{err: err}
	}
	notes := &noteLog{changed: make(chan struct{})}
	var stderr strings.Builder
	c, err := inNet(w, func() (*codex.Conn, error) {
		return codex.Start(ctx, codex.Options{Codex: w.client, Env: w.env("CODEX_HOME="+home, "MOCK_API_KEY=dummy"),
			Dir: w.view, Stderr: &limited{b: &stderr, n: 64 << 10}, Notify: notes.add})
	})
	if err != nil {
		return seen{err: err}
	}
	defer c.Close()
	s := seen{hookReported: true}
	s.err = codexSession(ctx, c, w.view, notes)
	s.stderr = stderr.String()
	s.compacted, s.reached = afterKind(m.Requests(), "compaction")
	for _, n := range notes.snapshot() {
		s.codexHook(n)
	}
	if !s.reached && s.hookRuns == 0 {
		s.skipped = codexSkips(ctx, c, w.view)
	}
	return s
}

// codexSession runs hello, a compaction and a next turn on one thread.
func codexSession(ctx context.Context, c *codex.Conn, view string, notes *noteLog) error {
	var thread struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := c.Call(ctx, "thread/start", map[string]any{"cwd": view, "approvalPolicy": "never", "sandbox": "read-only"}, &thread); err != nil {
		return err
	}
	id := thread.Thread.ID
	if err := codexTurn(ctx, c, notes, id, "hello"); err != nil {
		return err
	}
	from := notes.len()
	if err := c.Call(ctx, "thread/compact/start", map[string]any{"threadId": id}, nil); err != nil {
		return err
	}
	item, err := notes.wait(ctx, from, func(n note) bool {
		return n.method == "item/completed" && n.params.Item.Type == "contextCompaction"
	})
	if err != nil {
		return fmt.Errorf("no compaction item: %w", err)
	}
	if _, err := notes.wait(ctx, from, func(n note) bool {
		return n.method == "turn/completed" && n.params.Turn.ID == item.params.TurnID
	}); err != nil {
		return fmt.Errorf("the compaction turn did not complete: %w", err)
	}
	return codexTurn(ctx, c, notes, id, "What was I working on?")
}

// codexTurn starts a turn with one text and waits for it to complete.
func codexTurn(ctx context.Context, c *codex.Conn, notes *noteLog, thread, text string) error {
	from := notes.len()
	var resp codexParams
	if err := c.Call(ctx, "turn/start", map[string]any{"threadId": thread,
		"input": []any{map[string]any{"type": "text", "text": text}}}, &resp); err != nil {
		return err
	}
	_, err := notes.wait(ctx, from, func(n note) bool {
		return n.method == "turn/completed" && n.params.Turn.ID == resp.Turn.ID
	})
	return err
}

// codexHook reads one notification: the SessionStart hooks' runs.
func (s *seen) codexHook(n note) {
	if n.method != "hook/completed" || n.params.Run.EventName != "sessionStart" {
		return
	}
	s.hookRuns++
	for _, e := range n.params.Run.Entries {
		s.hookOutput += e.Text
	}
	if st := n.params.Run.Status; st != "completed" {
		s.hookFailed = "Codex reports the hook " + st + ": " + strings.TrimSpace(s.hookOutput)
	}
}

// codexSkips asks Codex (hooks/list) why it ran no hook in the view: the
// project not trusted, the hook's trust missing or stale, a hooks file
// it dropped; "" when it lists the hook trusted.
func codexSkips(ctx context.Context, c *codex.Conn, view string) string {
	root, err := codex.CanonicalRoot(view)
	if err != nil {
		return ""
	}
	l, err := c.List(ctx, root)
	if err != nil {
		return ""
	}
	var why []string
	if layer, ok := l.ProjectLayer(filepath.Join(root, ".codex")); ok && !layer.Trusted() {
		why = append(why, "Codex does not load .codex/ (the project is not trusted in your ~/.codex/config.toml): "+layer.DisabledReason)
	}
	for _, h := range l.Hooks {
		if h.EventName == "sessionStart" && h.Source == "project" && h.TrustStatus != codex.StatusTrusted {
			why = append(why, "Codex skips the SessionStart hook: its trust is "+h.TrustStatus+" (forgotten, or the hook changed since it was trusted)")
		}
	}
	why = append(why, l.Warnings...)
	for _, e := range l.Errors {
		why = append(why, e.Message)
	}
	return strings.Join(why, "; ")
}

// codexHome writes CODEX_HOME's config.toml: the mock as the provider,
// and the user's trust of the repository, moved to the view's path.
func codexHome(w *world, home, url string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "model = \"mock-model\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n", url+"/v1")
	// The commands of the sandbox stay out of /tmp (a bubblewrap mount
	// there would make the other repositories under /tmp look nested).
	b.WriteString("\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n")
	view, err := codex.CanonicalRoot(w.view)
	if err != nil {
		return err
	}
	root, err := codex.CanonicalRoot(w.root)
	if err != nil {
		return err
	}
	user := codex.ReadConfig(w.userEnv, root).User
	if projects, _ := user.Table("projects"); projects != nil {
		if p, ok := projects[root].(map[string]any); ok {
			if level, ok := p["trust_level"].(string); ok {
				fmt.Fprintf(&b, "\n[projects.%q]\ntrust_level = %q\n", view, level)
			}
		}
	}
	state, _ := user.Table("hooks", "state")
	prefix := root + string(filepath.Separator)
	for _, key := range slices.Sorted(maps.Keys(state)) {
		entry, ok := state[key].(map[string]any)
		if !ok || !strings.HasPrefix(key, prefix) {
			continue
		}
		fmt.Fprintf(&b, "\n[hooks.state.%q]\n", view+string(filepath.Separator)+strings.TrimPrefix(key, prefix))
		for _, k := range slices.Sorted(maps.Keys(entry)) {
			switch v := entry[k].(type) {
			case string:
				fmt.Fprintf(&b, "%s = %s\n", k, strconv.Quote(v))
			case bool:
				fmt.Fprintf(&b, "%s = %t\n", k, v)
			}
		}
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String()), 0o600)
}

// note is one app-server notification, with the parts prove reads.
type note struct {
	method string
	params codexParams
}

// codexParams is the part of the turn, item and hook notifications (and
// of turn/start's answer) prove reads.
type codexParams struct {
	TurnID string `json:"turnId"`
	Turn   struct {
		ID string `json:"id"`
	} `json:"turn"`
	Item struct {
		Type string `json:"type"`
	} `json:"item"`
	Run struct {
		EventName string `json:"eventName"`
		Status    string `json:"status"`
		Entries   []struct {
			Text string `json:"text"`
		} `json:"entries"`
	} `json:"run"`
}

// noteLog keeps the notifications in order and wakes their waiters.
type noteLog struct {
	mu      sync.Mutex
	notes   []note
	changed chan struct{}
}

func (l *noteLog) add(method string, params json.RawMessage) {
	n := note{method: method}
	json.Unmarshal(params, &n.params)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notes = append(l.notes, n)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *noteLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.notes)
}

func (l *noteLog) snapshot() []note {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]note(nil), l.notes...)
}

// wait returns the first notification from index from on that match
// accepts, or ctx's error.
func (l *noteLog) wait(ctx context.Context, from int, match func(note) bool) (note, error) {
	for {
		l.mu.Lock()
		notes, changed := l.notes, l.changed
		l.mu.Unlock()
		for _, n := range notes[min(from, len(notes)):] {
			if match(n) {
				return n, nil
			}
		}
		from = len(notes)
		select {
		case <-changed:
		case <-ctx.Done():
			return note{}, ctx.Err()
		}
	}
}
