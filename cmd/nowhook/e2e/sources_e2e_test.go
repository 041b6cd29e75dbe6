package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// The retention of the user's words through a compaction (issue 28): a
// session whose first message states a task and four constraints, a
// filler turn, a compaction whose summary (the mock model's) drops them,
// a turn, a second compaction, a turn. The figure is the share of the
// constraints present verbatim in the first request after each
// compaction, without nowhook, with the board alone (kanbus) and with
// the user's words (--sources rules,kanbus). The rules run also shows
// that none of our earlier reminders is quoted back: after the second
// compaction the request holds the user's words and the board once each.

var retentionConstraints = []string{
	"CONSTRAINT-1: never touch the migrations folder.",
	"CONSTRAINT-2: run go test ./... before every commit.",
	"CONSTRAINT-3: write every comment in British English.",
	"CONSTRAINT-4: keep the public API of package auth unchanged.",
}

var retentionFirst = "Fix the login bug in auth/login.go. " + strings.Join(retentionConstraints, " ")

const (
	rulesOpenLine  = "Quoted from this session's transcript below: the user's own messages"
	boardOpenLine  = "Quoted from the Kanbus board below:"
	boardCloseLine = "End of the quote from the Kanbus board."
	rulesCloseLine = "End of the quote from the transcript."
)

// retentionVariants are the three setups compared: the nowhook setup
// arguments after --agents, nil for no nowhook.
var retentionVariants = []struct {
	name string
	args []string
}{
	{"baseline", nil},
	{"kanbus", []string{}},
	{"rules", []string{"--sources", "rules,kanbus"}},
}

// retentionRuns are the variants a retention test runs: the rules one
// (the real-client proof) always, the whole comparison with
// NOWHOOK_E2E_RETENTION=1 (three sessions per client instead of one: the
// e2e package stays within go test's 10 minutes on a loaded machine).
func retentionRuns(t *testing.T) []struct {
	name string
	args []string
} {
	t.Helper()
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_RETENTION") == "1" {
		return retentionVariants
	}
	t.Log("the rules run only; NOWHOOK_E2E_RETENTION=1 runs the baseline and kanbus too")
	return retentionVariants[2:]
}

// setupSources runs nowhook setup --yes --agents agent with args.
func setupSources(t *testing.T, ctx context.Context, s *sandbox, env []string, agent string, args []string) {
	t.Helper()
	argv := append([]string{"setup", "--yes", "--agents", agent}, args...)
	res := runCmd(t, ctx, env, s.repo, "", filepath.Join(s.bin, "nowhook"), argv...)
	if res.err != nil {
		t.Fatalf("nowhook %s: %v\n%s%s", strings.Join(argv, " "), res.err, res.stdout, res.stderr)
	}
}

// afterSummaries returns the first turn request after each summary (or
// compaction) request.
func afterSummaries(t *testing.T, reqs []recordedRequest) []recordedRequest {
	t.Helper()
	var out []recordedRequest
	for i, r := range reqs {
		if r.Kind != "summary" && r.Kind != "compaction" {
			continue
		}
		for _, next := range reqs[i+1:] {
			if next.Kind == "turn" {
				out = append(out, next)
				break
			}
		}
	}
	return out
}

