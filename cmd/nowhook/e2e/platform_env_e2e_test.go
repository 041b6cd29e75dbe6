package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 17: "each hook tells kbs which agent runs it", where the agent lets
// a session-start hook set the environment of later commands. Kanbus reads
// KANBUS_AGENT_PLATFORM and KANBUS_AGENT_MODEL on `kbs create` and `kbs
// comment`, and fails when only one of them is set ("agent metadata
// requires both platform and model"), so a hook may set the platform only
// together with the model the payload names. These tests measure, in each
// real client, whether a SessionStart hook of source startup can do that:
// the hook saves its payload and appends export lines to $CLAUDE_ENV_FILE
// where the client gives it one; the mock answers the first turn with one
// shell tool call that prints both variables, and the next request carries
// the tool's output. Each test also checks that the startup hook, silent,
// adds nothing to the first request.

// platformEcho is the shell command the mock has the agent run; Claude
// Code refuses to run a command with a variable it cannot check ("A
// variable in this command can't be checked before it runs", 2.1.332), so
// there it runs env, whose output platformShown reads too.
const (
	platformEcho = `echo "platform=[$KANBUS_AGENT_PLATFORM] model=[$KANBUS_AGENT_MODEL]"`
	platformEnv  = "env"
)

// envFileHook is a SessionStart command that saves the payload to saved
// and, where the client sets CLAUDE_ENV_FILE, appends the platform and the
// payload's model to it, printing nothing.
func envFileHook(saved, platform string) string {
	return fmt.Sprintf(`cat > %s; [ -z "$CLAUDE_ENV_FILE" ] || { echo "export KANBUS_AGENT_PLATFORM=%s"; sed -n 's/.*"model": *"\([^"]*\)".*/export KANBUS_AGENT_MODEL=\1/p' %s; } >> "$CLAUDE_ENV_FILE"; printf 'env_file=[%%s]\n' "$CLAUDE_ENV_FILE" > %s.env`,
		shQuote(saved), platform, shQuote(saved), shQuote(saved))
}

// savedPayload reads what envFileHook saved: the payload's fields and
// whether the client gave the hook an env file.
func savedPayload(t *testing.T, saved string) (pl map[string]any, envFile bool) {
	t.Helper()
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatalf("the SessionStart hook did not run: %v", err)
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatalf("SessionStart payload is not JSON: %v\n%s", err, b)
	}
	e, _ := os.ReadFile(saved + ".env")
	t.Logf("SessionStart payload: %s; %s", b, strings.TrimSpace(string(e)))
	return pl, !strings.Contains(string(e), "env_file=[]")
}

// platformShown returns what the tool output in body says of the two
// variables ("" for an empty one); ok is false when no output is there.
func platformShown(t *testing.T, body []byte) (platform, model string, ok bool) {
	t.Helper()
	strs, err := jsonStrings(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	re := regexp.MustCompile(`platform=\[([^\]\n]*)\] model=\[([^\]\n]*)\]`)
	envLine := func(s, name string) string {
		if m := regexp.MustCompile(`(?m)^` + name + `=(.*)$`).FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return ""
	}
	for _, s := range strs {
		if strings.Contains(s, "echo ") {
			continue // the tool call's own command, not its output
		}
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1], m[2], true
		}
		if strings.Contains(s, "\nPATH=") || strings.HasPrefix(s, "PATH=") { // env's output
			return envLine(s, "KANBUS_AGENT_PLATFORM"), envLine(s, "KANBUS_AGENT_MODEL"), true
		}
	}
	return "", "", false
}

