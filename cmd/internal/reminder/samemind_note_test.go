package reminder

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParseSourcesNote: samemind=note is samemind with its note, printed
// in samemind's place; an option of another source, or another option of
// samemind's, is unknown.
func TestParseSourcesNote(t *testing.T) {
	for _, c := range []struct {
		in, want, bad string
		note          bool
	}{
		{"kanbus,samemind=note", "kanbus,samemind=note", "", true},
		{"samemind=note,rules", "rules,samemind=note", "", true},
		{"samemind,samemind=note", "samemind=note", "", true},
		{"kanbus,samemind", "kanbus,samemind", "", false},
		{"kanbus,rules=note", "kanbus", "rules=note", false},
		{"samemind=notes", "", "samemind=notes", false},
	} {
		set, bad := parseSources(c.in)
		if set.String() != c.want || strings.Join(bad, ",") != c.bad || set.has(srcNote) != c.note || NoteChosen(c.in) != c.note {
			t.Errorf("parseSources(%q) = %q, bad %q, note %v; want %q, bad %q, note %v", c.in, set, bad, set.has(srcNote), c.want, c.bad, c.note)
		}
		if c.note && !set.has(srcSamemind) {
			t.Errorf("parseSources(%q): the note without the handoff", c.in)
		}
	}
	if got, err := NormalSources("samemind=note,kanbus"); err != nil || got != "kanbus,samemind=note" {
		t.Errorf("NormalSources = %q, %v", got, err)
	}
	if _, err := NormalSources("kanbus,rules=note"); err == nil || !strings.Contains(err.Error(), "rules=note") || !strings.Contains(err.Error(), NoteOption) {
		t.Errorf("NormalSources(rules=note) error %v: want one naming it and %s", err, NoteOption)
	}
}

// TestSourcesNoteOption: the reminder after the compaction is the same
// with samemind=note as with samemind: the note is the pre-compaction
// hook's.
func TestSourcesNoteOption(t *testing.T) {
	w := newSourcesWorld(t, "ok")
	plain, _, _ := w.remindWith(t, "kanbus,samemind", 5*time.Second)
	noted, _, _ := w.remindWith(t, "kanbus,samemind=note", 5*time.Second)
	if plain == "" || plain != noted {
		t.Errorf("samemind=note changed the reminder:\n%s\nwant:\n%s", noted, plain)
	}
	if _, err := os.Stat(filepath.Join(w.root, "inbox")); err == nil {
		t.Errorf("the reminder wrote into the inbox: the note is the pre-compaction hook's")
	}
}

// noteRun runs --samemind-note in-process with payload and the
// environment of getenv; it returns what it printed and its log.
func noteRun(t *testing.T, payload string, getenv func(string) string, wd string) (out, log string) {
	t.Helper()
	var debug bytes.Buffer
	b := samemindNote(options{budget: 2 * time.Second, stdin: strings.NewReader(payload), getenv: getenv, wd: wd,
		log: logger{w: &debug, on: true}})
	return string(b), debug.String()
}

func preCompact(t *testing.T, cwd string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"session_id": "sess-42", "transcript_path": "t.jsonl", "cwd": cwd,
		"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
	return string(b)
}

// fixedNow sets the note's clock for the test.
func fixedNow(t *testing.T) {
	t.Helper()
	saved := noteNow
	noteNow = func() time.Time { return time.Date(2026, 12, 2, 4, 50, 12, 0, time.FixedZone("CET", 3600)) }
	t.Cleanup(func() { noteNow = saved })
}

