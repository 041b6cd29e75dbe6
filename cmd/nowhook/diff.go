package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// writeDiff prints the plan as a unified diff, one file after another.
func (p *plan) writeDiff(w io.Writer) {
	for _, c := range p.changes {
		if !c.changed() {
			continue
		}
		next := c.next
		if c.remove {
			next = nil
		}
		unifiedDiff(w, c.rel, c.old, next, c.existed, !c.remove)
	}
}

const diffContext = 3

// unifiedDiff writes the difference between a and b in unified format.
// Changes are localised (an insertion or a block), so the lines between
// the common head and the common tail form one hunk.
func unifiedDiff(w io.Writer, name string, a, b []byte, aExists, bExists bool) {
	from, to := "a/"+name, "b/"+name
	if !aExists {
		from = "/dev/null"
	}
	if !bExists {
		to = "/dev/null"
	}
	al, bl := splitLines(a), splitLines(b)
	head := 0
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		head++
	}
	tail := 0
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	start := max(head-diffContext, 0)
	aEnd := min(len(al)-tail+diffContext, len(al))
	bEnd := min(len(bl)-tail+diffContext, len(bl))
	fmt.Fprintf(w, "--- %s\n+++ %s\n", from, to)
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(start, aEnd-start), hunkRange(start, bEnd-start))
	for _, l := range al[start:head] {
		writeLine(w, ' ', l)
	}
	for _, l := range al[head : len(al)-tail] {
		writeLine(w, '-', l)
	}
	for _, l := range bl[head : len(bl)-tail] {
		writeLine(w, '+', l)
	}
	for _, l := range al[len(al)-tail : aEnd] {
		writeLine(w, ' ', l)
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeLine(w io.Writer, prefix byte, line string) {
	if strings.HasSuffix(line, "\n") {
		fmt.Fprintf(w, "%c%s", prefix, line)
		return
	}
	fmt.Fprintf(w, "%c%s\n\\ No newline at end of file\n", prefix, line)
}

// splitLines splits b after each "\n", keeping the line endings.
func splitLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, string(b))
			break
		}
		lines = append(lines, string(b[:i+1]))
		b = b[i+1:]
	}
	return lines
}
