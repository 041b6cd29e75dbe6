package reminder

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// The checkpoint reads how full the context window is from the session's
// transcript, the JSONL file the payload's transcript_path names. Two
// formats are known, told apart by their records, not by the agent's name
// (docs/platforms.md, "Checkpoint and summary hint"):
//
//   - Claude Code: an "assistant" record per model reply carries
//     message.usage; the context holds input_tokens +
//     cache_creation_input_tokens + cache_read_input_tokens +
//     output_tokens (what Claude Code itself compares with its
//     auto-compaction threshold). A "system" record with subtype
//     "compact_boundary" marks a compaction; its compactMetadata.postTokens
//     is the size after it. The window comes from the model.
//   - Codex CLI rollout: a "token_usage_record" per model reply carries
//     payload.usage.total_tokens; "event_msg" records of payload type
//     "token_count" carry payload.info.last_token_usage.total_tokens and
//     payload.info.model_context_window (task_started carries the window
//     too); a "compacted" record marks a compaction.
//
// The newest deciding record wins: the file is read backwards from its
// end, in growing chunks, at most maxTranscriptTail bytes.

const (
	// firstTailChunk is the first read from the end of a transcript; the
	// latest reply is almost always in it.
	firstTailChunk = 64 << 10
	// maxTranscriptTail bounds how much of a transcript is read.
	maxTranscriptTail = 8 << 20
	// DefaultWindow is the context window of a model the transcript does
	// not name and Claude Code's table does not know (Claude Code's own
	// default for an unknown model, 2.1.332).
	DefaultWindow = 200_000
	// longWindow is the window of Claude Code's 1M-token models and of
	// the "[1m]" variants of the others.
	longWindow = 1_000_000
)

// contextUse is what a transcript says about the context window.
type contextUse struct {
	used   int64  // tokens in the context at the latest model reply
	window int64  // the window the records state (Codex), 0 when they do not
	model  string // the model the records name (Claude Code), "" if none
	format string // formatMessages or formatRollout
	after  string // "reply" or "compaction": what decided used
	// current is false when a Claude Code transcript does not show the
	// reply that asked for the tool call yet (see readContextUse).
	current bool
}

// The transcript formats, told apart by their records: Claude Code's
// message transcript, and Codex's rollout (its event log with
// token_count and model_context_window).
const (
	formatMessages = "messages"
	formatRollout  = "rollout"
)

var errNoUsage = errors.New("no model reply or compaction in the transcript's tail")

