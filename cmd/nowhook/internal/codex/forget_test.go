package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nowhook/nowhook/cmd/internal/osutil"
)

// forgetRepo is fakeRepo with the project trusted, our hook trusted, and
// more in the user config.
func forgetRepo(t *testing.T) (fakeState, fakeHook) {
	st, ours := fakeRepo(t)
	st.ProjectTrusted = true
	st.Trusted[ours.Key] = ours.CurrentHash
	st.Other = map[string]any{"model": "gpt-test", "tui": map[string]any{"theme": "x"}}
	return st, ours
}

func TestForgetRemovesOnlyTheGivenKeys(t *testing.T) {
	st, ours := forgetRepo(t)
	opts, statePath := fake(t, "", st)
	var pgid int
	opts.started = func(c *Conn) { pgid = c.pgid }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gone := filepath.Join(st.Root, ".codex", "hooks.json") + ":session_start:7:0"

	res, err := Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key, gone, ours.Key}})
	if err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pgid)
	after := readState(t, statePath)
	if len(after.Writes) != 1 {
		t.Fatalf("%d writes, want 1: %+v", len(after.Writes), after.Writes)
	}
	w := after.Writes[0]
	if len(w.Edits) != 1 || w.Edits[0].KeyPath != HookStateKeyPath(ours.Key) || w.Edits[0].Value != nil || w.Edits[0].MergeStrategy != "replace" {
		t.Errorf("write: %+v, want our whole hooks.state entry set to null", w.Edits)
	}
	if w.ExpectedVersion == nil || *w.ExpectedVersion != "v0" {
		t.Errorf("write does not guard against concurrent edits: expected version %v", w.ExpectedVersion)
	}
	if len(after.Trusted) != 1 || after.Trusted["/home/u/.codex/hooks.json:stop:0:0"] != "sha256:0u" {
		t.Errorf("trusted after: %v, want only the user hook", after.Trusted)
	}
	if !after.ProjectTrusted || !res.ProjectTrusted {
		t.Errorf("project trust: state %v, result %v; want it kept and reported", after.ProjectTrusted, res.ProjectTrusted)
	}
	if strings.Join(res.Removed, ",") != ours.Key || strings.Join(res.Absent, ",") != gone {
		t.Errorf("removed %q, absent %q; want %q and %q", res.Removed, res.Absent, ours.Key, gone)
	}
	if want := filepath.Join(osutil.Getenv(opts.Env, "CODEX_HOME"), "config.toml"); res.ConfigFile != want {
		t.Errorf("ConfigFile %q, want %q", res.ConfigFile, want)
	}
	if h, ok := res.After.Hook(ours.Key); !ok || h.TrustStatus != StatusUntrusted {
		t.Errorf("our hook after: %+v (listed %v), want untrusted", h, ok)
	}

	// Again: nothing left to remove, nothing written.
	res, err = Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readState(t, statePath).Writes); n != 1 || res.ConfigFile != "" || len(res.Removed) != 0 || strings.Join(res.Absent, ",") != ours.Key {
		t.Errorf("second Forget: %d writes in all, result %+v", n, res)
	}
}

func TestForgetVerifiesCodexsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		rehash     map[string]string
		want       string
	}{
		{name: "entry kept", mode: "lie", want: "codex still has [hooks.state."},
		{name: "other config lost", mode: "clobber", want: "codex changed more than the forgotten hook trust"},
		{name: "other hook changed", rehash: map[string]string{"/home/u/.codex/hooks.json:stop:0:0": "sha256:edited"}, want: "trust of another hook changed (/home/u/.codex/hooks.json:stop:0:0: trusted -> modified)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ours := forgetRepo(t)
			st.RehashOnWrite = tc.rehash
			opts, _ := fake(t, tc.mode, st)
			res, err := Forget(context.Background(), opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if res == nil || res.ConfigFile == "" {
				t.Errorf("result %+v: want the file codex wrote, since it did write", res)
			}
		})
	}
}

func TestForgetWriteError(t *testing.T) {
	st, ours := forgetRepo(t)
	opts, statePath := fake(t, "write-error", st)
	res, err := Forget(context.Background(), opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}})
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Method != "config/batchWrite" || !strings.Contains(err.Error(), "configVersionConflict") {
		t.Fatalf("err = %v, want the app-server's error for config/batchWrite", err)
	}
	if res == nil || len(res.Removed) != 0 || res.ConfigFile != "" {
		t.Errorf("result %+v: nothing was removed", res)
	}
	if tr := readState(t, statePath).Trusted; tr[ours.Key] != ours.CurrentHash {
		t.Errorf("trusted after a refused write: %v", tr)
	}
}

