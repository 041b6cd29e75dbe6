package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/generate"
)

// The live runs of the checkpoint. Each runs an installed entry's command
// the way the agent would (its shell, in the project directory, with a
// payload of the entry's event on stdin) against a synthetic transcript
// in doctor's temporary directory, with a fake kbs there that lists two
// issues, and with XDG_STATE_HOME there too, so that the checkpoint's
// latch is doctor's own (each run has a session id of its own) and
// nothing of the user's is written. NOWHOOK_DEBUG=1 makes the runtime say
// why it printed nothing.

// probeIDs are the issues the fake kbs lists.
var probeIDs = []string{"nowhook-doctor-1", "nowhook-doctor-2"}

// listingKbs is the fake kbs of the checkpoint's live runs, as fmt
// formats it: %[1]s is the file that records the pid of every call.
const listingKbs = "#!/bin/sh\necho \"$$\" >>%[1]s\ncat <<'EOF'\n" +
	`[{"id": "nowhook-doctor-1", "title": "First issue of the fake kbs of nowhook doctor", "type": "task", "status": "in_progress", "priority": 1, "right_now_summary": null, "parent": null},` + "\n" +
	` {"id": "nowhook-doctor-2", "title": "Second issue of the fake kbs of nowhook doctor", "type": "task", "status": "in_progress", "priority": 2, "right_now_summary": null, "parent": null}]` +
	"\nEOF\n"

// jsonOnly are the events whose plain stdout does not reach the model:
// the checkpoint must print additionalContext JSON there (measured on
// Claude Code 2.1.332 and Codex 0.171.0, docs/platforms.md, "Checkpoint:
// which hook output reaches the model").
var jsonOnly = map[string]bool{"PostToolUse": true}

// cpLive is the live check of an agent's checkpoint; its runs are
// d.ranFor(l), the summary hint's those with pct -1.
type cpLive struct {
	skipped string // why it was not run
	tmpErr  string // why it could not be run: no temporary directory
	at      int
	atKnown bool
	about   string
	// notRun are the scripts not run: outside --live, those that are not
	// nowhook's unchanged ones (as the compact hook's live runs).
	notRun []string
}

// Start runs the installed checkpoint live, when all of it is installed:
// each checkpoint entry above the threshold, the first one below it too,
// and each summary hint entry.
func (checkpointCheck) Start(ctx context.Context, d *doctor, a *agent) {
	missing, installed := d.checkpointParts(a)
	if !installed || len(missing) > 0 || a.p.Hooks.Shell == "" {
		return
	}
	l := &cpLive{}
	a.cpLive = l
	probe := a.p.Doctor.Transcript
	if probe == nil {
		l.skipped = "doctor cannot write a transcript of " + a.p.Title + " for it"
		return
	}
	if _, err := d.scratch(); err != nil {
		l.tmpErr = "cannot make a temporary directory for the synthetic transcript and the fake kbs: " + err.Error()
		return
	}
	l.at, l.atKnown = d.checkpointAt(a)
	l.about = probe.About
	above := int64(l.at + max((100-l.at)/2, 1))
	below := int64(l.at / 2)
	var first *ourSpec
	for _, s := range a.checkpoint {
		if !d.quickRuns(s.script) {
			l.notRun = append(l.notRun, s.script)
			continue
		}
		hint := !d.runsCheckpointScript(a, s)
		if !hint && first == nil {
			first = s
		}
		d.startCheckpoint(ctx, a, l, s, above, hint)
	}
	if first != nil {
		d.startCheckpoint(ctx, a, l, first, below, false)
	}
}

// startCheckpoint runs the checkpoint entry s against a synthetic
// transcript that shows pct percent of the context window used (the
// summary hint's run with a PreCompact payload), with the fake kbs that
// lists probeIDs. A run that cannot be prepared is left out.
func (d *doctor) startCheckpoint(ctx context.Context, a *agent, l *cpLive, s *ourSpec, pct int64, hint bool) {
	h, ok := firstRunnable(s.ours)
	if !ok {
		return
	}
	tmp, _ := d.scratch() // made by Start
	name := fmt.Sprintf("%s-checkpoint-%d", a.p.Name, len(d.ranFor(l))+1)
	probe := a.p.Doctor.Transcript
	transcript := filepath.Join(tmp, name+".jsonl")
	used := probe.Window * pct / 100
	if err := os.WriteFile(transcript, probe.Write(used), 0o600); err != nil {
		return
	}
	budget, ok := cpBudget(d.readScript(s.script))
	if !ok {
		budget = agentpkg.DefaultBudget
	}
	hr := hookRun{of: l, a: a, command: h.Command, dir: d.root,
		payload:  cpPayload(probe, s.schema.Event, hint, "nowhook-doctor-"+name, transcript, d.from, used),
		scenario: scenario{name: s.schema.Event, fake: listingKbs},
		env:      []string{"XDG_STATE_HOME=" + filepath.Join(tmp, a.p.Name+"-state"), "NOWHOOK_DEBUG=1"},
		script:   s.script, event: s.schema.Event, pct: pct}
	if hint {
		hr.pct = -1
	}
	if !d.live {
		budget, hr.probe = probeBudget, probeBudget
	}
	hr.limit = d.runLimit(budget)
	d.startHook(ctx, hr)
}

