package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestReadsFoldersProbe measures, without nowhook, which instruction files
// each client puts into its first request when the repository nests them
// (a package folder with its own CLAUDE.md, AGENTS.md, GEMINI.md or
// QWEN.md) and the session starts in one folder or another: the facts of
// docs/platforms.md's "Instruction files: nested folders". Run by hand:
//
//	NOWHOOK_E2E_PROBE=folders go test ./cmd/nowhook/e2e/ -run TestReadsFoldersProbe -v
//
// (NOWHOOK_E2E_PROBE_CLIENTS=claude,codex narrows the clients.)
func TestReadsFoldersProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "folders" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=folders")
	}
	type cell struct {
		files []string // each holds a marker line "(fprobe-PATH)"
		start []string
	}
	cells := map[string][]cell{
		"claude": {
			{[]string{"AGENTS.md", "pkg/CLAUDE.md"}, []string{".", "pkg", "pkg/sub"}},
			{[]string{"CLAUDE.md", "pkg/AGENTS.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "pkg/AGENTS.md"}, []string{".", "pkg"}},
			{[]string{"CLAUDE.md", "pkg/CLAUDE.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md", "pkg/AGENTS.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md", ".claude/rules/r.md"}, []string{".", "pkg", "pkg/sub"}},
			{[]string{"AGENTS.md", "pkg/.claude/rules/p.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md=@AGENTS.md", "pkg/AGENTS.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md=@../AGENTS.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", ".claude/CLAUDE.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "pkg/.claude/CLAUDE.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "other/CLAUDE.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "CLAUDE.local.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.local.md"}, []string{"pkg"}},
			{[]string{"CLAUDE.md=@docs/rules.md", "docs/rules.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md=@docs/rules.md", "docs/rules.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md=@../docs/rules.md", "docs/rules.md"}, []string{"pkg"}},
		},
		"codex": {
			{[]string{"AGENTS.md", "pkg/AGENTS.md"}, []string{".", "pkg", "pkg/sub"}},
			{[]string{"CLAUDE.md", "pkg/AGENTS.md"}, []string{"pkg"}},
			{[]string{"AGENTS.md", "pkg/AGENTS.override.md", "pkg/AGENTS.md"}, []string{"pkg"}},
			{[]string{"pkg/AGENTS.md"}, []string{"."}},
		},
		"gemini": {
			{[]string{"GEMINI.md", "pkg/GEMINI.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/GEMINI.md"}, []string{".", "pkg"}},
		},
		"qwen": {
			{[]string{"QWEN.md", "AGENTS.md", "pkg/QWEN.md", "pkg/AGENTS.md"}, []string{".", "pkg"}},
		},
		"opencode": {
			{[]string{"AGENTS.md", "pkg/AGENTS.md"}, []string{".", "pkg"}},
			{[]string{"AGENTS.md", "pkg/CLAUDE.md"}, []string{"pkg"}},
			{[]string{"CLAUDE.md", "pkg/AGENTS.md"}, []string{"pkg"}},
		},
		"droid": {
			{[]string{"AGENTS.md", "pkg/CLAUDE.md"}, []string{"pkg"}},
			{[]string{"CLAUDE.md", "pkg/AGENTS.md", "pkg/CLAUDE.md"}, []string{".", "pkg"}},
		},
	}
	clients := []string{"claude", "codex", "gemini", "qwen", "opencode", "droid"}
	if c := os.Getenv("NOWHOOK_E2E_PROBE_CLIENTS"); c != "" {
		clients = strings.Split(c, ",")
	}
	for _, client := range clients {
		for _, c := range cells[client] {
			for _, start := range c.start {
				name := client + "/" + strings.ReplaceAll(strings.Join(c.files, "+"), "/", "_") + "/from-" + strings.ReplaceAll(start, "/", "_")
				t.Run(name, func(t *testing.T) {
					s := newSandbox(t, kbsFixture)
					files := map[string]string{}
					for _, f := range c.files {
						path, content, _ := strings.Cut(f, "=")
						files[path] = "# " + path + "\n\nmarker line " + folderMarker(path) + ".\n"
						if content != "" {
							files[path] = content + "\n\n" + files[path]
						}
					}
					for p, body := range files {
						writeFile(t, filepath.Join(s.repo, filepath.FromSlash(p)), body, 0o644)
					}
					writeFile(t, filepath.Join(s.repo, "pkg", "sub", "main.go"), "package sub\n", 0o644)
					writeFile(t, filepath.Join(s.repo, "other", "main.go"), "package other\n", 0o644)
					s.commitAll(t, "probe")
					body := folderProbeFirst(t, client, s, filepath.Join(s.repo, filepath.FromSlash(start)))
					var got []string
					for p := range files {
						if bodyContains(t, body, folderMarker(p)) {
							got = append(got, p)
						}
					}
					sort.Strings(got)
					t.Logf("FPROBE %s files=%v start=%s -> first request has %v%s", client, c.files, start, got, markerOrder(body, files))
				})
			}
		}
	}
}

func folderMarker(path string) string { return "(fprobe-" + path + ")" }

// markerOrder says in which order the markers appear in the request.
func markerOrder(body []byte, files map[string]string) string {
	type at struct {
		p string
		i int
	}
	var order []at
	s := string(body)
	for p := range files {
		if i := strings.Index(s, folderMarker(p)); i >= 0 {
			order = append(order, at{p, i})
		}
	}
	if len(order) < 2 {
		return ""
	}
	sort.Slice(order, func(i, j int) bool { return order[i].i < order[j].i })
	var names []string
	for _, o := range order {
		names = append(names, o.p)
	}
	return " in the order " + strings.Join(names, ", ")
}

// folderProbeFirst runs the client once in dir with "hello" and returns
// the body of its first ordinary model request.
func folderProbeFirst(t *testing.T, client string, s *sandbox, dir string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	switch client {
	case "claude":
		bin := findClient(t, "CLAUDE_BIN", "claude")
		m := newAnthropicMock(t)
		runClaudeSession(t, ctx, bin, claudeEnv(s, m.URL), dir, []string{"hello"})
		return m.Requests()[0].Body
	case "gemini":
		bin := findClient(t, "GEMINI_BIN", "gemini")
		m := newGeminiMock(t, false)
		run := runGeminiIn(t, ctx, dir, m, bin, geminiEnv(t, s, m))
		for _, r := range run.reqs {
			if r.Kind == "turn" {
				return r.Body
			}
		}
		t.Fatal("gemini: no turn request")
	case "droid":
		bin := findClient(t, "DROID_BIN", "droid")
		m := droidMock(t, &probeChat{})
		env := probeEnv(droidHome(t, m, ""))
		res := runCmd(t, ctx, env, dir, "", bin, "exec", "-m", "custom:mock-model", "hello")
		if res.err != nil {
			t.Fatalf("droid exec: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		reqs := m.Requests()
		if len(reqs) == 0 {
			t.Fatal("droid: no request")
		}
		return reqs[0].Body
	}
	return probeFirst(t, client, s, dir)
}

// TestReadsCodexBudgetProbe measures how Codex CLI joins the AGENTS.md of
// each folder from the root down to the session's under one
// project_doc_max_bytes, what it cuts first, and whether a cap set in the
// project's .codex/config.toml counts while the project is not trusted.
//
//	NOWHOOK_E2E_PROBE=codex-budget go test ./cmd/nowhook/e2e/ -run TestReadsCodexBudgetProbe -v
func TestReadsCodexBudgetProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "codex-budget" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=codex-budget")
	}
	bin := findClient(t, "CODEX_BIN", "codex")
	lines := func(tag string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %s-%02d of the team's rules, forty bytes.\n", tag, i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name       string
		userCap    string // a line for the user config, or ""
		projectCap string // a line for the project's .codex/config.toml, or ""
		trusted    bool
		start      string
	}{
		{name: "user-cap-1000-from-pkg", userCap: "project_doc_max_bytes = 1000", start: "pkg"},
		{name: "user-cap-1000-from-root", userCap: "project_doc_max_bytes = 1000", start: "."},
		{name: "project-cap-300-untrusted", projectCap: "project_doc_max_bytes = 300", start: "pkg"},
		{name: "project-cap-300-trusted", projectCap: "project_doc_max_bytes = 300", trusted: true, start: "pkg"},
		{name: "user-cap-300-project-cap-5000-untrusted", userCap: "project_doc_max_bytes = 300", projectCap: "project_doc_max_bytes = 5000", start: "pkg"},
		{name: "user-cap-300-project-cap-5000-trusted", userCap: "project_doc_max_bytes = 300", projectCap: "project_doc_max_bytes = 5000", trusted: true, start: "pkg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			writeFile(t, filepath.Join(s.repo, "AGENTS.md"), lines("root", 15), 0o644)
			writeFile(t, filepath.Join(s.repo, "pkg", "AGENTS.md"), lines("pkg", 15), 0o644)
			if c.projectCap != "" {
				writeFile(t, filepath.Join(s.repo, ".codex", "config.toml"), c.projectCap+"\n", 0o644)
			}
			s.commitAll(t, "probe")
			m := newPlainResponsesMock(t)
			home := codexManualHome(t, s, m)
			cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
			top := ""
			if c.userCap != "" {
				top = c.userCap + "\n"
			}
			extra := ""
			if c.trusted {
				real, _ := filepath.EvalSymlinks(s.repo)
				extra = fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", real)
			}
			writeFile(t, filepath.Join(home, "config.toml"), top+string(cfg)+extra, 0o644)
			env := codexEnv(s, home)
			res := runCmd(t, ctx, env, filepath.Join(s.repo, c.start), "", bin, "exec", "--strict-config", "--skip-git-repo-check", "hello")
			if res.err != nil {
				t.Fatalf("codex exec: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			strs, _ := jsonStrings(m.Requests()[0].Body)
			for _, str := range strs {
				if strings.Contains(str, "forty bytes") {
					t.Logf("CBPROBE %s: instructions text (%d bytes):\n%s", c.name, len(str), str)
				}
			}
		})
	}
}

// TestReadsGeminiFileNameProbe measures which context files Gemini CLI
// loads when context.fileName names other files, set in the project's
// .gemini/settings.json or in the user's.
//
//	NOWHOOK_E2E_PROBE=gemini-filename go test ./cmd/nowhook/e2e/ -run TestReadsGeminiFileNameProbe -v
func TestReadsGeminiFileNameProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "gemini-filename" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=gemini-filename")
	}
	bin := findClient(t, "GEMINI_BIN", "gemini")
	for _, c := range []struct {
		name, where, setting, start string
	}{
		{"project-CONTEXT", "project", `"CONTEXT.md"`, "."},
		{"project-AGENTS", "project", `["AGENTS.md"]`, "."},
		{"project-AGENTS-CONTEXT", "project", `["AGENTS.md", "CONTEXT.md"]`, "."},
		{"user-CONTEXT", "user", `"CONTEXT.md"`, "."},
		{"user-AGENTS", "user", `["AGENTS.md"]`, "."},
		{"project-CONTEXT-from-pkg", "project", `"CONTEXT.md"`, "pkg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			files := []string{"GEMINI.md", "CONTEXT.md", "AGENTS.md", "pkg/GEMINI.md", "pkg/CONTEXT.md"}
			for _, f := range files {
				writeFile(t, filepath.Join(s.repo, filepath.FromSlash(f)), "# "+f+"\n\nmarker line "+folderMarker(f)+".\n", 0o644)
			}
			m := newGeminiMock(t, false)
			env := geminiEnv(t, s, m)
			setting := `{"context": {"fileName": ` + c.setting + `}}` + "\n"
			if c.where == "project" {
				writeFile(t, filepath.Join(s.repo, ".gemini", "settings.json"), setting, 0o644)
			} else {
				writeFile(t, filepath.Join(s.home, ".gemini", "settings.json"), strings.Replace(geminiUserSettings, "{\n", `{"context": {"fileName": `+c.setting+`},`+"\n", 1), 0o644)
			}
			s.commitAll(t, "probe")
			run := runGeminiIn(t, ctx, filepath.Join(s.repo, c.start), m, bin, env)
			var body []byte
			for _, r := range run.reqs {
				if r.Kind == "turn" {
					body = r.Body
					break
				}
			}
			var got []string
			for _, f := range files {
				if bodyContains(t, body, folderMarker(f)) {
					got = append(got, f)
				}
			}
			t.Logf("GFPROBE %s (context.fileName %s in the %s settings, start %s) -> first request has %v", c.name, c.setting, c.where, c.start, got)
		})
	}
}

// TestReadsBigClaudeMDProbe measures whether Claude Code cuts a CLAUDE.md of
// more than 40,000 characters, and whether Codex CLI reads the files
// project_doc_fallback_filenames names.
//
//	NOWHOOK_E2E_PROBE=big go test ./cmd/nowhook/e2e/ -run TestReadsBigClaudeMDProbe -v
func TestReadsBigClaudeMDProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "big" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=big")
	}
	t.Run("claude-50k", func(t *testing.T) {
		s := newSandbox(t, kbsFixture)
		body := "first line " + folderMarker("head") + "\n" + strings.Repeat("filler line of the team's notes, forty-four chars.\n", 1000) + "last line " + folderMarker("tail") + "\n"
		writeFile(t, filepath.Join(s.repo, "CLAUDE.md"), body, 0o644)
		writeFile(t, filepath.Join(s.repo, "AGENTS.md"), "agents "+folderMarker("agents")+"\n", 0o644)
		s.commitAll(t, "probe")
		b := folderProbeFirst(t, "claude", s, s.repo)
		t.Logf("BIGPROBE claude CLAUDE.md of %d bytes: head %v tail %v agents %v", len(body), bodyContains(t, b, folderMarker("head")), bodyContains(t, b, folderMarker("tail")), bodyContains(t, b, folderMarker("agents")))
	})
	t.Run("codex-fallback", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		bin := findClient(t, "CODEX_BIN", "codex")
		s := newSandbox(t, kbsFixture)
		writeFile(t, filepath.Join(s.repo, "TEAM.md"), "team "+folderMarker("TEAM.md")+"\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "pkg", "TEAM.md"), "pkg team "+folderMarker("pkg/TEAM.md")+"\n", 0o644)
		writeFile(t, filepath.Join(s.repo, "pkg", "AGENTS.md"), "pkg agents "+folderMarker("pkg/AGENTS.md")+"\n", 0o644)
		s.commitAll(t, "probe")
		m := newPlainResponsesMock(t)
		home := codexManualHome(t, s, m)
		cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
		writeFile(t, filepath.Join(home, "config.toml"), "project_doc_fallback_filenames = [\"TEAM.md\"]\n"+string(cfg), 0o644)
		res := runCmd(t, ctx, codexEnv(s, home), filepath.Join(s.repo, "pkg"), "", bin, "exec", "--strict-config", "--skip-git-repo-check", "hello")
		if res.err != nil {
			t.Fatalf("codex exec: %v\n%s%s", res.err, res.stdout, res.stderr)
		}
		b := m.Requests()[0].Body
		t.Logf("BIGPROBE codex fallback TEAM.md from pkg: TEAM.md %v pkg/TEAM.md %v pkg/AGENTS.md %v", bodyContains(t, b, folderMarker("TEAM.md")), bodyContains(t, b, folderMarker("pkg/TEAM.md")), bodyContains(t, b, folderMarker("pkg/AGENTS.md")))
	})
}