func TestForgetArguments(t *testing.T) {
	st, ours := forgetRepo(t)
	opts, statePath := fake(t, "", st)
	for _, keys := range [][]string{nil, {}, {ours.Key, ""}} {
		if _, err := Forget(context.Background(), opts, ForgetRequest{Root: st.Root, Keys: keys}); err == nil || !strings.Contains(err.Error(), "codex.Forget") {
			t.Errorf("Forget(%q): err = %v, want a usage error", keys, err)
		}
	}
	if w := readState(t, statePath).Writes; len(w) != 0 {
		t.Errorf("wrote %+v", w)
	}
	noCodex := Options{Env: []string{"PATH=" + filepath.Join(t.TempDir(), "empty")}}
	if _, err := Forget(context.Background(), noCodex, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}}); !errors.Is(err, ErrCodexNotFound) {
		t.Errorf("without codex: err = %v, want ErrCodexNotFound (the caller prints ForgetLines then)", err)
	}
}

// Codex's renderings of keys, measured on codex 0.171.0 (config/batchWrite
// of hooks.state."<key>".trusted_hash, then config.toml's header line);
// TestRealCodexKeyQuoting re-measures them.
var codexKeyForms = []struct{ key, header string }{
	{"/repo/.codex/hooks.json:session_start:0:0", `[hooks.state."/repo/.codex/hooks.json:session_start:0:0"]`},
	{`/we"ird\path/.codex/hooks.json:stop:1:2`, `[hooks.state.'/we"ird\path/.codex/hooks.json:stop:1:2']`},
	{`q"b`, `[hooks.state.'q"b']`},
	{`bs\b`, `[hooks.state.'bs\b']`},
	{"sq'b", `[hooks.state."sq'b"]`},
	{"tab\tb", `[hooks.state."tab\tb"]`},
	{"tabbs\t\\b", "[hooks.state.'tabbs\t\\b']"},
	{`bssq\'b`, `[hooks.state."bssq\\'b"]`},
	{"bsp\bb", `[hooks.state."bsp\bb"]`},
	{"ff\fb", `[hooks.state."ff\fb"]`},
	{"cr\rb", `[hooks.state."cr\rb"]`},
	{"esc\x1bb", `[hooks.state."esc\u001Bb"]`},
	{"bsnl\\\nb", `[hooks.state."bsnl\\\nb"]`},
	{"bare-_9Az", `[hooks.state.bare-_9Az]`},
	{`endbs\`, `[hooks.state.'endbs\']`},
	{"u\u0085\u2028\U0001F600", "[hooks.state.\"u\u0085\u2028\U0001F600\"]"},
	{`bsdq\"x`, `[hooks.state.'bsdq\"x']`},
	{"del\x7f", `[hooks.state."del\u007F"]`},
	{"bsdel\\\x7f", `[hooks.state."bsdel\\\u007F"]`},
	{"bstab\\\t", "[hooks.state.'bstab\\\t']"},
	{"dot.x", `[hooks.state."dot.x"]`},
	{"sp ace", `[hooks.state."sp ace"]`},
	{"/tab\there/é☃:session_start:0:0", "[hooks.state.\"/tab\\there/é☃:session_start:0:0\"]"},
}

func TestForgetLines(t *testing.T) {
	got := ForgetLines([]string{"/repo/.codex/hooks.json:session_start:1:0", `/we"ird/.codex/hooks.json:session_start:0:0`})
	want := `[hooks.state."/repo/.codex/hooks.json:session_start:1:0"]
trusted_hash = "sha256:..."

[hooks.state.'/we"ird/.codex/hooks.json:session_start:0:0']
trusted_hash = "sha256:..."
`
	if got != want {
		t.Errorf("ForgetLines:\n%s\nwant:\n%s", got, want)
	}
	got = ForgetEntryLines([]TrustEntry{{Key: "/r/.codex/hooks.json:session_start:0:0", Hash: "sha256:ab12"}})
	if want := "[hooks.state.\"/r/.codex/hooks.json:session_start:0:0\"]\ntrusted_hash = \"sha256:ab12\"\n"; got != want {
		t.Errorf("ForgetEntryLines:\n%s\nwant:\n%s", got, want)
	}
	if got := ForgetLines(nil); got != "" {
		t.Errorf("ForgetLines(nil) = %q", got)
	}
	for _, f := range codexKeyForms {
		header, _, _ := strings.Cut(ForgetLines([]string{f.key}), "\ntrusted_hash")
		if header != f.header {
			t.Errorf("key %q: header %s, codex writes %s", f.key, header, f.header)
		}
	}
}

func TestKeyPathQuoteIsWhatCodexParses(t *testing.T) {
	for _, f := range codexKeyForms {
		segs, err := parseKeyPath(HookTrustKeyPath(f.key))
		if err != nil || len(segs) != 4 || segs[2] != f.key {
			t.Errorf("key %q: keyPath %s parses as %q, %v", f.key, HookTrustKeyPath(f.key), segs, err)
		}
	}
	// A TOML escape inside a keyPath is not one to Codex.
	if segs, _ := parseKeyPath(`hooks.state."a\u0009b"`); len(segs) != 3 || segs[2] != "au0009b" {
		t.Errorf(`parseKeyPath("a\u0009b") = %q, want codex's reading "au0009b"`, segs)
	}
}

// TestForgetProjectTrustNowhookRecorded: the project trust that nowhook's
// --trust-codex recorded goes with our hook's trust, in one write, when
// nothing else of the user's needs it; it stays, with the reason, when the
// project has a hook of the team's own or a .codex/config.toml; and a
// project trust nowhook did not record (no Project) is never touched.
func TestForgetProjectTrustNowhookRecorded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	only := func(t *testing.T) (fakeState, fakeHook) {
		st, ours := forgetRepo(t)
		st.Hooks = slicesDelete(st.Hooks, func(h fakeHook) bool { return h.Command == "echo foreign" })
		return st, ours
	}

	st, ours := only(t)
	opts, statePath := fake(t, "", st)
	res, err := Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}, Project: st.Root})
	if err != nil {
		t.Fatal(err)
	}
	after := readState(t, statePath)
	if after.ProjectTrusted || !res.ProjectForgotten || res.ProjectKept != "" {
		t.Errorf("nothing else needs it: project trusted after %v, forgotten %v, kept %q; want it gone", after.ProjectTrusted, res.ProjectForgotten, res.ProjectKept)
	}
	if len(after.Writes) != 1 || len(after.Writes[0].Edits) != 2 || after.Writes[0].Edits[1].KeyPath != `projects."`+st.Root+`"` {
		t.Errorf("writes %+v, want one with our hook's entry and the whole [projects] table", after.Writes)
	}
	if after.Trusted["/home/u/.codex/hooks.json:stop:0:0"] != "sha256:0u" {
		t.Errorf("the user's own hook trust changed: %v", after.Trusted)
	}

	st, ours = forgetRepo(t) // with the team's own project hook
	opts, statePath = fake(t, "", st)
	res, err = Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}, Project: st.Root})
	if err != nil {
		t.Fatal(err)
	}
	if !readState(t, statePath).ProjectTrusted || res.ProjectForgotten || !strings.Contains(res.ProjectKept, "other hook "+filepath.Join(st.Root, ".codex", "hooks.json")+":session_start:0:0") {
		t.Errorf("a team hook needs the trust: forgotten %v, kept %q", res.ProjectForgotten, res.ProjectKept)
	}

	st, ours = only(t)
	if err := os.MkdirAll(filepath.Join(st.Root, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Root, ".codex", "config.toml"), []byte("model = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, statePath = fake(t, "", st)
	res, err = Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}, Project: st.Root})
	if err != nil {
		t.Fatal(err)
	}
	if !readState(t, statePath).ProjectTrusted || !strings.Contains(res.ProjectKept, "config.toml") {
		t.Errorf("the project's config.toml needs the trust: kept %q", res.ProjectKept)
	}

	st, ours = only(t)
	opts, statePath = fake(t, "", st)
	if _, err := Forget(ctx, opts, ForgetRequest{Root: st.Root, Keys: []string{ours.Key}}); err != nil {
		t.Fatal(err)
	}
	if !readState(t, statePath).ProjectTrusted {
		t.Errorf("a project trust nowhook did not record was removed")
	}
}

func slicesDelete(hs []fakeHook, del func(fakeHook) bool) []fakeHook {
	var out []fakeHook
	for _, h := range hs {
		if !del(h) {
			out = append(out, h)
		}
	}
	return out
}
