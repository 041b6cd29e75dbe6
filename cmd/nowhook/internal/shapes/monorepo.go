package shapes

import "fmt"

// Monorepo is a fixed shape for benchmarks: a git folder (HEAD only), a
// Kanbus project and the team's AGENTS.md at the root, and n packages
// below packages/ with a package.json each, every other one with a
// CLAUDE.md of its own and the rest with an AGENTS.md, as a monorepo has
// them: n start folders.
func Monorepo(n int) Shape {
	s := Shape{Files: []File{
		{Path: ".git/HEAD", Content: "ref: refs/heads/main\n"},
		{Path: ".kanbus.yml", Content: "project_key: kbs\n"},
		{Path: "AGENTS.md", Content: "# Team rules\n\nRun make test before every commit.\n"},
	}}
	for i := range n {
		dir := fmt.Sprintf("packages/pkg%02d", i)
		s.Files = append(s.Files, File{Path: dir + "/package.json", Content: "{}\n"})
		if i%2 == 0 {
			s.Files = append(s.Files, File{Path: dir + "/CLAUDE.md", Content: "# Package notes\n\nUse the package's own linter.\n"})
		} else {
			s.Files = append(s.Files, File{Path: dir + "/AGENTS.md", Content: "# Package rules\n\nKeep the API stable.\n"})
		}
	}
	return s
}
