package reminder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The checkpoint and the summary hint (docs/platforms.md, "Checkpoint and
// summary hint"). Both print nothing on any failure and never block.

// Events the checkpoint answers, and the form each needs to reach the
// model (measured, Claude Code 2.1.332 and Codex 0.171.0): after a tool
// call only JSON additionalContext reaches it, plain stdout does not;
// after a prompt plain stdout does.
const (
	eventPostToolUse      = "PostToolUse"
	eventUserPromptSubmit = "UserPromptSubmit"
	eventPreCompact       = "PreCompact"
	// eventStop is Qwen Code's Stop hook, after each turn: its payload
	// carries the context use (input_tokens, context_limit), so the
	// checkpoint reads no transcript there.
	eventStop = "Stop"
)

// How long, and how often, the checkpoint looks again at a Claude Code
// transcript that does not show the current tool call yet: at most half
// the budget (2.5 s by default). It usually lags by under 250 ms, but on a
// loaded machine (CI running every test at once) by more than a second,
// and then the checkpoint would fire one call late.
const (
	maxTranscriptWait = 3 * time.Second
	transcriptPoll    = 10 * time.Millisecond
)

// catchUpFor waits, between two reads of a transcript behind the hook,
// transcriptPoll; it says not again once d has passed since it was made,
// and returns the signal that stopped the run, if one did.
func catchUpFor(d time.Duration) func(stop <-chan os.Signal) (again bool, stopped os.Signal) {
	until := time.Now().Add(d)
	return func(stop <-chan os.Signal) (bool, os.Signal) {
		if time.Now().After(until) {
			return false, nil
		}
		select {
		case <-time.After(transcriptPoll):
			return true, nil
		case s := <-stop:
			return false, s
		}
	}
}

// maxTokens bounds the token counts a transcript may claim, so that the
// percentage arithmetic cannot overflow.
const maxTokens = 1 << 40

// readHookPayload reads the payload the checkpoint and the hint need: a
// JSON object from an agent other than Cursor, naming event.
func readHookPayload(o options, limit int, events ...string) (pl payload, ok bool) {
	wait := min(o.budget/4, maxStdinWait)
	data, err := readStdin(o.stdin, wait, limit, o.stop, o.log)
	if err != nil {
		o.log.printf("stdin: %v: printing nothing", err)
		return pl, false
	}
	pl, ok = parsePayload(data)
	switch {
	case isBlank(data):
		o.log.printf("no hook payload on stdin: printing nothing")
		return pl, false
	case !ok:
		o.log.printf("stdin is not a JSON object: printing nothing")
		return pl, false
	case pl.cursorVersion:
		o.log.printf("payload carries cursor_version (Cursor runs Claude hooks with other semantics): printing nothing")
		return pl, false
	case o.foreign(pl):
		return pl, false
	}
	for _, e := range events {
		if pl.event == e {
			return pl, true
		}
	}
	o.log.printf("hook_event_name is %q, not %s: printing nothing", pl.event, strings.Join(events, " or "))
	return pl, false
}

// checkpoint does the work of Run --checkpoint and returns what to print.
func checkpoint(o options) []byte {
	deadline := time.Now().Add(o.budget)
	pl, ok := readHookPayload(o, maxCheckpointStdin, eventPostToolUse, eventUserPromptSubmit, eventStop)
	if !ok {
		return nil
	}
	// A payload that carries the context use is the cheap signal: no
	// transcript to read (Qwen Code's Stop hook).
	inPayload := pl.hasInputTokens && pl.hasContextLimit && pl.contextLimit > 0 && pl.inputTokens >= 0
	if pl.event == eventStop && !inPayload {
		// Claude Code's Stop carries no use; blocking its stop is not measured.
		o.log.printf("a Stop payload without the context use (input_tokens, context_limit): printing nothing")
		return nil
	}
	if pl.sessionID == "" || (pl.transcriptPath == "" && !inPayload) {
		o.log.printf("the payload has no session_id, or neither a transcript_path nor the context use: printing nothing")
		return nil
	}
	dir := o.project(pl.cwd)
	if dir == "" {
		return nil
	}
	if inPayload {
		return o.checkpointAt(pl, dir, deadline, contextUse{used: pl.inputTokens, window: pl.contextLimit,
			format: "payload", after: "reply", current: true}, "the payload")
	}
	use, err := readContextUse(pl.transcriptPath, pl.toolUseID)
	// A transcript behind the hook gets a moment to catch up: one that
	// does not show the tool call yet, or, at a session's first tool
	// call, no reply at all, or no file yet.
	behind := func() bool {
		if err != nil {
			return pl.toolUseID != "" && (errors.Is(err, errNoUsage) || errors.Is(err, fs.ErrNotExist))
		}
		return !use.current
	}
	catchUp := o.catchUp
	if catchUp == nil {
		catchUp = catchUpFor(min(o.budget/2, maxTranscriptWait))
	}
	for behind() {
		again, s := catchUp(o.stop)
		if s != nil {
			o.log.printf("%v by %v: printing nothing", errStopped, s)
			return nil
		}
		if !again {
			if err == nil {
				o.log.printf("the transcript does not show tool call %s yet: using its newest reply", pl.toolUseID)
			}
			break
		}
		use, err = readContextUse(pl.transcriptPath, pl.toolUseID)
	}
	if err != nil {
		o.log.printf("transcript %s: %v: printing nothing", pl.transcriptPath, err)
		return nil
	}
	return o.checkpointAt(pl, dir, deadline, use, "")
}

// checkpointAt is the checkpoint for the context use: nothing below the
// threshold, the checkpoint once per climb above it. source names where
// the window came from when it is not the transcript.
func (o options) checkpointAt(pl payload, dir string, deadline time.Time, use contextUse, source string) []byte {
	window, why := resolveWindow(o.window, use)
	if source != "" && why == "the transcript" {
		why = source
	}
	used, window := min(use.used, maxTokens), min(window, maxTokens)
	pct := percent(used, window)
	if use.format == "payload" {
		o.log.printf("the payload's context use: %d of %d tokens (%d%%; window from %s)", used, window, pct, why)
	} else {
		o.log.printf("%s transcript, after a %s: %d of %d tokens (%d%%; window from %s)", use.format, use.after, used, window, pct, why)
	}
	states := latchDir(o.getenv, checkpointLatches)
	name := latchName(pl.sessionID, dir)
	switch {
	case used*100 < int64(o.at-o.refire)*window:
		if states != "" {
			if err := rearm(filepath.Join(states, name)); err != nil {
				o.log.printf("re-arming: %v", err)
			}
		}
		o.log.printf("below %d%% (--at %d minus --refire %d): armed, printing nothing", o.at-o.refire, o.at, o.refire)
		return nil
	case used*100 < int64(o.at)*window:
		o.log.printf("below --at %d%%: printing nothing", o.at)
		return nil
	case states == "":
		o.log.printf("neither XDG_STATE_HOME nor HOME is set, so the checkpoint could not be said only once: printing nothing")
		return nil
	}
	if !o.takeLatch(states, name, "already said in this session", func(now time.Time) string {
		return latchContent(now, pl.sessionID, dir, pl.event, used, window)
	}) {
		return nil
	}
	items, prog, ok := o.inProgress(dir, deadline, false)
	if !ok {
		return nil
	}
	text := checkpointText(items, min(pct, 100), kbsName(prog))
	if text == nil {
		return nil
	}
	switch pl.event {
	case eventPostToolUse:
		return additionalContext(pl.event, text)
	case eventStop:
		return blockStop(text)
	}
	return text
}

// blockStop is what a Stop hook prints to give the model text: the
// decision to block the stop, the text as the reason, which Qwen Code
// 0.24.4 sends the model as the next message of the turn (measured,
// TestQwenStopCheckpoint). The latch keeps it to once: the turn it starts
// ends in a Stop hook again, which finds the latch set.
func blockStop(text []byte) []byte {
	out := make([]byte, 0, len(text)+len(text)/8+48)
	out = append(out, `{"decision":"block","reason":`...)
	out = appendJSONString(out, string(text))
	return append(out, "}\n"...)
}

// hint does the work of Run --hint and returns what to print.
func hint(o options) []byte {
	deadline := time.Now().Add(o.budget)
	pl, ok := readHookPayload(o, maxStdin, eventPreCompact)
	if !ok {
		return nil
	}
	dir := o.project(pl.cwd)
	if dir == "" {
		return nil
	}
	// Ids and titles need no summaries: --raw is quick and writes nothing,
	// and a PreCompact hook delays the compaction while it runs.
	items, _, ok := o.inProgress(dir, deadline, true)
	if !ok || len(items) == 0 {
		return nil
	}
	return hintText(items)
}

// kbsName is the command the checkpoint text tells the agent to run:
// kanbus where only the Python build's kanbus is installed, else kbs.
func kbsName(prog string) string {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(prog)), ".exe")
	if base == "kanbus" {
		return "kanbus"
	}
	return "kbs"
}

