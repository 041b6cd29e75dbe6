package shapes

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Generate makes the shape of seed (a positive number; the differential
// test's -seed S runs seeds S, S+1, ...).
func Generate(seed int64) Shape {
	b := newBuilder(strconv.FormatInt(seed, 10), uint64(seed))
	b.s.Seed = seed
	b.s.Name = fmt.Sprintf("seed-%d", seed)
	g := &generation{builder: b}
	g.packages()
	g.instructionFiles()
	g.extras()
	g.contextNames()
	g.hooks()
	g.kanbus()
	g.linksAndStarts()
	g.setup()
	g.budgets()
	g.gitignore()
	return b.finish()
}

// generation is one run of Generate: the builder and what it decided.
type generation struct {
	*builder
	pkgs []string // package folders, in order
	deep string   // a folder inside a package holding an instruction file, or ""
	// folders that may hold instruction files, root first
	folders []folder
	docs    string // the shared rules file, or ""
	// codexProject are the lines of the project's .codex/config.toml.
	codexProject []string
	teamMD       bool // TEAM.md exists (a custom context file name)
	codexHooks   bool // the team has hooks in .codex/hooks.json
}

type folder struct {
	dir   string
	depth int
	kind  string // root, between (a folder above a package), package, deep
}

var (
	pkgNames   = []string{"api", "web", "worker", "billing", "auth", "cli", "sdk", "ingest", "search", "admin", "gateway", "notify", "ledger", "mobile"}
	pkgParents = []string{"packages", "services", "apps", "libs", "tools"}
	pkgGroups  = []string{"core", "edge", "platform", "data"}
)

// packages makes one to three package folders at depths 1 to 3, each with
// its manifest and a source file.
func (g *generation) packages() {
	g.add("README.md", "# The team's project\n\nA repository for the differential test.\n")
	if g.chance(0.25) {
		g.add("package.json", "{\n  \"name\": \"team-monorepo\",\n  \"private\": true,\n  \"workspaces\": [\"packages/*\", \"apps/*\"]\n}\n")
	}
	n := 1 + g.intn(3)
	for len(g.pkgs) < n {
		name := g.pick(pkgNames)
		var dir string
		switch 1 + g.intn(3) {
		case 1:
			dir = name
		case 2:
			dir = g.pick(pkgParents) + "/" + name
		default:
			dir = g.pick(pkgParents) + "/" + g.pick(pkgGroups) + "/" + name
		}
		clash := false
		for _, p := range g.pkgs {
			if p == dir || strings.HasPrefix(p+"/", dir+"/") || strings.HasPrefix(dir+"/", p+"/") {
				clash = true
			}
		}
		if clash {
			continue
		}
		g.pkgs = append(g.pkgs, dir)
		g.manifest(dir, name)
	}
	if len(g.pkgs) > 1 {
		g.dim(DimSeveralPackage)
	}
}

func (g *generation) manifest(dir, name string) {
	switch g.intn(4) {
	case 0:
		g.add(dir+"/go.mod", "module example.com/team/"+name+"\n\ngo 1.22\n")
		g.add(dir+"/main.go", "package main\n\nfunc main() {}\n")
	case 1:
		g.add(dir+"/package.json", "{\n  \"name\": \"@team/"+name+"\",\n  \"version\": \"1.0.0\",\n  \"private\": true\n}\n")
		g.add(dir+"/index.js", "module.exports = {};\n")
	case 2:
		g.add(dir+"/pyproject.toml", "[project]\nname = \""+name+"\"\nversion = \"0.1.0\"\n")
		g.add(dir+"/main.py", "def main():\n    pass\n")
	default:
		g.add(dir+"/Cargo.toml", "[package]\nname = \""+name+"\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
		g.add(dir+"/src/lib.rs", "pub fn run() {}\n")
	}
}

func depthOf(dir string) int { return len(splitPath(dir)) }

// instructionFiles decides, folder by folder (the root, the folders above
// the packages, the packages, one folder inside a package), which of
// AGENTS.md, CLAUDE.md, GEMINI.md and QWEN.md it holds, and whether each
// is a file of its own, a link to another, or imports another.
func (g *generation) instructionFiles() {
	g.folders = []folder{{".", 0, "root"}}
	seen := map[string]bool{".": true}
	for _, p := range g.pkgs {
		parts := splitPath(p)
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/")
			if !seen[d] {
				seen[d] = true
				g.folders = append(g.folders, folder{d, i, "between"})
			}
		}
	}
	for _, p := range g.pkgs {
		g.folders = append(g.folders, folder{p, depthOf(p), "package"})
	}
	if p := g.pkgs[g.intn(len(g.pkgs))]; depthOf(p) < 3 && g.chance(0.3) {
		g.deep = p + "/" + g.pick([]string{"internal", "docs", "src", "scripts"})
		g.folders = append(g.folders, folder{g.deep, depthOf(g.deep), "deep"})
	}
	if g.chance(0.25) {
		g.docs = "docs/agent-rules.md"
		g.add(g.docs, g.instructions(g.docs, "Shared agent rules", 2+g.intn(4)))
	}
	for _, f := range g.folders {
		g.folderFiles(f)
	}
}

// probabilities of each instruction file by kind of folder: AGENTS.md,
// CLAUDE.md, GEMINI.md, QWEN.md.
var fileOdds = map[string][4]float64{
	"root":    {0.7, 0.5, 0.3, 0.2},
	"between": {0.12, 0.1, 0.05, 0.04},
	"package": {0.35, 0.35, 0.15, 0.12},
	"deep":    {0.5, 0.5, 0.1, 0.1},
}

func (g *generation) folderFiles(f folder) {
	odds := fileOdds[f.kind]
	want := [4]bool{}
	for i, p := range odds {
		want[i] = g.chance(p)
	}
	if f.kind == "deep" && !want[0] && !want[1] {
		want[g.intn(2)] = true
	}
	at := func(name string) string { return path.Join(f.dir, name) }
	nested := func(d Dim) {
		if f.depth > 0 {
			g.dim(d)
		}
	}
	any := false
	if want[0] {
		any = true
		nested(DimNestedAgents)
		p := at("AGENTS.md")
		switch {
		case f.kind == "root" && g.docs != "" && g.chance(0.3):
			g.link(p, g.docs)
			g.dim(DimLinkAcross)
		case f.depth > 0 && g.has("AGENTS.md") && g.chance(0.1):
			g.link(p, "AGENTS.md")
			g.dim(DimLinkAcross)
		default:
			g.add(p, g.instructions(p, "Agent rules for "+f.dir, 1+g.intn(6)))
		}
	}
	if want[1] {
		any = true
		nested(DimNestedClaude)
		p := at("CLAUDE.md")
		switch {
		case g.has(at("AGENTS.md")) && g.chance(0.3):
			g.link(p, at("AGENTS.md"))
			g.dim(DimLinkBeside)
		case f.depth > 0 && g.chance(0.08):
			target := "AGENTS.md"
			if !g.has(target) {
				target = "CLAUDE.md"
			}
			if g.has(target) {
				g.link(p, target)
				g.dim(DimLinkAcross)
			} else {
				g.add(p, g.withImports(f, p, "Claude notes", true))
			}
		default:
			g.add(p, g.withImports(f, p, "Claude notes", true))
		}
	}
	for i, name := range []string{"GEMINI.md", "QWEN.md"} {
		if !want[2+i] {
			continue
		}
		any = true
		nested([]Dim{DimNestedGemini, DimNestedQwen}[i])
		p := at(name)
		if g.has(at("AGENTS.md")) && g.chance(0.2) {
			g.link(p, at("AGENTS.md"))
			g.dim(DimLinkBeside)
			continue
		}
		g.add(p, g.withImports(f, p, strings.TrimSuffix(name, ".md")+" notes", false))
	}
	if any {
		g.dim([]Dim{DimDepth0, DimDepth1, DimDepth2, DimDepth3}[f.depth])
	}
}

// withImports is a CLAUDE.md (claude) or GEMINI.md / QWEN.md text: rule
// lines, perhaps with an import of the AGENTS.md beside it (Claude Code's
// `@AGENTS.md`, Gemini's and Qwen's `@./AGENTS.md`), first or last, and of
// the shared rules file or the root's AGENTS.md by relative path.
func (g *generation) withImports(f folder, p, title string, claude bool) string {
	text := g.instructions(p, title, 1+g.intn(4))
	var first, last []string
	if g.has(path.Join(f.dir, "AGENTS.md")) && g.chance(0.35) {
		imp := "@AGENTS.md"
		if !claude {
			imp = "@./AGENTS.md"
		}
		if g.chance(0.5) {
			first = append(first, imp)
		} else {
			last = append(last, imp)
		}
		g.dim(DimImportAgents)
	}
	if g.docs != "" && g.chance(0.35) {
		last = append(last, "@"+relPath(f.dir, g.docs))
		g.dim(DimImportPath)
	} else if f.depth > 0 && g.has("AGENTS.md") && g.chance(0.12) {
		last = append(last, "@"+relPath(f.dir, "AGENTS.md"))
		g.dim(DimImportPath)
	}
	if len(first) > 0 {
		text = strings.Join(first, "\n") + "\n\n" + text
	}
	if len(last) > 0 {
		text += "\n" + strings.Join(last, "\n") + "\n"
	}
	return text
}

// extras are the other instruction files agents read, each with its odds,
// the odds of being in the first package instead of the root (0: always
// at the root), and at most how many rule lines it holds.
var extras = []struct {
	odds, inPackage float64
	path, title     string
	lines           int
	local           bool
	dim             Dim
}{
	{0.05, 0.5, "AGENTS.override.md", "Local override", 3, false, DimOverride},
	{0.04, 0, ".claude/CLAUDE.md", "Claude project memory", 3, false, DimClaudeDir},
	{0.07, 0, "CLAUDE.local.md", "My own notes", 2, true, DimClaudeLocal},
	{0.1, 0.3, ".claude/rules/team-style.md", "Team style", 3, false, DimClaudeRules},
	{0.08, 0, ".clinerules/team.md", "Cline rules", 3, false, DimClineRules},
	{0.06, 0, ".continue/rules/team.md", "Continue rules", 3, false, DimContinueRule},
}

func (g *generation) extras() {
	for _, e := range extras {
		if !g.chance(e.odds) {
			continue
		}
		p := e.path
		if e.inPackage > 0 && g.chance(e.inPackage) {
			p = path.Join(g.pkgs[0], e.path)
		}
		g.add(p, g.instructions(p, e.title, 1+g.intn(e.lines))).Local = e.local
		g.dim(e.dim)
	}
}

// teamFile makes TEAM.md (a custom context file name) at the root, and
// perhaps in the first package.
func (g *generation) teamFile() {
	if g.teamMD {
		return
	}
	g.teamMD = true
	g.add("TEAM.md", g.instructions("TEAM.md", "Team handbook", 1+g.intn(4)))
	if g.chance(0.3) {
		p := g.pkgs[0] + "/TEAM.md"
		g.add(p, g.instructions(p, "Team handbook for "+g.pkgs[0], 1+g.intn(3)))
	}
}

// contextNames decides the custom context file names (Gemini's and Qwen's
// context.fileName, Codex's project_doc_fallback_filenames) and Codex's
// project_doc_max_bytes; the settings files are written by hooks().
func (g *generation) contextNames() {
	if g.chance(0.12) {
		cap := g.pick([]string{"65536", "16384", "49152"})
		if g.codexLine("project_doc_max_bytes = " + cap) {
			g.dim(DimCodexCapProj)
		} else {
			g.dim(DimCodexCapUser)
		}
	}
	if g.chance(0.1) {
		names := g.pick([]string{`["TEAM.md"]`, `["CLAUDE.md"]`, `["TEAM.md", "CLAUDE.md"]`})
		if strings.Contains(names, "TEAM.md") {
			g.teamFile()
		}
		g.codexLine("project_doc_fallback_filenames = " + names)
		g.dim(DimCodexFallback)
	}
	if len(g.codexProject) > 0 {
		g.add(".codex/config.toml", "# the team's Codex settings\n"+strings.Join(g.codexProject, "\n")+"\n")
	}
}

// codexLine puts a line into the project's .codex/config.toml (and
// returns true) or into the user's config.toml.
func (g *generation) codexLine(line string) bool {
	if g.chance(0.6) {
		g.codexProject = append(g.codexProject, line)
		return true
	}
	g.s.Setup.CodexUser = append(g.s.Setup.CodexUser, line)
	return false
}

// Hook matchers a team uses for its SessionStart groups.
var startMatchers = []string{"startup", "startup", "compact", "", "startup|resume", "*", "startup|compact"}

// teamGroup makes one of the team's hook groups for the hook file p of
// client, and returns its event and JSON. Most print a line with a marker
// (as plain text; as Gemini CLI's JSON additionalContext for Gemini,
// which sends nothing else to the model), some print nothing.
func (g *generation) teamGroup(p, client string) (event, gj string) {
	gemini := client == "gemini"
	events := []string{"SessionStart", "SessionStart", "SessionStart", "UserPromptSubmit", "Stop"}
	if gemini {
		events = []string{"SessionStart", "SessionStart", "BeforeAgent", "AfterAgent"}
	}
	event = g.pick(events)
	timeout := 5
	if gemini {
		timeout = 5000
	}
	var matcher *string
	if event == "SessionStart" {
		m := g.pick(startMatchers)
		if gemini {
			m = g.pick([]string{"startup", "", "*"})
		}
		matcher = &m
	}
	if event == "Stop" || event == "AfterAgent" {
		return event, groupJSON(matcher, "true", timeout)
	}
	text := "Team hook (" + event + "): " + g.pick(sentences) + " [" + g.token(p, "hook") + "]"
	command := "echo " + shellQuote(text)
	switch {
	case gemini:
		out := object("hookSpecificOutput", object("hookEventName", quoted(event), "additionalContext", quoted(text)))
		command = "echo " + shellQuote(out)
	case client == "claude" && g.chance(0.3):
		script := fmt.Sprintf(".claude/hooks/team-%d.sh", g.n)
		g.add(script, "#!/bin/sh\n# the team's own hook\necho "+shellQuote(text)+"\n").Exec = true
		command = `"$CLAUDE_PROJECT_DIR"/` + script
		g.dim(DimHooksScript)
	}
	return event, groupJSON(matcher, command, timeout)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hooksObject is the "hooks" object of n team groups for file p: event ->
// groups, events in the order first drawn.
func (g *generation) hooksObject(p, client string, n int) string {
	var events []string
	groups := map[string][]string{}
	for i := 0; i < n; i++ {
		ev, gj := g.teamGroup(p, client)
		if _, ok := groups[ev]; !ok {
			events = append(events, ev)
		}
		groups[ev] = append(groups[ev], gj)
	}
	var members []string
	for _, ev := range events {
		members = append(members, ev, "["+strings.Join(groups[ev], ",")+"]")
	}
	return object(members...)
}

var indents = []string{"  ", "  ", "    ", "\t"}

// hooks writes the team's own settings and hook files: Claude Code's
// settings.json and settings.local.json, Codex's hooks.json, Qwen Code's
// and Gemini CLI's settings.json (with their context.fileName), Factory
// Droid's hooks.json or settings.json; and the groups the team adds after
// setup, behind ours.
func (g *generation) hooks() {
	// Claude Code.
	if g.chance(0.3) {
		var m []string
		if g.chance(0.2) {
			m = append(m, "$schema", quoted("https://json.schemastore.org/claude-code-settings.json"))
		}
		if g.chance(0.5) {
			m = append(m, "permissions", object("allow", `["Bash(make test)","Bash(git status)"]`))
		}
		m = append(m, "hooks", g.hooksObject(".claude/settings.json", "claude", 1+g.intn(2)))
		g.add(".claude/settings.json", indentJSON(object(m...), g.pick(indents)))
		g.dim(DimHooksClaude)
	} else if g.chance(0.15) {
		g.add(".claude/settings.json", indentJSON(object("permissions", object("allow", `["Bash(make test)"]`)), "  "))
	}
	if g.chance(0.15) {
		var m []string
		m = append(m, "permissions", object("allow", `["Bash(npm run dev)"]`))
		if g.chance(0.5) {
			m = append(m, "hooks", g.hooksObject(".claude/settings.local.json", "claude", 1))
			g.dim(DimHooksClaudeLocal)
		}
		if g.chance(0.12) {
			m = append(m, "disableAllHooks", "true")
			g.dim(DimDisableAllHooks)
		}
		g.add(".claude/settings.local.json", indentJSON(object(m...), "  ")).Local = true
		g.dim(DimSettingsLocal)
	}
	// Codex CLI.
	if g.chance(0.15) {
		var m []string
		if g.chance(0.2) {
			m = append(m, "description", quoted("the team's Codex hooks"))
		}
		m = append(m, "hooks", g.hooksObject(".codex/hooks.json", "codex", 1+g.intn(2)))
		g.add(".codex/hooks.json", indentJSON(object(m...), g.pick(indents)))
		g.codexHooks = true
		g.dim(DimHooksCodex)
	}
	// Qwen Code (JSON with comments).
	var qwen []string
	if g.chance(0.3) {
		qwen = append(qwen, "general", object("preferredEditor", quoted("vim")))
	}
	if g.chance(0.1) {
		qwen = append(qwen, "context", object("fileName", g.pick([]string{`["QWEN.md","TEAM.md"]`, `"TEAM.md"`, `["AGENTS.md","TEAM.md"]`})))
		g.teamFile()
		g.dim(DimQwenFileName)
	}
	if g.chance(0.15) {
		qwen = append(qwen, "hooks", g.hooksObject(".qwen/settings.json", "qwen", 1+g.intn(2)))
		g.dim(DimHooksQwen)
	}
	if len(qwen) > 0 {
		text := indentJSON(object(qwen...), "  ")
		if g.chance(0.3) {
			text = "// the team's Qwen Code settings\n" + text
		}
		g.add(".qwen/settings.json", text)
	}
	// Factory Droid: hooks.json is a bare event map; settings.json holds
	// "hooks".
	switch {
	case g.chance(0.1):
		g.add(".factory/hooks.json", indentJSON(g.hooksObject(".factory/hooks.json", "droid", 1+g.intn(2)), "  "))
		g.dim(DimHooksFactoryHooks)
	case g.chance(0.1):
		g.add(".factory/settings.json", indentJSON(object("hooks", g.hooksObject(".factory/settings.json", "droid", 1+g.intn(2))), "  "))
		g.dim(DimHooksFactorySettings)
	}
	// Gemini CLI.
	var gem []string
	if g.chance(0.15) {
		names := g.pick([]string{`"AGENTS.md"`, `["GEMINI.md","AGENTS.md"]`, `"TEAM.md"`, `["TEAM.md","GEMINI.md"]`})
		if strings.Contains(names, "TEAM.md") {
			g.teamFile()
		}
		gem = append(gem, "context", object("fileName", names))
		g.dim(DimGeminiFileName)
	}
	if g.chance(0.15) {
		gem = append(gem, "hooks", g.hooksObject(".gemini/settings.json", "gemini", 1+g.intn(2)))
		g.dim(DimHooksGemini)
	}
	if len(gem) > 0 {
		g.add(".gemini/settings.json", indentJSON(object(gem...), "  "))
	}
	// Groups the team adds after setup, behind the one setup wrote.
	for _, c := range []struct{ path, pointer, client string }{
		{".claude/settings.json", "/hooks/SessionStart", "claude"},
		{".codex/hooks.json", "/hooks/SessionStart", "codex"},
		{".qwen/settings.json", "/hooks/SessionStart", "qwen"},
		{".factory/settings.json", "/hooks/SessionStart", "droid"},
	} {
		if !g.chance(0.1) {
			continue
		}
		m := g.pick([]string{"compact", "compact", "startup", ""})
		text := "Team hook added after setup: " + g.pick(sentences) + " [" + g.token(c.path, "hook") + "]"
		g.s.After = append(g.s.After, Edit{Path: c.path, Pointer: c.pointer, Group: groupJSON(&m, "echo "+shellQuote(text), 5)})
		if c.client == "codex" {
			g.codexHooks = true
		}
		g.dim(DimHooksAfterOurs)
	}
}

// kanbus places the Kanbus projects: at the root, in packages, both, or
// (rarely) none.
func (g *generation) kanbus() {
	if g.chance(0.75) {
		g.s.Kanbus = append(g.s.Kanbus, ".")
	}
	for _, p := range g.pkgs {
		if g.chance(0.25) {
			g.s.Kanbus = append(g.s.Kanbus, p)
		}
	}
	if len(g.s.Kanbus) == 0 && g.chance(0.8) {
		g.s.Kanbus = append(g.s.Kanbus, g.pkgs[0])
	}
	for i, dir := range g.s.Kanbus {
		g.add(path.Join(dir, ".kanbus.yml"), fmt.Sprintf("project_directory: project\nproject_key: kbs%d\n", i))
		if dir == "." {
			g.dim(DimKanbusRoot)
		} else {
			g.dim(DimKanbusSub)
		}
	}
	switch {
	case len(g.s.Kanbus) == 0:
		g.dim(DimKanbusNone)
	case len(g.s.Kanbus) > 1:
		g.dim(DimKanbusSeveral)
	}
}

// linksAndStarts makes a linked folder (a package reached through a
// link), perhaps, and the start folders: the root, the first package, and
// at most one more (the linked folder, a worktree, the folder inside a
// package, or another package).
func (g *generation) linksAndStarts() {
	g.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: g.pkgs[0], Kind: "package"}}
	switch {
	case g.chance(0.12):
		p := g.pkgs[g.intn(len(g.pkgs))]
		l := "linked/" + path.Base(p)
		g.link(l, p)
		g.s.Starts = append(g.s.Starts, Start{Dir: l, Kind: "linked"})
		g.dim(DimLinkedFolder)
	case g.chance(0.15):
		dir := "."
		if g.chance(0.5) {
			dir = g.pkgs[0]
		}
		g.s.Starts = append(g.s.Starts, Start{Dir: dir, Kind: "worktree", Worktree: true})
		g.dim(DimWorktree)
	case g.deep != "" && g.chance(0.7):
		g.s.Starts = append(g.s.Starts, Start{Dir: g.deep, Kind: "folder"})
		g.dim(DimDeepFolder)
	case len(g.pkgs) > 1 && g.chance(0.3):
		g.s.Starts = append(g.s.Starts, Start{Dir: g.pkgs[1], Kind: "package"})
	}
}