// TestClaudePlatformEnv: Claude Code gives SessionStart hooks a
// CLAUDE_ENV_FILE whose export lines apply to the agent's later Bash
// commands, but (measured on 2.1.332) the startup payload names no model,
// and what a compact hook appends to the file after the session's first
// Bash command never reaches a later one (Claude Code keeps the file's
// text from its first read), although that payload names the model. So no
// hook can give kbs both variables, and the platform alone makes kbs
// create and kbs comment fail: nowhook sets neither (docs/platforms.md,
// "Telling kbs which agent runs it"). The test fails when that changes.
func TestClaudePlatformEnv(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CLAUDE_BIN", "claude")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	atStart, atCompact := filepath.Join(s.root, "startup.json"), filepath.Join(s.root, "compact.json")
	group := func(matcher, saved string) any {
		return map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": envFileHook(saved, "claude_code"), "timeout": 10}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{group("startup", atStart), group("compact", atCompact)}}})
	// The user lets the agent run env without asking.
	writeFile(t, filepath.Join(s.home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(`+platformEnv+`)"]}}`+"\n", 0o644)
	writeFile(t, filepath.Join(s.repo, ".claude", "settings.json"), string(settings)+"\n", 0o644)
	m := newCheckpointAnthropic(t, []checkpointStep{
		{Tool: platformEnv, Usage: 1000}, {Usage: 1000}, // hello
		{Tool: platformEnv, Usage: 1000}, {Usage: 1000}, // again, after /compact
	})
	env := claudeEnv(s, m.URL)
	clientVersion(t, ctx, env, bin)
	runClaudeSession(t, ctx, bin, env, s.repo, []string{"hello", "/compact", "again"})
	reqs := m.Requests()
	dumpRequests(t, reqs)
	if len(reqs) != 5 || reqs[2].Kind != "summary" {
		t.Fatalf("%d requests, want 5 (tool call, its result, summary, tool call, its result)", len(reqs))
	}
	pl, envFile := savedPayload(t, atStart)
	startModel, hasModel := pl["model"].(string)
	if pl["source"] != "startup" || !envFile {
		t.Fatalf("startup payload source %v, CLAUDE_ENV_FILE set %v; want startup, set", pl["source"], envFile)
	}
	if hasModel {
		t.Errorf("the startup payload now names the model (%q): a startup hook could give kbs both variables; revisit docs/platforms.md", startModel)
	}
	if bodyContains(t, reqs[0].Body, "KANBUS_AGENT") || bodyContains(t, reqs[0].Body, "SessionStart:startup") {
		t.Errorf("the silent startup hook added something to the first request")
	}
	platform, model, ok := platformShown(t, reqs[1].Body)
	if !ok || platform != "claude_code" || model != "" {
		t.Errorf("before the compaction the tool output shows platform=[%s] model=[%s] (found %v), want platform=[claude_code] model=[]", platform, model, ok)
	}
	pl, envFile = savedPayload(t, atCompact)
	compactModel, _ := pl["model"].(string)
	if pl["source"] != "compact" || compactModel == "" || !envFile {
		t.Fatalf("compact payload source %v, model %q, CLAUDE_ENV_FILE set %v; want compact, a model, set", pl["source"], compactModel, envFile)
	}
	envs, _ := filepath.Glob(filepath.Join(s.home, ".claude", "session-env", "*", "*"))
	for _, e := range envs {
		b, _ := os.ReadFile(e)
		t.Logf("%s after the session:\n%s", filepath.Base(e), b)
	}
	platform, model, ok = platformShown(t, reqs[4].Body)
	if !ok || platform != "claude_code" {
		t.Errorf("after the compaction the tool output shows platform=[%s] (found %v), want claude_code", platform, ok)
	}
	if model != "" {
		t.Errorf("after the compaction the tool output shows model=[%s]: the compact hook's export now reaches later commands; revisit docs/platforms.md", model)
	}
}

// TestCodexPlatformEnv: Codex CLI gives SessionStart hooks the model in the
// payload, but no env file, and its SessionStart output has no field that
// sets the environment (0.171.0's schema for it allows continue,
// stopReason, suppressOutput, systemMessage and hookSpecificOutput's
// hookEventName and additionalContext, nothing else, and no other
// property): a hook that prints an "env" object fails ("hook: SessionStart
// Failed" on stderr) and sets nothing for the agent's commands (measured).
func TestCodexPlatformEnv(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "CODEX_BIN", "codex")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	saved := filepath.Join(s.root, "session-start.json")
	out := `{"env":{"KANBUS_AGENT_PLATFORM":"codex","KANBUS_AGENT_MODEL":"mock-model"}}`
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
		map[string]any{"matcher": "startup", "hooks": []any{map[string]any{"type": "command", "command": envFileHook(saved, "codex") + "; printf '%s\\n' " + shQuote(out), "timeout": 10}}},
	}}})
	writeFile(t, filepath.Join(s.repo, ".codex", "hooks.json"), string(hooks)+"\n", 0o644)
	m := newCheckpointResponses(t, []checkpointStep{{Tool: platformEcho, Usage: 1000}, {Usage: 1000}})
	home := codexManualHome(t, s, m)
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("%s\n[projects.%q]\ntrust_level = \"trusted\"\n", cfg, s.repo), 0o644)
	env := codexEnv(s, home)
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, s.repo, "", bin, "exec", "--strict-config", "--dangerously-bypass-hook-trust", "hello")
	if res.err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	dumpRequests(t, reqs)
	pl, envFile := savedPayload(t, saved)
	if model, _ := pl["model"].(string); pl["source"] != "startup" || model != "mock-model" || envFile {
		t.Fatalf("SessionStart payload source %v, model %q, CLAUDE_ENV_FILE set %v; want startup, mock-model, unset", pl["source"], model, envFile)
	}
	if len(reqs) < 2 {
		t.Fatalf("%d requests, want 2 (the tool call, then its result)\nstderr:\n%s", len(reqs), res.stderr)
	}
	platform, model, ok := platformShown(t, reqs[1].Body)
	if !ok || platform != "" || model != "" {
		t.Errorf("tool output shows platform=[%s] model=[%s] (found %v), want both empty: no route", platform, model, ok)
	}
	if !strings.Contains(res.stderr, "hook: SessionStart Failed") {
		t.Errorf("codex exec did not report the hook's env output as a failure:\n%s", grepLines(res.stderr, "hook"))
	}
}

