package generate

import "fmt"

// MaxDepth is how deeply arrays and objects may nest in a JSON file that
// nowhook reads: the limit of Go's encoding/json, which also checks the
// files. Deeper input is refused before it is parsed, because the parser
// that keeps every byte of the user's file (hujson) descends once per
// level, and a file nested a million levels deep would exhaust the stack
// and kill the command.
//
// That is nowhook's limit, not the agents': Claude Code 2.1.332 loads a
// settings file nested a million levels deep, skipping only the value
// nested more than 64 levels (docs/platforms.md).
const MaxDepth = 10000

// TooDeep returns the offset in src of the bracket that opens level limit+1
// of nested arrays and objects, and whether there is one. Strings and
// comments (// and /* */, which hujson accepts) are skipped, so brackets
// inside them do not count; the scan is flat, whatever the depth.
func TooDeep(src []byte, limit int) (offset int, deep bool) {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			for i += 2; i+1 < len(src) && (src[i] != '*' || src[i+1] != '/'); i++ {
			}
			i++
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return i, true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return 0, false
}

// depthError refuses a file nested deeper than MaxDepth, at the bracket
// where the limit is passed.
func (f HookFile) depthError(src []byte, off int) *FileError {
	line, col := lineCol(src, off)
	return &FileError{Path: f.Path, Line: line, Col: col,
		Problem:     fmt.Sprintf("is nested more than %d levels deep, deeper than nowhook reads", MaxDepth),
		Consequence: "nowhook leaves it as it is",
		Fix:         "reduce the nesting of the value that starts there (no setting needs such depth), then run nowhook setup again"}
}