// cpPayload is the payload of a checkpoint entry's event: a prompt, a
// tool call (where only JSON output reaches the model), or the summary
// hint's manual compaction, as the agent's transcript probe completes it;
// used is the context use in tokens, for an agent whose payload carries it
// (Transcript.Use).
func cpPayload(probe *agentpkg.Transcript, event string, hint bool, session, transcript, cwd string, used int64) []byte {
	pl := map[string]any{
		"session_id":      session,
		"transcript_path": transcript,
		"cwd":             cwd,
		"hook_event_name": event,
	}
	switch {
	case hint:
		pl["trigger"], pl["custom_instructions"] = "manual", nil
	case jsonOnly[event]:
		pl["tool_name"] = "Bash"
		pl["tool_input"] = map[string]any{"command": "true"}
		pl["tool_response"] = map[string]any{"stdout": "", "stderr": ""}
		pl["tool_use_id"] = probe.ToolID
	default:
		pl["prompt"] = "nowhook doctor"
	}
	if probe.Payload != nil {
		probe.Payload(pl)
	}
	if probe.Use != nil && !hint {
		probe.Use(pl, used)
	}
	return payloadLine(pl)
}

// quickRuns reports whether doctor runs the script: under --live any
// script, otherwise only nowhook's own, unchanged (or a missing one, whose
// command fails at once); the compact hook's notRun asks it too.
func (d *doctor) quickRuns(script string) bool {
	if d.live {
		return true
	}
	state, _ := generate.InspectScript(d.readScript(script))
	return state == generate.ScriptOurs || state == generate.ScriptAbsent
}

// runsCheckpointScript reports whether the entry runs the checkpoint
// script (rather than the summary hint), as the table says.
func (d *doctor) runsCheckpointScript(a *agent, s *ourSpec) bool {
	for _, sc := range a.cpScripts {
		if sc.File == s.script {
			return isCheckpointScript(sc)
		}
	}
	return false
}

// checkpointLive reports the live runs: one row for the checkpoint's
// runs, one for the summary hint's.
func (d *doctor) checkpointLive(a *agent) []Finding {
	l := a.cpLive
	if l == nil {
		return nil // not started: Static, or not all of it is installed
	}
	switch {
	case l.tmpErr != "":
		return []Finding{{Severity: Warn, Message: "did not run the checkpoint live: " + l.tmpErr,
			Fix: "point TMPDIR at a writable directory, then run nowhook doctor again"}}
	case l.skipped != "":
		return []Finding{{Severity: Info, Message: "did not run the checkpoint live: " + l.skipped}}
	}
	var out []Finding
	seen := map[string]bool{}
	for _, script := range l.notRun {
		if seen[script] {
			continue
		}
		seen[script] = true
		out = append(out, Finding{Severity: Info, Path: script, Fix: "nowhook doctor --live" + d.dirFlag,
			Message: fmt.Sprintf("not run: %s is not nowhook's unchanged script (the script row says whose it is), so a quick run does not run it; nowhook doctor --live runs it with a fake kbs", script)})
	}
	var runs []*ran
	var hints []Finding
	for _, r := range d.ranFor(l) {
		if r.pct < 0 {
			hints = append(hints, d.hintFinding(a, r))
		} else {
			runs = append(runs, r)
		}
	}
	if len(runs) > 0 {
		out = append(out, d.checkpointRunsFinding(a, l, runs))
	}
	return append(out, hints...)
}

