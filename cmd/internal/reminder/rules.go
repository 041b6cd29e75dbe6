package reminder

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The rules source: what the user typed in this session before the
// compaction, verbatim, read from the client's own record of the session
// (docs/platforms.md, "Sources: the user's words in each client's
// transcript", measured per client): never a tool's output, never the
// compaction's summary, never a reminder of ours. A compactor keeps few of
// the constraints a user states; copied from the transcript they come back
// whole.
//
// Each client's record, told apart by its records, not by the client's
// name:
//
//   - Claude Code: the JSONL at transcript_path; a user's message is a
//     "user" record whose message.content is a string or text blocks, not
//     marked isMeta, isCompactSummary or isVisibleInTranscriptOnly, not a
//     subagent's, not a tool result; slash commands are recorded as
//     <command-name> text and left out.
//   - Codex CLI: the rollout at transcript_path; a user's message is an
//     "event_msg" whose payload is an item_completed UserMessage (or, in
//     older versions, a user_message).
//   - Qwen Code: the JSONL at transcript_path; "user" records with
//     provenance real_user, their message.parts.
//   - Gemini CLI: the JSONL at transcript_path; "user" records with a
//     content array, past the <session_context> it opens with.
//   - Factory Droid: /compact moves the session to a new file, which
//     transcript_path names; its session_start record names the parent
//     session, whose file beside it holds the words (and so on up).
//   - OpenCode: no file the hook can read (its store is SQLite); the
//     plugin hands the user's messages over in the payload (user_messages).

const (
	// rulesWant is the room the user's words ask for in the reminder: a
	// few hundred tokens, the task and its constraints first.
	rulesWant = 3000
	// rulesFloor is the room they are sure to get, when they need it.
	rulesFloor = 1200
	// rulesFullRead: a transcript up to this size is read whole; a larger
	// one, its first rulesHead bytes (the first message is there) and its
	// last rulesTail (the newest ones).
	rulesFullRead = 8 << 20
	rulesHead     = 1 << 20
	rulesTail     = 4 << 20
	// maxParents bounds the chain of earlier session files (Droid).
	maxParents = 16
	// maxPayloadMessages bounds the messages taken from a payload.
	maxPayloadMessages = 4096
)

// The frame around the user's words: they are quoted from the record,
// earlier words, not a request made now.
const (
	rulesOpen   = "Quoted from this session's transcript below: the user's own messages from before the compaction, verbatim, the first one (the task) and then the newest first. They are what the user said earlier, not a new request.\n"
	rulesClose  = "End of the quote from the transcript.\n"
	labelFirst  = "[the first message]\n"
	labelNewest = "[the newest message]\n"
	// A message that does not fit whole ends with this mark.
	cutMark = " [… cut]"
)

// ignoredTags open text that a client writes into a user record itself: its
// commands and their output, the context it adds, its reminders.
var ignoredTags = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<system-reminder>",
	"<session_context>", "<environment_context>", "<user_instructions>",
	"<user-prompt-submit-hook>", "# AGENTS.md instructions for ",
}

// ownMarks are lines only a reminder of ours holds: a message that quotes
// one is a reminder pasted back, never the user's words.
var ownMarks = []string{
	"Quoted from the Kanbus board below:",
	"Kanbus WIP (whole project, capped):",
	rulesOpen[:40],
	samemindOpen[:40],
	gitOpen[:30],
}

// sourcePayload is what the sources read from the hook payload.
type sourcePayload struct {
	transcriptPath    string
	previousSessionID string // Droid: the session this one was compacted from
	userMessages      []string
	hasUserMessages   bool // the payload carries user_messages (OpenCode's plugin)
}

// userWords are the user's messages of a session, oldest first.
type userWords struct {
	msgs []string
	// gap: the middle of a large transcript was not read, so an unknown
	// number of messages lie between msgs[0] and the rest.
	gap bool
	// from names where the words were read, for NOWHOOK_DEBUG.
	from string
}

var errNoWords = errors.New("no message of the user's")

// readUserWords reads the user's words from the payload or the transcript.
func readUserWords(sp sourcePayload) (userWords, error) {
	if sp.hasUserMessages {
		w := userWords{from: "the payload's user_messages"}
		seen := map[string]bool{}
		list := sp.userMessages
		if len(list) > maxPayloadMessages {
			// The first (the task) and the newest.
			list = append(list[:1:1], list[len(list)-maxPayloadMessages+1:]...)
			w.gap = true
		}
		for _, m := range list {
			if t, ok := userText(m); ok && !seen[t] {
				seen[t] = true
				w.msgs = append(w.msgs, t)
			}
		}
		if len(w.msgs) == 0 {
			return w, errNoWords
		}
		return w, nil
	}
	if sp.transcriptPath == "" {
		return userWords{}, errors.New("the payload names no transcript")
	}
	r := wordsReader{seen: map[string]bool{}, files: map[string]bool{}}
	if err := r.file(sp.transcriptPath, sp.previousSessionID, 0); err != nil {
		return userWords{}, err
	}
	w := userWords{msgs: r.msgs, gap: r.gap, from: strings.Join(r.read, ", ")}
	if len(w.msgs) == 0 {
		return w, errNoWords
	}
	return w, nil
}

