package reminder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSources is the compact hook's reminder, run as the wrappers run
// it (its own process, nowhook-reminder; kbs the fake), for a session in a git
// repository of 50,000 files whose transcript is 3 MB: kanbus alone
// (today's reminder), then with rules, git, and both. What a source adds
// is its time per run less kanbus's, measured in the same run.
func BenchmarkSources(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	repo := benchRepo(b, 50_000)
	transcript := sourcesTranscript(b, 3<<20)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	tools := b.TempDir()
	for _, role := range []string{"kbs", "nowhook-reminder"} {
		if err := os.Symlink(self, filepath.Join(tools, role)); err != nil {
			b.Fatal(err)
		}
	}
	payload, err := filepath.Abs(filepath.Join(fixtures, "basic.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	b.Setenv("FAKE_KBS_PAYLOAD", payload)
	pl, _ := json.Marshal(map[string]string{"session_id": "s1", "transcript_path": transcript, "cwd": repo,
		"hook_event_name": "SessionStart", "source": "compact"})
	for _, list := range []string{"kanbus", "kanbus,rules", "kanbus,git", "kanbus,rules,git"} {
		b.Run(strings.ReplaceAll(list, ",", "+"), func(b *testing.B) {
			var out []byte
			var cpu time.Duration
			for b.Loop() {
				// The hook as the wrapper runs it: its own process, which
				// ends with its work (and what it killed).
				cmd := exec.Command(filepath.Join(tools, "nowhook-reminder"), "--timeout", "5s", "--sources", list)
				cmd.Dir = repo
				cmd.Stdin = bytes.NewReader(pl)
				out, err = cmd.Output()
				if err != nil || len(out) == 0 {
					b.Fatalf("no reminder (%v)", err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(len(out)), "reminder-bytes")
			// The processor time of the hook and what it waited for: on
			// a loaded machine the wall time is mostly waiting for a core.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// benchRepo is a git repository of n committed files, a few of them
// changed since, holding .kanbus.yml.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	repo := b.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		dir := filepath.Join(repo, fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte("package p\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-qm", "Fifty thousand files")
	for i := 0; i < 5; i++ {
		if err := os.WriteFile(filepath.Join(repo, "pkg000", fmt.Sprintf("f%05d.go", i)), []byte("package q\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return repo
}

// sourcesTranscript is a Claude Code transcript of about size bytes: the
// task first, then turns of the user's messages, the assistant's replies
// and large tool results (with toolUseResult, as Claude Code 2.1.332
// records them), and a compaction near the end.
func sourcesTranscript(b *testing.B, size int) string {
	b.Helper()
	var buf bytes.Buffer
	line := func(v any) {
		j, _ := json.Marshal(v)
		buf.Write(j)
		buf.WriteByte('\n')
	}
	user := func(text string) {
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	}
	user("Fix the login bug in auth/login.go. CONSTRAINT-1: never touch the migrations folder.")
	tool := strings.Repeat("output of the tool, line after line\n", 200)
	for i := 0; buf.Len() < size; i++ {
		user(fmt.Sprintf("Message %d of the user's: look at the next file and keep to the constraints.", i))
		line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": "Reading it now."},
				map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", i), "name": "Read", "input": map[string]any{"file_path": "x.go"}}}}})
		line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("t%d", i), "content": tool}}},
			"toolUseResult": map[string]any{"stdout": tool}})
	}
	line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"})
	line(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "The summary."}})
	path := filepath.Join(b.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}
