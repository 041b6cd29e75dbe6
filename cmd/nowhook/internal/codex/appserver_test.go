package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// fakeRepo is a repository with our compact hook, a foreign project hook, a
// trusted user hook, and a managed hook whose command looks like ours.
func fakeRepo(t *testing.T) (fakeState, fakeHook) {
	root := tempRoot(t)
	hooksFile := filepath.Join(root, ".codex", "hooks.json")
	ours := fakeHook{Key: hooksFile + ":session_start:1:0", Command: ourCommand, SourcePath: hooksFile, Source: "project", HandlerType: "command", CurrentHash: "sha256:0001"}
	return fakeState{
		Root: root,
		Hooks: []fakeHook{
			{Key: hooksFile + ":session_start:0:0", Command: "echo foreign", SourcePath: hooksFile, Source: "project", HandlerType: "command", CurrentHash: "sha256:00f0"},
			ours,
			{Key: "/home/u/.codex/hooks.json:stop:0:0", Command: "user hook", SourcePath: "/home/u/.codex/hooks.json", Source: "user", HandlerType: "command", CurrentHash: "sha256:0u"},
			{Key: "/etc/codex/managed:session_start:0:0", Command: ourCommand, SourcePath: "/etc/codex/managed", Source: "mdm", HandlerType: "command", IsManaged: true, CurrentHash: "sha256:0m"},
		},
		Trusted: map[string]string{"/home/u/.codex/hooks.json:stop:0:0": "sha256:0u"},
	}, ours
}

func selectOurs(h Hook) bool { return h.Command == ourCommand }

func TestTrustRecordsOnlyTheSelectedHookAndTheProject(t *testing.T) {
	st, ours := fakeRepo(t)
	opts, statePath := fake(t, "", st)
	var pgid int
	opts.started = func(c *Conn) { pgid = c.pgid }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	res, err := Trust(ctx, opts, TrustRequest{Root: st.Root, Project: true, Select: selectOurs})
	if err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pgid)
	after := readState(t, statePath)
	if len(after.Writes) != 2 {
		t.Fatalf("%d writes, want 2 (project, then hook): %+v", len(after.Writes), after.Writes)
	}
	w0, w1 := after.Writes[0], after.Writes[1]
	if len(w0.Edits) != 1 || w0.Edits[0].KeyPath != ProjectTrustKeyPath(st.Root) || w0.Edits[0].Value != "trusted" {
		t.Errorf("first write: %+v, want the project trust only", w0.Edits)
	}
	if w0.ExpectedVersion == nil || *w0.ExpectedVersion != "v0" || w1.ExpectedVersion == nil || *w1.ExpectedVersion != "v1" {
		t.Errorf("writes do not guard against concurrent edits: expected versions %v, %v", w0.ExpectedVersion, w1.ExpectedVersion)
	}
	if len(w1.Edits) != 1 || w1.Edits[0].KeyPath != HookTrustKeyPath(ours.Key) || w1.Edits[0].Value != ours.CurrentHash || w1.Edits[0].MergeStrategy != "upsert" {
		t.Errorf("second write: %+v, want our hook's trusted_hash only", w1.Edits)
	}
	wantTrusted := map[string]string{ours.Key: ours.CurrentHash, "/home/u/.codex/hooks.json:stop:0:0": "sha256:0u"}
	if len(after.Trusted) != len(wantTrusted) {
		t.Errorf("trusted after: %v, want %v", after.Trusted, wantTrusted)
	}
	for k, v := range wantTrusted {
		if after.Trusted[k] != v {
			t.Errorf("trusted[%s] = %q, want %q", k, after.Trusted[k], v)
		}
	}
	if !res.ProjectTrusted || len(res.Recorded) != 1 || res.Recorded[0] != ours.Key || len(res.Hooks) != 1 || res.Hooks[0].TrustStatus != StatusTrusted {
		t.Errorf("result: %+v", res)
	}
	if want := filepath.Join(osutil.Getenv(opts.Env, "CODEX_HOME"), "config.toml"); res.ConfigFile != want {
		t.Errorf("ConfigFile %q, want %q", res.ConfigFile, want)
	}

	// Again: nothing to write.
	res, err = Trust(ctx, opts, TrustRequest{Root: st.Root, Project: true, Select: selectOurs})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readState(t, statePath).Writes); n != 2 || res.ConfigFile != "" || len(res.Recorded) != 0 {
		t.Errorf("second Trust wrote: %d writes in all, result %+v", n, res)
	}
}

