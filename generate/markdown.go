package generate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/nowhook/nowhook/templates"
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

// Wrote reports whether body (LF line endings) is a text nowhook wrote
// for the block, whatever the version in its marker: the current body or
// one that a release wrote (templates.ReleasedBlocks). Any other body was
// edited by hand.
func (b Block) Wrote(body string) bool {
	if body == b.Body {
		return true
	}
	sum := sha256.Sum256([]byte(body))
	return slices.Contains(templates.ReleasedBlocks[b.Name], hex.EncodeToString(sum[:]))
}

// EditedError says a managed block holds a text nowhook never wrote:
// someone edited inside its markers, so it is theirs.
type EditedError struct {
	Path string
	Name string
	Line int // of the begin marker
}

func (e *EditedError) Error() string {
	return fmt.Sprintf("%s:%d: the nowhook %s block was edited by hand (its text is not one nowhook wrote)", e.Path, e.Line, e.Name)
}

// lineEnding is the line break md uses: CRLF when any line ends so, else LF.
func lineEnding(md []byte) string {
	if bytes.Contains(md, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// NewerError says a file holds what a newer nowhook wrote: setup leaves it
// alone rather than downgrade it.
type NewerError struct {
	Path        string
	Found, Ours int // template versions
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("%s: written by a newer nowhook (template v%d; this one writes v%d)", e.Path, e.Found, e.Ours)
}

// BlockSpan is where a managed block sits in a file.
type BlockSpan struct {
	Start, End int // byte offsets of the begin line's start and after the end line
	Version    int
	Line       int    // line of the begin marker
	Body       string // the lines between the markers, with LF line endings
}

// beginREs caches the begin-marker expression of each block name: doctor
// and setup look for the same few blocks in many files.
var beginREs sync.Map

func beginMarker(name string) *regexp.Regexp {
	if re, ok := beginREs.Load(name); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`^<!-- nowhook:begin ` + regexp.QuoteMeta(name) + ` v(\d+) -->$`)
	beginREs.Store(name, re)
	return re
}

// FindBlock locates the block named name in md, whatever its version.
// Marker lines inside code fences are examples, not blocks.
func FindBlock(md []byte, name string) (BlockSpan, bool, error) {
	if !bytes.Contains(md, []byte("nowhook:")) {
		return BlockSpan{}, false, nil // no marker at all: nothing to parse
	}
	beginRE := beginMarker(name)
	endLine := "<!-- nowhook:end " + name + " -->"
	var span BlockSpan
	found, open, bodyStart := false, false, 0
	for _, l := range mdLines(md) {
		if l.fenced {
			continue
		}
		switch {
		case beginRE.MatchString(l.text):
			if found || open {
				return BlockSpan{}, false, fmt.Errorf("line %d: has the nowhook %s block twice; delete one copy", l.number, name)
			}
			v, _ := strconv.Atoi(beginRE.FindStringSubmatch(l.text)[1])
			span, open, bodyStart = BlockSpan{Start: l.start, Version: v, Line: l.number}, true, l.end
		case l.text == endLine:
			if !open {
				return BlockSpan{}, false, fmt.Errorf("line %d: has a nowhook:end %s marker without its begin marker", l.number, name)
			}
			span.End, open, found = l.end, false, true
			span.Body = strings.ReplaceAll(string(md[bodyStart:l.start]), "\r\n", "\n")
		}
	}
	if open {
		return BlockSpan{}, false, fmt.Errorf("line %d: the nowhook %s block has no end marker (%s)", span.Line, name, endLine)
	}
	return span, found, nil
}

// mdLine is one line of a Markdown file.
type mdLine struct {
	text       string // without the line ending
	start, end int    // offsets of the line and after its line ending
	number     int
	fenced     bool // inside a code fence, or a fence line itself
}

// mdLines splits md into lines and marks the ones in code fences
// (CommonMark: ``` or ~~~, three or more, closed by at least as many of the
// same character).
func mdLines(md []byte) []mdLine {
	var lines []mdLine
	var fence string
	for off, n := 0, 1; off < len(md); n++ {
		next := len(md)
		if i := bytes.IndexByte(md[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		text := strings.TrimRight(string(md[off:next]), "\r\n")
		if n == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		l := mdLine{text: text, start: off, end: next, number: n, fenced: fence != ""}
		if marker := fenceMarker(text); marker != "" {
			switch {
			case fence == "":
				fence, l.fenced = marker, true
			case marker[0] == fence[0] && len(marker) >= len(fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text), marker[:1])) == "":
				fence = ""
			}
		}
		lines = append(lines, l)
		off = next
	}
	return lines
}

// fenceMarker returns the run of ` or ~ that opens a fence on line, or "".
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// MergeBlock returns md with block b present once and current. Nothing
// outside the markers changes, except the one line break that sets off a
// block it adds (a blank line after a final newline). A block whose text
// nowhook never wrote is the user's: MergeBlock returns an *EditedError
// for it, and a block of a newer template a *NewerError.
func MergeBlock(path string, md []byte, b Block) ([]byte, error) {
	return mergeBlock(path, md, b, false)
}

// ReplaceBlock is MergeBlock that also replaces a block edited by hand
// with the current text (setup --force).
func ReplaceBlock(path string, md []byte, b Block) ([]byte, error) {
	return mergeBlock(path, md, b, true)
}

func mergeBlock(path string, md []byte, b Block, force bool) ([]byte, error) {
	if !utf8.Valid(md) {
		return nil, &FileError{Path: path, Problem: "is not valid UTF-8", Fix: "save it as UTF-8"}
	}
	nl := lineEnding(md)
	span, found, err := FindBlock(md, b.Name)
	if err != nil {
		return nil, &FileError{Path: path, Problem: err.Error(), Fix: "repair the markers by hand, then run nowhook setup again"}
	}
	text := b.text(nl)
	if found && span.Version > b.Version {
		return nil, &NewerError{Path: path, Found: span.Version, Ours: b.Version}
	}
	if found {
		if !force && !b.Wrote(span.Body) {
			return nil, &EditedError{Path: path, Name: b.Name, Line: span.Line}
		}
		if span.Version == b.Version && span.Body == b.Body {
			return md, nil // current, whatever line endings it has
		}
		// A block at the very end without a final newline keeps that.
		if span.End == len(md) && !bytes.HasSuffix(md, []byte("\n")) {
			text = strings.TrimSuffix(text, nl)
		}
		return splice(md, span.Start, span.End, text), nil
	}
	if b.Heading != "" {
		if at, ok := headingEnd(md, b.Heading); ok {
			return splice(md, at, at, nl+text), nil
		}
	}
	// Exactly one line break before what is appended, whatever the file
	// ends with, so that RemoveBlock can take back exactly what was added:
	// after a final newline it makes a blank line; without one it ends the
	// last line (an HTML comment may follow a paragraph directly).
	var add strings.Builder
	if len(md) > 0 {
		add.WriteString(nl)
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

// headingEnd finds a heading titled title (case-insensitive, ATX or
// setext, outside code fences) and returns the offset just after it.
func headingEnd(md []byte, title string) (int, bool) {
	want := strings.ToLower(title)
	lines := mdLines(md)
	for i, l := range lines {
		if l.fenced || len(l.text)-len(strings.TrimLeft(l.text, " ")) > 3 {
			continue
		}
		t := strings.TrimSpace(l.text)
		if h := strings.TrimLeft(t, "#"); len(t)-len(h) >= 1 && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
			h = strings.TrimSpace(h)
			if closing := strings.TrimRight(h, "#"); closing == "" || strings.HasSuffix(closing, " ") {
				h = strings.TrimSpace(closing)
			}
			if strings.ToLower(h) == want {
				return l.end, true
			}
			continue
		}
		if strings.ToLower(t) == want && i+1 < len(lines) && !lines[i+1].fenced && isSetextUnderline(lines[i+1].text) &&
			(i == 0 || strings.TrimSpace(lines[i-1].text) == "") {
			return lines[i+1].end, true
		}
	}
	return 0, false
}

func isSetextUnderline(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || len(line)-len(strings.TrimLeft(line, " ")) > 3 {
		return false
	}
	return strings.Trim(t, "=") == "" || strings.Trim(t, "-") == ""
}

// RemoveBlock returns md without block b, as the inverse of MergeBlock:
// the block goes with the line break that MergeBlock put before it, and a
// "## Heading" section that holds nothing but the block, at the end of the
// file, goes too (MergeBlock appended it). empty reports that nothing is
// left of the file. A block edited by hand stays (an *EditedError), and
// so does one of a newer template (a *NewerError), which this nowhook
// cannot tell from an edited one.
func RemoveBlock(path string, md []byte, b Block) (next []byte, removed, empty bool, err error) {
	span, found, err := FindBlock(md, b.Name)
	if err != nil {
		return nil, false, false, &FileError{Path: path, Problem: err.Error(), Fix: "repair the markers by hand, then run nowhook again"}
	}
	if !found {
		return md, false, len(md) == 0, nil
	}
	if span.Version > b.Version {
		return nil, false, false, &NewerError{Path: path, Found: span.Version, Ours: b.Version}
	}
	if !b.Wrote(span.Body) {
		return nil, false, false, &EditedError{Path: path, Name: b.Name, Line: span.Line}
	}
	before, after := md[:span.Start], md[span.End:]
	nl := lineEnding(md)
	if b.Heading != "" && len(after) == 0 {
		heading := "## " + b.Heading + nl + nl
		if rest, ok := bytes.CutSuffix(before, []byte(heading)); ok && (len(rest) == 0 || bytes.HasSuffix(rest, []byte("\n"))) {
			before = rest
		}
	}
	if rest, ok := bytes.CutSuffix(before, []byte(nl)); ok {
		before = rest
	}
	next = append(append([]byte(nil), before...), after...)
	return next, true, len(next) == 0, nil
}