// TestReadsDroidLinksProbe measures whether Factory Droid reads an
// instruction file that is a symbolic link.
//
//	NOWHOOK_E2E_PROBE=droid-links go test ./cmd/nowhook/e2e/ -run TestReadsDroidLinksProbe -v
func TestReadsDroidLinksProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "droid-links" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=droid-links")
	}
	for _, c := range []struct{ name, link, target string }{
		{"agents-link", "AGENTS.md", "docs/agent-rules.md"},
		{"claude-link", "CLAUDE.md", "docs/agent-rules.md"},
		{"agents-link-beside", "AGENTS.md", "TEAM.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSandbox(t, kbsFixture)
			writeFile(t, filepath.Join(s.repo, filepath.FromSlash(c.target)), "rules "+folderMarker(c.target)+"\n", 0o644)
			rel, _ := filepath.Rel(filepath.Dir(filepath.Join(s.repo, c.link)), filepath.Join(s.repo, filepath.FromSlash(c.target)))
			if err := os.Symlink(rel, filepath.Join(s.repo, c.link)); err != nil {
				t.Fatal(err)
			}
			s.commitAll(t, "probe")
			b := folderProbeFirst(t, "droid", s, s.repo)
			t.Logf("DLPROBE %s: %s -> %s: marker in the first request %v", c.name, c.link, c.target, bodyContains(t, b, folderMarker(c.target)))
		})
	}
}

