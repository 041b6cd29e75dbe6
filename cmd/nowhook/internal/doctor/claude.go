package doctor

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/generate"
)

// The checks only Claude Code needs (docs/platforms.md#claude-code); the
// agent table's claude row names them.

func init() {
	register(claudeDisabledCheck, claudeTwiceCheck, claudeBlockingCheck, claudeMDCheck)
	transcriptProbes["claude"] = claudeTranscript
}

// claudeTranscript is a Claude Code transcript for the checkpoint's live
// runs (docs/platforms.md, "Checkpoint: reading the context use"): a
// prompt, then the assistant record of the reply that asked for the tool
// call, whose usage sums to the context use. Claude Code 2.1.332 gives
// claude-sonnet-4-5 a 200,000-token window.
var claudeTranscript = transcriptProbe{
	about:  "a synthetic Claude Code transcript of claude-sonnet-4-5 with its 200000-token window",
	window: 200_000,
	toolID: "toolu_nowhook_doctor",
	write: func(used int64) []byte {
		return fmt.Appendf(nil, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"nowhook doctor"},"uuid":"nowhook-doctor-u"}
{"parentUuid":"nowhook-doctor-u","isSidechain":false,"message":{"id":"msg_nowhook_doctor","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_nowhook_doctor","name":"Bash","input":{"command":"true"}}],"stop_reason":"tool_use","usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":8}},"requestedModel":"claude-sonnet-4-5","type":"assistant","uuid":"nowhook-doctor-a"}
`, used-8)
	},
}

// claudeDisabledCheck: disableAllHooks turns every hook off.
var claudeDisabledCheck = checkFunc{"disabled", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		if v, ok := f.Doc["disableAllHooks"]; ok && v == true {
			out = append(out, Finding{Severity: Error, Path: f.Show,
				Message: fmt.Sprintf("%s sets \"disableAllHooks\": true, so %s runs no hooks at all, the compact hook included", f.Show, a.p.Title),
				Fix:     `delete "disableAllHooks": true from ` + f.Show})
		}
	}
	return out
}}

// claudeTwiceCheck: Claude Code runs a byte-identical command from several
// files once, but every different spelling of the same reminder once more.
var claudeTwiceCheck = checkFunc{"twice", func(d *doctor, a *agent) []Finding {
	entry := a.p.HookEntries()[0].Hook
	byCommand := map[string][]diag.Handler{}
	var commands []string
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event != entry.File.Event || !h.Wrapped || !matchMatcher(h.Matcher, "compact").matches || !d.handlerRunsReminder(a, h) {
				continue
			}
			if u := a.p.Scope.User; u != nil && u.Ours(h.Command) {
				continue // the user-scope hook prints nothing where the project's runs
			}
			if _, seen := byCommand[h.Command]; !seen {
				commands = append(commands, h.Command)
			}
			byCommand[h.Command] = append(byCommand[h.Command], h)
		}
	}
	if len(commands) < 2 {
		return nil
	}
	// Setup fixes it when it can rewrite every other spelling: ours in
	// .claude/settings.json, the current command anywhere else.
	var where []string
	bySetup := true
	ours := generate.RunsScript(entry.Script)
	current := entryCommand(entry.Hook(agentpkg.Options{Budget: d.budget()}))
	for _, c := range commands {
		h := byCommand[c][0]
		where = append(where, fmt.Sprintf("%q at %s", c, h.Where()))
		for _, h := range byCommand[c] {
			inProject := !h.File.User && h.File.Show == entry.File.Path
			if (inProject && !ours(c)) || (!inProject && c != current) {
				bySetup = false
			}
		}
	}
	fix := d.setupFix(a.p.Name)
	if !bySetup {
		fix = "keep one of them and delete the others by hand"
	}
	return []Finding{{Severity: Warn, Path: byCommand[commands[0]][0].File.Show,
		Message: fmt.Sprintf("the reminder runs %d times after each compaction: %d different commands run it (%s); %s runs a byte-identical command once, each other spelling again",
			len(commands), len(commands), strings.Join(where, "; "), a.p.Title),
		Fix: fix}}
}}

// What makes a PreCompact hook block compaction (docs/platforms.md): exit
// status 2, in any language the hook is written in, or a printed
// {"decision": "block"}, in any quoting. Lines that start a comment with
// # are skipped.
var (
	blockExitRE     = regexp.MustCompile(`(?m)^[^#\n]*?\b(exit\s+2\b|exit\s*\(\s*2\s*\)|Exit\(\s*2\s*\)|SystemExit\(\s*2\s*\)|exitCode\s*=\s*2\b)`)
	blockDecisionRE = regexp.MustCompile(`(?m)^[^#\n]*?\bdecision\b[^\n]{0,40}\bblock\b`)
)

