package shapes

import (
	"strconv"
	"strings"
)

// Named returns the hand-made shapes: the known failures of issue 24
// ("Why", cases 1 to 5; case 6 is about remove, which sends nothing to a
// model), made with the generator's helpers so that their lines carry
// markers too. The differential test runs each in every client, as it
// runs a generated shape.
func Named() []Shape {
	return []Shape{
		namedPackageClaudeMD(),
		namedCodexJointBudget(),
		namedCodexCapUntrusted(),
		namedDroidHooksJSON(),
		namedGeminiFileName(),
		namedBothScopes(),
	}
}

// NamedShape returns the hand-made shape called name.
func NamedShape(name string) (Shape, bool) {
	for _, s := range Named() {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

func named(name, id string) *builder {
	b := newBuilder(id, 1)
	b.s.Name = name
	for _, c := range Clients {
		b.s.Setup.Modes = append(b.s.Setup.Modes, modesOf[c][0])
	}
	b.s.Setup.TrustCodex = true
	return b
}

func (b *builder) setMode(client, mode string) {
	for i, c := range Clients {
		if c == client {
			b.s.Setup.Modes[i] = mode
		}
	}
}

func (b *builder) kanbusAt(dirs ...string) {
	for i, d := range dirs {
		p := ".kanbus.yml"
		if d != "." {
			p = d + "/.kanbus.yml"
		}
		b.add(p, "project_directory: project\nproject_key: kbs"+strconv.Itoa(i)+"\n")
		b.s.Kanbus = append(b.s.Kanbus, d)
	}
}

// Case 1: a monorepo package folder with its own CLAUDE.md, the root with
// AGENTS.md only. Claude Code started in the package loads that CLAUDE.md
// and not the root AGENTS.md, so the kbs-now block never reaches it.
func namedPackageClaudeMD() Shape {
	b := named("issue24-1-package-claude-md", "c1")
	b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 4))
	b.add("packages/app/go.mod", "module example.com/team/app\n\ngo 1.22\n")
	b.add("packages/app/main.go", "package main\n\nfunc main() {}\n")
	b.add("packages/app/CLAUDE.md", b.instructions("packages/app/CLAUDE.md", "App notes", 3))
	b.kanbusAt(".")
	b.setMode("claude", "ondemand")
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "packages/app", Kind: "package"}}
	b.dim(DimNestedClaude)
	b.dim(DimDepth2)
	return b.finish()
}

// Case 2: Codex CLI joins the AGENTS.md files from the root down to the
// start folder under one project_doc_max_bytes; with a sub-folder
// AGENTS.md of 320 rule lines just under the budget, the block setup
// appends to the root's AGENTS.md pushes the sub-folder's last rules out.
func namedCodexJointBudget() Shape {
	b := named("issue24-2-codex-joint-budget", "c2")
	root := b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 6))
	sub := b.add("services/api/AGENTS.md", b.instructions("services/api/AGENTS.md", "API rules", 0))
	for i := 0; i < 320; i++ {
		sub.Content += b.rule(sub.Path) + "\n"
	}
	b.add("services/api/go.mod", "module example.com/team/api\n\ngo 1.22\n")
	b.pad(root, CodexDocMax-600-len(sub.Content))
	b.kanbusAt(".")
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "services/api", Kind: "package"}}
	b.dim(DimNearCodex)
	b.dim(DimNestedAgents)
	return b.finish()
}

// Case 2, second half: a cap raised in the project's .codex/config.toml
// counts only while Codex trusts the project; here it does not, and
// codex=ondemand (where doctor shows no trust row).
func namedCodexCapUntrusted() Shape {
	b := named("issue24-2-codex-cap-untrusted", "c2u")
	root := b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 4))
	b.pad(root, CodexDocMax-400)
	b.add(".codex/config.toml", "# the team's Codex settings\nproject_doc_max_bytes = 65536\n")
	b.add("packages/web/package.json", "{\n  \"name\": \"@team/web\",\n  \"private\": true\n}\n")
	b.kanbusAt(".")
	b.setMode("codex", "ondemand")
	b.s.Setup.TrustCodex = false
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "packages/web", Kind: "package"}}
	b.dim(DimNearCodex)
	b.dim(DimCodexCapProj)
	b.dim(DimNoTrustCodex)
	return b.finish()
}

// Case 3: the team's own SessionStart group in .factory/hooks.json stops
// Factory Droid from running ours (nowhook writes .factory/settings.json).
func namedDroidHooksJSON() Shape {
	b := named("issue24-3-droid-hooks-json", "c3")
	b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 3))
	text := "Team hook (SessionStart): " + sentences[4] + " [" + b.token(".factory/hooks.json", "hook") + "]"
	m := "startup"
	b.add(".factory/hooks.json", indentJSON(object("SessionStart", "["+groupJSON(&m, "echo "+shellQuote(text), 5)+"]"), "  "))
	b.add("packages/api/go.mod", "module example.com/team/api\n\ngo 1.22\n")
	b.kanbusAt(".")
	b.setMode("droid", "reinject")
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "packages/api", Kind: "package"}}
	b.dim(DimHooksFactoryHooks)
	return b.finish()
}

// Case 4: Gemini CLI with a custom context.fileName: doctor said GEMINI.md
// is never loaded; Gemini CLI 0.61.0 loads it anyway.
func namedGeminiFileName() Shape {
	b := named("issue24-4-gemini-filename", "c4")
	b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 3))
	b.add("TEAM.md", b.instructions("TEAM.md", "Team handbook", 3))
	b.add(".gemini/settings.json", indentJSON(object("context", object("fileName", `["TEAM.md"]`)), "  "))
	b.add("apps/site/package.json", "{\n  \"name\": \"@team/site\",\n  \"private\": true\n}\n")
	b.kanbusAt(".")
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "apps/site", Kind: "package"}}
	b.dim(DimGeminiFileName)
	return b.finish()
}

// Case 5: both scopes installed and nowhook not on the agent's PATH: both
// hooks fall back to python3, and the reminder must still come once.
func namedBothScopes() Shape {
	b := named("issue24-5-both-scopes-no-nowhook", "c5")
	b.add("AGENTS.md", b.instructions("AGENTS.md", "Team rules", 3))
	b.add("packages/lib/Cargo.toml", "[package]\nname = \"lib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	b.kanbusAt(".")
	b.s.Setup.UserScope = []string{"claude", "qwen"}
	b.s.Setup.NoNowhook = true
	b.s.Starts = []Start{{Dir: ".", Kind: "root"}, {Dir: "packages/lib", Kind: "package"}}
	b.dim(DimUserScope)
	b.dim(DimNoNowhook)
	return b.finish()
}

// IsNamed reports whether name is a hand-made shape's.
func IsNamed(name string) bool { return strings.HasPrefix(name, "issue24-") }
