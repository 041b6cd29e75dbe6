package reminder

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Gemini CLI re-inject (docs/platforms.md, "Gemini CLI: re-inject through
// BeforeModel"). Gemini CLI 0.61.0 has no event after a compression, but
// its BeforeModel hook runs before every request of the conversation and
// is handed that request's history as text (llm_request.messages). After a compression the history starts
// again from the summary: a user message holding <state_snapshot>, then
// the model message geminiAck, which the CLI writes itself. --gemini-turn
// answers BeforeModel: when the history shows a compression it has not
// answered yet in this session, it adds the reminder to that request, by
// returning the messages up to the summary with the reminder appended to
// the summary; on every other request it prints nothing.
//
// It runs before every request, so the quiet path reads only the start of
// stdin, up to the first messages of the history, and, after a
// compression, stats the latch of that compression.

// geminiAck is the model message Gemini CLI puts after the summary of a
// compression (measured on 0.61.0), as a JSON string.
const geminiAck = `"Got it. Thanks for the additional context!"`

// geminiSnapshot opens the summary Gemini CLI asks its model for.
const geminiSnapshot = "<state_snapshot>"

const (
	// geminiMaxMessages is how far into the history the summary is looked
	// for (its index is below this): Gemini CLI 0.61.0 puts it in the
	// first message, after the session context, and its acknowledgement
	// second.
	geminiMaxMessages = 4
	// eventBeforeModel is the one event --gemini-turn answers.
	eventBeforeModel = "BeforeModel"
	// geminiHead bounds what is read of the BeforeModel payload. The
	// payload carries the whole history as text (up to some 2 MB before
	// the first compression, which comes at half of a 1,048,576-token
	// window), but only its start is read: the fields and the first
	// messages, which hold the summary of a compression when there was
	// one. The messages up to the summary are what the output hands back,
	// so this bounds the output too.
	geminiHead = 1 << 20
	// geminiFirstRead is what is read first: the fields and the session
	// context, usually with the first messages.
	geminiFirstRead = 64 << 10
)

const geminiUsage = `Usage: nowhook reminder --gemini-turn [--timeout DURATION]

For Gemini CLI's BeforeModel hook, which runs before every request. When
the request's history shows a compression (the summary with
<state_snapshot>, then "Got it. Thanks for the additional context!")
that it has not answered yet in this session, it adds the Kanbus
work-in-progress reminder to that request: it prints
{"hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_request":
{"messages": [...]}}} with the messages up to the summary and the
reminder after the summary. It prints nothing on every other request, on
any failure, and always exits 0. One latch per compression lives in
${XDG_STATE_HOME:-~/.local/state}/nowhook/compressions.

Flags:
  --timeout DURATION   the budget for kbs (default 5s)
  --script PATH        the gate script that runs this hook: where Gemini CLI's
                       managed settings run nowhook's managed gate, the
                       others print nothing, and that gate prints
`

// geminiPayload is what --gemini-turn reads from a BeforeModel payload.
type geminiPayload struct {
	sessionID, event, cwd string
	transcriptPath        string // the session's chat record (rules.go)
	// The compression the history starts from, if any: the raw JSON of
	// the messages before the summary's (each {"role":R,"content":C}),
	// and the summary message's role and content as raw JSON strings.
	compressed bool
	before     [][2][]byte
	role, text []byte
	// odd is set when a message before the summary is not a role and a
	// content, both strings: handing back the messages would not line
	// up with the request's.
	odd bool
}

// geminiTurn does the work of Run --gemini-turn and returns what to print.
func geminiTurn(o options) []byte {
	deadline := time.Now().Add(o.budget)
	pl, st := readGemini(o)
	switch st {
	case scanInvalid:
		return nil
	case scanNone:
		o.log.printf("no compression summary among the first %d messages of the request's history: printing nothing", geminiMaxMessages)
		return nil
	}
	switch {
	case pl.event != eventBeforeModel:
		o.log.printf("hook_event_name is %q, not %s: printing nothing", pl.event, eventBeforeModel)
		return nil
	case pl.sessionID == "":
		o.log.printf("the payload has no session_id, so the reminder could not be said once: printing nothing")
		return nil
	case pl.odd:
		o.log.printf("a message before the summary is not a role and a content: printing nothing")
		return nil
	}
	states := latchDir(o.getenv, compressionLatches)
	if states == "" {
		o.log.printf("neither XDG_STATE_HOME nor HOME is set, so the reminder could not be said once: printing nothing")
		return nil
	}
	name := geminiLatchName(pl)
	if _, err := os.Lstat(filepath.Join(states, name)); err == nil {
		o.log.printf("this compression was answered already (latch %s): printing nothing", filepath.Join(states, name))
		return nil
	}
	if o.geminiDeferred() {
		return nil
	}
	dir, ok := o.kanbusProject(pl.cwd)
	if !ok {
		return nil
	}
	if !o.takeLatch(states, name, "this compression was answered already", func(now time.Time) string {
		return geminiLatchContent(now, pl, dir)
	}) {
		return nil
	}
	text := o.fromSources(dir, pl.cwd, sourcePayload{transcriptPath: pl.transcriptPath}, deadline)
	if len(text) == 0 {
		return nil
	}
	return geminiOutput(pl, text)
}

// geminiDeferred is the defer rule of --gemini-turn (deferral.go): a
// project's or user's gate steps aside, before it takes the latch of the
// compression, where Gemini CLI's managed layer holds nowhook's managed
// gate; the managed gate (--script names it) prints. Only the managed
// rule applies here: the user's and the project's gates share the latch,
// and whichever takes it first prints.
func (o options) geminiDeferred() bool {
	if o.sysRoot == "" {
		return false
	}
	l, seen := hookClient(o.getenv, false, false)
	if l != managedGemini {
		l = nil // only Gemini CLI runs this mode: another client's layer is not its
	}
	return managedDeferred(o.getenv, l, seen, o.script, o.sysRoot, o.log) == managedRuns
}

// scan is what a look at the start of a payload found.
type scan int

const (
	scanInvalid scan = iota // not a BeforeModel payload, or cut short
	scanNone                // no compression summary among the first messages
	scanFound               // a summary, and the fields before it
)

// readGemini reads the payload until its start tells whether the history
// begins from a compression summary, and reads no further: the payload
// carries the whole history and comes with every request, and the answer
// is in the first messages. It reads at most geminiHead bytes, for at
// most a quarter of the budget (500 ms at most). Gemini CLI ignores the
// broken pipe of a hook that exits before reading all of its stdin.
func readGemini(o options) (geminiPayload, scan) {
	if o.stdin == nil {
		o.log.printf("no stdin: printing nothing")
		return geminiPayload{}, scanInvalid
	}
	if f, isFile := o.stdin.(*os.File); isFile {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			o.log.printf("no stdin, or a terminal: printing nothing")
			return geminiPayload{}, scanInvalid
		}
	}
	type progress struct {
		data []byte
		end  bool
	}
	// The reader owns the buffer until it reports, and grows it as asked.
	want := make(chan int, 1) // read until this many bytes are in
	read := make(chan progress, 1)
	go func() {
		defer func() { _ = recover() }()
		var buf []byte
		for target := range want {
			if target > cap(buf) {
				buf = append(make([]byte, 0, target), buf...)
			}
			var err error
			for len(buf) < target && err == nil {
				var k int
				k, err = o.stdin.Read(buf[len(buf):target])
				buf = buf[:len(buf)+k]
			}
			read <- progress{buf, err != nil || len(buf) == geminiHead}
			if err != nil {
				return
			}
		}
	}()
	defer close(want)
	wait := time.NewTimer(min(o.budget/4, maxStdinWait))
	defer wait.Stop()
	want <- geminiFirstRead
	for {
		select {
		case r := <-read:
			pl, st := scanGemini(r.data)
			if st != scanInvalid {
				return pl, st
			}
			if r.end {
				if len(r.data) == geminiHead {
					o.log.printf("no answer in the first %d bytes of stdin: printing nothing", geminiHead)
				} else {
					o.log.printf("stdin is not a BeforeModel payload: printing nothing")
				}
				return pl, scanInvalid
			}
			// Twice as much: a long first message is not read over
			// and over.
			want <- min(2*len(r.data), geminiHead)
		case <-wait.C:
			o.log.printf("stdin still open after %s, and no answer in what it held: printing nothing", maxStdinWait)
			return geminiPayload{}, scanInvalid
		case s := <-o.stop:
			o.log.printf("%v by %v: printing nothing", errStopped, s)
			return geminiPayload{}, scanInvalid
		}
	}
}