// wordsReader collects the user's messages from a transcript and the
// session files before it.
type wordsReader struct {
	msgs  []string
	gap   bool
	seen  map[string]bool // texts taken: a message said twice counts once
	files map[string]bool // files read: a cycle of parents ends
	read  []string
}

// file reads the transcript at path, after the session it names as its
// parent (or parent, given by the payload) when that file lies beside it.
func (r *wordsReader) file(path, parent string, depth int) error {
	if r.files[path] {
		return nil
	}
	r.files[path] = true
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New(path + ": not a regular file")
	}
	var own []string // this file's messages, oldest first
	gap := false
	take := func(line []byte) {
		rec, ok := parseWordsRecord(line)
		if !ok {
			return
		}
		if rec.parent != "" && parent == "" {
			parent = rec.parent
		}
		if rec.user {
			own = append(own, rec.texts...)
		}
	}
	size := fi.Size()
	if size <= rulesFullRead {
		b := make([]byte, size)
		n, err := io.ReadFull(f, b)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		eachLine(b[:n], take)
	} else {
		head := make([]byte, rulesHead)
		n, _ := io.ReadFull(f, head)
		head = head[:n]
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1] // a line cut by the end of the head is dropped
		}
		eachLine(head, take)
		n0 := len(own)
		tail := make([]byte, rulesTail)
		n, err := f.ReadAt(tail, size-rulesTail)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		tail = tail[:n]
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:] // nor one cut by its start
		}
		eachLine(tail, take)
		gap = len(own) > n0 && n0 > 0
	}
	r.read = append(r.read, path)
	if parent != "" && depth < maxParents && safeName(parent) {
		prev := filepath.Join(filepath.Dir(path), parent+".jsonl")
		if _, err := os.Lstat(prev); err == nil {
			_ = r.file(prev, "", depth+1) // an earlier session's words come first
		}
	}
	if gap {
		r.gap = true
	}
	for _, t := range own {
		if !r.seen[t] {
			r.seen[t] = true
			r.msgs = append(r.msgs, t)
		}
	}
	return nil
}

// safeName reports whether a session id can name a file beside the
// transcript: no separator, no dot-dot.
func safeName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// eachLine calls fn on each non-empty line of b.
func eachLine(b []byte, fn func([]byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if mayHoldWords(line) {
			fn(line)
		}
	}
}

// mayHoldWords reports whether a line can be a user's message or a
// session's start, by byte patterns that cannot occur inside a JSON
// string (its quotes are escaped there): most records are not, and a
// tool's result (Claude Code's toolUseResult) is not, however large.
func mayHoldWords(line []byte) bool {
	if len(line) == 0 || bytes.Contains(line, []byte(`"toolUseResult":`)) {
		return false
	}
	for _, m := range wordsMarks {
		if bytes.Contains(line, m) {
			return true
		}
	}
	return false
}

// wordsMarks: every format's user record holds one (JSON as each client
// writes it, without blanks between a key and its value).
var wordsMarks = [][]byte{
	[]byte(`"type":"user"`), []byte(`"role":"user"`), []byte(`"UserMessage"`),
	[]byte(`"user_message"`), []byte(`"type":"session_start"`),
}

// wordsRecord is what one transcript line says about the user's words.
type wordsRecord struct {
	user   bool     // the line is a message the user typed
	texts  []string // its text, one entry per message
	parent string   // Droid: the session this one continues
}