// setup decides each client's mode, the companions, Codex's trust, the
// user scope and whether nowhook is on the agents' PATH.
func (g *generation) setup() {
	st := &g.s.Setup
	for _, c := range Clients {
		modes := modesOf[c]
		mode := modes[0]
		if len(modes) > 1 {
			p := 0.3 // the second mode: ondemand for the re-inject agents
			if c == "gemini" || c == "droid" {
				p = 0.45 // reinject, opt-in there
			}
			if g.chance(p) {
				mode = modes[1]
			}
		}
		st.Modes = append(st.Modes, mode)
	}
	if g.s.Mode("claude") == "reinject" {
		g.dim(DimClaudeReinject)
	} else {
		g.dim(DimClaudeOndemand)
	}
	for i, c := range Clients {
		if g.chance(0.12) {
			st.Companions = append(st.Companions, c+"="+st.Modes[i])
		}
	}
	if len(st.Companions) > 0 {
		g.dim(DimCompanions)
	}
	st.TrustCodex = g.chance(0.8)
	if !st.TrustCodex {
		g.dim(DimNoTrustCodex)
	}
	st.CodexProjectTrusted = g.codexHooks || g.chance(0.3)
	if st.CodexProjectTrusted {
		g.dim(DimCodexTrusted)
	}
	switch {
	case g.chance(0.07):
		st.UserScope = []string{"claude"}
	case g.chance(0.04):
		st.UserScope = []string{"qwen"}
	}
	if len(st.UserScope) > 0 {
		g.dim(DimUserScope)
	}
	if g.chance(0.08) {
		st.NoNowhook = true
		g.dim(DimNoNowhook)
	}
}

