package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/reminder"
	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/codex"
)

// setup writes what `nowhook setup --yes --agents NAME [--checkpoint]`
// writes for the agent in its default mode, from the agent table.
func (r *repo) setup(name string, checkpoint bool) {
	r.t.Helper()
	p := mustPlatform(r.t, name)
	for _, art := range p.Owned() {
		if !p.Desired(p.Default, checkpoint, art) {
			continue
		}
		e, err := art.Apply(r.read(art.Path()), agentpkg.Options{Budget: time.Second})
		if err != nil {
			r.t.Fatal(err)
		}
		if len(e.Next) == 0 {
			continue // a block for a file that does not exist
		}
		mode := os.FileMode(0o644)
		if e.Exec {
			mode = 0o755
		}
		r.write(art.Path(), string(e.Next), mode)
	}
}

// TestEveryCheckpointHasAProbe: every agent whose table row has a
// checkpoint gets the checkpoint check, last, and its row brings a
// transcript doctor writes for the live runs.
func TestEveryCheckpointHasAProbe(t *testing.T) {
	for _, p := range agentpkg.All {
		cs := agentChecks(p)
		last := cs[len(cs)-1].Name() == "checkpoint"
		switch {
		case len(p.Checkpoint) == 0 && last:
			t.Errorf("agent %s has no checkpoint, but doctor checks one", p.Name)
		case len(p.Checkpoint) == 0:
		case !last:
			t.Errorf("agent %s has a checkpoint, but doctor's checks of it do not end with \"checkpoint\"", p.Name)
		case p.Doctor.Transcript == nil:
			t.Errorf("agent %s has a checkpoint, but its row has no Doctor.Transcript for the live runs", p.Name)
		}
	}
}

// TestProbeTranscripts: the runtime reads doctor's synthetic transcripts
// (or the use a probe puts in the payload) as doctor means them: the
// window doctor names, the checkpoint just above the threshold, nothing
// just below.
func TestProbeTranscripts(t *testing.T) {
	for _, p := range agentpkg.All {
		probe := p.Doctor.Transcript
		if probe == nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			dir := realTemp(t)
			if err := os.WriteFile(filepath.Join(dir, ".kanbus.yml"), []byte("project_key: kbs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fk, err := writeFake(filepath.Join(dir, "fake"), listingKbs)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("KBS", filepath.Join(fk.dir, "kbs"))
			t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
			t.Setenv("NOWHOOK_DEBUG", "1")
			t.Setenv("CLAUDE_PROJECT_DIR", "")
			for i, c := range []struct {
				pct  int64
				want bool
			}{{86, true}, {84, false}} {
				transcript := filepath.Join(dir, "t"+strconv.Itoa(i)+".jsonl")
				if err := os.WriteFile(transcript, probe.Write(probe.Window*c.pct/100), 0o600); err != nil {
					t.Fatal(err)
				}
				pl := map[string]any{"session_id": "s" + strconv.Itoa(i), "transcript_path": transcript,
					"cwd": dir, "hook_event_name": "UserPromptSubmit", "prompt": "x"}
				if probe.Use != nil { // the use rides in the payload (Qwen Code's Stop)
					pl["hook_event_name"] = "Stop"
					probe.Use(pl, probe.Window*c.pct/100)
				}
				payload, _ := json.Marshal(pl)
				var out, errb strings.Builder
				reminder.Run([]string{"--checkpoint", "--at", "85"}, strings.NewReader(string(payload)), &out, &errb)
				if got := namesIDs(out.String()); got != c.want {
					t.Errorf("at %d%%: printed %q (names the ids: %v, want %v)\nstderr: %s", c.pct, out.String(), got, c.want, errb.String())
				}
				want := " of " + strconv.FormatInt(probe.Window, 10) + " tokens (" + strconv.FormatInt(c.pct, 10) + "%"
				if !strings.Contains(errb.String(), want) {
					t.Errorf("at %d%%: the runtime did not say %q:\n%s", c.pct, want, errb.String())
				}
			}
		})
	}
}

