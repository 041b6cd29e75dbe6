package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// qwenUserSettings is a project settings file of the user's, as Qwen Code
// reads it (comments are fine) and before Qwen ever ran here (no
// "$version" yet, so Qwen rewrites it on start).
const qwenUserSettings = `{
  // the team's Qwen settings
  "general": {"preferredEditor": "vim"},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "true", "timeout": 5}]}
    ]
  }
}
`

// TestQwenManualCompressReinjects: hello, /compress, follow-up in one
// session, in a repository whose settings file Qwen rewrites on start; the
// first request after the compression request carries the reminder, no
// earlier one does, and kbs ran once.
func TestQwenManualCompressReinjects(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	m := newQwenMock(t, false, "")
	qwenHome(t, s)
	env := qwenEnv(s, m)
	clientVersion(t, ctx, env, bin)
	writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), qwenUserSettings, 0o644)
	setupQwen(t, ctx, s, s.repo)

	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "/compress", "What was I working on?"}, nil)
	reqs := m.Recorded()
	checkQwenRequests(t, reqs)
	reminder := expectedReminder(t)
	idx := qwenSummaryIndex(t, reqs)
	checkNotBefore(t, reqs, idx, reminder)
	if !bodyContains(t, reqs[idx+1].Body, reminder) {
		t.Errorf("the first request after the compression request (request %d of %d) lacks the reminder\nwant:\n%s\nbody:\n%.4000s",
			idx+1, len(reqs), reminder, reqs[idx+1].Body)
	}
	if first, raw := s.kbsRuns(t); first != 1 || raw != 0 {
		t.Errorf("kbs ran %d times (+%d --raw retries), want once for the one compaction", first, raw)
	}
	settings, err := os.ReadFile(filepath.Join(s.repo, ".qwen", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(settings, []byte(`"$version": 4`)) {
		t.Errorf("Qwen did not rewrite the settings file as measured (no \"$version\": 4), so this run proves nothing about the rewrite:\n%s", settings)
	}
}

// TestQwenAutoCompressReinjectsOneRequestLate: the mock reports a nearly
// full context, so Qwen compresses on its own before the next request and
// starts the compact hook without waiting for it. The fake kbs answers only
// once the mock has the request that follows the compression, so that
// request cannot carry the reminder; the next request (the next prompt's)
// does, and kbs ran once. No hook event of Qwen 0.24.4 can reach the
// first request after an automatic compression (docs/platforms.md).
func TestQwenAutoCompressReinjectsOneRequestLate(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	gate := filepath.Join(s.root, "gate")
	qwenKbs(t, s, kbsFixture, gate)
	m := newQwenMock(t, true, gate)
	qwenHome(t, s)
	env := qwenEnv(s, m)
	clientVersion(t, ctx, env, bin)
	setupQwen(t, ctx, s, s.repo)

	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "What was I working on?", "And what next?"},
		func(i int) {
			if i == 2 { // after the turn that compressed
				waitHooks(t, ctx, s, 1)
			}
		})
	reqs := m.Recorded()
	checkQwenRequests(t, reqs)
	reminder := expectedReminder(t)
	idx := qwenSummaryIndex(t, reqs)
	if idx != 1 || len(reqs) != 4 {
		t.Fatalf("want hello, the compression request, then one request per prompt (4 in all); got the compression at %d of %d", idx, len(reqs))
	}
	checkNotBefore(t, reqs, idx+1, reminder)
	if !bodyContains(t, reqs[idx+2].Body, reminder) {
		t.Errorf("the request of the next prompt (request %d) lacks the reminder\nwant:\n%s\nbody:\n%.4000s", idx+2, reminder, reqs[idx+2].Body)
	}
	if first, raw := s.kbsRuns(t); first != 1 || raw != 0 {
		t.Errorf("kbs ran %d times (+%d --raw retries), want once for the one compaction", first, raw)
	}
}