// scanGemini reads the start of a BeforeModel payload: the fields, and
// llm_request.messages up to the first compression summary among the
// first geminiMaxMessages messages and its acknowledgement. It stops
// there: what follows is not read, and may be missing.
func scanGemini(b []byte) (pl geminiPayload, st scan) {
	p := parser{b: b}
	p.skipBOM()
	p.ws()
	decided := scanInvalid
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "session_id":
			return p.stringField(&pl.sessionID)
		case "hook_event_name":
			return p.stringField(&pl.event)
		case "cwd":
			return p.stringField(&pl.cwd)
		case "transcript_path":
			return p.stringField(&pl.transcriptPath)
		case "llm_request":
			if p.peek() != '{' {
				return p.skip(1)
			}
			return p.object(func(key []byte) bool {
				if string(key) != "messages" || p.peek() != '[' || decided != scanInvalid {
					return p.skip(2)
				}
				found, ok := p.geminiMessages(&pl)
				switch {
				case !ok:
					return false
				case !found:
					decided = scanNone
					return false
				}
				decided = scanFound
				if pl.sessionID != "" && pl.event != "" {
					return false
				}
				return p.skipRest(3) // fields after llm_request: read on
			})
		}
		return p.skip(1)
	})
	if decided == scanNone || decided == scanFound && pl.sessionID != "" && pl.event != "" {
		return pl, decided
	}
	p.ws()
	if !ok || p.i != len(p.b) {
		return pl, scanInvalid
	}
	if decided == scanFound {
		return pl, scanFound
	}
	return pl, scanNone
}