// TestReadsQwenFileNameProbe measures which context files Qwen Code loads
// where context.fileName names others.
//
//	NOWHOOK_E2E_PROBE=qwen-filename go test ./cmd/nowhook/e2e/ -run TestReadsQwenFileNameProbe -v
func TestReadsQwenFileNameProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "qwen-filename" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=qwen-filename")
	}
	for _, c := range []struct{ name, setting, start string }{
		{"TEAM", `"TEAM.md"`, "."},
		{"QWEN-only", `["QWEN.md"]`, "."},
		{"AGENTS-TEAM", `["AGENTS.md", "TEAM.md"]`, "."},
		{"TEAM-from-pkg", `"TEAM.md"`, "pkg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSandbox(t, kbsFixture)
			files := []string{"QWEN.md", "AGENTS.md", "TEAM.md"}
			for _, f := range files {
				writeFile(t, filepath.Join(s.repo, f), "# "+f+"\n\nmarker line "+folderMarker(f)+".\n", 0o644)
			}
			writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), `{"context": {"fileName": `+c.setting+`}}`+"\n", 0o644)
			writeFile(t, filepath.Join(s.repo, "pkg", "main.go"), "package pkg\n", 0o644)
			s.commitAll(t, "probe")
			b := folderProbeFirst(t, "qwen", s, filepath.Join(s.repo, c.start))
			var got []string
			for _, f := range files {
				if bodyContains(t, b, folderMarker(f)) {
					got = append(got, f)
				}
			}
			t.Logf("QFPROBE context.fileName %s (root settings) from %s -> first request has %v", c.setting, c.start, got)
		})
	}
}