// blocker finds the first line of text that can block compaction, and
// says what it does.
func blocker(text []byte) (line int, what string, ok bool) {
	first, what := -1, ""
	for _, c := range []struct {
		re   *regexp.Regexp
		what string
	}{{blockExitRE, "exits 2"}, {blockDecisionRE, `prints a "block" decision`}} {
		if loc := c.re.FindIndex(text); loc != nil && (first < 0 || loc[0] < first) {
			first, what = loc[0], c.what
		}
	}
	if first < 0 {
		return 0, "", false
	}
	return bytes.Count(text[:first], []byte("\n")) + 1, what, true
}

// claudeBlockingCheck: a PreCompact hook that exits 2 or prints
// {"decision": "block"} stops compaction; at the context limit that can
// deadlock the session (anthropics/claude-code#47618). Doctor reads the
// command and every file it runs, except the script of our own summary
// hint (a checkpoint entry of the table) while it is nowhook's template,
// unchanged: that never blocks.
var claudeBlockingCheck = checkFunc{"precompact-block", func(d *doctor, a *agent) []Finding {
	var out []Finding
	for _, f := range a.files {
		for _, h := range f.Handlers {
			if h.Event != "PreCompact" {
				continue
			}
			ourScript := ""
			if s := a.checkpointSpec(h); s != nil {
				ourScript = d.repoPath(s.script)
			}
			cause, fix := "", ""
			if _, what, ok := blocker([]byte(h.Command)); ok {
				cause = "its command " + what
				fix = "change the PreCompact command at " + h.Where() + ` so that it exits 0 and prints no {"decision": "block"}, or delete the entry`
			} else {
				for _, p := range d.commandFiles(a, h.Command) {
					b, err := diag.ReadBounded(p)
					if err != nil {
						continue
					}
					if state, _ := generate.InspectScript(b); p == ourScript && state == generate.ScriptOurs {
						continue
					}
					if line, what, ok := blocker(b); ok {
						cause = fmt.Sprintf("%s:%d %s", d.Show(p), line, what)
						fix = fmt.Sprintf(`edit %s (line %d) so that it exits 0 and prints no {"decision": "block"}, or delete the PreCompact entry at %s`, d.Show(p), line, h.Where())
						break
					}
				}
			}
			if cause == "" {
				continue
			}
			out = append(out, Finding{Severity: Error, Path: f.Show,
				Message: fmt.Sprintf("%s: this PreCompact hook can block compaction (%s); %s then does not compact, and at the context limit that can deadlock the session", h.Where(), cause, a.p.Title),
				Fix:     fix})
		}
	}
	return out
}}

// claudeMDCheck: the Markdown block the re-inject mode writes besides the
// on-demand `kbs now` block every agent shares (the "Compact Instructions",
// which steer what the compaction summary keeps, in CLAUDE.md or, where the
// repository has none, in .claude/rules/) is present and current, in the
// file the agent table puts it in for the repository as it is.
var claudeMDCheck = checkFunc{"md", func(d *doctor, a *agent) []Finding {
	if a.mode != agentpkg.Reinject {
		return nil
	}
	spec, _ := a.p.Spec(agentpkg.Reinject)
	disk := agentpkg.DirFiles(d.root)
	var needed, elsewhere []*agentpkg.Block
	for _, art := range spec.Artifacts {
		b, ok := agentpkg.BlockOf(art)
		if !ok || b.Block.Name == agentpkg.OnDemandBlock.Block.Name {
			continue
		}
		if c, ok := art.(agentpkg.Conditional); ok && !c.Needed(disk, disk) {
			elsewhere = append(elsewhere, b)
			continue
		}
		needed = append(needed, b)
	}
	var out []Finding
	for _, b := range needed {
		m := readMD(d.root, b.File)
		// The files on disk cannot tell a CLAUDE.md of the user's that setup
		// filled (it then holds nothing but nowhook's blocks) from one that
		// nowhook created; setup knows from its record and keeps the block
		// there. Where this file does not exist and the other holds the
		// block, that file is judged; where this one exists without the
		// block (a CLAUDE.md the user wrote after setup), the block still
		// reaches Claude Code from the other, and setup moves it.
		var other *mdFile
		if m.block(b.Block.Name) == nil && m.ReadErr == nil {
			for _, o := range elsewhere {
				if om := readMD(d.root, o.File); o.Block.Name == b.Block.Name && om.block(o.Block.Name) != nil && om.block(o.Block.Name).err == nil {
					other = om
					break
				}
			}
		}
		purpose := "the compaction summary is not told to keep the Kanbus issue ids"
		switch {
		case other != nil && !m.exists:
			m = other
		case other != nil && m.rel == agentpkg.ClaudeContextFile:
			out = append(out, Finding{Path: m.rel, Severity: Warn, Fix: d.setupFix(a.p.Name),
				Message: fmt.Sprintf("%s has no nowhook %s block; Claude Code still reads the one in %s:%d, and setup moves it into %s (a file of yours) and deletes %s", m.rel, b.Block.Name, other.rel, other.block(b.Block.Name).span.Line, m.rel, other.rel)})
			continue
		}
		out = append(out, d.blockFinding(m, b.Block.Name, purpose, d.setupFix(a.p.Name)))
	}
	return out
}}