// budgets pads files near an agent's budget: the AGENTS.md files Codex
// reads from the root to a start folder, jointly, near
// project_doc_max_bytes (from 1,500 bytes under to 400 over, before
// setup adds anything), or the root CLAUDE.md near Claude Code's
// 40,000-character mark.
func (g *generation) budgets() {
	if g.chance(0.15) {
		st := g.s.Starts[1+g.intn(len(g.s.Starts)-1)]
		if st.Kind == "linked" || st.Worktree {
			st = g.s.Starts[1]
		}
		var chain []*File
		total := 0
		for _, dir := range chainOf(st.Dir) {
			name := path.Join(dir, "AGENTS.override.md")
			if !g.has(name) {
				name = path.Join(dir, "AGENTS.md")
			}
			if f := g.resolve(name); f != nil {
				chain = append(chain, f)
				total += len(f.Content)
			}
		}
		if len(chain) == 0 {
			f := g.add("AGENTS.md", g.instructions("AGENTS.md", "Agent rules", 2))
			chain = append(chain, f)
			total = len(f.Content)
		}
		f := chain[g.intn(len(chain))]
		target := CodexDocMax - 1500 + g.intn(1900)
		if target > total {
			g.pad(f, len(f.Content)+target-total)
		}
		g.dim(DimNearCodex)
	}
	if g.chance(0.07) {
		f := g.resolve("CLAUDE.md")
		if f == nil {
			if g.has("CLAUDE.md") {
				return // a link that leads out of the shape's files
			}
			f = g.add("CLAUDE.md", g.instructions("CLAUDE.md", "Claude notes", 2))
		}
		g.pad(f, ClaudeLarge-1500+g.intn(3000))
		g.dim(DimNearClaude)
	}
}

// chainOf is the folders from the root down to dir.
func chainOf(dir string) []string {
	out := []string{"."}
	parts := splitPath(dir)
	for i := 1; i <= len(parts); i++ {
		out = append(out, strings.Join(parts[:i], "/"))
	}
	return out
}

// gitignore lists the local files, which stay untracked.
func (g *generation) gitignore() {
	var local []string
	for _, f := range g.files {
		if f.Local {
			local = append(local, f.Path)
		}
	}
	if len(local) > 0 {
		g.add(".gitignore", strings.Join(local, "\n")+"\n")
	}
}
