package reminder

import (
	"strconv"
	"unicode/utf8"
)

// This file is a small JSON reader written for the hot path: it reads the
// `kbs now --json --list` array and the hook payload object without
// reflection, keeping only the fields the reminder prints. It accepts
// exactly what Python's json.loads accepts (minus NaN and Infinity), decodes
// invalid UTF-8 the way Python's "replace" error handler does, and keeps the
// last of duplicate keys, so that the python3 fallback in the wrapper reads
// every payload the same way.

// maxDepth bounds the nesting of skipped values.
const maxDepth = 512

// item is one entry of the payload, as far as the reminder cares.
type item struct {
	id, title, status, summary             string
	hasID, hasTitle, hasStatus, hasSummary bool // the field is a JSON string
	priority                               int64
	hasPriority                            bool // the field is an integer that fits int64
}

// payload is what the reminder reads from the hook's stdin.
type payload struct {
	hasSource     bool
	source        string // "" unless the source is a string
	sourceString  bool
	cursorVersion bool
	// timestamp: the payload has a "timestamp" key, which GitHub Copilot
	// CLI's payloads carry and Claude Code's do not (client.go).
	timestamp bool
	// permissionMode and promptID: the payload has that key. Codex CLI's
	// hooks get permission_mode and no prompt_id, and no variable that
	// names the project (deferral.go, hookClient).
	permissionMode, promptID bool
	cwd                      string
	// What the checkpoint and the hint read; "" unless a string.
	sessionID, transcriptPath, event string
	toolUseID                        string // PostToolUse: the tool call's id
	// The context use Qwen Code's Stop hook carries (context_usage, its
	// ratio, is derived from these two): the last prompt's tokens and the
	// window, when both are integers.
	inputTokens, contextLimit       int64
	hasInputTokens, hasContextLimit bool
	// What the rules source reads (rules.go): Factory Droid's session
	// before the compaction, and the user's messages that OpenCode's
	// plugin hands over.
	previousSessionID string
	userMessages      []string
	hasUserMessages   bool
}

type parser struct {
	b []byte
	i int
}

// parseItems reads a JSON array; objects become items, other elements are
// skipped. ok is false when b is not one valid JSON array.
func parseItems(b []byte) (items []item, ok bool) {
	p := parser{b: b}
	p.skipBOM()
	p.ws()
	if !p.eat('[') {
		return nil, false
	}
	items = make([]item, 0, 32)
	p.ws()
	if !p.eat(']') {
		for {
			p.ws()
			if p.peek() == '{' {
				it, ok := p.item()
				if !ok {
					return nil, false
				}
				items = append(items, it)
			} else if !p.skip(1) {
				return nil, false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat(']') {
				break
			}
			return nil, false
		}
	}
	p.ws()
	return items, p.i == len(p.b)
}

// parsePayload reads the hook's stdin object.
func parsePayload(b []byte) (pl payload, ok bool) {
	p := parser{b: b}
	p.skipBOM()
	p.ws()
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "source":
			pl.hasSource = true
			pl.source, pl.sourceString = p.optString()
			return pl.sourceString || p.skip(1)
		case "cursor_version":
			pl.cursorVersion = true
		case "timestamp":
			pl.timestamp = true
		case "permission_mode":
			pl.permissionMode = true
		case "prompt_id":
			pl.promptID = true
		case "cwd":
			var isString bool
			if pl.cwd, isString = p.optString(); isString {
				return true
			}
		case "session_id":
			return p.stringField(&pl.sessionID)
		case "transcript_path":
			return p.stringField(&pl.transcriptPath)
		case "hook_event_name":
			return p.stringField(&pl.event)
		case "tool_use_id":
			return p.stringField(&pl.toolUseID)
		case "input_tokens":
			return p.intField(&pl.inputTokens, &pl.hasInputTokens)
		case "context_limit":
			return p.intField(&pl.contextLimit, &pl.hasContextLimit)
		case "previous_session_id":
			return p.stringField(&pl.previousSessionID)
		case "user_messages":
			pl.userMessages, pl.hasUserMessages = nil, p.peek() == '['
			return p.texts(&pl.userMessages)
		}
		return p.skip(1)
	})
	p.ws()
	return pl, ok && p.i == len(p.b)
}

// stringField stores the string at the cursor in *dst, or "" when the
// value is of another type, and steps over the value.
func (p *parser) stringField(dst *string) bool {
	s, isString := p.optString()
	*dst = s
	return isString || p.skip(1)
}

// intField reads an integer that fits int64 into *dst and sets *has; any
// other value is stepped over and leaves *has false.
func (p *parser) intField(dst *int64, has *bool) bool {
	*dst, *has = 0, false
	if c := p.peek(); c == '-' || (c >= '0' && c <= '9') {
		tok, isInt, ok := p.number()
		if ok && isInt {
			if n, err := strconv.ParseInt(string(tok), 10, 64); err == nil {
				*dst, *has = n, true
			}
		}
		return ok
	}
	return p.skip(1)
}