// geminiMessages reads llm_request.messages, with the cursor on its
// bracket, up to the first summary among the first geminiMaxMessages
// messages that the CLI's acknowledgement follows. found tells whether it
// saw one; then the cursor is after the acknowledgement. ok is false when
// the data ends or is not JSON before that is known.
func (p *parser) geminiMessages(pl *geminiPayload) (found, ok bool) {
	p.i++ // [
	p.ws()
	if p.eat(']') {
		return false, true
	}
	var prev [2][]byte
	var msgs [][2][]byte
	for n := 0; n <= geminiMaxMessages; n++ {
		p.ws()
		if p.peek() != '{' {
			if !p.skip(3) {
				return false, false
			}
			prev = [2][]byte{}
			pl.odd = true
		} else {
			var role, content []byte
			if !p.object(func(key []byte) bool {
				start := p.i
				switch string(key) {
				case "role", "content":
					if p.peek() != '"' || !p.skipStr() {
						return p.skip(4)
					}
					if key[0] == 'r' {
						role = p.b[start:p.i]
					} else {
						content = p.b[start:p.i]
					}
					return true
				}
				return p.skip(4)
			}) {
				return false, false
			}
			if string(role) == `"model"` && string(content) == geminiAck && string(prev[0]) == `"user"` && holdsSnapshot(prev[1]) {
				pl.compressed = true
				pl.before = msgs[:len(msgs)-1]
				pl.role, pl.text = prev[0], prev[1]
				return true, true
			}
			prev = [2][]byte{}
			if role != nil && content != nil {
				prev = [2][]byte{role, content}
				msgs = append(msgs, prev)
			} else {
				pl.odd = true
			}
		}
		p.ws()
		if p.eat(']') {
			return false, true
		}
		if !p.eat(',') {
			return false, false
		}
	}
	return false, true
}

// holdsSnapshot reports whether the raw JSON string s, decoded, holds
// geminiSnapshot (Gemini CLI does not escape < and >, other writers may).
func holdsSnapshot(s []byte) bool {
	if bytes.Contains(s, []byte(geminiSnapshot)) {
		return true
	}
	p := parser{b: s}
	text, ok := p.str()
	return ok && strings.Contains(text, geminiSnapshot)
}

// skipRest steps over the rest of an array whose cursor is after an
// element, up to and past its closing bracket.
func (p *parser) skipRest(depth int) bool {
	for {
		p.ws()
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
		p.ws()
		if !p.skip(depth) {
			return false
		}
	}
}

// geminiLatchName names the latch of one compression of one session: a
// hash of the session id, the session's directory and the summary, which
// a new compression replaces.
func geminiLatchName(pl geminiPayload) string {
	h := fnv.New128a()
	h.Write([]byte(pl.sessionID + "\x00" + pl.cwd + "\x00"))
	h.Write(pl.text)
	return hex.EncodeToString(h.Sum(nil))
}

// geminiLatchContent is what a latch holds, for a person who looks.
func geminiLatchContent(now time.Time, pl geminiPayload, project string) string {
	return fmt.Sprintf("nowhook gemini latch: the first request after this compression got the reminder\nset: %s\nsession: %q\nproject: %q\nsummary: %d bytes\n",
		now.UTC().Format(time.RFC3339), clip(pl.sessionID), clip(project), len(pl.text))
}

// geminiOutput is the BeforeModel answer: the messages up to the summary,
// as they came, and the summary with the reminder after it. Gemini CLI
// puts each message's text in place of the text of the request's
// message at the same place and keeps the rest of the request.
func geminiOutput(pl geminiPayload, reminder []byte) []byte {
	size := 128 + len(pl.text) + 2*len(reminder)
	for _, m := range pl.before {
		size += len(m[0]) + len(m[1]) + 24
	}
	out := make([]byte, 0, size)
	out = append(out, `{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"messages":[`...)
	for _, m := range pl.before {
		out = append(out, `{"role":`...)
		out = append(out, m[0]...)
		out = append(out, `,"content":`...)
		out = append(out, m[1]...)
		out = append(out, "},"...)
	}
	out = append(out, `{"role":`...)
	out = append(out, pl.role...)
	out = append(out, `,"content":`...)
	out = append(out, pl.text[:len(pl.text)-1]...) // without the closing quote
	added := appendJSONString(nil, "\n\n"+strings.TrimRight(string(reminder), "\n"))
	out = append(out, added[1:]...) // without the opening quote
	return append(out, "}]}}}\n"...)
}
