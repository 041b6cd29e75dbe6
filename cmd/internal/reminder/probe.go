package reminder

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"
)

// SourceCheck is what nowhook doctor learns of one source of the
// reminder by running it now, as the hook would after a compaction.
type SourceCheck struct {
	Name string
	// Answered says the source gave its part; Detail says what it gave,
	// or why it gave nothing.
	Answered bool
	Detail   string
}

// CheckSources runs the sources of list (a --sources list) other than
// kanbus, whose query doctor checks itself, for a session started in dir,
// each within budget, and says what each answered. It leaves what the
// programs leave behind to the caller: the process never reaps orphans
// after it (the hook does; doctor runs other children at the same time). rules has nothing to
// read before a compaction: it is reported as read from the transcript.
func CheckSources(list, dir string, budget time.Duration) []SourceCheck {
	embedded.Store(true)
	set, _ := parseSources(list)
	var out []SourceCheck
	for _, n := range sourceNames {
		if !set.has(n.bit) || n.bit == srcKanbus {
			continue
		}
		c := SourceCheck{Name: n.name}
		var why bytes.Buffer
		log := logger{w: &why, on: true}
		start := time.Now()
		deadline := start.Add(budget)
		switch n.bit {
		case srcRules:
			c.Answered = true
			c.Detail = "read at each compaction from the client's own record of the session (nothing to read before one)"
		case srcGit:
			f, ok := readGitFacts(dir, deadline, defaultGitOptions, nil, log)
			if c.Answered = ok; ok {
				c.Detail = fmt.Sprintf("%s in %s", gitSummary(f), round(time.Since(start)))
			} else {
				c.Detail = lastReason(why.String(), "no git facts")
			}
		case srcSamemind:
			h := readHandoff(dir, deadline, nil, log)
			if c.Answered = h != nil; c.Answered {
				c.Detail = fmt.Sprintf("`samemind handoff` answered in %s with %d lines (knowledge base %s)",
					round(time.Since(start)), len(splitLines(strings.TrimSpace(string(h)))), samemindRoot(os.Getenv))
			} else {
				c.Detail = lastReason(why.String(), "`samemind handoff` gave nothing")
			}
		}
		out = append(out, c)
	}
	return out
}

// gitSummary is the git facts on one line, for doctor.
func gitSummary(f gitFacts) string {
	var b strings.Builder
	if f.branch != "" {
		fmt.Fprintf(&b, "branch %s", f.branch)
	} else {
		b.WriteString("detached HEAD")
	}
	if f.hash != "" {
		fmt.Fprintf(&b, ", HEAD %s", f.hash)
	}
	if f.counted {
		fmt.Fprintf(&b, ", %d changed files", f.changed)
	} else {
		b.WriteString(", changed files not counted (git status took longer than its bound)")
	}
	return b.String()
}

// lastReason is the last line the log gave, without its prefix, or def.
func lastReason(log, def string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimPrefix(lines[i], "nowhook reminder: "); l != "" && !strings.Contains(l, " stderr: ") {
			return l
		}
	}
	return def
}

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
