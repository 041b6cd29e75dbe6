package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHookHashRecorded compares HookKey and HookHash with the
// keys and hashes the real codex 0.171.0 reported through app-server
// hooks/list for the fixtures in testdata/codex-trust (re-recorded by
// scripts/record-codex-trust.sh). It does not need codex.
func TestHookHashRecorded(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "testdata", "codex-trust", "*.hooks.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	const hooksFile = "$REPO/.codex/hooks.json"
	total := 0
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			var file struct {
				Hooks map[string][]json.RawMessage `json:"hooks"`
			}
			readJSON(t, in, &file)
			var rec struct {
				Codex string `json:"codex"`
				Hooks []struct {
					Key         string `json:"key"`
					Command     string `json:"command"`
					CurrentHash string `json:"currentHash"`
				} `json:"hooks"`
			}
			readJSON(t, strings.TrimSuffix(in, ".hooks.json")+".recorded.json", &rec)
			if !strings.Contains(rec.Codex, "/0.171.0 ") {
				t.Errorf("recorded with %q, want codex 0.171.0", rec.Codex)
			}
			want := map[string]string{}
			for _, h := range rec.Hooks {
				want[h.Key] = h.CurrentHash
			}

			got := map[string]string{}
			for event, groups := range file.Hooks {
				for gi, group := range groups {
					var g struct {
						Matcher *string           `json:"matcher"`
						Hooks   []json.RawMessage `json:"hooks"`
					}
					if err := json.Unmarshal(group, &g); err != nil {
						t.Fatal(err)
					}
					for hi := range g.Hooks {
						key := HookKey(hooksFile, event, gi, hi)
						hash, err := HookHash(event, group, hi)
						if err != nil {
							if _, listed := want[key]; listed {
								t.Errorf("%s: codex lists it, HookHash fails: %v", key, err)
							}
							continue
						}
						if _, listed := want[key]; !listed && g.Matcher != nil {
							if _, rerr := regexp.Compile(*g.Matcher); rerr != nil {
								continue // codex skips a group whose matcher is no regex
							}
						}
						got[key] = hash
					}
				}
			}
			for key, w := range want {
				g, ok := got[key]
				switch {
				case !ok:
					t.Errorf("%s: codex lists it, HookKey never produced it", key)
				case g != w:
					t.Errorf("%s: hash %s, codex says %s", key, g, w)
				default:
					total++
				}
			}
			for key := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("%s: HookHash accepts a handler codex does not list", key)
				}
			}
		})
	}
	if total < 50 {
		t.Errorf("only %d recorded hashes compared", total)
	}
	t.Logf("%d hashes match the real codex", total)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestHookHashKnown(t *testing.T) {
	// The shape nowhook installs, hashed by codex 0.171.0 (measured).
	group := `{"matcher":"compact","hooks":[{"type":"command","command":"echo hi","timeout":10}]}`
	got, err := HookHash("SessionStart", []byte(group), 0)
	if err != nil {
		t.Fatal(err)
	}
	const want = "sha256:a38544369bedfe853274feb142e8830e702f3160f4eff66a21130fbf3d854fc9"
	if got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	// Whitespace, key order and unknown keys in the file do not matter.
	reordered := "{\n  \"hooks\": [ {\"timeout\": 10, \"extra\": [1], \"command\": \"echo hi\", \"type\": \"command\"} ],\n  \"matcher\": \"compact\", \"note\": {}\n}"
	if got2, err := HookHash("SessionStart", []byte(reordered), 0); err != nil || got2 != want {
		t.Errorf("reordered group: %s, %v; want %s", got2, err, want)
	}
}