func TestTrustRewritesAModifiedHook(t *testing.T) {
	st, ours := fakeRepo(t)
	st.ProjectTrusted = true
	st.Trusted[ours.Key] = "sha256:old"
	opts, statePath := fake(t, "", st)
	res, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: selectOurs})
	if err != nil {
		t.Fatal(err)
	}
	after := readState(t, statePath)
	if res.ProjectTrusted || len(after.Writes) != 1 || after.Trusted[ours.Key] != ours.CurrentHash {
		t.Errorf("writes %+v, trusted %v; want one write of the new hash", after.Writes, after.Trusted)
	}
}

func TestTrustNeedsProjectTrust(t *testing.T) {
	st, _ := fakeRepo(t)
	opts, statePath := fake(t, "", st)
	_, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: selectOurs})
	if err == nil || !strings.Contains(err.Error(), "not trusted") || !strings.Contains(err.Error(), "add "+st.Root+" as a trusted project") {
		t.Fatalf("err = %v, want codex's reason", err)
	}
	if w := readState(t, statePath).Writes; len(w) != 0 {
		t.Errorf("wrote %+v", w)
	}
}

func TestTrustNothingSelected(t *testing.T) {
	st, _ := fakeRepo(t)
	st.ProjectTrusted = true
	st.Warnings = []string{"failed to parse hooks config " + st.Root + "/.codex/hooks.json: unknown field `$schema`"}
	opts, statePath := fake(t, "", st)
	_, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: func(h Hook) bool { return h.Command == "not there" }})
	if err == nil || !strings.Contains(err.Error(), "no matching hook") || !strings.Contains(err.Error(), "unknown field `$schema`") {
		t.Fatalf("err = %v, want no matching hook with codex's warning", err)
	}
	if w := readState(t, statePath).Writes; len(w) != 0 {
		t.Errorf("wrote %+v", w)
	}
	if _, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root}); err == nil {
		t.Error("Trust without a selector succeeded")
	}
}

func TestTrustWithHooksTurnedOff(t *testing.T) {
	st, _ := fakeRepo(t)
	st.ProjectTrusted = true
	st.HooksOff = true
	opts, statePath := fake(t, "", st)
	l, err := List(context.Background(), opts, st.Root)
	if err != nil {
		t.Fatal(err)
	}
	if !l.HooksDisabled || len(l.Hooks) != 0 {
		t.Errorf("HooksDisabled %v with %d hooks, want true and none", l.HooksDisabled, len(l.Hooks))
	}
	_, err = Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: selectOurs})
	if err == nil || !strings.Contains(err.Error(), "hooks are turned off by [features]") {
		t.Fatalf("err = %v, want the features hint", err)
	}
	if w := readState(t, statePath).Writes; len(w) != 0 {
		t.Errorf("wrote %+v", w)
	}
}

func TestTrustNeverOffersManagedHooks(t *testing.T) {
	st, _ := fakeRepo(t)
	st.ProjectTrusted = true
	opts, statePath := fake(t, "", st)
	var offered []string
	_, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: func(h Hook) bool {
		offered = append(offered, h.Key)
		return h.Source == "mdm"
	}})
	if err == nil {
		t.Fatal("selecting only a managed hook succeeded")
	}
	for _, k := range offered {
		if strings.HasPrefix(k, "/etc/codex/managed") {
			t.Errorf("managed hook offered to the selector: %s", k)
		}
	}
	if w := readState(t, statePath).Writes; len(w) != 0 {
		t.Errorf("wrote %+v", w)
	}
}

