package generate

import (
	"bytes"
	"strings"
)

// Claude Code loads the file an `@path` in CLAUDE.md names, as if its text
// stood there (docs/platforms.md, "Instruction files"). nowhook writes one
// such line, `@AGENTS.md`, as the first line of a CLAUDE.md that holds
// nothing but nowhook's blocks, so that creating CLAUDE.md never hides the
// AGENTS.md Claude Code read before.

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

// importLine is the line AddImport writes, without its line ending.
func importLine(name string) string { return "@" + name }

// AddImport returns md with `@name` as its first line, set off from the
// text after it by a blank line (after a byte order mark, which stays
// first). A file that starts with that line already is returned as it is.
func AddImport(md []byte, name string) []byte {
	nl := "\n"
	if bytes.Contains(md, []byte("\r\n")) {
		nl = "\r\n"
	}
	bom, rest := cutBOM(md)
	if _, ok := cutImport(rest, name); ok {
		return md
	}
	out := append([]byte(nil), bom...)
	out = append(out, importLine(name)+nl...)
	if len(rest) > 0 {
		out = append(out, nl...)
	}
	return append(out, rest...)
}

// RemoveImport is the inverse of AddImport: md without the first-line
// `@name` and the blank line after it. ok is false when md does not start
// with that line.
func RemoveImport(md []byte, name string) (next []byte, ok bool) {
	bom, rest := cutBOM(md)
	after, ok := cutImport(rest, name)
	if !ok {
		return md, false
	}
	for _, nl := range []string{"\r\n", "\n"} {
		if b, cut := bytes.CutPrefix(after, []byte(nl)); cut {
			after = b
			break
		}
	}
	if len(after) == 0 {
		return nil, true
	}
	return append(append([]byte(nil), bom...), after...), true
}

// StartsWithImport reports whether md's first line is the `@name` line
// AddImport writes.
func StartsWithImport(md []byte, name string) bool {
	_, rest := cutBOM(md)
	_, ok := cutImport(rest, name)
	return ok
}

// cutImport cuts the first line when it is `@name`, with its line ending.
func cutImport(md []byte, name string) ([]byte, bool) {
	line := []byte(importLine(name))
	rest, ok := bytes.CutPrefix(md, line)
	if !ok {
		return md, false
	}
	for _, nl := range []string{"\r\n", "\n"} {
		if b, cut := bytes.CutPrefix(rest, []byte(nl)); cut {
			return b, true
		}
	}
	if len(rest) == 0 {
		return rest, true
	}
	return md, false
}

func cutBOM(md []byte) (bom, rest []byte) {
	if b, ok := bytes.CutPrefix(md, []byte("\xef\xbb\xbf")); ok {
		return md[:3], b
	}
	return nil, md
}