// TestQwenFailingKbsInjectsNothing is the negative control: with kbs
// failing, the compact hook still runs (kbs is called, then retried with
// --raw), every turn completes, and no request carries any line of a
// reminder.
func TestQwenFailingKbsInjectsNothing(t *testing.T) {
	t.Parallel()
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFailing)
	qwenKbs(t, s, kbsFailing, "")
	m := newQwenMock(t, false, "")
	qwenHome(t, s)
	env := qwenEnv(s, m)
	clientVersion(t, ctx, env, bin)
	setupQwen(t, ctx, s, s.repo)

	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "/compress", "What was I working on?"}, nil)
	reqs := m.Recorded()
	checkQwenRequests(t, reqs)
	qwenSummaryIndex(t, reqs) // it did compress, and asked the model again after
	checkNoReminder(t, reqs, expectedReminder(t))
	first, raw := s.kbsRuns(t)
	if first == 0 {
		t.Errorf("the failing kbs never ran: the control proves nothing")
	}
	if first != 1 {
		t.Errorf("kbs ran %d times (+%d --raw retries), want once for the one compaction", first, raw)
	}
}

// TestQwenUntrustedFolderSkipsHook: with Qwen's folder trust on and no
// rule trusting the repository, Qwen ignores .qwen/settings.json without a
// word (the session runs, the compact hook never does), and doctor's
// qwen.folder-trust says so. The other tests trust the folder: this is
// their control that trust is what lets the hook run.
func TestQwenUntrustedFolderSkipsHook(t *testing.T) {
	// Not in parallel (sequential tests run alone): doctor's live rows give
	// the hook a 500 ms probe budget and 1 s of slack, which a test beside
	// it on a loaded machine makes tighter.
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	qwenKbs(t, s, kbsFixture, "")
	m := newQwenMock(t, false, "")
	qwenHome(t, s)
	if err := os.Remove(filepath.Join(s.home, ".qwen", "trustedFolders.json")); err != nil {
		t.Fatal(err)
	}
	env := qwenEnv(s, m)
	clientVersion(t, ctx, env, bin)
	setupQwen(t, ctx, s, s.repo)

	runQwenSession(t, ctx, bin, env, s.repo, []string{"hello", "/compress", "What was I working on?"}, nil)
	reqs := m.Recorded()
	checkQwenRequests(t, reqs)
	qwenSummaryIndex(t, reqs)
	checkNoReminder(t, reqs, expectedReminder(t))
	if first, raw := s.kbsRuns(t); first+raw != 0 {
		t.Errorf("kbs ran %d times in an untrusted folder: Qwen ran the project's hook after all", first+raw)
	}
	res := runCmd(t, ctx, s.env(nil), s.repo, "", filepath.Join(s.bin, "nowhook"), "doctor", "--json")
	var findings []struct{ Check, Severity, Message string }
	if err := json.Unmarshal([]byte(res.stdout), &findings); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, res.stdout, res.stderr)
	}
	warned := false
	for _, f := range findings {
		if f.Check == "qwen.folder-trust" {
			t.Logf("doctor: %s %s %s", f.Severity, f.Check, f.Message)
			warned = f.Severity == "warn"
		}
	}
	if !warned {
		t.Errorf("doctor did not warn that Qwen ignores the project's settings in this untrusted folder")
	}
}

