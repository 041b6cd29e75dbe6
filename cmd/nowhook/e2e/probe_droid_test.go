package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Factory Droid (npm @factory/cli 0.225.1 with its binary package
// @factory/cli-linux-x64 0.225.2), offline: a custom model in
// ~/.factory/settings.json points at the chat mock; `droid exec` runs one
// prompt, and `droid exec --input-format stream-jsonrpc` is the protocol
// its TUI and daemon speak, through which a session is compacted by hand
// (droid.compact_session, then droid.load_session of the new session, as
// /compact does). Pinned in scripts/pins.tsv, so CI runs these. Run:
// eval "$(sh scripts/install-agents.sh droid)"; go test ./cmd/nowhook/e2e/ -run '^Test(Reads)?Droid' -v

// droidSummaryPhrase starts Droid's compaction request.
const droidSummaryPhrase = "Please summarize the following conversation"

// droidHome writes a HOME whose settings point Droid at the mock; extra
// holds more top-level settings keys as JSON members (`"k": v`).
func droidHome(t *testing.T, m *chatMock, extra string) string {
	t.Helper()
	home := t.TempDir()
	settings := fmt.Sprintf(`{"customModels":[{"model":"mock-model","displayName":"Mock","baseUrl":%q,`+
		`"apiKey":"dummy","provider":"generic-chat-completion-api","maxOutputTokens":4096}]%s}`, m.BaseURL(), extra)
	writeFile(t, filepath.Join(home, ".factory", "settings.json"), settings+"\n", 0o644)
	return home
}

func droidMock(t *testing.T, p *probeChat) *chatMock {
	t.Helper()
	p.summaryPhrases = []string{droidSummaryPhrase}
	return newChatMock(t, p.reply)
}

// TestReadsDroid: which instruction files reach the first request of
// `droid exec`, started at the root and in a sub-folder.
func TestReadsDroid(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	for _, c := range []struct {
		where string
		want  []string
	}{
		{".", []string{"AGENTS.md", "CLAUDE.md"}},
		{probeSub, []string{"AGENTS.md", "CLAUDE.md", "svc/AGENTS.md"}},
	} {
		t.Run(strings.ReplaceAll(c.where, "/", "-"), func(t *testing.T) {
			t.Parallel()
			ctx := probeCtx(t)
			repo := probeRepo(t, ctx)
			m := droidMock(t, &probeChat{})
			env := probeEnv(droidHome(t, m, ""))
			clientVersion(t, ctx, env, bin)
			res := runCmd(t, ctx, env, filepath.Join(repo, c.where), "", bin, "exec", "-m", "custom:mock-model", "hello")
			if res.err != nil {
				t.Fatalf("droid exec: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkProbeFound(t, "droid exec started in "+c.where, reqs[0].Body, c.want...)
		})
	}
}

// droidRPC drives one `droid exec --input-format stream-jsonrpc` process.
type droidRPC struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
	next  int
}

func startDroidRPC(t *testing.T, ctx context.Context, bin string, env []string, dir string) *droidRPC {
	t.Helper()
	cmd := prepare(t, ctx, env, dir, bin, "exec", "--input-format", "stream-jsonrpc",
		"--output-format", "stream-jsonrpc", "-m", "custom:mock-model")
	stdin, stdout, stderr := startPiped(t, cmd)
	d := &droidRPC{t: t, stdin: stdin, lines: make(chan map[string]any, 1024)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1024*1024), 64*1024*1024)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				d.lines <- m
			}
		}
		close(d.lines)
	}()
	t.Cleanup(func() {
		stdin.Close()
		killGroup(cmd)
		cmd.Wait()
		if t.Failed() {
			t.Logf("droid stderr:\n%.4000s", stderr.String())
		}
	})
	return d
}

