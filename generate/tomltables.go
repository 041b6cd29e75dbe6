package generate

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOMLTables is our part of a TOML file that holds an array of tables
// ([[hooks]] in Kimi Code's config.toml): our comment line, then our
// tables, one after the other, each recognised by its "command". The edit
// is a splice of whole lines: every byte outside our lines stays, comments
// included, and a second Merge on its own output returns the same bytes.
type TOMLTables struct {
	Path  string // as shown in messages, e.g. "~/.kimi-code/config.toml"
	Agent string // e.g. "Kimi Code CLI"
	Array string // the array's key, e.g. "hooks"
	// Comment is the line before our tables (it starts with "# nowhook"),
	// without its line ending.
	Comment string
	// Tables are ours, in order: keys with string or integer values.
	Tables []Ordered
	// Ours recognises one of our tables, in this or an earlier version, by
	// its command.
	Ours func(command string) bool
	// Check validates the decoded file as the agent does; an error means
	// the agent would drop our tables with the rest, and nothing is
	// written.
	Check func(doc map[string]any) *FileError
}

// tomlCommentPrefix starts our comment line, in this and earlier versions.
const tomlCommentPrefix = "# nowhook"

// Merge returns current with our tables present once, as Tables gives
// them: where our tables already are, in place (a copy elsewhere goes);
// otherwise at the end, after a blank line. An empty current is a new
// file.
func (t TOMLTables) Merge(current []byte) ([]byte, error) {
	doc, groups, err := t.scan(current)
	if err != nil {
		return nil, err
	}
	if t.Check != nil {
		if ferr := t.Check(doc); ferr != nil {
			if ferr.Path == "" {
				ferr.Path = t.Path
			}
			return nil, ferr
		}
	}
	nl := lineEnding(current)
	block := []byte(t.render(nl))
	var out []byte
	if len(groups) == 0 {
		out = append([]byte(nil), current...)
		if len(out) > 0 {
			out = append(out, nl...)
		}
		out = append(out, block...)
	} else {
		out = current
		for i := len(groups) - 1; i > 0; i-- {
			out = cutLines(out, groups[i], nl)
		}
		g := groups[0]
		out = append(append(append([]byte(nil), out[:g.start]...), block...), out[g.end:]...)
	}
	if err := t.verify(current, out, true); err != nil {
		return nil, err
	}
	return out, nil
}

// Remove returns current without our tables (and our comment line), with
// the blank line Merge put before them: the inverse of Merge, byte for
// byte. removed counts the tables taken out; empty says nothing but
// white space is left.
func (t TOMLTables) Remove(current []byte) (next []byte, removed int, empty bool, err error) {
	_, groups, err := t.scan(current)
	if err != nil {
		return nil, 0, false, err
	}
	nl := lineEnding(current)
	out := current
	for i := len(groups) - 1; i >= 0; i-- {
		out = cutLines(out, groups[i], nl)
		removed += groups[i].tables
	}
	if removed > 0 {
		if err := t.verify(current, out, false); err != nil {
			return nil, 0, false, err
		}
	}
	return out, removed, len(bytes.TrimSpace(out)) == 0, nil
}

// Present reports whether current holds one of our tables.
func (t TOMLTables) Present(current []byte) bool {
	_, groups, err := t.scan(current)
	return err == nil && len(groups) > 0
}

// render is our comment line and tables, each line ending in nl.
func (t TOMLTables) render(nl string) string {
	var b strings.Builder
	b.WriteString(t.Comment + nl)
	for _, tab := range t.Tables {
		b.WriteString("[[" + t.Array + "]]" + nl)
		for _, m := range tab {
			b.WriteString(m.Key + " = " + tomlValue(m.Value) + nl)
		}
	}
	return b.String()
}

// tomlValue writes a string as a TOML basic string, an integer as itself.
func tomlValue(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case string:
		return tomlQuote(x)
	}
	panic(fmt.Sprintf("generate: a TOML value of type %T", v))
}

// tomlQuote writes s as a TOML basic string: \" \\ \b \t \n \f \r, and
// \uXXXX for the other control characters.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlGroup is a run of our tables with only blank lines between them,
// from the start of our comment line right before the first (or of its
// header line) to the end of the last one's last line.
type tomlGroup struct {
	start, end int
	tables     int
}