// parseWordsRecord reads one JSONL line of any of the known transcripts.
func parseWordsRecord(b []byte) (wordsRecord, bool) {
	var (
		typ, provenance, role, payloadType, itemType, payloadMessage string
		parent                                                       string
		meta, hookMessage, hasMessage, hasTopContent, hasDisplay     bool
		msgTexts, topTexts, itemTexts, displayTexts                  []string
	)
	p := parser{b: b}
	p.ws()
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return p.stringField(&typ)
		case "provenance":
			return p.stringField(&provenance)
		case "parent":
			return p.stringField(&parent)
		case "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "isSidechain":
			if p.lit("true") {
				meta = true
				return true
			}
			return p.skip(1)
		case "toolUseResult":
			meta = true
			return p.skip(1)
		case "content":
			hasTopContent = true
			return p.texts(&topTexts)
		case "displayContent": // Gemini CLI: what the user typed, before @-file expansion
			hasDisplay = true
			return p.texts(&displayTexts)
		case "message":
			if p.peek() != '{' {
				return p.skip(1)
			}
			hasMessage = true
			return p.object(func(key []byte) bool {
				switch string(key) {
				case "role":
					return p.stringField(&role)
				case "content", "parts":
					return p.texts(&msgTexts)
				case "hookEventName":
					hookMessage = true
				}
				return p.skip(2)
			})
		case "payload":
			if p.peek() != '{' {
				return p.skip(1)
			}
			return p.object(func(key []byte) bool {
				switch string(key) {
				case "type":
					return p.stringField(&payloadType)
				case "message":
					return p.stringField(&payloadMessage)
				case "item":
					if p.peek() != '{' {
						return p.skip(2)
					}
					return p.object(func(key []byte) bool {
						switch string(key) {
						case "type":
							return p.stringField(&itemType)
						case "content":
							return p.texts(&itemTexts)
						}
						return p.skip(3)
					})
				}
				return p.skip(2)
			})
		}
		return p.skip(1)
	})
	p.ws()
	if !ok || p.i != len(p.b) {
		return wordsRecord{}, false // a partly written or foreign line
	}
	var texts []string
	switch {
	case typ == "event_msg" && payloadType == "item_completed" && itemType == "UserMessage": // Codex
		texts = itemTexts
	case typ == "event_msg" && payloadType == "user_message": // older Codex
		texts = []string{payloadMessage}
	case typ == "user" && hasMessage && provenance != "": // Qwen Code
		if provenance != "real_user" {
			return wordsRecord{}, true
		}
		texts = msgTexts
	case typ == "user" && hasMessage: // Claude Code
		if meta || (role != "" && role != "user") {
			return wordsRecord{}, true
		}
		texts = msgTexts
	case typ == "user" && hasTopContent: // Gemini CLI
		texts = topTexts
		if hasDisplay {
			// What the user typed; its automatic "Please continue."
			// shows the prompt it continues, which counts once.
			texts = displayTexts
		}
	case typ == "message" && role == "user" && !hookMessage: // Factory Droid
		texts = msgTexts
	case typ == "session_start":
		return wordsRecord{parent: parent}, true
	default:
		return wordsRecord{}, true
	}
	var kept []string
	for _, t := range texts {
		if s, ok := userText(t); ok {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return wordsRecord{}, true
	}
	return wordsRecord{user: true, texts: []string{strings.Join(kept, "\n")}}, true
}

// texts reads a string, or an array of strings and of objects whose
// "text" is a string and whose "type", if any, is a text type, into
// *dst; other elements (tool results, images) are skipped.
func (p *parser) texts(dst *[]string) bool {
	if s, ok := p.optString(); ok {
		*dst = append(*dst, s)
		return true
	}
	if p.peek() != '[' {
		return p.skip(2)
	}
	p.i++
	p.ws()
	if p.eat(']') {
		return true
	}
	for {
		p.ws()
		if s, ok := p.optString(); ok {
			*dst = append(*dst, s) // a plain string: OpenCode's user_messages
		} else if p.peek() == '{' {
			var typ, text string
			hasText := false
			if !p.object(func(key []byte) bool {
				switch string(key) {
				case "type":
					return p.stringField(&typ)
				case "text":
					text, hasText = p.optString()
					return hasText || p.skip(3)
				}
				return p.skip(3)
			}) {
				return false
			}
			if hasText && (typ == "" || typ == "text" || typ == "input_text") {
				*dst = append(*dst, text)
			}
		} else if !p.skip(2) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat(']')
	}
}

// userText trims a text and reports whether it is the user's own: not
// empty, not opened by a tag a client writes itself, not a reminder of
// ours.
func userText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	for _, t := range ignoredTags {
		if strings.HasPrefix(s, t) {
			return "", false
		}
	}
	for _, m := range ownMarks {
		if strings.Contains(s, m) {
			return "", false
		}
	}
	return s, true
}

