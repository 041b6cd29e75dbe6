package engine

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// writeDiff prints the plan as a git-style unified diff, one file after
// another, with the file modes, so that `git apply` reproduces the run.
// Unless full, a script nowhook owns whole is summarised in one comment
// line instead of its hundreds of lines (and the patch then leaves it
// out). It reports whether there was anything to show.
func (p *plan) writeDiff(w io.Writer, full bool) bool {
	any := false
	for _, c := range p.changes {
		if !c.changed() {
			continue
		}
		any = true
		if c.whole != "" && !full && !c.remove {
			what := "update"
			if !c.existed {
				what = "new file"
			}
			fmt.Fprintf(w, "# %s %s: %s, %d lines, mode %s (--diff shows it in full)\n", what, p.shown(c), c.whole, bytes.Count(c.next, []byte("\n")), gitMode(c.mode))
			continue
		}
		name := p.shown(c)
		fmt.Fprintf(w, "diff --git a/%s b/%s\n", name, name)
		switch {
		case c.remove:
			fmt.Fprintf(w, "deleted file mode %s\n", gitMode(c.oldMode))
			unifiedDiff(w, name, c.old, nil, true, false)
			continue
		case !c.existed:
			fmt.Fprintf(w, "new file mode %s\n", gitMode(c.mode))
		case c.mode != c.oldMode:
			fmt.Fprintf(w, "old mode %s\nnew mode %s\n", gitMode(c.oldMode), gitMode(c.mode))
		}
		if c.existed && bytes.Equal(c.old, c.next) {
			continue // a mode change only
		}
		unifiedDiff(w, name, c.old, c.next, c.existed, true)
	}
	for _, d := range p.rmdirs {
		any = true
		fmt.Fprintf(w, "# deleted folder %s/ (empty once the files above are gone)\n", p.shownDir(d))
	}
	return any
}

// gitMode writes a file mode as git does: 100755 or 100644.
func gitMode(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
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

// writeFiles prints every file the plan writes whole, as it will be
// (setup --print): a header naming the file, its mode and its size, then
// its bytes; a file or folder the plan deletes in one line. It reports
// whether there was anything to show.
func (p *plan) writeFiles(w io.Writer) bool {
	any := false
	for _, c := range p.changes {
		if !c.changed() {
			continue
		}
		any = true
		name := c.target // absolute: --print shows where each file goes
		if c.remove {
			fmt.Fprintf(w, "==> %s: deleted <==\n", name)
			continue
		}
		what := "new file"
		if c.existed {
			what = "changed"
		}
		fmt.Fprintf(w, "==> %s (%s, mode %04o, %d bytes) <==\n", name, what, c.mode.Perm(), len(c.next))
		w.Write(c.next)
		if len(c.next) > 0 && c.next[len(c.next)-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
	for _, d := range p.rmdirs {
		any = true
		fmt.Fprintf(w, "==> %s/: deleted folder <==\n", d)
	}
	return any
}