// TestNoteAppended: the note is one dated line in $OKF_ROOT/inbox/mcp.md,
// with the session, the start folder and git's facts; the inbox and the
// file are made private when missing; a second note is appended after the
// first, and after the user's own lines, which stay byte for byte (a last
// line without a line feed gets one first).
func TestNoteAppended(t *testing.T) {
	fixedNow(t)
	repo := gitRepo(t)
	sub := filepath.Join(repo, "svc", "api")
	root := t.TempDir()
	getenv := env("OKF_ROOT", root, "HOME", t.TempDir())
	out, log := noteRun(t, preCompact(t, sub), getenv, repo)
	if out != "" {
		t.Errorf("printed %q, want nothing", out)
	}
	path := filepath.Join(root, "inbox", "mcp.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no note: %v\n%s", err, log)
	}
	want := regexp.MustCompile(`^- 2026-12-02T03:50:12Z pre-compact \(nowhook\): session sess-42, started in ` + regexp.QuoteMeta(sub) +
		`, is being compacted; branch main at [0-9a-f]{7,} "Fix the login bug"(, 2 changed files)?\.\n$`)
	if !want.Match(b) {
		t.Errorf("note:\n%q\nwant it to match %s", b, want)
	}
	for p, mode := range map[string]os.FileMode{filepath.Dir(path): 0o700 | os.ModeDir, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode(), err, mode)
		}
	}
	own := "# Inbox\n- my own line, no line feed"
	if err := os.WriteFile(path, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	noteRun(t, preCompact(t, repo), getenv, repo)
	noteRun(t, preCompact(t, repo), getenv, repo)
	b, _ = os.ReadFile(path)
	if !bytes.HasPrefix(b, []byte(own+"\n- 2026-12-02T03:50:12Z pre-compact")) {
		t.Errorf("the user's lines are not kept, or the note does not start a line:\n%s", b)
	}
	if n := bytes.Count(b, []byte("pre-compact (nowhook)")); n != 2 {
		t.Errorf("%d notes after two runs, want 2:\n%s", n, b)
	}
	if fi, _ := os.Stat(path); fi.Mode() != 0o644 {
		t.Errorf("the user's file's mode changed to %v", fi.Mode())
	}
}

// TestNoteSanitised: what the payload and git say is one clean line: no
// line feed, escape sequence or invisible character from a session id,
// and a long one is cut with a mark.
func TestNoteSanitised(t *testing.T) {
	at := time.Date(2026, 12, 2, 4, 50, 12, 0, time.UTC)
	line := noteLine(at, "s1\n- 2020-01-01 forged line\x1b[2J\u200b", "/repo", gitFacts{branch: "main\r\nx", hash: "abc1234",
		subject: strings.Repeat("long subject ", 40), counted: true, changed: 1}, true)
	s := string(line)
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, ".\n") {
		t.Errorf("not one line: %q", s)
	}
	for _, bad := range []string{"\x1b", "\u200b", "\r"} {
		if strings.Contains(s, bad) {
			t.Errorf("note holds %q: %q", bad, s)
		}
	}
	if !strings.Contains(s, "…\", 1 changed file.") || len(line) > maxNoteLine {
		t.Errorf("the subject is not cut with a mark, or the note is over %d bytes (%d): %q", maxNoteLine, len(line), s)
	}
	if got := string(noteLine(at, "", "", gitFacts{}, false)); got != "- 2026-12-02T04:50:12Z pre-compact (nowhook): session (no id), is being compacted.\n" {
		t.Errorf("note without facts: %q", got)
	}
}