// call sends one request and returns its result, failing on an error.
func (d *droidRPC) call(ctx context.Context, method string, params any) map[string]any {
	d.t.Helper()
	d.next++
	id := fmt.Sprintf("probe-%d", d.next)
	msg := map[string]any{"jsonrpc": "2.0", "type": "request", "factoryApiVersion": "1.0.0",
		"factoryProtocolVersion": "1.220.0", "id": id, "method": method, "params": params}
	b, err := json.Marshal(msg)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.stdin.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("%s: %v", method, err)
	}
	m := d.wait(ctx, method, func(m map[string]any) bool { return m["id"] == id })
	if e, ok := m["error"]; ok && e != nil {
		d.t.Fatalf("%s: error %v", method, e)
	}
	res, _ := m["result"].(map[string]any)
	return res
}

// wait reads lines until match, failing when the process ends or ctx does.
func (d *droidRPC) wait(ctx context.Context, what string, match func(map[string]any) bool) map[string]any {
	d.t.Helper()
	for {
		select {
		case m, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("droid ended while waiting for %s", what)
			}
			if match(m) {
				return m
			}
		case <-ctx.Done():
			d.t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// notification is the notification a line carries, or nil.
func notification(m map[string]any) map[string]any {
	p, _ := m["params"].(map[string]any)
	n, _ := p["notification"].(map[string]any)
	return n
}

// say sends a user message and waits for the end of its turn.
func (d *droidRPC) say(ctx context.Context, text string) {
	d.t.Helper()
	d.next++
	d.call(ctx, "droid.add_user_message", map[string]any{"messageId": fmt.Sprintf("probe-msg-%d", d.next), "text": text})
	d.wait(ctx, "the end of the turn "+text, func(m map[string]any) bool {
		n := notification(m)
		return n["type"] == "agent_turn_completed"
	})
}

// compact does what the TUI's /compact does: compact into a new session and
// move to it.
func (d *droidRPC) compact(ctx context.Context) {
	d.t.Helper()
	res := d.call(ctx, "droid.compact_session", map[string]any{})
	sid, _ := res["newSessionId"].(string)
	if sid == "" {
		d.t.Fatalf("droid.compact_session: no newSessionId in %v", res)
	}
	d.call(ctx, "droid.load_session", map[string]any{"sessionId": sid})
}

// droidManualSession runs hello, /compact, next in one session started in
// dir and returns the mock's requests.
func droidManualSession(t *testing.T, bin, home, dir string, m *chatMock) []*chatRequest {
	t.Helper()
	ctx := probeCtx(t)
	env := probeEnv(home)
	clientVersion(t, ctx, env, bin)
	d := startDroidRPC(t, ctx, bin, env, dir)
	d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "probe", "cwd": dir, "modelId": "custom:mock-model"})
	d.say(ctx, "hello")
	d.compact(ctx)
	d.say(ctx, "What was I working on?")
	return m.Requests()
}

const droidMarker = "PROBE-DROID-COMPACT-HOOK"