// TestCheckpointLiveVerdicts: the live runs are no formality. Without
// nowhook on PATH the checkpoint says nothing above the threshold (a
// warning that names the cause and the fix); a runtime that prints plain
// text after a tool call, or prints below the threshold, is a warning; a
// hint that prints a decision is an error.
func TestCheckpointLiveVerdicts(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs(`echo '[]'`)
	r.setup("claude", true)

	fs := r.run()
	var live, hint Finding
	for _, f := range find(fs, "claude.checkpoint") {
		switch {
		case strings.HasPrefix(f.Message, "ran .claude/hooks/kanbus-checkpoint.sh "):
			live = f
		case strings.HasPrefix(f.Message, "ran .claude/hooks/kanbus-summary-hint.sh"):
			hint = f
		}
	}
	for _, f := range []Finding{live, hint} {
		if f.Severity != Warn || !strings.Contains(f.Message, "printed nothing: neither nowhook-reminder nor nowhook is on PATH") ||
			!strings.HasPrefix(f.Fix, "install the current nowhook") {
			t.Errorf("without nowhook: %s %s (fix %q)\n%s", f.Severity, f.Message, f.Fix, dump(fs))
		}
	}
	if !strings.Contains(live.Message, "PostToolUse at 42%, below 85%: exit 0 in ") || !strings.HasSuffix(live.Message, "printed nothing") {
		t.Errorf("below the threshold: %s", live.Message)
	}

	// A runtime that prints the ids whatever it is asked, as plain text,
	// and a decision for the hint.
	r.write(filepath.Join(r.bin, "nowhook-reminder"), `#!/bin/sh
case "$1" in
--hint) echo '{"decision": "block"}' ;;
*) echo "Kanbus checkpoint: nowhook-doctor-1 nowhook-doctor-2" ;;
esac
`, 0o755)
	fs = r.run()
	live, hint = Finding{}, Finding{}
	for _, f := range find(fs, "claude.checkpoint") {
		switch {
		case strings.HasPrefix(f.Message, "ran .claude/hooks/kanbus-checkpoint.sh "):
			live = f
		case strings.HasPrefix(f.Message, "ran .claude/hooks/kanbus-summary-hint.sh"):
			hint = f
		}
	}
	for _, want := range []string{
		"PostToolUse at 92%, above 85%: exit 0 in ",
		"not the additionalContext JSON that Claude Code passes on after a PostToolUse hook",
		"UserPromptSubmit at 92%, above 85%: exit 0 in ",
		"printed the checkpoint as plain text naming both ids",
		"PostToolUse at 42%, below 85%: exit 0 in ",
		"bytes although the context is below the threshold",
	} {
		if !strings.Contains(live.Message, want) {
			t.Errorf("live run lacks %q: %s", want, live.Message)
		}
	}
	if live.Severity != Warn || live.Fix != "nowhook setup --yes --agents claude --checkpoint --force" {
		t.Errorf("live: %s, fix %q", live.Severity, live.Fix)
	}
	if hint.Severity != Error || !strings.Contains(hint.Message, `printed a decision ("block"), which can block the compaction`) {
		t.Errorf("hint: %s %s", hint.Severity, hint.Message)
	}
}

// TestCheckpointStatic: setup's file checks report the checkpoint without
// running it, and find no error in what setup --checkpoint writes (our
// summary hint is no re-inject attempt).
func TestCheckpointStatic(t *testing.T) {
	r := newRepo(t)
	r.setup("claude", true)
	r.setup("codex", true)
	fs := Static(r.root, []string{"claude", "codex"}, r.env)
	for _, f := range fs {
		if f.Severity == Error {
			t.Errorf("Static finds an error in what setup writes: %s %s", f.Check, f.Message)
		}
		if strings.HasSuffix(f.Check, ".checkpoint") && strings.HasPrefix(f.Message, "ran ") {
			t.Errorf("Static ran the checkpoint: %s", f.Message)
		}
	}
	// The entries and the scripts: claude's hint has both, codex has none.
	for check, n := range map[string]int{"claude.checkpoint": 3, "codex.checkpoint": 2} {
		if got := find(fs, check); len(got) != n || worst(got) != OK {
			t.Errorf("Static's %s rows, want %d, all ok:\n%s", check, n, dump(got))
		}
	}
}