// renderRules renders the user's words in at most limit bytes, or nil
// when not even the frame and the start of the first message fit. The
// first message always comes first; then the newest, newest first, as
// many as fit; a message that does not fit whole is cut (cutMark), and
// the messages left out are counted.
func renderRules(w userWords, limit int) []byte {
	if len(w.msgs) == 0 {
		return nil
	}
	const minFirst = 60 // bytes of the first message worth printing
	fixed := len(rulesOpen) + len(rulesClose) + len(labelFirst)
	if limit < fixed+minFirst {
		return nil
	}
	out := make([]byte, 0, min(limit, 8192))
	out = append(out, rulesOpen...)
	out = append(out, labelFirst...)
	rest := w.msgs[1:]
	room := limit - fixed
	firstRoom := room
	if len(rest) > 0 {
		// The newest messages get a third of the room at least.
		firstRoom = max(room*2/3, minFirst)
	}
	before := len(out)
	out = appendQuote(out, w.msgs[0], firstRoom)
	room -= len(out) - before
	shown := 0
	for i := len(rest) - 1; i >= 0; i-- {
		label := labelNewest
		if shown > 0 {
			label = "[" + strconv.Itoa(shown) + " before the newest]\n"
		}
		// Keep room for the line that counts what is left out.
		reserve := 0
		if i > 0 || w.gap {
			reserve = len(leftOut(i, w.gap))
		}
		avail := room - len(label) - reserve
		need := quotedLen(rest[i])
		if need > avail {
			if avail < 120 {
				break
			}
			need = avail
		}
		out = append(out, label...)
		before := len(out)
		out = appendQuote(out, rest[i], need)
		room -= len(label) + len(out) - before
		shown++
		cut := need < quotedLen(rest[i])
		rest = rest[:i]
		if cut {
			break // the older ones would not fit either
		}
	}
	if len(rest) > 0 || w.gap {
		out = append(out, leftOut(len(rest), w.gap)...)
	}
	return append(out, rulesClose...)
}

// leftOut is the line that says how many older messages were left out
// (some, when the middle of the transcript was not read).
func leftOut(n int, gap bool) string {
	switch {
	case gap:
		return "[… older messages left out]\n"
	case n == 1:
		return "[… 1 older message left out]\n"
	}
	return "[… " + strconv.Itoa(n) + " older messages left out]\n"
}

// quotedLen is the length appendQuote gives s with room enough.
func quotedLen(s string) int {
	return len(appendQuote(nil, s, len(s)*4+64))
}

// appendQuote appends s as quoted lines ("> " and the line, sanitised, a
// blank line as ">") in at most limit bytes; a text that does not fit is
// cut at a character boundary and ends with cutMark.
func appendQuote(dst []byte, s string, limit int) []byte {
	start := len(dst)
	cut := false
	for _, line := range splitLines(s) {
		dst = append(dst, '>')
		if line != "" {
			dst = append(dst, ' ')
			dst = appendVerbatim(dst, line)
		}
		dst = append(dst, '\n')
		if len(dst)-start > limit {
			cut = true
			break
		}
	}
	if !cut {
		return dst
	}
	keep := limit - len(cutMark) - 1
	if keep < 1 {
		return dst[:start]
	}
	dst = cutBytes(dst, start, keep)
	if n := len(dst); n > start && dst[n-1] == '\n' {
		dst = dst[:n-1] // the mark ends the line before
	}
	dst = append(dst, cutMark...)
	return append(dst, '\n')
}

// cutBytes cuts dst to start+n bytes at most, at a character boundary and
// never between a character and the marks that complete it.
func cutBytes(dst []byte, start, n int) []byte {
	if len(dst)-start <= n {
		return dst
	}
	end := start + max(n, 0)
	for end > start && !utf8.RuneStart(dst[end]) {
		end--
	}
	for end > start {
		r, _ := utf8.DecodeRune(dst[end:])
		prev, size := utf8.DecodeLastRune(dst[start:end])
		if !extends(r) && prev != zeroWidthJoiner {
			break
		}
		end -= size
	}
	return dst[:end]
}

// splitLines splits s at line breaks: LF, CR LF, CR, U+2028, U+2029.
func splitLines(s string) []string {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(s)
	return strings.Split(s, "\n")
}

// appendVerbatim appends one line of the user's text as it was typed,
// spaces and tabs included, with only what could break the quote or read
// differently to the model and to the user taken out, as appendClean
// does for the board: whole terminal escape sequences and invisible
// characters go, other control characters become spaces, a run of
// variation selectors keeps its first. Trailing blanks go.
func appendVerbatim(dst []byte, s string) []byte {
	start := len(dst)
	selector := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0x1B:
				i = skipEscape(s, i+1, c)
				continue
			case c == '\t':
			case c < 0x20 || c == 0x7F:
				c = ' '
			}
			dst = append(dst, c)
			i++
			selector = false
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, "\uFFFD"...)
			i++
			selector = false
			continue
		case r == 0x90 || r == 0x98 || r == 0x9B || (r >= 0x9D && r <= 0x9F):
			i = skipEscape(s, i+n, byte(r))
			continue
		case r >= 0x80 && r <= 0x9F:
			dst = append(dst, ' ')
			i += n
			selector = false
			continue
		case invisible(r):
			i += n
			continue
		case r >= 0xFE00 && r <= 0xFE0F:
			if selector {
				i += n
				continue
			}
			selector = true
		default:
			selector = false
		}
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	for len(dst) > start && (dst[len(dst)-1] == ' ' || dst[len(dst)-1] == '\t') {
		dst = dst[:len(dst)-1]
	}
	return dst
}
