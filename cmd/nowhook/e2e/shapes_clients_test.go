package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/shapes"
)

// The differential test's drivers: for each client, how a shape's
// sandbox is prepared (the client's user configuration, pointing at a
// mock) and how one session runs in a start folder, through the
// package's own drivers (runClaudeSession, codexExecIn, runQwenSession,
// opencodeSessionIn, runGeminiIn, droidRPC, clineRun, cn -p). A session
// compacts where the package can drive the client through a compaction.

// shapesClient is one client of the differential test.
type shapesClient struct {
	agent   string // the --agents name
	command string // its command on PATH
	// sample is how many generated shapes (seeds shapesSampleSeed, ...)
	// the default (CI) sample runs beside the fixed scenarios; small, to
	// keep CI's time: -shapes N runs more.
	sample int
	// compacts: a session compacts once, and sessionResult.afterCompact
	// is the first request after it.
	compacts bool
	prepare  func(t *testing.T, ctx context.Context, r *shapeRun)
	session  func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult
}

// shapeRun is one shape in one client: the sandbox and what the client's
// preparation left for its sessions.
type shapeRun struct {
	s     *sandbox
	sh    shapes.Shape
	c     *shapesClient
	bin   string
	env   []string // the sessions' environment
	tools []string // nowhook's and git's: the sandbox's PATH, the client's HOME and config
	state any      // the client's own (its mock)
}

// sessionResult is what one session sent to the model.
type sessionResult struct {
	first []byte // the first ordinary request
	// upTo are the requests up to and including the compaction request;
	// afterCompact is the first request after it (nil where the client
	// does not compact here).
	upTo         [][]byte
	afterCompact []byte
}

// withHome is the sandbox's environment with another HOME.
func withHome(s *sandbox, home string, extra ...string) []string {
	var out []string
	for _, e := range s.env(extra) {
		if !strings.HasPrefix(e, "HOME=") {
			out = append(out, e)
		}
	}
	return append(out, "HOME="+home)
}

// splitAt returns the session's result from its requests (bodies, in
// order) and the index of its compaction request.
func splitAt(bodies [][]byte, compaction int) sessionResult {
	return sessionResult{first: bodies[0], upTo: bodies[:compaction+1], afterCompact: bodies[compaction+1]}
}

func bodiesOf(reqs []recordedRequest) [][]byte {
	out := make([][]byte, len(reqs))
	for i, r := range reqs {
		out[i] = r.Body
	}
	return out
}

var shapesClaude = &shapesClient{agent: "claude", command: "claude", sample: 1, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newAnthropicMock(t)
		r.state = m
		r.env = claudeEnv(r.s, m.URL)
		r.tools = r.env
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		m := r.state.(*anthropicMock)
		seen := len(m.Requests())
		runClaudeSession(t, ctx, r.bin, r.env, dir, []string{"hello", "/compact", "What was I working on?"})
		reqs := m.Requests()[seen:]
		return splitAt(bodiesOf(reqs), summaryIndex(t, reqs))
	},
}

// codexState is a Codex run's mock and its user config.
type codexState struct {
	m      *responsesMock
	config string // $CODEX_HOME/config.toml
}

var shapesCodex = &shapesClient{agent: "codex", command: "codex", sample: 1, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newResponsesMock(t)
		home := codexHome(t, r.s, m)
		config := filepath.Join(home, "config.toml")
		var top string
		for _, l := range r.sh.Setup.CodexUser {
			top += l + "\n"
		}
		replaceIn(t, config, `model = "mock-model"`, top+`model = "mock-model"`)
		if r.sh.Setup.CodexProjectTrusted {
			replaceIn(t, config, "[model_providers.mock]", fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n\n[model_providers.mock]", r.s.repo))
		}
		r.state = &codexState{m: m, config: config}
		r.env = codexEnv(r.s, home)
		r.tools = r.env
		codexTrustTeam(t, ctx, r)
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		st := r.state.(*codexState)
		m := newResponsesMock(t) // the tool call that makes Codex compact is the mock's once
		replaceIn(t, st.config, st.m.URL, m.URL)
		st.m = m
		run := codexExecIn(t, ctx, r.s, m, r.bin, r.env, dir)
		return splitAt(bodiesOf(run.reqs), compactionIndex(t, run.reqs))
	},
}

// codexTrustTeam trusts the team's own hooks in .codex/hooks.json through
// Codex's app-server, as the team did with Codex's /hooks (an untrusted
// hook never runs, so nothing of it would reach the model anyway). It runs
// before the sessions before setup and again after the team's edits after
// setup.
func codexTrustTeam(t *testing.T, ctx context.Context, r *shapeRun) {
	t.Helper()
	if !r.sh.Setup.CodexProjectTrusted {
		return
	}
	team := func(h codex.Hook) bool {
		return h.Source == "project" && !strings.Contains(h.Command, "kanbus-compaction-right-now.sh")
	}
	hl, err := codex.List(ctx, codex.Options{Codex: r.bin, Env: r.env, Dir: r.s.repo, ClientVersion: "nowhook-e2e"}, r.s.repo)
	if err != nil {
		t.Fatalf("hooks/list: %v", err)
	}
	n := 0
	for _, h := range hl.Hooks {
		if team(h) {
			n++
		}
	}
	if n == 0 {
		return
	}
	res, err := codex.Trust(ctx, codex.Options{Codex: r.bin, Env: r.env, Dir: r.s.repo, ClientVersion: "nowhook-e2e"},
		codex.TrustRequest{Root: r.s.repo, Select: team})
	if err != nil {
		t.Fatalf("trusting the team's own Codex hooks: %v", err)
	}
	t.Logf("trusted the team's own Codex hooks: %v", res.Recorded)
}