// cutLines removes g from b with the line ending Merge put before it: a
// blank line before it goes with it, and, at the end of the file, the
// line ending Merge added to a last line that had none.
func cutLines(b []byte, g tomlGroup, nl string) []byte {
	before, after := b[:g.start], b[g.end:]
	switch {
	case bytes.HasSuffix(before, []byte(nl+nl)):
		before = before[:len(before)-len(nl)]
	case len(after) == 0 && bytes.HasSuffix(before, []byte(nl)):
		before = before[:len(before)-len(nl)]
	}
	return append(append([]byte(nil), before...), after...)
}

// scan decodes b as the agent does and finds the groups of our tables.
func (t TOMLTables) scan(b []byte) (map[string]any, []tomlGroup, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return nil, nil, t.parseError(b, err)
	}
	type expr struct {
		kind       unstable.Kind
		key        []string
		start, end int // from its line's start to after its last line's ending
		text       string
	}
	var exprs []expr
	p := unstable.Parser{KeepComments: true}
	p.Reset(b)
	for p.NextExpression() {
		n := p.Expression()
		e := expr{kind: n.Kind}
		first, last := -1, -1
		switch n.Kind {
		case unstable.Comment:
			first, last = int(n.Raw.Offset), int(n.Raw.Offset+n.Raw.Length)
			e.text = string(n.Data)
		case unstable.KeyValue:
			first, last = int(n.Raw.Offset), int(n.Raw.Offset+n.Raw.Length)
		case unstable.Table, unstable.ArrayTable:
			for it := n.Key(); it.Next(); {
				k := it.Node()
				if first < 0 {
					first = int(k.Raw.Offset)
				}
				last = int(k.Raw.Offset + k.Raw.Length)
				e.key = append(e.key, string(k.Data))
			}
		default:
			continue
		}
		if first < 0 {
			continue
		}
		e.start = bytes.LastIndexByte(b[:first], '\n') + 1
		if i := bytes.IndexByte(b[last:], '\n'); i >= 0 {
			e.end = last + i + 1
		} else {
			e.end = len(b)
		}
		exprs = append(exprs, e)
	}
	if err := p.Error(); err != nil {
		return nil, nil, t.parseError(b, err)
	}
	var groups []tomlGroup
	open := false // the last group may take the next table
	for i := 0; i < len(exprs); i++ {
		e := exprs[i]
		if e.kind != unstable.Table && e.kind != unstable.ArrayTable {
			continue
		}
		// The table runs to its last key's line, before the next header.
		end, j := e.end, i+1
		for ; j < len(exprs) && exprs[j].kind != unstable.Table && exprs[j].kind != unstable.ArrayTable; j++ {
			if exprs[j].kind == unstable.KeyValue {
				end = exprs[j].end
			}
		}
		if !t.oursTable(b[e.start:end], e.kind, e.key) {
			open = false
			continue
		}
		start := e.start
		if open && len(bytes.TrimSpace(b[groups[len(groups)-1].end:start])) == 0 {
			groups[len(groups)-1].end = end
			groups[len(groups)-1].tables++
		} else {
			if i > 0 && exprs[i-1].kind == unstable.Comment && exprs[i-1].end == start && strings.HasPrefix(exprs[i-1].text, tomlCommentPrefix) {
				start = exprs[i-1].start
			}
			groups = append(groups, tomlGroup{start: start, end: end, tables: 1})
		}
		open = true
		// Comments after the table's last key belong to what follows.
		i = j - 1
	}
	return doc, groups, nil
}

// oursTable reports whether the table at src (its header and keys) is one
// of ours: an element of the array whose command Ours recognises.
func (t TOMLTables) oursTable(src []byte, kind unstable.Kind, key []string) bool {
	if kind != unstable.ArrayTable || len(key) != 1 || key[0] != t.Array {
		return false
	}
	var one map[string]any
	if toml.Unmarshal(src, &one) != nil {
		return false
	}
	tabs := tomlArray(one[t.Array])
	if len(tabs) != 1 {
		return false
	}
	cmd, _ := tabs[0]["command"].(string)
	return t.Ours(cmd)
}

