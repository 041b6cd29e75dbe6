package reminder

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Gemini CLI re-inject (docs/gemini-reinject.md). Gemini CLI 0.61.0 has no
// event after a compression, but its BeforeModel hook runs before every
// request of the conversation and is handed that request's history as
// text (llm_request.messages). After a compression the history starts
// again from the summary: a user message holding <state_snapshot>, then
// the model message geminiAck, which the CLI writes itself. --gemini-turn
// answers BeforeModel: when the history shows a compression it has not
// answered yet in this session, it adds the reminder to that request, by
// returning the messages up to the summary with the reminder appended to
// the summary; on every other request it prints nothing.
//
// It runs before every request, so the quiet path is a read of stdin and
// one search for geminiAck (no compression yet), or that plus a parse of
// the first messages and one stat of the latch (compressed, answered).

// geminiAck is the model message Gemini CLI puts after the summary of a
// compression (measured on 0.61.0), as a JSON string.
const geminiAck = `"Got it. Thanks for the additional context!"`

// geminiSnapshot opens the summary Gemini CLI asks its model for.
const geminiSnapshot = "<state_snapshot>"

const (
	// eventBeforeModel is the one event --gemini-turn answers.
	eventBeforeModel = "BeforeModel"
	// maxGeminiStdin bounds the BeforeModel payload, which carries the
	// whole history as text (a 1,000,000-token window is some 4 MB).
	maxGeminiStdin = 32 << 20
	// maxGeminiEcho bounds the messages --gemini-turn hands back.
	maxGeminiEcho = 1 << 20
	// geminiLatchDir is the latches' folder under nowhook's state.
	geminiLatchDir = "gemini"
)

// isGeminiTurn reports whether args ask for --gemini-turn (in any form the
// flag package accepts).
func isGeminiTurn(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name := strings.TrimLeft(a, "-")
		if len(a)-len(name) == 0 || len(a)-len(name) > 2 {
			continue
		}
		if name == "gemini-turn" || strings.HasPrefix(name, "gemini-turn=") && name != "gemini-turn=false" {
			return true
		}
	}
	return false
}

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
${XDG_STATE_HOME:-~/.local/state}/nowhook/gemini.

Flags:
  --timeout DURATION   the budget for kbs (default 5s)