// retained counts the constraints present verbatim in body, the times the
// user's words and the board are quoted there, and the bytes of the
// reminder: from the first quote's opening line to the board's closing
// one, in the string that holds them.
func retained(t *testing.T, body []byte) (kept, rules, board, size int) {
	t.Helper()
	strs, err := mockmodel.Strings(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	all := strings.Join(strs, "\n")
	for _, c := range retentionConstraints {
		if strings.Contains(all, c) {
			kept++
		}
	}
	for _, str := range strs {
		start := strings.Index(str, rulesOpenLine)
		if start < 0 {
			start = strings.Index(str, boardOpenLine)
		}
		if end := strings.LastIndex(str, boardCloseLine); start >= 0 && end > start {
			size = end + len(boardCloseLine) - start
		}
	}
	return kept, strings.Count(all, rulesOpenLine), strings.Count(all, boardOpenLine), size
}

// checkRetention logs the retention row of one run and checks it: with
// rules every constraint after every compaction, each part quoted once;
// without nowhook, no board; with the board alone, the board once.
func checkRetention(t *testing.T, client, variant string, after []recordedRequest, compactions int) {
	t.Helper()
	if len(after) != compactions {
		t.Fatalf("%d requests after a summary, want %d", len(after), compactions)
	}
	for i, r := range after {
		kept, rules, board, size := retained(t, r.Body)
		t.Logf("RETENTION %s %s compaction %d: %d/%d constraints verbatim in the first request after it; user's words quoted %d times, board %d times; reminder %d bytes",
			client, variant, i+1, kept, len(retentionConstraints), rules, board, size)
		switch variant {
		case "rules":
			if kept != len(retentionConstraints) || rules < 1 || board < 1 {
				t.Errorf("compaction %d: %d/%d constraints, user's words %d times, board %d times; want all, and each part\n%.6000s",
					i+1, kept, len(retentionConstraints), rules, board, r.Body)
			}
			checkNotQuotedBack(t, r.Body)
		case "kanbus":
			if rules != 0 || board < 1 {
				t.Errorf("compaction %d: user's words %d times, board %d times; want 0 and at least 1", i+1, rules, board)
			}
		case "baseline":
			if rules != 0 || board != 0 {
				t.Errorf("compaction %d: user's words %d times, board %d times without nowhook", i+1, rules, board)
			}
		}
	}
}

// checkNotQuotedBack: the quote of the user's words holds none of our
// reminders (neither an earlier quote of the user's words nor the board).
func checkNotQuotedBack(t *testing.T, body []byte) {
	t.Helper()
	strs, _ := mockmodel.Strings(body)
	for _, str := range strs {
		for rest := str; ; {
			i := strings.Index(rest, rulesOpenLine)
			if i < 0 {
				break
			}
			quote := rest[i+len(rulesOpenLine):]
			if end := strings.Index(quote, rulesCloseLine); end >= 0 {
				quote = quote[:end]
			}
			if strings.Contains(quote, rulesOpenLine) || strings.Contains(quote, boardOpenLine) || strings.Contains(quote, "Kanbus WIP") {
				t.Errorf("the quote of the user's words holds one of our reminders:\n%s", quote)
			}
			rest = rest[i+len(rulesOpenLine):]
		}
	}
}

// TestClaudeSourcesRetention: Claude Code, /compact twice.
func TestClaudeSourcesRetention(t *testing.T) {
	bin := findClient(t, "CLAUDE_BIN", "claude")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			m := newAnthropicMock(t)
			env := claudeEnv(s, m.URL)
			if v.args != nil {
				setupSources(t, ctx, s, s.env(nil), "claude", v.args)
			}
			runClaudeSession(t, ctx, bin, env, s.repo, []string{retentionFirst, "List the files you would look at.",
				"/compact", "What next?", "/compact", "And now?"})
			reqs := m.Requests()
			checkRetention(t, "claude", v.name, afterSummaries(t, reqs), 2)
		})
	}
}

// TestQwenSourcesRetention: Qwen Code, /compress twice.
func TestQwenSourcesRetention(t *testing.T) {
	bin := findClient(t, "QWEN_BIN", "qwen")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			m := newQwenMock(t, false, "")
			qwenHome(t, s)
			env := qwenEnv(s, m)
			if v.args != nil {
				setupSources(t, ctx, s, s.env(nil), "qwen", v.args)
			}
			runQwenSession(t, ctx, bin, env, s.repo, []string{retentionFirst, "List the files you would look at.",
				"/compress", "What next?", "/compress", "And now?"}, nil)
			checkRetention(t, "qwen", v.name, afterSummaries(t, m.Recorded()), 2)
		})
	}
}

