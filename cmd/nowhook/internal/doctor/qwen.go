package doctor

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// The checks only Qwen Code needs (docs/platforms.md#qwen-code); the agent
// table's qwen row names them.

func init() {
	register(qwenLoadableCheck, qwenMsTimeoutCheck, qwenMDCheck)
}

// qwenLoadableCheck: Qwen Code takes comments in its settings files but
// not trailing commas, which nowhook's JSON reader accepts; a project file
// with one is reset at Qwen's next start, a user file stops Qwen.
var qwenLoadableCheck = checkFunc{"loadable", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		if f.readErr != nil || f.parseErr != nil {
			continue // hooks-file says why
		}
		fe := agentpkg.QwenLoadError(f.show, f.raw)
		if fe == nil {
			continue
		}
		if f.user {
			fe.Consequence = a.p.Title + " refuses to start until it is fixed"
		}
		msg, fix := fileErrorText(fe)
		out = append(out, Finding{Severity: Error, Path: f.show, Message: msg, Fix: fix})
	}
	return out
}}

// qwenLegacyTimeout: Qwen Code reads a hook timeout of 1000 or more as
// milliseconds, its old unit.
const qwenLegacyTimeout = 1000

// qwenMsTimeoutCheck: a hook that runs the reminder with a timeout Qwen
// Code reads as milliseconds (the generic hook check reads seconds).
var qwenMsTimeoutCheck = checkFunc{"ms-timeout", func(d *doctor, a *agent) []Finding {
	var out []Finding
	budget := d.budget()
	for _, f := range a.files {
		for _, h := range f.handlers {
			n, ok := h.obj["timeout"].(json.Number)
			if !ok || !d.handlerRunsReminder(a, h) {
				continue
			}
			v, err := strconv.ParseFloat(n.String(), 64)
			if err != nil || v < qwenLegacyTimeout {
				continue
			}
			limit := time.Duration(v * float64(time.Millisecond))
			fd := Finding{Path: f.show, Severity: Info,
				Message: fmt.Sprintf("%s: \"timeout\": %s is %s to %s, which reads values of %d or more as milliseconds", h.where(), n, limit, a.p.Title, qwenLegacyTimeout)}
			if limit < budget {
				fd.Severity = Warn
				fd.Message += fmt.Sprintf("; it cancels the hook before the %s the wrapper gives kbs, so a slow kbs means no reminder", budget)
				fd.Fix = fmt.Sprintf("set the timeout at %s to seconds, e.g. %d", h.where(), int(budget/time.Second)+5)
			}
			out = append(out, fd)
		}
	}
	return out
}}

// qwenMDCheck: the mode's own instruction file (QWEN.md, which Qwen Code
// reads whatever context.fileName says) has the kbs-now block; AGENTS.md
// and CONTRIBUTING_AGENT.md have their own rows.
var qwenMDCheck = checkFunc{"qwen-md", func(d *doctor, a *agent) []Finding {
	if a.mode == "" {
		return nil
	}
	spec, ok := a.p.Spec(a.mode)
	if !ok {
		return nil
	}
	var out []Finding
	for _, art := range spec.Artifacts {
		b, ok := art.(*agentpkg.Block)
		if !ok || b == agentpkg.OnDemandBlock || b == agentpkg.KanbusAgentsBlock {
			continue
		}
		purpose := a.p.Title + " learns `kbs now` only from AGENTS.md, which it skips when its context.fileName setting names other files"
		out = append(out, d.blockFinding(readMD(d.root, b.File), b.Block.Name, purpose, d.setupFix(a.p.Name+"="+string(a.mode))))
	}
	return out
}}
