package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGeminiHookPayloadsProbe records what Gemini CLI hands its BeforeAgent
// and BeforeModel hooks over a run with two compressions (PROBE).
func TestGeminiHookPayloadsProbe(t *testing.T) {
	bin := findClient(t, "GEMINI_BIN", "gemini")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newGeminiMultiMock(t, 2, 0)
	writeFile(t, filepath.Join(s.home, ".gemini", "settings.json"), geminiUserSettings, 0o644)
	env := s.env([]string{"GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL=" + m.srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"})
	clientVersion(t, ctx, env, bin)
	dump := filepath.Join(s.root, "dump")
	os.MkdirAll(dump, 0o755)
	probe := "#!/bin/sh\ncat > " + shQuote(dump) + "/$(date +%s%N).$1.json\n"
	writeFile(t, filepath.Join(s.repo, "probe.sh"), probe, 0o755)
	writeFile(t, filepath.Join(s.repo, ".gemini", "settings.json"), `{"hooks": {
  "BeforeModel": [{"matcher": "*", "hooks": [{"type": "command", "command": "sh \"$GEMINI_PROJECT_DIR\"/probe.sh BeforeModel", "timeout": 5000}]}],
  "BeforeAgent": [{"matcher": "*", "hooks": [{"type": "command", "command": "sh \"$GEMINI_PROJECT_DIR\"/probe.sh BeforeAgent", "timeout": 5000}]}],
  "PreCompress": [{"matcher": "*", "hooks": [{"type": "command", "command": "sh \"$GEMINI_PROJECT_DIR\"/probe.sh PreCompress", "timeout": 5000}]}]
}}`, 0o644)
	res := runCmd(t, ctx, env, s.repo, "", bin, "-m", geminiModel, "-p", "hello")
	t.Logf("stdout: %s\nstderr: %s\nerr: %v", res.stdout, res.stderr, res.err)
	for i, r := range m.requests() {
		t.Logf("request %d: %s kind=%s %d bytes", i, r.Path, r.Kind, len(r.Body))
		if r.Kind == "turn" {
			for j, c := range geminiContents(t, r) {
				t.Logf("   content %d %s: %.200q", j, c.Role, c.text())
			}
		}
	}
	ents, _ := os.ReadDir(dump)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(dump, n))
		t.Logf("hook %s: %d bytes: %.1500s", n, len(b), strings.TrimSpace(string(b)))
	}
	if d := os.Getenv("PROBE_KEEP"); d != "" {
		os.MkdirAll(d, 0o755)
		for _, n := range names {
			b, _ := os.ReadFile(filepath.Join(dump, n))
			os.WriteFile(filepath.Join(d, n), b, 0o644)
		}
		for i, r := range m.requests() {
			os.WriteFile(filepath.Join(d, "req"+string(rune('a'+i))+"-"+r.Kind+".json"), r.Body, 0o644)
		}
	}
}
