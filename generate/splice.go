package generate

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/tailscale/hujson"
)

// editor splices new text into a parsed file. Offsets are those of the
// parse; every byte outside an edit stays as it was, and only the text we
// insert is formatted, in the style of its siblings.
type editor struct {
	p     *Parsed
	nl    string // the file's line ending
	unit  string // the file's indentation step
	edits []edit
}

type edit struct {
	start, end int
	text       string
}

func newEditor(p *Parsed) *editor {
	e := &editor{p: p, nl: "\n", unit: indentUnit(p.src)}
	if bytes.Contains(p.src, []byte("\r\n")) {
		e.nl = "\r\n"
	}
	return e
}

func (e *editor) add(start, end int, text string) {
	e.edits = append(e.edits, edit{start, end, text})
}

// apply returns the file with every edit made, BOM included.
func (e *editor) apply() []byte {
	sort.SliceStable(e.edits, func(i, j int) bool { return e.edits[i].start > e.edits[j].start })
	out := append([]byte(nil), e.p.src...)
	for _, ed := range e.edits {
		out = append(out[:ed.start], append([]byte(ed.text), out[ed.end:]...)...)
	}
	if e.p.offset > 0 {
		out = append(append([]byte(nil), bom...), out...)
	}
	return out
}

// indentUnit guesses the file's indentation step: a tab if indented lines
// start with one, else the smallest run of leading spaces, else two spaces.
func indentUnit(src []byte) string {
	smallest := 0
	for _, line := range bytes.Split(src, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[0] == '\t' {
			return "\t"
		}
		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		if n > 0 && n < len(line) && (smallest == 0 || n < smallest) {
			smallest = n
		}
	}
	if smallest == 0 {
		return "  "
	}
	return string(bytes.Repeat([]byte(" "), smallest))
}

// lineIndent returns the leading white space of the line holding off.
func (e *editor) lineIndent(off int) string {
	start := bytes.LastIndexByte(e.p.src[:off], '\n') + 1
	end := start
	for end < len(e.p.src) && (e.p.src[end] == ' ' || e.p.src[end] == '\t') {
		end++
	}
	return string(e.p.src[start:end])
}

// ownLine reports whether only white space precedes off on its line.
func (e *editor) ownLine(off int) bool {
	start := bytes.LastIndexByte(e.p.src[:off], '\n') + 1
	return len(bytes.TrimSpace(e.p.src[start:off])) == 0
}

// format renders v as JSON indented for a line that starts with indent.
func (e *editor) format(v any, indent string) (string, error) {
	compact, err := marshal(v)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, indent, e.unit); err != nil {
		return "", err
	}
	return string(bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(e.nl))), nil
}

// formatInline renders v on one line, spaced like its siblings.
func formatInline(v any, spaced bool) (string, error) {
	compact, err := marshal(v)
	if err != nil {
		return "", err
	}
	if !spaced {
		return string(compact), nil
	}
	// Add a space after each ':' and ',' outside strings.
	var b bytes.Buffer
	inString, escaped := false, false
	for _, c := range compact {
		b.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String(), nil
}

// skipExtra returns the offset of the next byte at or after i that is not
// white space or part of a comment.
func skipExtra(src []byte, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n':
			i++
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return len(src)
			}
			i += j
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return len(src)
			}
			i += 2 + j + 2
		default:
			return i
		}
	}
	return i
}

// restOfLine returns the end of the line holding off, before its line
// ending, skipping only white space, a comma and comments on that line.
func restOfLine(src []byte, off int) int {
	i := off
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == ',':
			i++
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 || bytes.ContainsAny(src[i:i+2+j], "\n") {
				return i
			}
			i += 2 + j + 2
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexAny(src[i:], "\r\n")
			if j < 0 {
				return len(src)
			}
			return i + j
		case src[i] == '\r' || src[i] == '\n':
			return i
		default:
			return off
		}
	}
	return i
}

