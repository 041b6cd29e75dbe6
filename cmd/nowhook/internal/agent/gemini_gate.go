package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// geminiGateCheck (doctor's gemini.gate): Gemini CLI runs nowhook's
// BeforeModel hook before every request, and only the gate keeps that at
// the cost of bash alone: the command must be the one that sources the turn
// script (an older one exec'd it, starting sh and the runtime every time),
// and the script, run as Gemini CLI runs it (`bash -c COMMAND` with the
// hook's environment), must pass a request that follows no compression
// without starting any program and hand a compressed one to the runtime.
// doctor runs it so, twice, with a nowhook-reminder of its own first on
// PATH that only marks that it started, and a throwaway state folder.
var geminiGateCheck = Check{Name: "gate", Run: func(v View) []diag.Finding {
	return geminiGateRows(v, false)
}, Start: func(_ context.Context, v View) func() []diag.Finding {
	var out []diag.Finding
	wait := v.Go(func() { out = geminiGateRows(v, true) })
	return func() []diag.Finding {
		wait()
		return out
	}
}}

// geminiGateRows judges each BeforeModel handler of ours. Run (doctor's
// file checks, which setup and setup --check take as their verdict) judges
// the command and the script's presence; run, doctor also runs the gate
// as Gemini CLI would (Start), which starts programs and so is doctor's
// alone.
func geminiGateRows(v View, run bool) []diag.Finding {
	if v.Mode() != Reinject {
		return nil
	}
	ours := generate.RunsScript(GeminiTurnScript)
	var out []diag.Finding
	for _, f := range v.HookFiles() {
		if f.ReadErr != nil || f.ParseErr != nil {
			continue
		}
		for _, h := range f.Handlers {
			if h.Event != "BeforeModel" || !ours(h.Command) {
				continue
			}
			out = append(out, geminiGateRow(v, f, h, run))
		}
	}
	return out
}

func geminiGateRow(v View, f *diag.HookFile, h diag.Handler, run bool) diag.Finding {
	fix := v.SetupFix(v.Agent().Name)
	if h.Command != GeminiTurnCommand {
		msg := fmt.Sprintf("%s: the BeforeModel command is not the one nowhook writes (%s), so the gate that passes every request without a new compression in bash alone may not run", h.Where(), GeminiTurnCommand)
		if strings.Contains(h.Command, "exec ") {
			msg = fmt.Sprintf("%s: the BeforeModel command exec's %s, as nowhook's template v5 wrote it: every request starts sh and the runtime (about +3 ms a request over /bin/true, measured), where the current command sources the script and its gate exits in bash", h.Where(), GeminiTurnScript)
		}
		return diag.Finding{Severity: diag.Warn, Path: f.Show, Message: msg, Fix: fix}
	}
	script := filepath.Join(v.Root(), GeminiTurnScript)
	if _, err := os.Stat(script); err != nil {
		return diag.Finding{Severity: diag.Error, Path: f.Show,
			Message: fmt.Sprintf("%s: %s is missing, so the hook exits 0 and Gemini CLI never gets the reminder", h.Where(), GeminiTurnScript), Fix: fix}
	}
	if !run {
		return diag.Finding{Path: f.Show,
			Message: fmt.Sprintf("%s: the BeforeModel command sources %s, whose gate passes a request with no compression in bash alone (nowhook doctor runs it)", h.Where(), GeminiTurnScript)}
	}
	bash, ok := osutil.LookPath(v.Env(), "bash")
	if !ok {
		return diag.Finding{Severity: diag.Error, Path: f.Show,
			Message: fmt.Sprintf("%s: no bash on the PATH Gemini CLI gives its hooks, and Gemini CLI runs every hook with bash -c, so this one never runs", h.Where()), Fix: "install bash"}
	}
	quiet, compressed, err := geminiGateProbe(v, bash)
	switch {
	case err != nil:
		return diag.Finding{Severity: diag.Warn, Path: f.Show, Message: fmt.Sprintf("%s: the gate could not be tried: %v", h.Where(), err), Fix: fix}
	case quiet:
		return diag.Finding{Severity: diag.Warn, Path: f.Show,
			Message: fmt.Sprintf("%s: run as Gemini CLI runs it (%s -c), the gate handed a request with no compression to the runtime: every request starts it (about +3 ms each); the gate needs bash 4 or newer and GEMINI_SESSION_ID, which Gemini CLI sets", h.Where(), bash),
			Fix:     "put bash 4 or newer first on Gemini CLI's PATH"}
	case !compressed:
		return diag.Finding{Severity: diag.Error, Path: f.Show,
			Message: fmt.Sprintf("%s: run as Gemini CLI runs it (%s -c), the gate did not hand the first request after a compression to the runtime, so Gemini CLI would never get the reminder", h.Where(), bash), Fix: fix}
	}
	return diag.Finding{Path: f.Show,
		Message: fmt.Sprintf("%s: the BeforeModel command sources %s, and its gate, run as Gemini CLI runs it (%s -c), passed a request with no compression without starting a program and handed the first request after a compression to the runtime", h.Where(), GeminiTurnScript, bash)}
}

// geminiGateProbe runs the installed command on a request with no
// compression and on the first one after a compression, and reports
// which of the two reached the runtime.
func geminiGateProbe(v View, bash string) (quiet, compressed bool, err error) {
	dir, err := os.MkdirTemp("", "nowhook-doctor-gate-")
	if err != nil {
		return false, false, err
	}
	defer os.RemoveAll(dir)
	mark := filepath.Join(dir, "started")
	fake := "#!/bin/sh\ncat >/dev/null\n: >>'" + mark + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "nowhook-reminder"), []byte(fake), 0o755); err != nil {
		return false, false, err
	}
	cwd, _ := json.Marshal(v.Root())
	run := func(messages string) (bool, error) {
		os.Remove(mark)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bash, "-c", GeminiTurnCommand)
		cmd.Dir = v.Root()
		cmd.Env = append(withoutKeys(v.Env(), "PATH", "XDG_STATE_HOME", "GEMINI_PROJECT_DIR", "GEMINI_SESSION_ID", "NOWHOOK_DEBUG"),
			"PATH="+dir+string(os.PathListSeparator)+v.Getenv("PATH"), "XDG_STATE_HOME="+dir,
			"GEMINI_PROJECT_DIR="+v.Root(), "GEMINI_SESSION_ID=nowhook-doctor")
		cmd.Stdin = strings.NewReader(`{"session_id":"nowhook-doctor","cwd":` + string(cwd) +
			`,"hook_event_name":"BeforeModel","llm_request":{"model":"m","messages":[` + messages + `]}}`)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return false, fmt.Errorf("%s -c exited with %v: %s", bash, err, bytes.TrimSpace(out.Bytes()))
		}
		_, err := os.Stat(mark)
		return err == nil, nil
	}
	if quiet, err = run(`{"role":"user","content":"<session_context>doctor</session_context>hello"},{"role":"model","content":"Hello."},{"role":"user","content":"Please continue."}`); err != nil {
		return
	}
	compressed, err = run(`{"role":"user","content":"<session_context>doctor</session_context><state_snapshot>nowhook doctor</state_snapshot>"},{"role":"model","content":"Got it. Thanks for the additional context!"},{"role":"user","content":"Please continue."}`)
	return
}

// withoutKeys is env without the variables named.
func withoutKeys(env []string, keys ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			drop = drop || k == key
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