// checkpointText tells the agent to write where it stands into each
// in-progress issue: items whose status is in_progress, or every item
// when none is (a Kanbus that names the status otherwise). Caps as for
// the reminder. nil when there is no item.
func checkpointText(items []item, pct int64, kbs string) []byte {
	var open []item
	for _, it := range items {
		if it.hasStatus && it.status == "in_progress" {
			open = append(open, it)
		}
	}
	if len(open) == 0 {
		open = items
	}
	if len(open) == 0 {
		return nil
	}
	out := make([]byte, 0, 2048)
	out = append(out, "Kanbus checkpoint: the context window is "...)
	out = strconv.AppendInt(out, pct, 10)
	out = append(out, "% full and will be compacted soon; what is not written down will be lost. "+
		"Before you go on, record where you stand as one comment on each in-progress Kanbus issue below: "+
		"what is done, what is next, and the user's constraints and decisions in the user's own words. For each issue run\n"+
		"  "...)
	out = append(out, kbs...)
	out = append(out, ` comment <id> "Done: ... Next: ... User's words: ..."`+"\n(several lines: "...)
	out = append(out, kbs...)
	out = append(out, " comment <id> --body-file - with the text on stdin). Then carry on with the task.\n\n"...)
	return appendQuoted(out, "", open, appendIDLine)
}