// appendItem adds text as the last item of the container whose last item
// is last (nil when empty) and whose own value is container.
func (e *editor) appendItem(container *hujson.Value, lastStart, lastEnd int, hasLast bool, render func(indent string, inline, spaced bool) (string, error)) error {
	src := e.p.src
	open, closeAt := container.StartOffset, container.EndOffset-1
	if !hasLast {
		// An empty container: this line must change.
		outer := e.lineIndent(open)
		inner := bytes.TrimSpace(src[open+1 : closeAt])
		text, err := render(outer+e.unit, false, true)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		b.WriteByte(src[open])
		if len(inner) > 0 { // keep a comment that sat inside
			b.WriteString(e.nl + outer + e.unit)
			b.Write(inner)
		}
		b.WriteString(e.nl + outer + e.unit + text + e.nl + outer)
		b.WriteByte(src[closeAt])
		e.add(open, closeAt+1, b.String())
		return nil
	}
	between := src[open+1 : lastStart]
	multiline := bytes.ContainsAny(between, "\n")
	if !multiline {
		inner := src[open:closeAt]
		spaced := bytes.Contains(inner, []byte(", ")) || bytes.Contains(inner, []byte("\": "))
		text, err := render("", true, spaced)
		if err != nil {
			return err
		}
		space := ""
		if spaced {
			space = " "
		}
		if next := skipExtra(src, lastEnd); next < len(src) && src[next] == ',' {
			e.add(next+1, next+1, space+text+",")
			return nil
		}
		e.add(lastEnd, lastEnd, ","+space+text)
		return nil
	}
	indent := e.lineIndent(lastStart)
	text, err := render(indent, false, true)
	if err != nil {
		return err
	}
	next := skipExtra(src, lastEnd)
	trailingComma := next < len(src) && src[next] == ','
	at := restOfLine(src, lastEnd)
	switch {
	case trailingComma:
		// After the comma (wherever comments put it), and after anything
		// else on the comma's line.
		at = restOfLine(src, next+1)
		e.add(at, at, e.nl+indent+text)
	case at == lastEnd:
		e.add(lastEnd, lastEnd, ","+e.nl+indent+text)
	default:
		e.add(lastEnd, lastEnd, ",")
		e.add(at, at, e.nl+indent+text)
	}
	return nil
}

// insertMember appends "key": value to the object obj.
func (e *editor) insertMember(obj *hujson.Value, key string, value any) error {
	o := obj.Value.(*hujson.Object)
	lastStart, lastEnd, has := 0, 0, len(o.Members) > 0
	if has {
		last := o.Members[len(o.Members)-1]
		lastStart, lastEnd = last.Name.StartOffset, last.Value.EndOffset
	}
	return e.appendItem(obj, lastStart, lastEnd, has, func(indent string, inline, spaced bool) (string, error) {
		k, err := marshal(key)
		if err != nil {
			return "", err
		}
		var v string
		if inline {
			v, err = formatInline(value, spaced)
		} else {
			v, err = e.format(value, indent)
		}
		if err != nil {
			return "", err
		}
		colon := ":"
		if spaced {
			colon = ": "
		}
		return string(k) + colon + v, nil
	})
}

// appendElement appends value to the array arr.
func (e *editor) appendElement(arr *hujson.Value, value any) error {
	a := arr.Value.(*hujson.Array)
	lastStart, lastEnd, has := 0, 0, len(a.Elements) > 0
	if has {
		last := a.Elements[len(a.Elements)-1]
		lastStart, lastEnd = last.StartOffset, last.EndOffset
	}
	return e.appendItem(arr, lastStart, lastEnd, has, func(indent string, inline, spaced bool) (string, error) {
		if inline {
			return formatInline(value, spaced)
		}
		return e.format(value, indent)
	})
}

// replaceValue replaces v with value, formatted for v's line.
func (e *editor) replaceValue(v *hujson.Value, value any) error {
	var text string
	var err error
	if e.ownLine(v.StartOffset) || bytes.ContainsAny(e.p.src[v.StartOffset:v.EndOffset], "\n") {
		text, err = e.format(value, e.lineIndent(v.StartOffset))
	} else {
		text, err = formatInline(value, true)
	}
	if err != nil {
		return err
	}
	e.add(v.StartOffset, v.EndOffset, text)
	return nil
}

// removeElement removes element i of arr with the separator that joins it
// to its neighbours.
func (e *editor) removeElement(arr *hujson.Array, i int) {
	el := arr.Elements[i]
	switch {
	case i > 0:
		// From the end of the previous element to the end of this one.
		e.add(arr.Elements[i-1].EndOffset, el.EndOffset, "")
	case len(arr.Elements) > 1:
		// The first of several: up to the start of the next.
		e.add(el.StartOffset, arr.Elements[1].StartOffset, "")
	default:
		e.add(el.StartOffset, el.EndOffset, "")
	}
}