// TestNoteRefused: no knowledge base, another client's payload, another
// event, or an inbox file that is not a regular one (a FIFO: never
// opened blocking) writes no note and prints nothing.
func TestNoteRefused(t *testing.T) {
	fixedNow(t)
	wd := t.TempDir()
	t.Run("no knowledge base", func(t *testing.T) {
		home := t.TempDir()
		out, log := noteRun(t, preCompact(t, wd), env("HOME", home), wd)
		if out != "" || !strings.Contains(log, "no knowledge base at "+filepath.Join(home, "samemind")) {
			t.Errorf("out %q, log:\n%s", out, log)
		}
		if _, err := os.Stat(filepath.Join(home, "samemind")); err == nil {
			t.Errorf("the note created a knowledge base")
		}
		out, log = noteRun(t, preCompact(t, wd), env("OKF_ROOT", filepath.Join(wd, "x"), "HOME", home), wd)
		if out != "" || !strings.Contains(log, "no knowledge base at "+filepath.Join(wd, "x")+" (set OKF_ROOT)") {
			t.Errorf("out %q, log:\n%s", out, log)
		}
	})
	for name, payload := range map[string]string{
		"cursor":       `{"cursor_version":"1.7","hook_event_name":"PreCompact"}`,
		"other event":  `{"hook_event_name":"SessionStart","source":"compact","session_id":"s"}`,
		"startup":      `{"hook_event_name":"SessionStart","source":"startup"}`,
		"not json":     `PreCompact`,
		"not a object": `["PreCompact"]`,
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			out, log := noteRun(t, payload, env("OKF_ROOT", root), wd)
			if _, err := os.Stat(filepath.Join(root, "inbox")); out != "" || err == nil {
				t.Errorf("out %q, inbox made (%v); log:\n%s", out, err == nil, log)
			}
		})
	}
	t.Run("fifo", func(t *testing.T) {
		root := t.TempDir()
		mkdir(t, filepath.Join(root, "inbox"))
		fifo := filepath.Join(root, "inbox", "mcp.md")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		out, log := noteRun(t, preCompact(t, wd), env("OKF_ROOT", root), wd)
		if out != "" || !strings.Contains(log, "is not a regular file: no note") {
			t.Errorf("out %q, log:\n%s", out, log)
		}
		if _, err := NoteTarget(env("OKF_ROOT", root)); err == nil {
			t.Errorf("NoteTarget: no error for a FIFO")
		}
	})
	t.Run("inbox a file", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, "inbox"), "not a folder\n")
		out, log := noteRun(t, preCompact(t, wd), env("OKF_ROOT", root), wd)
		if b, _ := os.ReadFile(filepath.Join(root, "inbox")); out != "" || string(b) != "not a folder\n" || !strings.Contains(log, "samemind note: ") {
			t.Errorf("out %q, inbox %q, log:\n%s", out, b, log)
		}
	})
}

// TestNoteTarget: where doctor says the note goes, and whether it could
// be written, without writing.
func TestNoteTarget(t *testing.T) {
	root := t.TempDir()
	path, err := NoteTarget(env("OKF_ROOT", root))
	if err != nil || path != filepath.Join(root, "inbox", "mcp.md") {
		t.Errorf("NoteTarget = %q, %v", path, err)
	}
	if _, err := os.Stat(filepath.Join(root, "inbox")); err == nil {
		t.Errorf("NoteTarget made the inbox")
	}
	if _, err := NoteTarget(env("OKF_ROOT", filepath.Join(root, "none"))); err == nil {
		t.Errorf("NoteTarget: no error without a knowledge base")
	}
}

// TestRunSamemindNote: Run's --samemind-note prints nothing, exits 0, and
// excludes the other modes.
func TestRunSamemindNote(t *testing.T) {
	cfg, _ := parseFlags([]string{"--samemind-note"}, logger{})
	if cfg.mode != modeSamemindNote || cfg.budget != DefaultHintBudget {
		t.Errorf("--samemind-note: mode %v, budget %v", cfg.mode, cfg.budget)
	}
	if cfg, _ := parseFlags([]string{"--samemind-note", "--hint"}, logger{}); cfg.mode != modeNone {
		t.Errorf("--samemind-note --hint: mode %v, want none", cfg.mode)
	}
	root := t.TempDir()
	t.Setenv("OKF_ROOT", root)
	t.Setenv("NOWHOOK_DEBUG", "")
	var out, errOut bytes.Buffer
	if code := Run([]string{"--samemind-note", "--timeout", "2s"}, strings.NewReader(preCompact(t, t.TempDir())), &out, &errOut); code != 0 || out.Len() != 0 || errOut.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if b, err := os.ReadFile(filepath.Join(root, "inbox", "mcp.md")); err != nil || !bytes.Contains(b, []byte("pre-compact (nowhook): session sess-42")) {
		t.Errorf("inbox: %q, %v", b, err)
	}
}