// hintHeader opens the summary hint.
const hintHeader = "Kanbus work in progress: keep every issue id and title below verbatim in the summary, " +
	"each with where its work stands, so that the work can be picked up again from Kanbus after the compaction.\n\n"

// hintText lists the ids and titles the summary should keep; caps as for
// the reminder.
func hintText(items []item) []byte {
	out := make([]byte, 0, 2048)
	out = append(out, hintHeader...)
	return appendQuoted(out, "", items, appendIDLine)
}

// additionalContext wraps text in the JSON a PostToolUse hook prints to
// add context: {"hookSpecificOutput": {"hookEventName": event,
// "additionalContext": text}}, nothing else (Codex parses it strictly).
func additionalContext(event string, text []byte) []byte {
	out := make([]byte, 0, len(text)+len(text)/8+96)
	out = append(out, `{"hookSpecificOutput":{"hookEventName":`...)
	out = appendJSONString(out, event)
	out = append(out, `,"additionalContext":`...)
	out = appendJSONString(out, string(text))
	return append(out, "}}\n"...)
}

// appendJSONString appends s as a JSON string. s is valid UTF-8 (the
// reader decodes invalid bytes to U+FFFD); control characters, quotes and
// backslashes are escaped, as are U+2028 and U+2029.
func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			dst = append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
