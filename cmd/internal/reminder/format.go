package reminder

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// The reminder format Kanbus documents (docs/platforms.md#kanbus) and its caps
// (README, "The hook runtime"). The python3 fallback in templates/wrapper.sh
// implements the same rules; the golden test holds the two together.
const (
	header      = "Kanbus WIP (whole project, capped):\n\n"
	noSummary   = "(no right-now summary)"
	maxItems    = 30
	maxLineLen  = 300  // characters (code points) per line, "…" included
	maxOutBytes = 6000 // the whole output stays strictly under this
)

// format renders the reminder for items; nil when there is nothing to say.
// Every line is "- [P{priority}][{status}] {id}: {title} — {summary}".
func format(items []item) []byte {
	if len(items) == 0 {
		return nil
	}
	out := make([]byte, 0, 4096)
	out = append(out, header...)
	return appendItems(out, items, appendLine)
}

// appendItems appends one line per item, rendered by line, after what out
// already holds: at most maxItems lines, the whole output strictly under
// maxOutBytes, and "- … N more: run kbs now --list" for the items cut.
func appendItems(out []byte, items []item, line func([]byte, *item) []byte) []byte {
	var l []byte
	shown := 0
	for i := range items {
		if i == maxItems {
			break
		}
		l = line(l[:0], &items[i])
		reserve := 0
		if rest := len(items) - i - 1; rest > 0 {
			reserve = moreLen(rest)
		}
		if len(out)+len(l)+1+reserve >= maxOutBytes {
			break
		}
		out = append(out, l...)
		out = append(out, '\n')
		shown++
	}
	if shown < len(items) {
		out = appendMore(out, len(items)-shown)
	}
	return out
}

// appendMore adds the line that says how many items were left out.
func appendMore(out []byte, n int) []byte {
	out = append(out, "- … "...)
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, " more: run kbs now --list\n"...)
}

func moreLen(n int) int {
	return len(appendMore(make([]byte, 0, 48), n))
}

// appendLine renders one item, sanitised and cut to maxLineLen characters.
func appendLine(dst []byte, it *item) []byte {
	start := len(dst)
	dst = appendHead(dst, it)
	dst = append(dst, " — "...)
	dst = appendOr(dst, it.summary, it.hasSummary, noSummary)
	return cutLine(dst, start)
}

// appendIDLine renders an item without its summary, sanitised and cut:
// "- [P{priority}][{status}] {id}: {title}", for the checkpoint and the hint.
func appendIDLine(dst []byte, it *item) []byte {
	start := len(dst)
	return cutLine(appendHead(dst, it), start)
}

// appendHead appends "- [P{priority}][{status}] {id}: {title}", sanitised.
func appendHead(dst []byte, it *item) []byte {
	dst = append(dst, "- [P"...)
	if it.hasPriority {
		dst = strconv.AppendInt(dst, it.priority, 10)
	} else {
		dst = append(dst, '?')
	}
	dst = append(dst, "]["...)
	dst = appendOr(dst, it.status, it.hasStatus, "?")
	dst = append(dst, "] "...)
	dst = appendOr(dst, it.id, it.hasID, "?")
	dst = append(dst, ": "...)
	if it.hasTitle {
		dst = appendClean(dst, it.title)
	}
	return dst
}

// appendOr appends the cleaned s, or def when s is absent or cleans to "".
func appendOr(dst []byte, s string, has bool, def string) []byte {
	n := len(dst)
	if has {
		dst = appendClean(dst, s)
	}
	if len(dst) == n {
		dst = append(dst, def...)
	}
	return dst
}

// appendClean appends s with every run of control characters, line breaks
// and spaces turned into one space, trimmed at both ends: a field can
// neither break the line nor smuggle terminal escapes.
func appendClean(dst []byte, s string) []byte {
	pending, wrote := false, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c <= 0x20 || c == 0x7F {
				pending = wrote
				continue
			}
			if pending {
				dst = append(dst, ' ')
				pending = false
			}
			dst = append(dst, c)
			wrote = true
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x80 && r <= 0x9F) || r == 0x2028 || r == 0x2029 {
			i += n
			pending = wrote
			continue
		}
		if pending {
			dst = append(dst, ' ')
			pending = false
		}
		dst = append(dst, s[i:i+n]...)
		i += n
		wrote = true
	}
	return dst
}

// cutLine cuts the line that starts at dst[start] to maxLineLen characters,
// the last being "…". The cut never splits a character from the marks,
// joiners and modifiers that complete it (an accent, an emoji sequence).
func cutLine(dst []byte, start int) []byte {
	line := dst[start:]
	if len(line) <= maxLineLen {
		return dst // fewer bytes than the limit: fewer characters too
	}
	var offs [maxLineLen + 1]int
	var runes [maxLineLen + 1]rune
	n := 0
	for i, r := range string(line) {
		if n > maxLineLen {
			break
		}
		offs[n], runes[n] = i, r
		n++
	}
	if n <= maxLineLen {
		return dst
	}
	k := maxLineLen - 1
	for k > 0 && (extends(runes[k]) || runes[k-1] == zeroWidthJoiner) {
		k--
	}
	return append(dst[:start+offs[k]], "…"...)
}

const zeroWidthJoiner = '\u200d'

// extends reports whether r belongs to the character before it: a
// combining mark, a joiner, a variation selector, an emoji modifier or tag.
// (The python3 fallback in the wrapper has the same rule.)
func extends(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || r == zeroWidthJoiner ||
		(r >= 0xFE00 && r <= 0xFE0F) || (r >= 0x1F3FB && r <= 0x1F3FF) || (r >= 0xE0020 && r <= 0xE007F)
}