// droidCompactHooks is a .factory/hooks.json (a bare event map) with one
// SessionStart group for source compact running command.
func droidCompactHooks(command string) string {
	b, _ := json.Marshal(map[string]any{"SessionStart": []any{map[string]any{"matcher": "compact",
		"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 10}}}}})
	return string(b) + "\n"
}

// TestDroidManualCompactHook: a SessionStart hook with matcher compact
// in .factory/hooks.json runs once after a manual compaction, with source
// compact; what it prints is in the first request after the summary
// request, once, and in none before; printed by a hook that exits 1, it
// reaches no request.
func TestDroidManualCompactHook(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	for _, c := range []struct {
		name string
		code int
	}{{"exit-0", 0}, {"exit-1", 1}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			repo := probeRepo(t, probeCtx(t), "AGENTS.md")
			h := writeProbeHook(t, filepath.Join(repo, ".factory", "hooks", "probe.sh"), droidMarker, c.code)
			writeFile(t, filepath.Join(repo, ".factory", "hooks.json"), droidCompactHooks(`"$FACTORY_PROJECT_DIR"/.factory/hooks/probe.sh compact`), 0o644)
			m := droidMock(t, &probeChat{})
			reqs := droidManualSession(t, bin, droidHome(t, m, ""), repo, m)
			if c.code == 0 {
				checkOnceAfter(t, reqs, droidMarker)
			} else {
				summaryAt(t, reqs)
				checkNowhere(t, reqs, droidMarker)
			}
			runs := h.runs(t)
			if len(runs) != 1 || !strings.Contains(runs[0], `"source":"compact"`) {
				t.Errorf("hook runs %q, want one with source compact", runs)
			}
		})
	}
}

// TestDroidHookFiles: which hook file Droid runs. A hooks.json whose
// events sit under a "hooks" key (the settings.json shape) is ignored; a
// settings.json SessionStart group runs where hooks.json has no SessionStart
// event, and not where it has one (for matcher startup only, even).
func TestDroidHookFiles(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	cmd := `"$FACTORY_PROJECT_DIR"/.factory/hooks/probe.sh compact`
	wrapped := `{"hooks":` + strings.TrimSpace(droidCompactHooks(cmd)) + "}\n"
	for _, c := range []struct {
		name               string
		hooksJSON, setJSON string
		wantRuns           int
	}{
		{"hooks.json-wrapped", wrapped, "", 0},
		{"settings.json-only", "", wrapped, 1},
		{"settings.json-beside-hooks.json-SessionEnd", `{"SessionEnd":[{"hooks":[{"type":"command","command":"true"}]}]}` + "\n", wrapped, 1},
		{"settings.json-beside-hooks.json-SessionStart", `{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"true"}]}]}` + "\n", wrapped, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			repo := probeRepo(t, probeCtx(t), "AGENTS.md")
			h := writeProbeHook(t, filepath.Join(repo, ".factory", "hooks", "probe.sh"), droidMarker, 0)
			if c.hooksJSON != "" {
				writeFile(t, filepath.Join(repo, ".factory", "hooks.json"), c.hooksJSON, 0o644)
			}
			if c.setJSON != "" {
				writeFile(t, filepath.Join(repo, ".factory", "settings.json"), c.setJSON, 0o644)
			}
			m := droidMock(t, &probeChat{})
			reqs := droidManualSession(t, bin, droidHome(t, m, ""), repo, m)
			if n := len(h.runs(t)); n != c.wantRuns {
				t.Errorf("the compact hook ran %d times, want %d", n, c.wantRuns)
			}
			if c.wantRuns == 1 {
				checkOnceAfter(t, reqs, droidMarker)
			} else {
				checkNowhere(t, reqs, droidMarker)
			}
		})
	}
}

// TestDroidSubFolderHook: started in a sub-folder, Droid loads the
// root's .factory/hooks.json but sets FACTORY_PROJECT_DIR (and the cwd) to
// the start directory, so a command built on it misses the script; one that
// finds the repository root itself works.
func TestDroidSubFolderHook(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	for _, c := range []struct {
		name, command string
		wantMarker    bool
	}{
		{"FACTORY_PROJECT_DIR", `"$FACTORY_PROJECT_DIR"/.factory/hooks/probe.sh compact`, false},
		{"git-toplevel", `sh "$(git rev-parse --show-toplevel)/.factory/hooks/probe.sh" compact`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			repo := probeRepo(t, probeCtx(t), "AGENTS.md")
			h := writeProbeHook(t, filepath.Join(repo, ".factory", "hooks", "probe.sh"), droidMarker, 0)
			writeFile(t, filepath.Join(repo, ".factory", "hooks.json"), droidCompactHooks(c.command), 0o644)
			m := droidMock(t, &probeChat{})
			dir := filepath.Join(repo, filepath.FromSlash(probeSub))
			reqs := droidManualSession(t, bin, droidHome(t, m, ""), dir, m)
			if !c.wantMarker {
				checkNowhere(t, reqs, droidMarker)
				if n := len(h.runs(t)); n != 0 {
					t.Errorf("the script ran %d times, want 0 (not found from %s)", n, probeSub)
				}
				return
			}
			checkOnceAfter(t, reqs, droidMarker)
			runs := h.runs(t)
			if len(runs) != 1 || !strings.Contains(runs[0], "\t"+dir+"\t") {
				t.Errorf("hook runs %q, want one whose cwd is %s", runs, dir)
			}
		})
	}
}

