// Package fakesamemind is a stand-in for samemind's `samemind handoff`
// (docs/platforms.md, "Sources": samemind is not on the package registries
// reachable here). It prints a handoff of the documented shape, Markdown
// with its five sections (active tasks with their status and, when
// blocked, the reason; the last decisions, newest first; plans in force;
// the last session's done, decided and next; open questions), read from
// the knowledge base at $OKF_ROOT (default ~/samemind), and can misbehave
// in the ways a hook must survive. Tests install it as `samemind` on
// PATH: the test binary runs Main when started under that name.
//
// The knowledge base: $OKF_ROOT must be a folder (samemind fails
// without one). When it holds handoff.md, that file is the handoff
// (a test's own state); otherwise the stand-in prints its sample. The
// newest line of $OKF_ROOT/inbox/mcp.md, when there is one, is the last
// session's "Noted before the compaction" line, as samemind files inbox
// notes into the next handoff.
//
// Environment:
//
//	FAKE_SAMEMIND_MODE  ok (default), fail (exit 1, an error on stderr),
//	                    hang (never answer), big (8 MB of lines),
//	                    garbage (bytes that are not text), empty
//	FAKE_SAMEMIND_LOG   append one line per call: "dir=CWD args=ARGS root=ROOT"
package fakesamemind

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sample is the handoff the stand-in prints for a knowledge base without
// handoff.md.
const Sample = `# Handoff

## Active tasks
- [in-progress] ship-compaction-docs: Ship the compaction docs
- [blocked] auth-migration: Migrate auth to the new provider (blocked: waiting for the security review)

## Last decisions
- 2026-11-30: The hooks print plain text, never JSON.
- 2026-11-28: Releases are cut from main only.

## Plans in force
- release-1.2 (agreed): cut 1.2 once the docs land

## Last session
- Done: the payload spec
- Decided: keep the reminder under 2,000 tokens
- Next: the Claude Code example

## Open questions
- Should the reminder also run after /resume?
`

// Main runs the stand-in and returns its exit status.
func Main() int {
	args := os.Args[1:]
	root := os.Getenv("OKF_ROOT")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, "samemind")
	}
	wd, _ := os.Getwd()
	if log := os.Getenv("FAKE_SAMEMIND_LOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "dir=%s args=%s root=%s\n", wd, strings.Join(args, " "), root)
			f.Close()
		}
	}
	if len(args) == 0 || args[0] != "handoff" {
		fmt.Fprintln(os.Stderr, "samemind (stand-in): only `samemind handoff [--project NAME] [--days N]` is supported")
		return 2
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		fmt.Fprintf(os.Stderr, "samemind: no knowledge base at %s (set OKF_ROOT)\n", root)
		return 1
	}
	switch os.Getenv("FAKE_SAMEMIND_MODE") {
	case "fail":
		fmt.Fprintln(os.Stderr, "samemind: error: the index is corrupt")
		return 1
	case "hang":
		time.Sleep(time.Hour)
		return 0
	case "big":
		w := bufio.NewWriter(os.Stdout)
		for i := 0; i < 200000; i++ {
			fmt.Fprintf(w, "- [in-progress] task-%d: a task among very many, to fill the handoff\n", i)
		}
		w.Flush()
		return 0
	case "garbage":
		os.Stdout.Write([]byte{0xff, 0xfe, 0x00, 0x1b, '[', '2', 'J', 0x07, 0xc3})
		return 0
	case "empty":
		return 0
	}
	handoff := []byte(Sample)
	if b, err := os.ReadFile(filepath.Join(root, "handoff.md")); err == nil {
		handoff = b
	}
	if note := lastLine(filepath.Join(root, "inbox", "mcp.md")); note != "" {
		handoff = append(handoff, "\n## Noted before the compaction\n- "+note+"\n"...)
	}
	os.Stdout.Write(handoff)
	return 0
}

// lastLine is the last non-blank line of a file, "" without one.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return strings.TrimSpace(strings.TrimPrefix(string(lines[len(lines)-1]), "- "))
}
