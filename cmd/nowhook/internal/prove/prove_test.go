package prove

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	agentpkg "github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/diag"
	"github.com/nowhook/nowhook/cmd/nowhook/internal/engine"
)

// The test binary is also a fake Claude Code: started under the name
// claude, it reads the mode it plays from the file fake-mode beside it
// (and, on Linux, a client that tries addresses: dialRole).
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "claude":
		os.Exit(fakeClaude())
	case dialRole:
		os.Exit(dialMain())
	}
	os.Exit(m.Run())
}

// fakeClaude plays Claude Code in -p stream-json mode against
// ANTHROPIC_BASE_URL: a request per prompt, a summary request for
// /compact, and after it what its mode says of the compact hook:
//
//	ok       runs kbs, reports the reminder as the hook's output, sends it
//	nohook   runs no hook
//	silent   runs kbs, reports an empty output, sends nothing
//	dropped  runs kbs, reports the reminder, but sends nothing
//	failed   reports a hook that exited 127
//	refused  runs no hook; `claude doctor` lists an invalid settings file
func fakeClaude() int {
	mode, _ := os.ReadFile(filepath.Join(filepath.Dir(os.Args[0]), "fake-mode"))
	m := strings.TrimSpace(string(mode))
	switch {
	case len(os.Args) > 1 && os.Args[1] == "--version":
		fmt.Println("9.9.9 (Claude Code)")
		return 0
	case len(os.Args) > 1 && os.Args[1] == "doctor":
		if m == "refused" {
			fmt.Println("Invalid settings\n- .claude/settings.json: Invalid or malformed JSON")
		}
		return 0
	}
	url := os.Getenv("ANTHROPIC_BASE_URL") + "/v1/messages"
	post := func(text string) {
		b, _ := json.Marshal(map[string]any{"model": "fake", "messages": []any{map[string]any{"role": "user", "content": text}}})
		if resp, err := http.Post(url, "application/json", bytes.NewReader(b)); err == nil {
			resp.Body.Close()
		}
	}
	emit := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Println(string(b))
	}
	carry := ""
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var msg struct{ Message struct{ Content string } }
		json.Unmarshal(sc.Bytes(), &msg)
		if msg.Message.Content != "/compact" {
			post(msg.Message.Content + carry)
			emit(map[string]any{"type": "result", "subtype": "success"})
			continue
		}
		post("Your task is to create a detailed summary of the conversation so far.")
		hook := map[string]any{"type": "system", "subtype": "hook_response", "hook_event": "SessionStart", "hook_name": "SessionStart:compact", "exit_code": 0}
		switch m {
		case "ok", "dropped", "silent":
			out, _ := exec.Command("kbs", "now", "--json", "--list").Output()
			if m != "silent" && string(out) == Payload {
				hook["stdout"] = Reminder
			}
			if m == "ok" {
				carry = "\n" + Reminder
			}
			emit(hook)
		case "failed":
			hook["exit_code"], hook["stderr"] = 127, ".claude/hooks/kanbus-compaction-right-now.sh: not found"
			emit(hook)
		}
		emit(map[string]any{"type": "result", "subtype": "success"})
	}
	return 0
}

// setUpRepo is a repository set up for agents by nowhook's own engine.
func setUpRepo(t *testing.T, agents ...string) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir()) // the engine's record of what it created
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".kanbus.yml"), []byte("project_directory: project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var targets []engine.Target
	for _, name := range agents {
		a, _ := agentpkg.Lookup(name)
		targets = append(targets, engine.Target{Agent: a, Mode: agentpkg.Reinject})
	}
	pl, err := engine.Reconcile(engine.Request{Root: root, Targets: targets, Options: agentpkg.Options{Budget: agentpkg.DefaultBudget}})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Write(); err != nil {
		t.Fatal(err)
	}
	return root
}

// treeHash hashes every file under root: its path, mode and content.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestProveRows: each way the fake client treats the compact hook gets
// the row that names it, and the repository is left as it was.
func TestProveRows(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	root := setUpRepo(t, "claude")
	before := treeHash(t, root)
	for _, c := range []struct {
		mode, want string
		sev        diag.Severity
	}{
		{"ok", "Claude Code 9.9.9: the reminder reached the first request after /compact (", diag.OK},
		{"nohook", "Claude Code 9.9.9: no hook ran after /compact (the stand-in kbs was never called)", diag.Error},
		{"silent", "Claude Code 9.9.9: the hook ran and printed nothing (the stand-in kbs was called once)", diag.Error},
		{"dropped", "Claude Code 9.9.9: the output was dropped: the hook ran (the stand-in kbs was called once) but the first request after /compact lacks the reminder", diag.Error},
		{"failed", "Claude Code 9.9.9: the hook ran and failed: exit status 127: .claude/hooks/kanbus-compaction-right-now.sh: not found", diag.Error},
		{"refused", "Claude Code 9.9.9: the client refused the settings file: .claude/settings.json: Invalid or malformed JSON", diag.Error},
	} {
		t.Run(c.mode, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(bin, "fake-mode"), []byte(c.mode), 0o644); err != nil {
				t.Fatal(err)
			}
			fs := Run(context.Background(), Options{Root: root, Env: []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir()}})
			if len(fs) != 1 {
				t.Fatalf("want one row, got %v", fs)
			}
			f := fs[0]
			t.Logf("%s  %s  %s", f.Severity, f.Check, f.Message)
			if f.Check != "prove.claude" || f.Severity != c.sev || !strings.HasPrefix(f.Message, c.want) || !strings.Contains(f.Message, standIn) {
				t.Errorf("row = %s %s %q\nwant %s prove.claude %q...", f.Severity, f.Check, f.Message, c.sev, c.want)
			}
			if c.sev == diag.Error && f.Fix == "" {
				t.Errorf("an error row without a fix")
			}
			// setup refuses a settings file the client cannot parse.
			if refused := c.mode == "refused"; refused != strings.HasPrefix(f.Fix, "correct the settings file as claude.hooks-file says") {
				t.Errorf("fix %q for %s", f.Fix, c.mode)
			}
			if got := treeHash(t, root); got != before {
				t.Errorf("the repository changed")
			}
		})
	}
}

// TestProveSkipsMissingClient: an agent set up whose client is not on
// PATH gets an info row saying what to install; one not set up, none.
func TestProveSkipsMissingClient(t *testing.T) {
	root := setUpRepo(t, "claude")
	fs := Run(context.Background(), Options{Root: root, Env: []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}})
	if len(fs) != 1 || fs[0].Severity != diag.Info || !strings.Contains(fs[0].Message, "claude is not on PATH") {
		t.Fatalf("rows = %v", fs)
	}
}

// TestProvedAgents: the agent table's Doctor.Proved, which doctor's
// client row reads to send a newer client to --prove, marks exactly the
// agents prove has a driver for.
func TestProvedAgents(t *testing.T) {
	driven := map[string]bool{}
	for _, d := range drivers {
		driven[d.agent] = true
	}
	for _, a := range agentpkg.All {
		if a.Doctor.Proved != driven[a.Name] {
			t.Errorf("agent %s: Doctor.Proved is %v, but prove has a driver for it: %v", a.Name, a.Doctor.Proved, driven[a.Name])
		}
		delete(driven, a.Name)
	}
	for name := range driven {
		t.Errorf("prove drives %s, which is not in the agent table", name)
	}
}