// TestCodexSourcesRetention: Codex CLI's app-server, thread/compact/start
// twice (its /compact).
func TestCodexSourcesRetention(t *testing.T) {
	bin := findClient(t, "CODEX_BIN", "codex")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			m := newPlainResponsesMock(t)
			env := codexEnv(s, codexManualHome(t, s, m))
			if v.args != nil {
				if err := os.Symlink(bin, filepath.Join(s.bin, "codex")); err != nil {
					t.Fatal(err)
				}
				setupSources(t, ctx, s, env, "codex", append([]string{"--trust-codex"}, v.args...))
			}
			a := startAppServer(t, ctx, bin, env, s.repo)
			var thread struct {
				Thread struct {
					ID string `json:"id"`
				} `json:"thread"`
			}
			a.call(ctx, "thread/start", map[string]any{"cwd": s.repo, "approvalPolicy": "never", "sandbox": "read-only"}, &thread)
			id := thread.Thread.ID
			a.runTurn(ctx, id, retentionFirst)
			a.runTurn(ctx, id, "List the files you would look at.")
			a.compact(ctx, id)
			a.runTurn(ctx, id, "What next?")
			a.compact(ctx, id)
			a.runTurn(ctx, id, "And now?")
			a.close()
			checkRetention(t, "codex", v.name, afterSummaries(t, m.Requests()), 2)
		})
	}
}

// TestOpencodeSourcesRetention: OpenCode's server, /summarize twice (its
// /compact); the plugin hands the session's user messages to the wrapper.
func TestOpencodeSourcesRetention(t *testing.T) {
	bin := findClient(t, "OPENCODE_BIN", "opencode")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			m := opencodeMock(t, false)
			opencodeConfig(t, s, m)
			env := opencodeEnv(s)
			if v.args != nil {
				setupSources(t, ctx, s, s.env(nil), "opencode", v.args)
			}
			srv := startOpencode(t, ctx, bin, env, s.repo)
			sess := srv.newSession(t, ctx)
			sess.send(t, ctx, retentionFirst)
			sess.send(t, ctx, "List the files you would look at.")
			sess.compact(t, ctx)
			sess.send(t, ctx, "What next?")
			sess.compact(t, ctx)
			sess.send(t, ctx, "And now?")
			srv.stop()
			checkRetention(t, "opencode", v.name, afterSummaries(t, m.Recorded()), 2)
		})
	}
}

// chatRecorded is the chat mock's requests as the shared helpers take them.
func chatRecorded(reqs []*chatRequest) []recordedRequest {
	var out []recordedRequest
	for _, r := range reqs {
		out = append(out, r.Request)
	}
	return out
}

// TestDroidSourcesRetention: Factory Droid's JSON-RPC, /compact once (it
// moves the session to a new file; the words are read through the parent
// session). With a second /compact in the same session the mock saw one
// summary request in all (not analysed further).
func TestDroidSourcesRetention(t *testing.T) {
	bin := findClient(t, "DROID_BIN", "droid")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx := probeCtx(t)
			s := newSandbox(t, kbsFixture)
			if v.args != nil {
				setupSources(t, ctx, s, s.env(nil), "droid=reinject", v.args)
			}
			m := droidMock(t, &probeChat{})
			home := droidHome(t, m, "")
			env := droidEnv(s, home)
			d := startDroidRPC(t, ctx, bin, env, s.repo)
			d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "e2e", "cwd": s.repo, "modelId": "custom:mock-model"})
			d.say(ctx, retentionFirst)
			d.say(ctx, "List the files you would look at.")
			d.compact(ctx)
			d.say(ctx, "What next?")
			reqs := chatRecorded(m.Requests())
			for i, r := range reqs {
				t.Logf("request %d: kind %s, %d bytes", i, r.Kind, len(r.Body))
			}
			checkRetention(t, "droid", v.name, afterSummaries(t, reqs), 1)
		})
	}
}

// TestGeminiSourcesRetention: Gemini CLI headless (gemini -p with the
// first message), the mock forcing two compressions (gemini=reinject, the
// BeforeModel hook).
func TestGeminiSourcesRetention(t *testing.T) {
	bin := findClient(t, "GEMINI_BIN", "gemini")
	for _, v := range retentionRuns(t) {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			if v.args != nil {
				setupSources(t, ctx, s, s.env(nil), "gemini=reinject", v.args)
			}
			m := newGeminiMultiMock(t, 2, 1)
			env := geminiEnv(t, s, m)
			res := runCmd(t, ctx, env, s.repo, "", bin, "-m", geminiModel, "-p", retentionFirst)
			if res.err != nil {
				t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
			}
			checkRetention(t, "gemini", v.name, afterSummaries(t, m.Requests()), 2)
		})
	}
}