// readContextUse reads the newest context use from the transcript at path.
//
// Claude Code writes its transcript behind the hooks at times: a
// PostToolUse hook ran up to a quarter of a second before the reply that
// asked for the tool was in the file (measured, 2.1.332). Given that tool
// call's id, the use is current only when the deciding Claude Code record
// names it. Codex writes the reply's usage before it runs the hook.
func readContextUse(path, toolUseID string) (contextUse, error) {
	f, err := openRegular(path)
	if err != nil {
		return contextUse{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return contextUse{}, err
	}
	s := usageScan{}
	if toolUseID != "" {
		s.toolUseID = appendJSONString(nil, toolUseID) // quoted: "toolu_1" is not "toolu_12"
	}
	if err := scanLinesBackward(f, fi.Size(), maxTranscriptTail, s.line); err != nil {
		return contextUse{}, err
	}
	if !s.decided {
		return contextUse{}, errNoUsage
	}
	return s.use, nil
}

// scanLinesBackward calls fn on each line of the file's last limit bytes,
// the last line first, until fn returns true. A partly written last line
// is passed as it is. Chunks grow, so a long line costs linear time.
func scanLinesBackward(f io.ReaderAt, size, limit int64, fn func(line []byte) (stop bool)) error {
	pos := size
	chunk := int64(firstTailChunk)
	var rest []byte // the start of a line whose beginning is not read yet
	for pos > 0 && size-pos < limit {
		n := min(chunk, pos, limit-(size-pos))
		pos -= n
		buf := make([]byte, int(n)+len(rest))
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		copy(buf[n:], rest)
		end := len(buf)
		for {
			nl := bytes.LastIndexByte(buf[:end], '\n')
			if nl < 0 {
				break
			}
			if line := buf[nl+1 : end]; len(line) > 0 && fn(line) {
				return nil
			}
			end = nl
		}
		rest = buf[:end]
		chunk *= 2
	}
	if pos == 0 && len(rest) > 0 {
		fn(rest)
	}
	return nil
}

// usageScan decides the context use from records seen newest first.
type usageScan struct {
	toolUseID []byte
	use       contextUse
	decided   bool
}

// line takes one record and reports whether the scan is done.
func (s *usageScan) line(b []byte) bool {
	// Most records are neither: skip them without parsing.
	if !bytes.Contains(b, []byte(`"usage"`)) && !bytes.Contains(b, []byte(`compact`)) &&
		!bytes.Contains(b, []byte(`"model_context_window"`)) {
		return false
	}
	r, ok := parseRecord(b)
	if !ok {
		return false // a partly written or foreign line
	}
	claudeCurrent := len(s.toolUseID) == 0 || bytes.Contains(b, s.toolUseID)
	switch {
	case r.typ == "system" && r.subtype == "compact_boundary":
		s.decide(contextUse{used: r.postTokens, format: formatMessages, after: "compaction", current: claudeCurrent})
	case r.typ == "assistant" && r.hasMessage:
		used := r.in + r.cacheCreate + r.cacheRead + r.out
		if r.sidechain || !r.hasUsage || used <= 0 || r.model == "<synthetic>" {
			return false // a subagent's reply, or one no model produced
		}
		model := r.model
		if r.requestedModel != "" {
			model = r.requestedModel // it keeps the "[1m]" of a 1M variant
		}
		s.decide(contextUse{used: used, model: model, format: formatMessages, after: "reply", current: claudeCurrent})
	case r.typ == "compacted":
		s.decide(contextUse{format: formatRollout, after: "compaction", current: true})
	case r.typ == "token_usage_record" && r.hasTotal:
		s.decide(contextUse{used: r.total, format: formatRollout, after: "reply", current: true})
	case r.typ == "event_msg" && r.payloadType == "token_count" && r.hasTotal:
		s.decide(contextUse{used: r.total, format: formatRollout, after: "reply", current: true})
	}
	if r.hasWindow && r.window > 0 && s.use.window == 0 {
		s.use.window = r.window
	}
	// Claude Code's records never state the window; Codex's do nearby.
	return s.decided && (s.use.format == formatMessages || s.use.window > 0)
}

func (s *usageScan) decide(u contextUse) {
	if s.decided {
		return
	}
	w := s.use.window
	s.use, s.decided = u, true
	s.use.window = w
}

// record is the part of a transcript line the checkpoint reads.
type record struct {
	typ, subtype, payloadType string
	sidechain                 bool
	// Claude Code: message.model, requestedModel, message.usage.
	model, requestedModel      string
	hasMessage, hasUsage       bool
	in, cacheCreate, cacheRead int64
	out                        int64
	postTokens                 int64 // compactMetadata.postTokens
	// Codex: payload.usage.total_tokens or
	// payload.info.last_token_usage.total_tokens, and the window.
	total, window       int64
	hasTotal, hasWindow bool
}

// parseRecord reads one JSONL line.
func parseRecord(b []byte) (r record, ok bool) {
	p := parser{b: b}
	p.ws()
	var has bool
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return p.stringField(&r.typ)
		case "subtype":
			return p.stringField(&r.subtype)
		case "isSidechain":
			r.sidechain = p.lit("true")
			return r.sidechain || p.skip(1)
		case "requestedModel":
			return p.stringField(&r.requestedModel)
		case "message":
			if p.peek() != '{' {
				return p.skip(1)
			}
			r.hasMessage = true
			return p.object(func(key []byte) bool {
				switch string(key) {
				case "model":
					return p.stringField(&r.model)
				case "usage":
					if p.peek() != '{' {
						return p.skip(1)
					}
					r.hasUsage = true
					return p.object(func(key []byte) bool {
						switch string(key) {
						case "input_tokens":
							return p.intField(&r.in, &has)
						case "cache_creation_input_tokens":
							return p.intField(&r.cacheCreate, &has)
						case "cache_read_input_tokens":
							return p.intField(&r.cacheRead, &has)
						case "output_tokens":
							return p.intField(&r.out, &has)
						}
						return p.skip(3)
					})
				}
				return p.skip(2)
			})
		case "compactMetadata":
			if p.peek() != '{' {
				return p.skip(1)
			}
			return p.object(func(key []byte) bool {
				if string(key) == "postTokens" {
					return p.intField(&r.postTokens, &has)
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
					return p.stringField(&r.payloadType)
				case "model_context_window":
					return p.intField(&r.window, &r.hasWindow)
				case "usage":
					return p.totalTokens(&r)
				case "info":
					if p.peek() != '{' {
						return p.skip(2)
					}
					return p.object(func(key []byte) bool {
						switch string(key) {
						case "last_token_usage":
							return p.totalTokens(&r)
						case "model_context_window":
							return p.intField(&r.window, &r.hasWindow)
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
	return r, ok && p.i == len(p.b)
}

// totalTokens reads {"total_tokens": N, ...} into r.total.
func (p *parser) totalTokens(r *record) bool {
	if p.peek() != '{' {
		return p.skip(3)
	}
	return p.object(func(key []byte) bool {
		if string(key) == "total_tokens" {
			return p.intField(&r.total, &r.hasTotal)
		}
		return p.skip(4)
	})
}

// modelWindow is the context window Claude Code 2.1.332 gives a model
// (its built-in model table): the 1M-token models, and "[1m]" variants;
// every other Claude model, and an unknown one, has 200,000 tokens.
func modelWindow(model string) (window int64, known bool) {
	m := strings.ToLower(model)
	if strings.Contains(m, "[1m]") {
		return longWindow, true
	}
	i := strings.Index(m, "claude-")
	if i < 0 {
		return DefaultWindow, false
	}
	m = m[i:]
	for _, p := range []string{"claude-haiku-5", "claude-sonnet-5", "claude-opus-4-7", "claude-opus-4-8",
		"claude-opus-5", "claude-fable-", "claude-mythos-"} {
		if strings.HasPrefix(m, p) {
			return longWindow, true
		}
	}
	for _, p := range []string{"claude-3", "claude-haiku-4", "claude-sonnet-4", "claude-opus-4"} {
		if strings.HasPrefix(m, p) {
			return DefaultWindow, true
		}
	}
	return DefaultWindow, false
}

// resolveWindow picks the window the use is measured against: the
// --window flag, else the window the records state, else the model's.
// A use above a window that was only presumed means the session runs a
// larger one, the 1M variant of the model: 1,000,000.
func resolveWindow(flagWindow int64, u contextUse) (window int64, why string) {
	switch {
	case flagWindow > 0:
		return flagWindow, "--window"
	case u.window > 0:
		return u.window, "the transcript"
	}
	w, known := modelWindow(u.model)
	why = "the default"
	if known {
		why = "the model " + u.model
	}
	if u.used > w && w < longWindow {
		return longWindow, "a use above " + why + "'s window"
	}
	return w, why
}