`

// runGeminiTurn is Run for --gemini-turn.
func runGeminiTurn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	log := logger{w: stderr, on: os.Getenv("NOWHOOK_DEBUG") != ""}
	if log.on {
		signal.Ignore(syscall.SIGPIPE)
	}
	defer func() {
		if r := recover(); r != nil {
			log.printf("internal error, printing nothing: %v", r)
		}
	}()
	budget, help := parseGeminiFlags(args, log)
	if help {
		fmt.Fprint(stdout, geminiUsage)
		return 0
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(stop)
	wd, _ := os.Getwd()
	out := geminiTurn(options{budget: budget, stdin: stdin, getenv: os.Getenv, wd: wd, stop: stop, log: log})
	if len(out) > 0 {
		signal.Ignore(syscall.SIGPIPE)
		if _, err := stdout.Write(out); err != nil {
			log.printf("writing the output: %v", err)
		}
	}
	return 0
}

func parseGeminiFlags(args []string, log logger) (budget time.Duration, help bool) {
	fs := flag.NewFlagSet("reminder --gemini-turn", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("gemini-turn", true, "")
	timeout := fs.Duration("timeout", DefaultBudget, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		log.printf("ignoring arguments: %v", err)
	}
	if *timeout <= 0 || *timeout > maxBudget {
		log.printf("--timeout %s out of range, using %s", *timeout, DefaultBudget)
		return DefaultBudget, false
	}
	return *timeout, false
}

// geminiPayload is what --gemini-turn reads from a BeforeModel payload.
type geminiPayload struct {
	sessionID, event, cwd string
	// The compression the history starts from, if any: the raw JSON of
	// the messages before the summary's (each {"role":R,"content":C}),
	// and the summary message's role and content as raw JSON strings.
	compressed bool
	before     [][2][]byte
	role, text []byte
}

// geminiTurn does the work of Run --gemini-turn and returns what to print.
func geminiTurn(o options) []byte {
	deadline := time.Now().Add(o.budget)
	data, err := readAll(o.stdin, min(o.budget/4, maxStdinWait), maxGeminiStdin, o.stop, o.log)
	if err != nil {
		o.log.printf("stdin: %v: printing nothing", err)
		return nil
	}
	// The quiet path: no compression in this request's history.
	if !bytes.Contains(data, []byte(geminiAck)) {
		o.log.printf("no compression in the request's history: printing nothing")
		return nil
	}
	pl, ok := parseGeminiPayload(data)
	switch {
	case !ok:
		o.log.printf("stdin is not a BeforeModel payload: printing nothing")
		return nil
	case pl.event != eventBeforeModel:
		o.log.printf("hook_event_name is %q, not %s: printing nothing", pl.event, eventBeforeModel)
		return nil
	case !pl.compressed:
		o.log.printf("no compression summary in the request's history: printing nothing")
		return nil
	case pl.sessionID == "":
		o.log.printf("the payload has no session_id, so the reminder could not be said once: printing nothing")
		return nil
	}
	states := geminiStates(o.getenv)
	if states == "" {
		o.log.printf("neither XDG_STATE_HOME nor HOME is set, so the reminder could not be said once: printing nothing")
		return nil
	}
	name := geminiLatchName(pl)
	if _, err := os.Lstat(filepath.Join(states, name)); err == nil {
		o.log.printf("this compression was answered already (latch %s): printing nothing", filepath.Join(states, name))
		return nil
	}
	dir := o.project(pl.cwd)
	if dir == "" {
		return nil
	}
	// The latch is set before kbs runs: a kbs that fails or hangs costs
	// one try per compression, not one per request.
	now := time.Now()
	switch err := setLatch(states, name, geminiLatchContent(now, pl, dir), now); {
	case errors.Is(err, errLatched):
		o.log.printf("this compression was answered already (latch %s): printing nothing", filepath.Join(states, name))
		return nil
	case err != nil:
		o.log.printf("setting the latch: %v: printing nothing", err)
		return nil
	}
	o.log.printf("compression seen, latch set: %s", filepath.Join(states, name))
	prog := o.kbs()
	if prog == "" {
		return nil
	}
	items, err := queryRetry(prog, dir, deadline, o.stop, o.log)
	if err != nil {
		return nil
	}
	text := format(items)
	if len(text) == 0 {
		o.log.printf("nothing in progress: printing nothing")
		return nil
	}
	out := geminiOutput(pl, text)
	if len(out) > maxGeminiEcho+len(text)*2+256 {
		o.log.printf("the messages up to the summary take %d bytes, over %d: printing nothing", len(out), maxGeminiEcho)
		return nil
	}
	return out
}

// readAll reads at most limit bytes until end of file (Gemini CLI closes
// stdin after the payload), for at most wait on a pipe that stays open.
// Unlike readStdin it does not parse what it reads: the payload can be
// megabytes, and validating it would cost every request.
func readAll(r io.Reader, wait time.Duration, limit int, stop <-chan os.Signal, log logger) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if f, isFile := r.(*os.File); isFile {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			log.printf("no stdin, or a terminal: not read")
			return nil, nil
		}
	}
	chunks := readChunks(r, limit+1)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var data []byte
	for {
		select {
		case c, open := <-chunks:
			if !open {
				return data, tooLarge(data, limit)
			}
			data = append(data, c...)
			if err := tooLarge(data, limit); err != nil {
				return nil, err
			}
		case <-timer.C:
			log.printf("stdin still open after %s: using the %d bytes read", wait, len(data))
			return data, nil
		case s := <-stop:
			return nil, fmt.Errorf("%w by %v", errStopped, s)
		}
	}
}

// parseGeminiPayload reads a BeforeModel payload. It stops at the first
// compression summary of llm_request.messages once the fields before it
// are read (Gemini CLI writes session_id, cwd and hook_event_name first),
// so that a long history after the summary is not read at all.
func parseGeminiPayload(b []byte) (pl geminiPayload, ok bool) {
	p := parser{b: b}
	p.skipBOM()
	p.ws()
	stopped := false
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "session_id":
			return p.stringField(&pl.sessionID)
		case "hook_event_name":
			return p.stringField(&pl.event)
		case "cwd":
			return p.stringField(&pl.cwd)
		case "llm_request":
			if p.peek() != '{' {
				return p.skip(1)
			}
			return p.object(func(key []byte) bool {
				if string(key) != "messages" || p.peek() != '[' || pl.compressed {
					return p.skip(2)
				}
				if !p.geminiMessages(&pl) {
					return false
				}
				if !pl.compressed {
					return true
				}
				if pl.sessionID != "" && pl.event != "" {
					stopped = true
					return false
				}
				return p.skipRest(3)
			})
		}
		return p.skip(1)
	})
	if stopped {
		return pl, true
	}
	p.ws()
	return pl, ok && p.i == len(p.b)
}

// geminiMessages reads llm_request.messages up to the first summary that
// the CLI's acknowledgement follows; it steps over the rest unless it
// found one, in which case it leaves the cursor after that message, inside
// the array.
func (p *parser) geminiMessages(pl *geminiPayload) bool {
	p.i++ // [
	p.ws()
	if p.eat(']') {
		return true
	}
	var prev [2][]byte
	var msgs [][2][]byte
	for {
		p.ws()
		if p.peek() != '{' {
			if !p.skip(3) {
				return false
			}
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
				return false
			}
			cur := [2][]byte{role, content}
			if string(role) == `"model"` && string(content) == geminiAck && string(prev[0]) == `"user"` && holdsSnapshot(prev[1]) {
				pl.compressed = true
				pl.before = msgs[:len(msgs)-1]
				pl.role, pl.text = prev[0], prev[1]
				return true
			}
			if role != nil && content != nil {
				msgs = append(msgs, cur)
				prev = cur
			} else {
				prev = [2][]byte{}
			}
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat(']')
	}
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

// geminiStates is the folder of the latches, "" when neither
// XDG_STATE_HOME nor HOME is set.
func geminiStates(getenv func(string) string) string {
	d := latchDir(getenv)
	if d == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(d), geminiLatchDir)
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