// tomlArray is an array of tables as go-toml decodes it, or nil.
func tomlArray(v any) []map[string]any {
	switch a := v.(type) {
	case []map[string]any:
		return a
	case []any:
		out := make([]map[string]any, 0, len(a))
		for _, x := range a {
			m, ok := x.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// verify re-decodes out and checks it equals before with exactly our
// change: the same once our tables are taken out of both, and ours in out
// as Tables gives them (merged) or none (removed).
func (t TOMLTables) verify(before, out []byte, merged bool) error {
	var was, now map[string]any
	if err := toml.Unmarshal(before, &was); err != nil {
		return t.internal("the file before the edit does not parse: " + err.Error())
	}
	if err := toml.Unmarshal(out, &now); err != nil {
		line := tomlKeyLine(before, t.Array)
		if line == 0 {
			return t.internal("the edited file does not parse (" + err.Error() + ")")
		}
		// The array is written in another form than [[tables]].
		return &FileError{Path: t.Path, Line: line,
			Problem:     t.Array + " is written as an inline array or a [" + t.Array + "] table, so no [[" + t.Array + "]] table can be added after it",
			Consequence: "nothing was written",
			Fix:         "write each entry of " + t.Array + " as its own [[" + t.Array + "]] table (the form " + t.Agent + "'s documentation uses), then run nowhook again"}
	}
	wasRest, _ := t.split(was)
	nowRest, ours := t.split(now)
	if !reflect.DeepEqual(wasRest, nowRest) {
		return t.internal("the edit changed more than our tables")
	}
	var want []map[string]any
	if merged {
		var w map[string]any
		if err := toml.Unmarshal([]byte(t.render("\n")), &w); err != nil {
			return t.internal("our tables do not parse: " + err.Error())
		}
		want = tomlArray(w[t.Array])
	}
	if len(ours) != len(want) || (len(want) > 0 && !reflect.DeepEqual(ours, want)) {
		return t.internal("our tables are not as written")
	}
	return nil
}

// split takes our tables out of doc's array: the rest (without the
// array when only ours were in it) and ours.
func (t TOMLTables) split(doc map[string]any) (rest map[string]any, ours []map[string]any) {
	rest = map[string]any{}
	for k, v := range doc {
		rest[k] = v
	}
	tabs := tomlArray(doc[t.Array])
	if tabs == nil {
		return rest, nil
	}
	var kept []map[string]any
	for _, tab := range tabs {
		if cmd, _ := tab["command"].(string); t.Ours(cmd) {
			ours = append(ours, tab)
		} else {
			kept = append(kept, tab)
		}
	}
	if len(kept) == 0 {
		delete(rest, t.Array)
	} else {
		rest[t.Array] = kept
	}
	return rest, ours
}

func (t TOMLTables) internal(what string) error {
	return fmt.Errorf("%s: internal error: %s; nothing was written", t.Path, what)
}

// parseError is a file that does not decode, with its line.
func (t TOMLTables) parseError(b []byte, err error) *FileError {
	fe := &FileError{Path: t.Path, Problem: "is not valid TOML (" + strings.Join(strings.Fields(err.Error()), " ") + ")",
		Consequence: t.Agent + " ignores the whole file, every setting and hook in it, and nowhook writes nothing to it",
		Fix:         "correct the file, then run nowhook again"}
	var de *toml.DecodeError
	var pe *unstable.ParserError
	switch {
	case errors.As(err, &de):
		fe.Line, fe.Col = de.Position()
	case errors.As(err, &pe) && len(pe.Highlight) > 0:
		if off := bytes.Index(b, pe.Highlight); off >= 0 {
			fe.Line = bytes.Count(b[:off], []byte("\n")) + 1
		}
	}
	return fe
}

// tomlKeyLine is the line of the first line that sets key at the top
// level or opens its table, or 0.
func tomlKeyLine(b []byte, key string) int {
	for i, line := range strings.Split(string(b), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "["+key+"]") || strings.HasPrefix(l, key+" =") || strings.HasPrefix(l, key+"=") {
			return i + 1
		}
	}
	return 0
}