// TestDroidPlatformEnv: Factory Droid gives SessionStart hooks a
// CLAUDE_ENV_FILE as Claude Code does, and its exports reach the agent's
// commands (measured on 0.225.2), but the startup payload names no model
// (it has session_id, transcript_path, cwd, permission_mode,
// hook_event_name, source and CLAUDE_ENV_FILE), so, as on Claude Code, no
// hook can give kbs both variables. The test fails when that changes.
func TestDroidPlatformEnv(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "DROID_BIN", "droid")
	ctx := probeCtx(t)
	repo := probeRepo(t, ctx, "AGENTS.md")
	saved := filepath.Join(t.TempDir(), "session-start.json")
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
		map[string]any{"matcher": "startup", "hooks": []any{map[string]any{"type": "command", "command": envFileHook(saved, "factory_droid"), "timeout": 10}}},
	}}})
	writeFile(t, filepath.Join(repo, ".factory", "settings.json"), string(settings)+"\n", 0o644)
	args, _ := json.Marshal(map[string]string{"summary": "Print the agent platform variables",
		"command": platformEcho, "riskLevelReason": "It only prints two variables.", "riskLevel": "low"})
	m := droidMock(t, &probeChat{tool: &chatToolCall{ID: "call_1", Name: "Execute", Arguments: string(args)}})
	env := probeEnv(droidHome(t, m, ""))
	clientVersion(t, ctx, env, bin)
	res := runCmd(t, ctx, env, repo, "", bin, "exec", "-m", "custom:mock-model", "hello")
	if res.err != nil {
		t.Fatalf("droid exec: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	reqs := m.Requests()
	pl, envFile := savedPayload(t, saved)
	if pl["source"] != "startup" || !envFile {
		t.Fatalf("SessionStart payload source %v, CLAUDE_ENV_FILE set %v; want startup, set", pl["source"], envFile)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the tool call, its result)", len(reqs))
	}
	// Droid lists the names of its environment variables in the first
	// request ("Env: ... KANBUS_AGENT_PLATFORM ..."), not their values.
	if bodyContains(t, reqs[0].Body, "factory_droid") || bodyContains(t, reqs[0].Body, "export KANBUS") {
		t.Errorf("the silent startup hook added something to the first request")
	}
	model, _ := pl["model"].(string)
	platform, shownModel, ok := platformShown(t, reqs[1].Body)
	if !ok || platform != "factory_droid" || shownModel != model {
		t.Errorf("tool output shows platform=[%s] model=[%s] (found %v), want platform=[factory_droid] model=[%s]", platform, shownModel, ok, model)
	}
	if model != "" {
		t.Errorf("Droid's startup payload now names the model (%q): a startup hook could give kbs both variables; revisit docs/platforms.md", model)
	}
}

// grepLines returns the lines of text that contain word.
func grepLines(text, word string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(strings.ToLower(l), word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
