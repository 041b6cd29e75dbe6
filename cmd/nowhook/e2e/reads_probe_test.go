package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestReadsProbe measures, without nowhook, which instruction files each
// client puts into its first request. Run by hand:
// NOWHOOK_E2E_PROBE=1 go test ./cmd/nowhook/e2e/ -run TestReadsProbe -v
func TestReadsProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") == "" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=1")
	}
	sets := map[string][]string{
		"agents":             {"AGENTS.md"},
		"claude":             {"CLAUDE.md"},
		"agents+claude":      {"AGENTS.md", "CLAUDE.md"},
		"agents+override":    {"AGENTS.md", "AGENTS.override.md"},
		"qwen+agents+claude": {"QWEN.md", "AGENTS.md", "CLAUDE.md"},
	}
	clients := strings.Split(os.Getenv("NOWHOOK_E2E_PROBE"), ",")
	for _, client := range clients {
		for name, files := range sets {
			for _, where := range startDirs {
				client, name, files, where := client, name, files, where
				t.Run(client+"/"+name+"/"+strings.ReplaceAll(where, "/", "-"), func(t *testing.T) {
					t.Parallel()
					s := newSandbox(t, kbsFixture)
					for _, f := range files {
						writeFile(t, filepath.Join(s.repo, f), "# "+f+"\n\nmarker line of "+f+" (probe-"+f+").\n", 0o644)
					}
					writeFile(t, filepath.Join(s.repo, filepath.FromSlash(subDir), "main.go"), "package deeper\n", 0o644)
					s.commitAll(t, "probe")
					dir := s.startIn(t, where)
					body := probeFirst(t, client, s, dir)
					var got []string
					for _, f := range []string{"AGENTS.md", "CLAUDE.md", "AGENTS.override.md", "QWEN.md"} {
						if bodyContains(t, body, "(probe-"+f+")") {
							got = append(got, f)
						}
					}
					sort.Strings(got)
					t.Logf("PROBE %s files=%v start=%s -> first request has %v", client, files, where, got)
				})
			}
		}
	}
}

func probeFirst(t *testing.T, client string, s *sandbox, dir string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	switch client {
	case "codex":
		bin := findClient(t, "CODEX_BIN", "codex")
		m := newPlainResponsesMock(t)
		env := codexEnv(s, codexManualHome(t, s, m))
		res := runCmd(t, ctx, env, dir, "", bin, "exec", "--strict-config", "--skip-git-repo-check", "hello")
		if res.err != nil {
			t.Fatalf("codex exec: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		return m.Requests()[0].Body
	case "qwen":
		bin := findClient(t, "QWEN_BIN", "qwen")
		m := newQwenMock(t, false, "")
		qwenHome(t, s)
		trustAlso(t, s, dir)
		runQwenSession(t, ctx, bin, qwenEnv(s, m), dir, []string{"hello"}, nil)
		for _, r := range m.Recorded() {
			if r.Kind == "turn" {
				return r.Body
			}
		}
	case "opencode":
		bin := findClient(t, "OPENCODE_BIN", "opencode")
		m := opencodeMock(t, false)
		opencodeConfig(t, s, m)
		srv := startOpencode(t, ctx, bin, opencodeEnv(s), dir)
		sess := srv.newSession(t, ctx)
		sess.send(t, ctx, "hello")
		srv.stop()
		for _, r := range m.Recorded() {
			if r.Kind == "turn" {
				return r.Body
			}
		}
	}
	t.Fatal("no turn request")
	return nil
}

// TestReadsProbeQwenWorktreeTrust measures, by hand, a Qwen Code session
// in a worktree whose folder is not trusted while the main checkout is,
// and what doctor says there.
// NOWHOOK_E2E_PROBE=qwen-worktree go test ./cmd/nowhook/e2e/ -run TestReadsProbeQwenWorktreeTrust -v
func TestReadsProbeQwenWorktreeTrust(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "qwen-worktree" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=qwen-worktree")
	}
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	s.applyShape(t, shapeAgentsOnly)
	qwenHome(t, s)
	setupQwen(t, ctx, s, s.repo)
	s.commitAll(t, "nowhook setup")
	wt := s.startIn(t, startWorktree)
	m := newQwenMock(t, false, "")
	runQwenSession(t, ctx, bin, qwenEnv(s, m), wt, []string{"hello", "/compress", "What was I working on?"}, nil)
	reqs := m.Recorded()
	idx := qwenSummaryIndex(t, reqs)
	first, raw := s.kbsRuns(t)
	t.Logf("PROBE qwen worktree untrusted (main checkout trusted): reminders after /compress %d, kbs runs %d+%d, AGENTS.md rule in first request %v, kbs-now block %v",
		countIn(t, reqs[idx+1].Body, expectedReminder(t)), first, raw, bodyContains(t, firstTurnBody(t, reqs), agentsRule), bodyContains(t, firstTurnBody(t, reqs), kbsNowLine))
	res := runCmd(t, ctx, s.env(nil), wt, "", filepath.Join(s.bin, "nowhook"), "doctor")
	t.Logf("PROBE doctor in the worktree:\n%s%s", res.stdout, res.stderr)
}
