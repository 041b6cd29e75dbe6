package generate

import "strings"

// Claude Code loads the file an `@path` in CLAUDE.md names, as if its text
// stood there (docs/platforms.md, "Instruction files"). nowhook never
// writes such a line (from a session started in a sub-folder Claude Code
// takes it only once approved), but a user's CLAUDE.md may hold one, and
// then Claude Code reads AGENTS.md too.

// Imports reports whether md has an `@name` (or `@./name`) import outside
// code fences and code spans.
func Imports(md []byte, name string) bool {
	for _, l := range mdLines(md) {
		if l.fenced {
			continue
		}
		for _, word := range strings.Fields(l.text) {
			if word == "@"+name || word == "@./"+name {
				if !inCodeSpan(l.text, word) {
					return true
				}
			}
		}
	}
	return false
}

// inCodeSpan reports whether the first word of line equal to word sits
// between backticks (an odd number of them before it).
func inCodeSpan(line, word string) bool {
	i := strings.Index(line, word)
	return i >= 0 && strings.Count(line[:i], "`")%2 == 1
}

// ImportPaths lists the paths md imports with `@path` words, outside code
// fences and code spans, in the order they appear, each once ("./" taken
// off). A word such as "@someone" is listed too: whoever reads the list
// looks the path up and finds no such file.
func ImportPaths(md []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range mdLines(md) {
		if l.fenced {
			continue
		}
		for _, word := range strings.Fields(l.text) {
			p, ok := strings.CutPrefix(word, "@")
			if !ok || p == "" || inCodeSpan(l.text, word) {
				continue
			}
			p = strings.TrimPrefix(p, "./")
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