// TestQwenSettingsRewrite: Qwen Code rewrites .qwen/settings.json when it
// starts (it adds "$version": 4). Our group survives that rewrite, setup
// afterwards changes nothing, doctor finds nothing wrong, and remove takes
// our group out and leaves exactly what Qwen makes of the user's file
// without nowhook. A file setup creates already has "$version": 4: Qwen
// leaves it alone, and remove deletes it.
func TestQwenSettingsRewrite(t *testing.T) {
	// Not in parallel (sequential tests run alone): doctor's live rows give
	// the hook a 500 ms probe budget and 1 s of slack, which a test beside
	// it on a loaded machine makes tighter.
	bin := findClient(t, "QWEN_BIN", "qwen")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s := newSandbox(t, kbsFixture)
	m := newQwenMock(t, false, "")
	qwenHome(t, s)
	env := qwenEnv(s, m)
	clientVersion(t, ctx, env, bin)
	nowhook := filepath.Join(s.bin, "nowhook")
	settingsOf := func(dir string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, ".qwen", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hello := func(dir string) {
		t.Helper()
		runQwenSession(t, ctx, bin, env, dir, []string{"hello"}, nil)
	}

	// What Qwen makes of the user's file on its own, in a copy of the repo
	// it trusts too.
	plain := filepath.Join(s.root, "plain")
	writeFile(t, filepath.Join(plain, ".qwen", "settings.json"), qwenUserSettings, 0o644)
	trustAlso(t, s, plain)
	hello(plain)
	qwenOnly := settingsOf(plain)
	if bytes.Equal(qwenOnly, []byte(qwenUserSettings)) {
		t.Fatalf("Qwen did not rewrite the settings file, so this test proves nothing:\n%s", qwenOnly)
	}
	t.Logf("Qwen's own rewrite of the user's file:\n%s", qwenOnly)

	writeFile(t, filepath.Join(s.repo, ".qwen", "settings.json"), qwenUserSettings, 0o644)
	setupQwen(t, ctx, s, s.repo)
	hello(s.repo)
	rewritten := settingsOf(s.repo)
	if !bytes.Contains(rewritten, []byte(`"$version": 4`)) || !bytes.Contains(rewritten, []byte(`.qwen/hooks/kanbus-compaction-right-now.sh`)) {
		t.Fatalf("after Qwen's rewrite the file lacks Qwen's key or our hook:\n%s", rewritten)
	}

	res := runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, "setup", "--yes", "--agents", "qwen")
	if res.err != nil || !strings.Contains(res.stdout, ".qwen/settings.json (unchanged)") {
		t.Fatalf("setup after Qwen's rewrite: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	if got := settingsOf(s.repo); !bytes.Equal(got, rewritten) {
		t.Fatalf("setup changed the file Qwen rewrote:\n%s\nwas:\n%s", got, rewritten)
	}
	t.Logf("setup after Qwen's rewrite: %s", strings.TrimSpace(res.stdout))

	res = runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, "doctor", "--json")
	var findings []struct{ Check, Severity, Message string }
	if err := json.Unmarshal([]byte(res.stdout), &findings); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, res.stdout, res.stderr)
	}
	for _, f := range findings {
		if strings.HasPrefix(f.Check, "qwen.") || f.Check == "live.qwen" {
			t.Logf("doctor: %s %s %s", f.Severity, f.Check, f.Message)
			if f.Severity == "warn" || f.Severity == "error" {
				t.Errorf("doctor after Qwen's rewrite: %s %s: %s", f.Severity, f.Check, f.Message)
			}
		}
	}

	res = runCmd(t, ctx, s.env(nil), s.repo, "", nowhook, "remove", "--yes", "--agents", "qwen")
	if res.err != nil {
		t.Fatalf("nowhook remove: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	if got := settingsOf(s.repo); !bytes.Equal(got, qwenOnly) {
		t.Errorf("after remove the file is not what Qwen makes of the user's file:\n%s\nwant:\n%s", got, qwenOnly)
	}

	// A file setup creates.
	fresh := filepath.Join(s.root, "fresh")
	writeFile(t, filepath.Join(fresh, ".kanbus.yml"), "project_directory: project\nproject_key: kbs\n", 0o644)
	if res := runCmd(t, ctx, s.env(nil), fresh, "", "git", "init", "-q"); res.err != nil {
		t.Fatalf("git init: %v\n%s", res.err, res.stderr)
	}
	if err := os.MkdirAll(filepath.Join(fresh, ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	trustAlso(t, s, fresh)
	setupQwen(t, ctx, s, fresh)
	created := settingsOf(fresh)
	hello(fresh)
	if got := settingsOf(fresh); !bytes.Equal(got, created) {
		t.Errorf("Qwen rewrote the settings file setup created:\n%s\nwas:\n%s", got, created)
	}
	res = runCmd(t, ctx, s.env(nil), fresh, "", nowhook, "remove", "--yes", "--agents", "qwen")
	if res.err != nil {
		t.Fatalf("nowhook remove: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(fresh, ".qwen", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("remove left the settings file setup created: %v", err)
	}
}

// trustAlso adds dir to the folders the throwaway HOME's Qwen trusts.
func trustAlso(t *testing.T, s *sandbox, dir string) {
	t.Helper()
	path := filepath.Join(s.home, ".qwen", "trustedFolders.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	trusted := map[string]string{}
	if err := json.Unmarshal(b, &trusted); err != nil {
		t.Fatal(err)
	}
	trusted[dir] = "TRUST_FOLDER"
	if b, err = json.Marshal(trusted); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b)+"\n", 0o644)
}