// checkpointRunsFinding is the row of the checkpoint script's runs, above
// the threshold and below it.
func (d *doctor) checkpointRunsFinding(a *agent, l *cpLive, runs []*ran) Finding {
	threshold := fmt.Sprintf("%d%%", l.at)
	if !l.atKnown {
		threshold += " (assumed: the script states none)"
	}
	f := Finding{Path: runs[0].script}
	var parts []string
	for _, r := range runs {
		sev, text, why := d.judgeCheckpoint(a, r, l.at)
		f.Severity = max(f.Severity, sev)
		side := "above"
		if r.pct < int64(l.at) {
			side = "below"
		}
		parts = append(parts, fmt.Sprintf("%s at %d%%, %s %s: %s", r.event, r.pct, side, threshold, text))
		if sev > OK && f.Fix == "" {
			f.Fix = d.liveCheckpointFix(a, why)
		}
	}
	f.Message = fmt.Sprintf("ran %s (%s -c, %s, a fake kbs listing %s): %s",
		f.Path, a.p.Hooks.Shell, l.about, strings.Join(probeIDs, " and "), strings.Join(parts, "; "))
	return f
}

// hintFinding is the row of the summary hint's run.
func (d *doctor) hintFinding(a *agent, r *ran) Finding {
	sev, text, why := d.judgeHint(a, r.wait())
	f := Finding{Severity: sev, Path: r.script,
		Message: fmt.Sprintf("ran %s, the summary hint (%s -c, %s payload, the same fake kbs): %s", r.script, a.p.Hooks.Shell, r.event, text)}
	if sev > OK {
		f.Fix = d.liveCheckpointFix(a, why)
	}
	return f
}

// Why a live run went wrong, for its fix.
const (
	whyScript  = iota // the script or the hook: setup puts it right
	whyRuntime        // no nowhook on PATH, or one without the checkpoint
)

// liveCheckpointFix is the fix for a live run that went wrong.
func (d *doctor) liveCheckpointFix(a *agent, why int) string {
	if why == whyRuntime {
		return "install the current nowhook (./install.sh in a nowhook checkout) and put it on PATH"
	}
	return d.checkpointFix(a, "--force")
}

// runFailure says how a run failed besides its exit status and output:
// it could not start, was stopped, or left processes behind.
func runFailure(a *agent, r liveRun) (Severity, string) {
	res := r.res
	switch {
	case res.startErr != nil:
		return Error, fmt.Sprintf("cannot start %s: %v", a.p.Hooks.Shell, res.startErr)
	case res.killed:
		return Error, "still running when doctor stopped it; " + a.p.Title + " cancels it at its timeout and gets nothing"
	}
	var notes []string
	if res.leftover || res.heldOutput {
		notes = append(notes, "left processes running after it exited")
	}
	if len(r.strays) > 0 {
		notes = append(notes, fmt.Sprintf("left kbs running after it exited (pid %v, killed)", r.strays))
	}
	if len(notes) > 0 {
		return Error, strings.Join(notes, ", ")
	}
	return OK, ""
}

// exitText is "exit N in T", with what the run said on stderr when N is
// not 0 (a warning: the agent shows the hook as failed).
func exitText(r liveRun) (Severity, string) {
	text := fmt.Sprintf("exit %d in %s", r.res.exit, round(r.res.elapsed))
	if r.res.exit != 0 {
		return Warn, text + " (" + lastLine(r.res.stderr) + ")"
	}
	return OK, text
}

// lastLine is the last line a program wrote to stderr (NOWHOOK_DEBUG's
// verdict), or "no message".
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return truncate(l, 200)
	}
	return "no message"
}

// namesIDs reports whether text names every issue of the fake kbs.
func namesIDs(text string) bool {
	for _, id := range probeIDs {
		if !strings.Contains(text, id) {
			return false
		}
	}
	return true
}

// silent says why a run printed nothing where it should have printed.
func (d *doctor) silent(r liveRun) (string, int) {
	_, lean := osutil.LookPath(d.env, "nowhook-reminder")
	_, full := osutil.LookPath(d.env, "nowhook")
	if !lean && !full {
		return "printed nothing: neither nowhook-reminder nor nowhook is on PATH, and the script has no fallback", whyRuntime
	}
	why := lastLine(r.res.stderr)
	if strings.Contains(why, "flag provided but not defined") {
		return "printed nothing: the nowhook on PATH does not know the flag (" + why + ")", whyRuntime
	}
	return "printed nothing (" + why + ")", whyScript
}

