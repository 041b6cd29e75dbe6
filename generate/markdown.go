package generate

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Block is a managed Markdown block: the lines between
// `<!-- nowhook:begin NAME vN -->` and `<!-- nowhook:end NAME -->`.
type Block struct {
	Name    string
	Version int
	Body    string // LF line endings, ending with a newline
	// Heading, when set, is the title the block belongs under: the block
	// goes directly under an existing heading of that title (any level,
	// any case), else a new "## Heading" section is appended for it.
	Heading string
}

func (b Block) begin() string { return fmt.Sprintf("<!-- nowhook:begin %s v%d -->", b.Name, b.Version) }
func (b Block) end() string   { return fmt.Sprintf("<!-- nowhook:end %s -->", b.Name) }

func (b Block) text(nl string) string {
	body := strings.ReplaceAll(b.Body, "\n", nl)
	return b.begin() + nl + body + b.end() + nl
}

// BlockSpan is where a managed block sits in a file.
type BlockSpan struct {
	Start, End int // byte offsets of the begin line's start and after the end line
	Version    int
	Line       int // line of the begin marker
}

// FindBlock locates the block named name in md, whatever its version.
func FindBlock(md []byte, name string) (BlockSpan, bool, error) {
	beginRE := regexp.MustCompile(`(?m)^<!-- nowhook:begin ` + regexp.QuoteMeta(name) + ` v(\d+) -->\r?$`)
	endRE := regexp.MustCompile(`(?m)^<!-- nowhook:end ` + regexp.QuoteMeta(name) + ` -->(\r?\n|$)`)
	all := beginRE.FindAllSubmatchIndex(md, -1)
	if len(all) == 0 {
		if endRE.Match(md) {
			return BlockSpan{}, false, fmt.Errorf("has a nowhook:end %s marker without its begin marker", name)
		}
		return BlockSpan{}, false, nil
	}
	if len(all) > 1 {
		line := bytes.Count(md[:all[1][0]], []byte("\n")) + 1
		return BlockSpan{}, false, fmt.Errorf("line %d: has the nowhook %s block twice; delete one copy", line, name)
	}
	m := all[0]
	v, _ := strconv.Atoi(string(md[m[2]:m[3]]))
	loc := endRE.FindIndex(md[m[1]:])
	if loc == nil {
		line := bytes.Count(md[:m[0]], []byte("\n")) + 1
		return BlockSpan{}, false, fmt.Errorf("line %d: the nowhook %s block has no end marker (<!-- nowhook:end %s -->)", line, name, name)
	}
	return BlockSpan{Start: m[0], End: m[1] + loc[1], Version: v, Line: bytes.Count(md[:m[0]], []byte("\n")) + 1}, true, nil
}

// MergeBlock returns md with block b present once and current. Nothing
// outside the markers changes, except that an appended block is set off
// by a blank line (and a final newline is added where the file had none).
func MergeBlock(path string, md []byte, b Block) ([]byte, error) {
	if !utf8.Valid(md) {
		return nil, &FileError{Path: path, Problem: "is not valid UTF-8", Fix: "save it as UTF-8"}
	}
	nl := "\n"
	if bytes.Contains(md, []byte("\r\n")) {
		nl = "\r\n"
	}
	span, found, err := FindBlock(md, b.Name)
	if err != nil {
		return nil, &FileError{Path: path, Problem: err.Error(), Fix: "repair the markers by hand, then run nowhook setup again"}
	}
	text := b.text(nl)
	if found {
		if string(md[span.Start:span.End]) == text {
			return md, nil
		}
		// A block at the very end without a final newline keeps that.
		if span.End == len(md) && !bytes.HasSuffix(md, []byte("\n")) {
			text = strings.TrimSuffix(text, nl)
		}
		return splice(md, span.Start, span.End, text), nil
	}
	if b.Heading != "" {
		if at, ok := headingEnd(md, b.Heading); ok {
			ins := text
			if at == len(md) && !bytes.HasSuffix(md, []byte("\n")) {
				ins = nl + nl + text
			} else {
				ins = nl + text
			}
			return splice(md, at, at, ins), nil
		}
	}
	var add strings.Builder
	if len(md) > 0 {
		if !bytes.HasSuffix(md, []byte("\n")) {
			add.WriteString(nl)
		}
		if !bytes.HasSuffix(md, []byte("\n\n")) && !bytes.HasSuffix(md, []byte("\r\n\r\n")) {
			add.WriteString(nl)
		}
	}
	if b.Heading != "" {
		add.WriteString("## " + b.Heading + nl + nl)
	}
	add.WriteString(text)
	return append(append([]byte(nil), md...), add.String()...), nil
}

func splice(b []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(b)+len(text))
	out = append(out, b[:start]...)
	out = append(out, text...)
	return append(out, b[end:]...)
}

var fenceRE = regexp.MustCompile("^\\s{0,3}(```|~~~)")

// headingEnd finds an ATX heading titled title (case-insensitive, outside
// code fences) and returns the offset just after its line ending.
func headingEnd(md []byte, title string) (int, bool) {
	want := strings.ToLower(title)
	inFence := false
	off := 0
	for off < len(md) {
		end := bytes.IndexByte(md[off:], '\n')
		next := len(md)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(string(md[off:next]), "\r\n")
		if fenceRE.MatchString(line) {
			inFence = !inFence
		} else if !inFence {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "#") {
				t = strings.TrimLeft(t, "#")
				t = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t), "#"))
				if strings.ToLower(t) == want && len(line)-len(strings.TrimLeft(line, " ")) < 4 {
					return next, true
				}
			}
		}
		off = next
	}
	return 0, false
}
