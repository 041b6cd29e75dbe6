package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
)

// The checks only Qwen Code needs (docs/platforms.md#qwen-code); the agent
// table's qwen row names them.

func init() {
	register(qwenLoadableCheck, qwenMsTimeoutCheck, qwenMDCheck, qwenTrustCheck)
}

// qwenLoadableCheck: Qwen Code takes comments in its settings files but
// not trailing commas, which nowhook's JSON reader accepts; a project file
// with one is reset at Qwen's next start, a user file stops Qwen.
var qwenLoadableCheck = checkFunc{"loadable", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		if f.ReadErr != nil || f.ParseErr != nil {
			continue // hooks-file says why
		}
		fe := agentpkg.QwenLoadError(f.Show, f.Raw)
		if fe == nil {
			continue
		}
		if f.User {
			fe.Consequence = a.p.Title + " refuses to start until it is fixed"
		}
		msg, fix := diag.FileErrorText(fe)
		out = append(out, Finding{Severity: Error, Path: f.Show, Message: msg, Fix: fix})
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
		for _, h := range f.Handlers {
			n, ok := h.Obj["timeout"].(json.Number)
			if !ok || !d.handlerRunsReminder(a, h) {
				continue
			}
			v, err := strconv.ParseFloat(n.String(), 64)
			if err != nil || v < qwenLegacyTimeout {
				continue
			}
			limit := time.Duration(v * float64(time.Millisecond))
			fd := Finding{Path: f.Show, Severity: Info,
				Message: fmt.Sprintf("%s: \"timeout\": %s is %s to %s, which reads values of %d or more as milliseconds", h.Where(), n, limit, a.p.Title, qwenLegacyTimeout)}
			if limit < budget {
				fd.Severity = Warn
				fd.Message += fmt.Sprintf("; it cancels the hook before the %s the wrapper gives kbs, so a slow kbs means no reminder", budget)
				fd.Fix = fmt.Sprintf("set the timeout at %s to seconds, e.g. %d", h.Where(), int(budget/time.Second)+5)
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

// qwenTrustCheck: with folder trust on (security.folderTrust.enabled in
// the user's settings; off unless turned on), Qwen Code loads a project's
// .qwen/settings.json only in a folder its trustedFolders.json trusts; in
// any other folder the compact hook never runs, and a headless run says
// nothing (measured on 0.24.4). The rules are Qwen's: a rule covers its
// folder and everything below (TRUST_PARENT: its parent folder's), the
// deepest rule wins, and DO_NOT_TRUST wins a tie.
var qwenTrustCheck = checkFunc{"folder-trust", func(d *doctor, a *agent) []Finding {
	if a.mode != agentpkg.Reinject {
		return nil
	}
	dir := osutil.Getenv(d.env, "QWEN_HOME")
	if dir == "" {
		if d.home == "" {
			return nil
		}
		dir = filepath.Join(d.home, ".qwen")
	}
	settings := filepath.Join(dir, "settings.json")
	var enabled bool
	for _, f := range a.files {
		if f.User && f.Abs == settings {
			sec, _ := f.Doc["security"].(map[string]any)
			ft, _ := sec["folderTrust"].(map[string]any)
			enabled, _ = ft["enabled"].(bool)
		}
	}
	if !enabled {
		return nil
	}
	rulesFile := osutil.Getenv(d.env, "QWEN_CODE_TRUSTED_FOLDERS_PATH")
	if rulesFile == "" {
		rulesFile = filepath.Join(dir, "trustedFolders.json")
	}
	rules, err := readQwenTrust(rulesFile)
	show := d.Show(rulesFile)
	if err != nil {
		return []Finding{{Severity: Error, Path: show,
			Message: fmt.Sprintf("%s cannot be read (%v); %s refuses to start until it is fixed", show, err, a.p.Title),
			Fix:     "correct " + show}}
	}
	rule, level := qwenTrustFor(rules, d.root)
	fix := fmt.Sprintf("start qwen in %s and trust the folder when it asks, or add %q: \"TRUST_FOLDER\" to %s", d.root, d.root, show)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return []Finding{{Path: show,
			Message: fmt.Sprintf("folder trust is on and %s trusts %s (%q: %s), so %s loads .qwen/settings.json here", show, d.root, rule, level, a.p.Title)}}
	case "DO_NOT_TRUST":
		return []Finding{{Severity: Warn, Path: show,
			Message: fmt.Sprintf("folder trust is on and %s does not trust %s (%q: DO_NOT_TRUST), so %s ignores .qwen/settings.json here and the compact hook never runs (a headless run says nothing)", show, d.root, rule, a.p.Title),
			Fix:     fix}}
	}
	return []Finding{{Severity: Warn, Path: show,
		Message: fmt.Sprintf("folder trust is on (%s) and no rule in %s trusts %s, so %s ignores .qwen/settings.json here and the compact hook never runs (a headless run says nothing)", d.Show(settings), show, d.root, a.p.Title),
		Fix:     fix}}
}}

// readQwenTrust reads Qwen's trustedFolders.json: folder -> trust level.
func readQwenTrust(path string) (map[string]string, error) {
	b, err := diag.ReadBounded(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := hujson.Parse(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if err != nil {
		return nil, err
	}
	v.Standardize()
	var rules map[string]string
	if err := json.Unmarshal(v.Pack(), &rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// qwenTrustFor returns the rule that decides root's trust, and its level.
func qwenTrustFor(rules map[string]string, root string) (rule, level string) {
	locations := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != locations[0] {
		locations = append(locations, real)
	}
	best := -1
	for path, lvl := range rules {
		covered := filepath.Clean(path)
		switch lvl {
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		case "TRUST_PARENT":
			covered = filepath.Dir(covered)
		default:
			continue
		}
		variants := []string{covered}
		if real, err := filepath.EvalSymlinks(covered); err == nil && real != covered {
			variants = append(variants, real)
		}
		for _, loc := range locations {
			for _, c := range variants {
				if loc != c && !strings.HasPrefix(loc, strings.TrimSuffix(c, string(filepath.Separator))+string(filepath.Separator)) {
					continue
				}
				depth := len(strings.FieldsFunc(c, func(r rune) bool { return r == filepath.Separator }))
				if depth > best || (depth == best && lvl == "DO_NOT_TRUST" && level != "DO_NOT_TRUST") {
					best, rule, level = depth, path, lvl
				}
			}
		}
	}
	return rule, level
}