func TestHookKey(t *testing.T) {
	for _, tc := range []struct {
		event   string
		g, h    int
		wantKey string
	}{
		{"SessionStart", 0, 0, "/r/.codex/hooks.json:session_start:0:0"},
		{"UserPromptSubmit", 3, 12, "/r/.codex/hooks.json:user_prompt_submit:3:12"},
		{"PreCompact", 1, 0, "/r/.codex/hooks.json:pre_compact:1:0"},
		{"MadeUpEvent", 0, 1, "/r/.codex/hooks.json:made_up_event:0:1"},
	} {
		if got := HookKey("/r/.codex/hooks.json", tc.event, tc.g, tc.h); got != tc.wantKey {
			t.Errorf("HookKey(%s, %d, %d) = %s, want %s", tc.event, tc.g, tc.h, got, tc.wantKey)
		}
	}
	if _, ok := EventKey("sessionStart"); ok {
		t.Error("EventKey accepts camelCase; codex only loads PascalCase event names")
	}
}

func TestHookHashRejects(t *testing.T) {
	for _, tc := range []struct {
		name, event, group string
		handler            int
		wantErr            string
	}{
		{"unknown event", "sessionStart", `{"hooks":[{"type":"command","command":"a"}]}`, 0, "does not know"},
		{"float timeout", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":1.0}]}`, 0, "whole non-negative"},
		{"exponent timeout", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":1e1}]}`, 0, "whole non-negative"},
		{"string timeout", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":"10"}]}`, 0, "whole non-negative"},
		{"negative limit", "Stop", `{"hooks":[{"type":"command","command":"a","additionalContextLimit":-1}]}`, 0, "whole non-negative"},
		{"timeout beyond TOML", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":9223372036854775808}]}`, 0, "too large"},
		{"timeout beyond u64", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":18446744073709551616}]}`, 0, "too large"},
		{"null async", "Stop", `{"hooks":[{"type":"command","command":"a","async":null}]}`, 0, "async"},
		{"duplicate key", "Stop", `{"hooks":[{"type":"command","command":"a","timeout":1,"timeout":2}]}`, 0, "duplicate"},
		{"command array", "Stop", `{"hooks":[{"type":"command","command":["a"]}]}`, 0, "command"},
		{"missing type", "Stop", `{"hooks":[{"command":"a"}]}`, 0, "type"},
		{"prompt hook", "Stop", `{"hooks":[{"type":"prompt","prompt":"x"}]}`, 0, "not a command hook"},
		{"empty command", "Stop", `{"hooks":[{"type":"command","command":"  "}]}`, 0, "empty command"},
		{"matcher number", "PreToolUse", `{"matcher":5,"hooks":[{"type":"command","command":"a"}]}`, 0, "matcher"},
		{"flat handler", "Stop", `{"type":"command","command":"a"}`, 0, "no handler 0"},
		{"index out of range", "Stop", `{"hooks":[{"type":"command","command":"a"}]}`, 1, "no handler 1"},
		{"not an object", "Stop", `[1]`, 0, "object"},
		{"trailing data", "Stop", `{"hooks":[]} {}`, 0, "trailing"},
		{"invalid UTF-8", "Stop", "{\"hooks\":[{\"type\":\"command\",\"command\":\"a\xff\"}]}", 0, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HookHash(tc.event, []byte(tc.group), tc.handler)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("HookHash = %q, %v; want an error containing %q", got, err, tc.wantErr)
			}
		})
	}
}

// TestHookHashNotEncodingJSON guards the two ways Go's encoding/json
// would silently produce a different hash: HTML escaping and U+2028/U+2029.
func TestHookHashNotEncodingJSON(t *testing.T) {
	a, err := HookHash("Stop", []byte(`{"hooks":[{"type":"command","command":"a <b> & \u2028"}]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := HookHash("Stop", []byte(`{"hooks":[{"type":"command","command":"a \u003cb\u003e \u0026 \u2028"}]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("escaped and raw spellings of one command hash differently: %s vs %s", a, b)
	}
	// The identity as serde_json writes it, spelled out by hand.
	literal := "{\"event_name\":\"stop\",\"hooks\":[{\"async\":false,\"command\":\"a <b> & \u2028\",\"timeout\":600,\"type\":\"command\"}]}"
	sum := sha256.Sum256([]byte(literal))
	if want := "sha256:" + hex.EncodeToString(sum[:]); a != want {
		t.Errorf("hash %s, want %s (sha256 of %s)", a, want, literal)
	}
}