// TestDroidAutoCompactNoHook: an automatic compaction (a small
// compactionTokenLimit and a first reply that reports a prompt near 1M
// tokens) compacts in place, and neither SessionStart nor PreCompact runs.
func TestDroidAutoCompactNoHook(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	h := writeProbeHook(t, filepath.Join(repo, ".factory", "hooks", "probe.sh"), droidMarker, 0)
	cmd := `"$FACTORY_PROJECT_DIR"/.factory/hooks/probe.sh`
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "PreCompact"} {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd + " " + ev, "timeout": 10}}}}
	}
	b, _ := json.Marshal(hooks)
	writeFile(t, filepath.Join(repo, ".factory", "hooks.json"), string(b)+"\n", 0o644)
	m := droidMock(t, &probeChat{highFirst: true})
	env := probeEnv(droidHome(t, m, `,"compactionTokenLimit":20000`))
	clientVersion(t, ctx, env, bin)
	d := startDroidRPC(t, ctx, bin, env, repo)
	d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "probe", "cwd": repo, "modelId": "custom:mock-model"})
	d.say(ctx, "hello")
	d.say(ctx, "next")
	reqs := m.Requests()
	summaryAt(t, reqs)
	runs := h.runs(t)
	if len(runs) != 1 || !strings.HasPrefix(runs[0], "SessionStart\t") || !strings.Contains(runs[0], `"source":"startup"`) {
		t.Errorf("hook runs %q, want only the SessionStart of source startup", runs)
	}
}

// TestDroidEnvFile: a SessionStart hook that appends an export to
// $CLAUDE_ENV_FILE sets the variable for the agent's shell commands and
// for later hooks, as in Claude Code: the route by which a hook can tell
// `kbs` which agent runs it.
func TestDroidEnvFile(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	seen := filepath.Join(t.TempDir(), "seen.log")
	hooks := `{"SessionStart":[{"hooks":[{"type":"command","command":"printf 'export KANBUS_AGENT_PLATFORM=droid\\n' >> \"$CLAUDE_ENV_FILE\"","timeout":10}]}],` +
		`"PreToolUse":[{"hooks":[{"type":"command","command":"echo \"[$KANBUS_AGENT_PLATFORM]\" >> ` + shQuote(seen) + `","timeout":10}]}]}` + "\n"
	writeFile(t, filepath.Join(repo, ".factory", "hooks.json"), hooks, 0o644)
	args, _ := json.Marshal(map[string]string{"summary": "Print the agent platform variable",
		"command": "echo platform=[$KANBUS_AGENT_PLATFORM]", "riskLevelReason": "It only prints a variable.", "riskLevel": "low"})
	m := droidMock(t, &probeChat{tool: &chatToolCall{ID: "call_1", Name: "Execute", Arguments: string(args)}})
	env := probeEnv(droidHome(t, m, ""))
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, repo, "", bin, "exec", "-m", "custom:mock-model", "hello")
	if res.err != nil {
		t.Fatalf("droid exec: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the tool call, its result)", len(reqs))
	}
	if !bodyContains(t, reqs[1].Body, "platform=[droid]") {
		t.Errorf("the tool result does not show KANBUS_AGENT_PLATFORM=droid:\n%.3000s", reqs[1].Body)
	}
	b, err := os.ReadFile(seen)
	if err != nil || strings.TrimSpace(string(b)) != "[droid]" {
		t.Errorf("the PreToolUse hook saw %q (%v), want [droid]", b, err)
	}
}

// droidEnv is the sandbox's environment with HOME at home, the Droid home
// droidHome made (Droid reads its settings and custom model there).
func droidEnv(s *sandbox, home string) []string {
	var env []string
	for _, e := range s.env(nil) {
		if !strings.HasPrefix(e, "HOME=") {
			env = append(env, e)
		}
	}
	return append(env, "HOME="+home)
}