var shapesQwen = &shapesClient{agent: "qwen", command: "qwen", sample: 0, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newQwenMock(t, false, "")
		qwenHome(t, r.s)
		// A worktree is a folder of its own for Qwen's folder trust: the
		// user trusts it when Qwen asks (before doctor looks).
		for _, wt := range []string{worktreeBefore, worktreeAfter} {
			trustAlso(t, r.s, filepath.Join(r.s.root, wt))
		}
		r.state = m
		r.env = qwenEnv(r.s, m)
		r.tools = r.env
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		m := r.state.(*qwenMock)
		seen := len(m.Recorded())
		runQwenSession(t, ctx, r.bin, r.env, dir, []string{"hello", "/compress", "What was I working on?"}, nil)
		reqs := m.Recorded()[seen:]
		return splitAt(bodiesOf(reqs), qwenSummaryIndex(t, reqs))
	},
}

var shapesOpencode = &shapesClient{agent: "opencode", command: "opencode", sample: 0, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := opencodeMock(t, false)
		opencodeConfig(t, r.s, m)
		r.state = m
		r.env = opencodeEnv(r.s)
		r.tools = r.env
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		m := r.state.(*chatMock)
		seen := len(m.Recorded())
		run := opencodeSessionIn(t, ctx, r.s, m, r.bin, r.env, dir, true)
		reqs := run.rec[seen:]
		idx := onlyRequest(t, reqs, "summary", "OpenCode never compacted")
		res := splitAt(bodiesOf(reqs), idx)
		res.first = firstTurnBody(t, reqs)
		return res
	},
}

var shapesGemini = &shapesClient{agent: "gemini", command: "gemini", sample: 0, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newGeminiMultiMock(t, 1, 0)
		r.env = append(geminiEnv(t, r.s, m), "GEMINI_CLI_NO_RELAUNCH=true")
		r.tools = r.env
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		// A mock forces one compression in one headless run; a new one
		// for each run.
		m := newGeminiMultiMock(t, 1, 0)
		env := append(geminiEnv(t, r.s, m), "GEMINI_CLI_NO_RELAUNCH=true")
		run := runGeminiIn(t, ctx, dir, m, r.bin, env)
		summary, turn := geminiTurnAfterCompression(t, run.reqs)
		res := sessionResult{first: geminiFirstTurn(t, run).Body, upTo: bodiesOf(run.reqs[:summary+1])}
		res.afterCompact = run.reqs[turn].Body
		return res
	},
}

var shapesDroid = &shapesClient{agent: "droid", command: "droid", sample: 1, compacts: true,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := droidMock(t, &probeChat{})
		r.state = m
		r.env = withHome(r.s, droidHome(t, m, ""))
		r.tools = r.env
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		m := r.state.(*chatMock)
		seen := len(m.Requests())
		d := startDroidRPC(t, ctx, r.bin, r.env, dir)
		d.call(ctx, "droid.initialize_session", map[string]any{"machineId": "e2e", "cwd": dir, "modelId": "custom:mock-model"})
		d.say(ctx, "hello")
		d.compact(ctx)
		d.say(ctx, "What was I working on?")
		d.stdin.Close()
		reqs := m.Requests()[seen:]
		var bodies [][]byte
		for _, q := range reqs {
			bodies = append(bodies, q.Body)
		}
		return splitAt(bodies, summaryAt(t, reqs))
	},
}

// clineState is a Cline run's mock and HOME.
type clineState struct {
	m    *chatMock
	home string
}

var shapesCline = &shapesClient{agent: "cline", command: "cline", sample: 0,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newChatMock(t, (&probeChat{summaryPhrases: []string{clineSummaryPhrase}}).reply)
		home := clineHome(t, ctx, r.bin, m)
		r.state = &clineState{m: m, home: home}
		r.env = probeEnv(home)
		r.tools = withHome(r.s, home)
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		st := r.state.(*clineState)
		seen := len(st.m.Requests())
		clineRun(t, ctx, r.bin, st.home, dir, "say hello")
		killByHome(t, st.home) // its hub daemon keeps the folder it started in
		reqs := st.m.Requests()[seen:]
		if len(reqs) == 0 {
			t.Fatal("cline sent no request")
		}
		return sessionResult{first: reqs[0].Body}
	},
}

// continueState is a Continue CLI run's mock, HOME and config.
type continueState struct {
	m            *chatMock
	home, config string
}

var shapesContinue = &shapesClient{agent: "continue", command: "cn", sample: 0,
	prepare: func(t *testing.T, ctx context.Context, r *shapeRun) {
		m := newChatMock(t, (&probeChat{}).reply)
		home := t.TempDir()
		r.state = &continueState{m: m, home: home, config: continueConfig(t, home, m)}
		r.env = probeEnv(home)
		r.tools = withHome(r.s, home)
	},
	session: func(t *testing.T, ctx context.Context, r *shapeRun, dir string) sessionResult {
		st := r.state.(*continueState)
		seen := len(st.m.Requests())
		res := runCmd(t, ctx, r.env, dir, "", r.bin, "--config", st.config, "-p", "say hello")
		if res.err != nil {
			t.Fatalf("cn -p: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		reqs := st.m.Requests()[seen:]
		if len(reqs) == 0 {
			t.Fatal("cn sent no request")
		}
		return sessionResult{first: reqs[0].Body}
	},
}