// validJSON reports whether b holds exactly one JSON value.
func validJSON(b []byte) bool {
	p := parser{b: b}
	p.skipBOM()
	p.ws()
	if !p.skip(0) {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

// item reads one object of the array.
func (p *parser) item() (it item, ok bool) {
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			it.id, it.hasID = p.optString()
			return it.hasID || p.skip(1)
		case "title":
			it.title, it.hasTitle = p.optString()
			return it.hasTitle || p.skip(1)
		case "status":
			it.status, it.hasStatus = p.optString()
			return it.hasStatus || p.skip(1)
		case "right_now_summary":
			it.summary, it.hasSummary = p.optString()
			return it.hasSummary || p.skip(1)
		case "priority":
			it.priority, it.hasPriority = 0, false
			if c := p.peek(); c == '-' || (c >= '0' && c <= '9') {
				tok, isInt, ok := p.number()
				if ok && isInt {
					if n, err := strconv.ParseInt(string(tok), 10, 64); err == nil {
						it.priority, it.hasPriority = n, true
					}
				}
				return ok
			}
		}
		return p.skip(1)
	})
	return it, ok
}

// object reads an object at p.i, calling field with the cursor on each
// value; field must consume the value and report whether it was valid.
// The key is only valid during the call.
func (p *parser) object(field func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	p.ws()
	if p.eat('}') {
		return true
	}
	for {
		p.ws()
		if p.peek() != '"' {
			return false
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		if !field(key) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat('}')
	}
}

// optString decodes a string if one is at the cursor; otherwise it leaves
// the cursor alone and returns false.
func (p *parser) optString() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	save := p.i
	s, ok := p.str()
	if !ok {
		p.i = save
		return "", false
	}
	return s, true
}

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) skipBOM() {
	if len(p.b) >= 3 && p.b[0] == 0xEF && p.b[1] == 0xBB && p.b[2] == 0xBF {
		p.i = 3
	}
}

// skip validates and steps over one value.
func (p *parser) skip(depth int) bool {
	switch c := p.peek(); {
	case c == '"':
		return p.skipStr()
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return false
		}
		if c == '{' {
			return p.object(func([]byte) bool { return p.skip(depth + 1) })
		}
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := p.number()
		return ok
	}
	return false
}

func (p *parser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// number steps over a JSON number and returns its text and whether it is
// an integer (no fraction, no exponent).
func (p *parser) number() (tok []byte, isInt, ok bool) {
	start := p.i
	p.eat('-')
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, false, false
	}
	isInt = true
	if p.eat('.') {
		isInt = false
		if !p.digits() {
			return nil, false, false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		isInt = false
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return nil, false, false
		}
	}
	return p.b[start:p.i], isInt, true
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// skipStr steps over a string, validating its escapes.
func (p *parser) skipStr() bool {
	p.i++ // opening quote
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return true
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return false
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if _, ok := hex4(p.b, p.i+2); !ok {
					return false
				}
				p.i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			p.i++
		}
	}
	return false
}

// key reads an object key without copying it when it has no escapes.
func (p *parser) key() ([]byte, bool) {
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		if c := p.b[j]; c == '"' {
			if s := p.b[start:j]; utf8.Valid(s) {
				p.i = j + 1
				return s, true
			}
			break
		} else if c == '\\' || c < 0x20 {
			break
		}
	}
	s, ok := p.str()
	return []byte(s), ok
}

// str decodes the string at the cursor.
func (p *parser) str() (string, bool) {
	start := p.i + 1
	// Fast path: no escapes and valid UTF-8.
	for j := start; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			if s := p.b[start:j]; utf8.Valid(s) {
				p.i = j + 1
				return string(s), true
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	out := make([]byte, 0, 64)
	j := start
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			p.i = j + 1
			return string(out), true
		case c < 0x20:
			return "", false
		case c == '\\':
			var ok bool
			if out, j, ok = appendEscape(out, p.b, j+1); !ok {
				return "", false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			j++
		default:
			r, n := utf8.DecodeRune(p.b[j:])
			if r == utf8.RuneError && n <= 1 {
				n = invalidLen(p.b[j:])
			}
			out = utf8.AppendRune(out, r)
			j += n
		}
	}
	return "", false
}

// appendEscape decodes the escape whose letter is b[j] (after its
// backslash), appends what it stands for to out, and returns the index
// after it; ok is false for an escape JSON does not have.
func appendEscape(out, b []byte, j int) (_ []byte, next int, ok bool) {
	if j >= len(b) {
		return out, j, false
	}
	switch e := b[j]; e {
	case '"', '\\', '/':
		return append(out, e), j + 1, true
	case 'b':
		return append(out, '\b'), j + 1, true
	case 'f':
		return append(out, '\f'), j + 1, true
	case 'n':
		return append(out, '\n'), j + 1, true
	case 'r':
		return append(out, '\r'), j + 1, true
	case 't':
		return append(out, '\t'), j + 1, true
	case 'u':
		r, next, ok := unicodeEscape(b, j+1)
		return utf8.AppendRune(out, r), next, ok
	}
	return out, j, false
}

// unicodeEscape decodes the four hex digits at b[j] of a \u escape, and a
// low surrogate's escape after a high one, and returns the index after
// them. A high surrogate pairs with an escaped low one that follows;
// alone, as a lone low one, it is U+FFFD.
func unicodeEscape(b []byte, j int) (r rune, next int, ok bool) {
	r, ok = hex4(b, j)
	if !ok {
		return 0, j, false
	}
	j += 4
	switch {
	case r >= 0xD800 && r < 0xDC00:
		if j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
			if r2, ok := hex4(b, j+2); ok && r2 >= 0xDC00 && r2 < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00), j + 6, true
			}
		}
		return utf8.RuneError, j, true
	case r >= 0xDC00 && r < 0xE000:
		return utf8.RuneError, j, true
	}
	return r, j, true
}

// invalidLen is the length of the invalid UTF-8 sequence at the start of b
// that Python's decoder replaces by one U+FFFD: the maximal prefix of a
// well-formed sequence, or one byte.
func invalidLen(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