// TestReadsQwenStartupContextProbe measures whether a team's own startup
// SessionStart hook's text stays in Qwen Code's requests after /compress,
// without nowhook and with nowhook's compact hook beside it (shapes: seed
// 4).
//
//	NOWHOOK_E2E_PROBE=qwen-startup go test ./cmd/nowhook/e2e/ -run TestReadsQwenStartupContextProbe -v
func TestReadsQwenStartupContextProbe(t *testing.T) {
	t.Parallel()
	if os.Getenv("NOWHOOK_E2E_PROBE") != "qwen-startup" {
		t.Skip("probe: set NOWHOOK_E2E_PROBE=qwen-startup")
	}
	bin := findClient(t, "QWEN_BIN", "qwen")
	for _, c := range []struct {
		withNowhook bool
		matcher     string
	}{{false, "startup|resume"}, {true, "startup|resume"}, {true, "startup|resume|compact"}} {
		withNowhook := c.withNowhook
		t.Run(fmt.Sprintf("nowhook=%v/%s", withNowhook, c.matcher), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			s := newSandbox(t, kbsFixture)
			qwenKbs(t, s, kbsFixture, "")
			m := newQwenMock(t, false, "")
			qwenHome(t, s)
			env := qwenEnv(s, m)
			writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), `{"hooks": {"SessionStart": [{"matcher": "`+c.matcher+`", "hooks": [{"type": "command", "command": "echo 'Team hook line tmk_qstart_1'"}]}]}}`+"\n", 0o644)
			if withNowhook {
				setupQwen(t, ctx, s, s.repo)
			}
			runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "/compress", "What was I working on?"}, nil)
			reqs := m.Recorded()
			idx := qwenSummaryIndex(t, reqs)
			t.Logf("QSPROBE nowhook=%v, team matcher %q: team line in the first request %v, in the first request after /compress %v, reminder there %v",
				withNowhook, c.matcher, bodyContains(t, reqs[0].Body, "tmk_qstart_1"), bodyContains(t, reqs[idx+1].Body, "tmk_qstart_1"), bodyContains(t, reqs[idx+1].Body, expectedReminder(t)))
		})
	}
}