// judgeCheckpoint rates one run of the checkpoint script: above the
// threshold it must exit 0 and print the checkpoint naming the fake's
// issues, as additionalContext JSON where plain output does not reach the
// model; below it, exit 0 and print nothing.
func (d *doctor) judgeCheckpoint(a *agent, r *ran, at int) (Severity, string, int) {
	lr := r.wait()
	sev, failed := runFailure(a, lr)
	if lr.res.startErr != nil || lr.res.killed {
		return sev, failed, whyScript
	}
	exitSev, text := exitText(lr)
	sev = max(sev, exitSev)
	if failed != "" {
		text += ", " + failed
	}
	out := bytes.TrimSpace(lr.res.stdout)
	why := whyScript
	var said string
	switch {
	case r.pct < int64(at) && len(out) == 0:
		said = "printed nothing"
	case r.pct < int64(at):
		sev = max(sev, Warn)
		said = fmt.Sprintf("printed %d bytes although the context is below the threshold", len(out))
	case len(out) == 0:
		sev = max(sev, Warn)
		said, why = d.silent(lr)
	default:
		var outSev Severity
		outSev, said = checkpointOutput(a, r.event, out)
		sev = max(sev, outSev)
	}
	text += ", " + said
	if lr.calls == 0 && r.pct >= int64(at) && len(out) > 0 {
		sev = max(sev, Warn)
		text += ", without calling kbs"
	}
	return sev, text, why
}

// checkpointOutput rates what a run of the checkpoint above the threshold
// printed after an event: the checkpoint naming the fake's issues, as
// additionalContext JSON where plain output does not reach the model.
func checkpointOutput(a *agent, event string, out []byte) (Severity, string) {
	switch {
	case jsonOnly[event]:
		ctx, err := additionalContext(out, event)
		switch {
		case err != nil:
			return Warn, fmt.Sprintf("printed %s, not the additionalContext JSON that %s passes on after a %s hook (%v)", preview(out), a.p.Title, event, err)
		case !namesIDs(ctx):
			return Warn, "printed the checkpoint as additionalContext JSON without naming the ids of the fake kbs"
		}
		return OK, "printed the checkpoint as additionalContext JSON naming both ids"
	case event == "Stop":
		var v struct{ Decision, Reason string }
		switch err := json.Unmarshal(out, &v); {
		case err != nil || v.Decision != "block":
			return Warn, fmt.Sprintf("printed %s, not the decision to block the stop whose reason %s sends the model", preview(out), a.p.Title)
		case !namesIDs(v.Reason):
			return Warn, "blocked the stop with a reason that does not name the ids of the fake kbs"
		}
		return OK, "blocked the stop with the checkpoint as its reason, naming both ids"
	case (out[0] == '{' || out[0] == '[') && a.p.Hooks.JSONOutput:
		return Warn, "printed output that begins with " + string(out[0]) + ", which " + a.p.Title + " parses as JSON and drops"
	case !namesIDs(string(out)):
		return Warn, fmt.Sprintf("printed %s without naming the ids of the fake kbs", preview(out))
	}
	return OK, "printed the checkpoint as plain text naming both ids"
}

// additionalContext reads the JSON a hook prints to add context, as Codex
// reads it (strictly: exactly hookSpecificOutput with hookEventName and
// additionalContext), and returns the context.
func additionalContext(out []byte, event string) (string, error) {
	var v struct {
		HookSpecificOutput *struct {
			HookEventName     string  `json:"hookEventName"`
			AdditionalContext *string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if dec.More() {
		return "", fmt.Errorf("more than one JSON value")
	}
	switch o := v.HookSpecificOutput; {
	case o == nil:
		return "", fmt.Errorf("no hookSpecificOutput")
	case o.HookEventName != event:
		return "", fmt.Errorf("hookEventName is %q, not %q", o.HookEventName, event)
	case o.AdditionalContext == nil:
		return "", fmt.Errorf("no additionalContext")
	default:
		return *o.AdditionalContext, nil
	}
}

// judgeHint rates the run of the summary hint: exit 0, the fake's issues
// printed, and nothing that blocks the compaction (exit 2 or a
// "decision").
func (d *doctor) judgeHint(a *agent, r liveRun) (Severity, string, int) {
	sev, failed := runFailure(a, r)
	if r.res.startErr != nil || r.res.killed {
		return sev, failed, whyScript
	}
	exitSev, text := exitText(r)
	sev = max(sev, exitSev)
	if r.res.exit == 2 {
		sev = Error
		text += ", which blocks the compaction"
	}
	if failed != "" {
		text += ", " + failed
	}
	out := bytes.TrimSpace(r.res.stdout)
	why := whyScript
	var obj map[string]any
	switch {
	case len(out) == 0:
		sev = max(sev, Warn)
		var silent string
		silent, why = d.silent(r)
		text += ", " + silent
	case out[0] == '{' && json.Unmarshal(out, &obj) == nil && obj["decision"] != nil:
		sev = Error
		text += fmt.Sprintf(", printed a decision (%s), which can block the compaction", jsonText(obj["decision"]))
	case !namesIDs(string(out)):
		sev = max(sev, Warn)
		text += fmt.Sprintf(", printed %s without naming the ids of the fake kbs", preview(out))
	default:
		text += ", printed both ids, no decision"
	}
	return sev, text, why
}