// TestCodexCheckpointTrustAppServer: with every hook of ours trusted
// through codex app-server (as setup --trust-codex does), the checkpoint's
// PostToolUse and UserPromptSubmit entries are trusted rows, from codex
// and from nowhook's own computation alike.
func TestCodexCheckpointTrustAppServer(t *testing.T) {
	bin := realCodex(t)
	r := newRepo(t)
	r.setup("codex", true)
	codexHome := filepath.Join(r.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	// The npm launcher needs node from the real PATH.
	env := append(append([]string(nil), r.env...), "PATH="+r.bin+":"+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hooksFile := filepath.Join(r.root, ".codex", "hooks.json")
	res, err := codex.Trust(ctx, codex.Options{Codex: bin, Env: env, Dir: r.root, ClientVersion: "doctor-test"},
		codex.TrustRequest{Root: r.root, Project: true, Select: func(h codex.Hook) bool { return h.SourcePath == hooksFile }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hooks) != 3 {
		t.Fatalf("trusted %d hooks, want 3: %+v", len(res.Hooks), res.Hooks)
	}
	for _, source := range []string{"reported by codex 0.171.0 app-server hooks/list", "computed by nowhook"} {
		e := append([]string(nil), env...)
		if strings.HasPrefix(source, "reported") {
			e = append(e, "CODEX_BIN="+bin)
		} else {
			e = append(e, "PATH="+r.bin+":/usr/bin:/bin")
		}
		fs := Run(context.Background(), Options{Root: r.root, Env: e, LiveLimit: 10 * time.Second, Live: true}).Findings
		got := find(fs, "codex.trust")
		var trusted []string
		for _, f := range got {
			if f.Severity != OK || !strings.Contains(f.Message, source) {
				t.Errorf("%s: %s %s", source, f.Severity, f.Message)
			}
			trusted = append(trusted, f.Message)
		}
		all := strings.Join(trusted, "\n")
		for _, event := range []string{"SessionStart", "PostToolUse", "UserPromptSubmit"} {
			if !strings.Contains(all, "(hooks."+event+"[0].hooks[0]) is trusted") {
				t.Errorf("%s: no trusted row for %s:\n%s", source, event, all)
			}
		}
	}
}

// TestCheckpointQuickGate: without --live doctor runs nowhook's own
// checkpoint script with the short probe budget (a nowhook-reminder on
// PATH records what each run was given) and does not run one changed by
// hand: an info row says so, with doctor --live as its fix; doctor --live
// runs it, with no probe budget.
func TestCheckpointQuickGate(t *testing.T) {
	r := newRepo(t)
	r.write(".kanbus.yml", "project_key: kbs\n", 0o644)
	r.kbs(`echo '[]'`)
	r.setup("claude", true)
	record := filepath.Join(realTemp(t), "probe")
	r.write(filepath.Join(r.bin, "nowhook-reminder"), "#!/bin/sh\nprintf '%s:%s\\n' \"$1\" \"${"+reminder.ProbeBudgetEnv+"-unset}\" >>"+record+"\nexit 0\n", 0o755)
	runs := func() string {
		t.Helper()
		b, _ := os.ReadFile(record)
		os.Remove(record)
		var got []string // the checkpoint's and the hint's, not the compact hook's
		for _, f := range strings.Fields(string(b)) {
			if strings.HasPrefix(f, "--checkpoint:") || strings.HasPrefix(f, "--hint:") {
				got = append(got, f)
			}
		}
		sort.Strings(got)
		return strings.Join(got, " ")
	}

	r.run()
	if got, want := runs(), "--checkpoint:0.5 --checkpoint:0.5 --checkpoint:0.5 --hint:0.5"; got != want {
		t.Errorf("the quick runs were given %q, want %q", got, want)
	}

	script := strings.Replace(string(r.read(agentpkg.ClaudeCheckpointScript)), "\nexit 0\n", "\necho hand-made\nexit 0\n", 1)
	r.write(agentpkg.ClaudeCheckpointScript, script, 0o755)
	fs := r.run()
	if got := runs(); got != "--hint:0.5" {
		t.Errorf("without --live, with the checkpoint script changed by hand, the runs were %q, want only the hint's", got)
	}
	var row *Finding
	for i, f := range find(fs, "claude.checkpoint") {
		if strings.HasPrefix(f.Message, "ran "+agentpkg.ClaudeCheckpointScript) {
			t.Errorf("ran the hand-changed script without --live: %s", f.Message)
		}
		if strings.HasPrefix(f.Message, "not run: "+agentpkg.ClaudeCheckpointScript) {
			row = &find(fs, "claude.checkpoint")[i]
		}
	}
	switch {
	case row == nil:
		t.Fatalf("no not-run row for %s:\n%s", agentpkg.ClaudeCheckpointScript, dump(fs))
	case row.Severity != Info || !strings.Contains(row.Message, "nowhook doctor --live runs it") || row.Fix != "nowhook doctor --live":
		t.Errorf("not-run row: %s %s (fix %q)", row.Severity, row.Message, row.Fix)
	}

	r.runLive()
	if got, want := runs(), "--checkpoint:unset --checkpoint:unset --checkpoint:unset --hint:unset"; got != want {
		t.Errorf("the --live runs were %q, want %q", got, want)
	}
}