func TestTrustVerifiesCodexsAnswer(t *testing.T) {
	for mode, want := range map[string]string{
		"lie":           "untrusted after recording its trust",
		"touch-foreign": "trust of another hook changed",
	} {
		t.Run(mode, func(t *testing.T) {
			st, _ := fakeRepo(t)
			st.ProjectTrusted = true
			opts, _ := fake(t, mode, st)
			_, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: selectOurs})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

func TestTrustWriteError(t *testing.T) {
	st, _ := fakeRepo(t)
	st.ProjectTrusted = true
	opts, _ := fake(t, "write-error", st)
	_, err := Trust(context.Background(), opts, TrustRequest{Root: st.Root, Select: selectOurs})
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Method != "config/batchWrite" || !strings.Contains(err.Error(), "modified since last read") || !strings.Contains(err.Error(), "configVersionConflict") {
		t.Fatalf("err = %v, want the app-server's error for config/batchWrite", err)
	}
}

func TestListReportsHooksAndProjectLayer(t *testing.T) {
	st, ours := fakeRepo(t)
	opts, _ := fake(t, "noise", st)
	var pgid int
	opts.started = func(c *Conn) { pgid = c.pgid }
	l, err := List(context.Background(), opts, st.Root)
	if err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pgid)
	layer, ok := l.ProjectLayer(filepath.Join(st.Root, ".codex"))
	if !ok || layer.Trusted() || !strings.Contains(layer.DisabledReason, st.Root) {
		t.Errorf("project layer %+v (found %v), want untrusted with codex's reason", layer, ok)
	}
	if l.HooksDisabled {
		t.Error("HooksDisabled without [features] hooks = false")
	}
	if l.UserConfigVersion != "v0" || l.UserConfig != filepath.Join(osutil.Getenv(opts.Env, "CODEX_HOME"), "config.toml") || l.CodexHome != osutil.Getenv(opts.Env, "CODEX_HOME") {
		t.Errorf("listing: %+v", l)
	}
	if _, found := l.Hook(ours.Key); found {
		t.Error("project hook listed while the project is untrusted")
	}
	if h, found := l.Hook("/home/u/.codex/hooks.json:stop:0:0"); !found || h.TrustStatus != StatusTrusted || h.Source != "user" || h.TimeoutSec.String() != "10" {
		t.Errorf("user hook: %+v (found %v)", h, found)
	}
	if h, found := l.Hook("/etc/codex/managed:session_start:0:0"); !found || h.TrustStatus != StatusManaged || !h.IsManaged {
		t.Errorf("managed hook: %+v (found %v)", h, found)
	}
}

func TestServerRequestsAreAnswered(t *testing.T) {
	st, _ := fakeRepo(t)
	opts, statePath := fake(t, "noise", st)
	if _, err := List(context.Background(), opts, st.Root); err != nil {
		t.Fatal(err)
	}
	replies := readState(t, statePath).Replies
	if len(replies) == 0 {
		t.Fatal("the client never answered the server's requests")
	}
	for _, r := range replies {
		if !strings.Contains(r, `"error"`) || !strings.Contains(r, `"id":"srv-`) {
			t.Errorf("reply %s: want an error answer with the server's id", r)
		}
	}
}

func TestAppServerFailures(t *testing.T) {
	st, _ := fakeRepo(t)
	t.Run("exits at start", func(t *testing.T) {
		opts, _ := fake(t, "exit", st)
		_, err := List(context.Background(), opts, st.Root)
		if err == nil || !strings.Contains(err.Error(), "Error: the fake codex refuses to start") || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "initialize") {
			t.Fatalf("err = %v, want the exit status and codex's own error line", err)
		}
	})
	t.Run("answers garbage", func(t *testing.T) {
		opts, _ := fake(t, "garbage", st)
		_, err := List(context.Background(), opts, st.Root)
		if err == nil || !strings.Contains(err.Error(), "not a JSON-RPC message") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		opts, statePath := fake(t, "hang", st)
		var pgid int
		opts.started = func(c *Conn) { pgid = c.pgid }
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { _, err := List(ctx, opts, st.Root); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "hooks/list") {
				t.Fatalf("err = %v, want a deadline error naming hooks/list", err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("List did not return after its deadline")
		}
		assertGroupGone(t, pgid)
		child := readState(t, statePath).ChildPID
		if child == 0 {
			t.Fatal("the fake did not start its child")
		}
		if err := syscall.Kill(child, 0); err != syscall.ESRCH {
			t.Errorf("the app-server's child %d survived (kill -0: %v)", child, err)
		}
	})
	t.Run("missing binary", func(t *testing.T) {
		_, err := List(context.Background(), Options{Codex: filepath.Join(t.TempDir(), "codex")}, st.Root)
		if !errors.Is(err, ErrCodexNotFound) {
			t.Fatalf("err = %v, want ErrCodexNotFound", err)
		}
	})
	t.Run("missing root", func(t *testing.T) {
		opts, _ := fake(t, "", st)
		_, err := List(context.Background(), opts, filepath.Join(st.Root, "nope"))
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	writeFile(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "codex")
	writeFile(t, plain, "not executable")

	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"PATH", []string{"PATH=/nonexistent:" + dir}, bin},
		{"CODEX_BIN first", []string{"PATH=/nonexistent", "CODEX_BIN=" + bin}, bin},
		{"last PATH wins", []string{"PATH=/nonexistent", "PATH=" + dir}, bin},
	} {
		got, err := Find(tc.env, "codex")
		if err != nil || got != tc.want {
			t.Errorf("%s: Find = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, env := range [][]string{
		{"PATH=/nonexistent:" + filepath.Dir(plain)},
		{"PATH=" + dir, "CODEX_BIN=" + plain},
		{},
	} {
		if got, err := Find(env, "codex"); !errors.Is(err, ErrCodexNotFound) {
			t.Errorf("Find(%v, \"codex\") = %q, %v; want ErrCodexNotFound", env, got, err)
		}
	}
	// The name comes from the caller (the agent table), and so does the
	// variable that overrides it.
	other := filepath.Join(dir, "codex-next")
	writeFile(t, other, "#!/bin/sh\n")
	if err := os.Chmod(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Find([]string{"PATH=" + dir}, "codex-next"); err != nil || got != other {
		t.Errorf("Find codex-next on PATH = %q, %v; want %q", got, err, other)
	}
	if got, err := Find([]string{"PATH=/nonexistent", "CODEX_NEXT_BIN=" + other, "CODEX_BIN=" + plain}, "codex-next"); err != nil || got != other {
		t.Errorf("Find codex-next with CODEX_NEXT_BIN = %q, %v; want %q", got, err, other)
	}
	if _, err := Find([]string{"PATH=/nonexistent"}, "codex"); err == nil || !strings.Contains(err.Error(), "set CODEX_BIN") {
		t.Errorf("Find without codex: %v, want the hint to set CODEX_BIN", err)
	}
	// Start is given the executable: it never looks for one itself.
	if _, err := Start(context.Background(), Options{Env: []string{"PATH=" + dir}}); !errors.Is(err, ErrCodexNotFound) {
		t.Errorf("Start without Options.Codex: %v, want ErrCodexNotFound", err)
	}
}

func TestKeyPathsRoundTrip(t *testing.T) {
	for _, s := range []string{
		"/repo/.codex/hooks.json:session_start:0:0",
		`/we"ird\path with.dots/and spaces/.codex/hooks.json:stop:1:2`,
		"/tab\there/é☃",
	} {
		for _, tc := range []struct {
			path string
			want []string
		}{
			{HookTrustKeyPath(s), []string{"hooks", "state", s, "trusted_hash"}},
			{ProjectTrustKeyPath(s), []string{"projects", s, "trust_level"}},
		} {
			got, err := parseKeyPath(tc.path)
			if err != nil || strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
				t.Errorf("parse(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		}
	}
}
