package codex

// A fake `codex app-server`: the test binary re-executes itself with
// NOWHOOK_FAKE_APPSERVER set and answers JSON-RPC on stdio from a state file,
// so the client's protocol handling, selection, verification and process
// cleanup are tested without codex.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("NOWHOOK_FAKE_APPSERVER"); ok {
		if len(os.Args) < 2 || os.Args[1] != "app-server" {
			fmt.Fprintln(os.Stderr, "fake codex: expected the app-server subcommand, got", os.Args[1:])
			os.Exit(2)
		}
		os.Exit(fakeAppServer(mode, os.Getenv("NOWHOOK_FAKE_STATE")))
	}
	os.Exit(m.Run())
}

type fakeHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	HandlerType string `json:"handlerType"`
	IsManaged   bool   `json:"isManaged"`
	CurrentHash string `json:"currentHash"`
}

type fakeState struct {
	Root           string            `json:"root"`
	ProjectTrusted bool              `json:"projectTrusted"`
	Hooks          []fakeHook        `json:"hooks"`
	Trusted        map[string]string `json:"trusted"`
	Warnings       []string          `json:"warnings"`
	Version        int               `json:"version"`
	Writes         []fakeWrite       `json:"writes"`
	Replies        []string          `json:"replies"` // answers the fake got to its own requests
	ChildPID       int               `json:"childPid"`
	HooksOff       bool              `json:"hooksOff"`
	// Other is the rest of the user config.toml, as config/read reports it.
	Other map[string]any `json:"other"`
	// RehashOnWrite changes hooks' current hashes at the next write (a
	// hook edited meanwhile), keyed by hook key.
	RehashOnWrite map[string]string `json:"rehashOnWrite"`
}

// userConfig is the user config.toml as config/read reports it.
func (s *fakeState) userConfig() map[string]any {
	cfg := map[string]any{}
	for k, v := range s.Other {
		cfg[k] = v
	}
	if len(s.Trusted) > 0 {
		state := map[string]any{}
		for k, h := range s.Trusted {
			state[k] = map[string]any{"trusted_hash": h}
		}
		cfg["hooks"] = map[string]any{"state": state}
	}
	if s.ProjectTrusted {
		cfg["projects"] = map[string]any{s.Root: map[string]any{"trust_level": "trusted"}}
	}
	return cfg
}

type fakeWrite struct {
	Edits           []Edit  `json:"edits"`
	ExpectedVersion *string `json:"expectedVersion"`
}

func (s *fakeState) status(h fakeHook) string {
	switch hash, ok := s.Trusted[h.Key]; {
	case h.IsManaged:
		return StatusManaged
	case !ok:
		return StatusUntrusted
	case hash == h.CurrentHash:
		return StatusTrusted
	default:
		return StatusModified
	}
}

// parseKeyPath splits a config key path into its segments the way Codex
// 0.171.0 does (app-server config_manager_service.rs parse_key_path): dots
// split outside quotes; inside quotes a backslash takes the next character
// as it is, and nothing else is an escape.
func parseKeyPath(p string) ([]string, error) {
	if strings.TrimSpace(p) == "" {
		return nil, fmt.Errorf("keyPath must not be empty")
	}
	var segs []string
	var seg strings.Builder
	quoted, started := false, false
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '"' && !quoted && !started:
			quoted, started = true, true
		case r == '"' && quoted:
			quoted = false
		case r == '\\' && quoted:
			i++
			if i == len(rs) {
				return nil, fmt.Errorf("unterminated escape in keyPath")
			}
			seg.WriteRune(rs[i])
		case r == '.' && !quoted:
			if !started {
				return nil, fmt.Errorf("keyPath segments must not be empty")
			}
			segs = append(segs, seg.String())
			seg.Reset()
			started = false
		case r == '"':
			return nil, fmt.Errorf("invalid quoted keyPath segment")
		default:
			seg.WriteRune(r)
			started = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quoted keyPath segment")
	}
	if !started {
		return nil, fmt.Errorf("keyPath segments must not be empty")
	}
	return append(segs, seg.String()), nil
}

func fakeAppServer(mode, statePath string) int {
	load := func() *fakeState {
		var s fakeState
		b, err := os.ReadFile(statePath)
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake codex: state:", err)
			os.Exit(3)
		}
		if s.Trusted == nil {
			s.Trusted = map[string]string{}
		}
		return &s
	}
	save := func(s *fakeState) {
		b, _ := json.MarshalIndent(s, "", "  ")
		if err := os.WriteFile(statePath, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fake codex: state:", err)
			os.Exit(3)
		}
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "WARNING: some noise first")
		fmt.Fprintln(os.Stderr, "Error: the fake codex refuses to start")
		return 1
	}
	st := load()
	if mode == "hang" {
		child := exec.Command("sleep", "300") // stays in our process group
		if err := child.Start(); err == nil {
			st.ChildPID = child.Process.Pid
			save(st)
		}
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *RPCError       `json:"error"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "fake codex: bad line:", err)
			return 4
		}
		if req.Method == "" { // an answer to our own request
			st = load()
			st.Replies = append(st.Replies, string(in.Bytes()))
			save(st)
			continue
		}
		if req.ID == nil {
			continue // initialized and other notifications
		}
		if mode == "noise" {
			send(map[string]any{"method": "configWarning", "params": map[string]any{"summary": "noise"}})
			send(map[string]any{"id": "srv-" + string(req.ID), "method": "item/commandExecution/requestApproval", "params": map[string]any{}})
			send(map[string]any{"method": "remoteControl/status/changed", "params": map[string]any{}})
		}
		if mode == "garbage" && req.Method == "hooks/list" {
			fmt.Fprintln(os.Stdout, "this is not JSON")
			continue
		}
		if mode == "hang" && req.Method == "hooks/list" {
			continue // never answers
		}
		reply := func(result any) { send(map[string]any{"id": req.ID, "result": result}) }
		fail := func(code int, msg string, data any) {
			send(map[string]any{"id": req.ID, "error": map[string]any{"code": code, "message": msg, "data": data}})
		}
		st = load()
		switch req.Method {
		case "initialize":
			reply(map[string]any{"userAgent": "fake/0.171.0", "codexHome": os.Getenv("CODEX_HOME"), "platformFamily": "unix", "platformOs": "linux"})
		case "config/read":
			var p struct {
				Cwd string `json:"cwd"`
			}
			json.Unmarshal(req.Params, &p)
			var reason any
			if !st.ProjectTrusted {
				reason = "To load project-local config, hooks, and exec policies, add " + st.Root + " as a trusted project in " + filepath.Join(os.Getenv("CODEX_HOME"), "config.toml") + "."
			}
			layers := []any{
				map[string]any{"name": map[string]any{"type": "user", "file": filepath.Join(os.Getenv("CODEX_HOME"), "config.toml"), "profile": nil}, "version": fmt.Sprintf("v%d", st.Version), "config": st.userConfig(), "disabledReason": nil},
			}
			if p.Cwd == st.Root {
				layers = append([]any{map[string]any{"name": map[string]any{"type": "project", "dotCodexFolder": filepath.Join(st.Root, ".codex")}, "version": "p", "config": map[string]any{}, "disabledReason": reason}}, layers...)
			}
			features := map[string]any{"memories": false}
			if st.HooksOff {
				features["hooks"] = false
			}
			reply(map[string]any{"config": map[string]any{"features": features}, "origins": map[string]any{}, "layers": layers})
		case "hooks/list":
			var p struct {
				Cwds []string `json:"cwds"`
			}
			json.Unmarshal(req.Params, &p)
			var data []any
			for _, cwd := range p.Cwds {
				hooks := []any{}
				for _, h := range st.Hooks {
					if st.HooksOff {
						break
					}
					if h.Source == "project" && (!st.ProjectTrusted || cwd != st.Root) {
						continue
					}
					hooks = append(hooks, map[string]any{
						"key": h.Key, "eventName": "sessionStart", "handlerType": h.HandlerType, "command": h.Command,
						"async": false, "matcher": "compact", "timeoutSec": 10, "statusMessage": nil, "additionalContextLimit": nil,
						"sourcePath": h.SourcePath, "source": h.Source, "pluginId": nil, "environmentId": nil, "displayOrder": 0,
						"enabled": true, "isManaged": h.IsManaged, "currentHash": h.CurrentHash, "trustStatus": st.status(h),
					})
				}
				warnings := st.Warnings
				if warnings == nil {
					warnings = []string{}
				}
				data = append(data, map[string]any{"cwd": cwd, "hooks": hooks, "warnings": warnings, "errors": []any{}})
			}
			reply(map[string]any{"data": data})
		case "config/batchWrite":
			var p struct {
				Edits           []Edit  `json:"edits"`
				ExpectedVersion *string `json:"expectedVersion"`
			}
			if err := json.Unmarshal(req.Params, &p); err != nil {
				fail(-32602, err.Error(), nil)
				continue
			}
			var raw struct {
				Edits []map[string]json.RawMessage `json:"edits"`
			}
			json.Unmarshal(req.Params, &raw)
			missing := ""
			for _, e := range raw.Edits {
				for _, field := range []string{"keyPath", "value", "mergeStrategy"} {
					if _, ok := e[field]; !ok {
						missing = field
					}
				}
			}
			if missing != "" { // as codex 0.171.0 answers
				fail(-32600, "Invalid request: missing field `"+missing+"`", nil)
				continue
			}
			if mode == "write-error" {
				fail(-32600, "Configuration was modified since last read. Fetch latest version and retry.", map[string]any{"config_write_error_code": "configVersionConflict"})
				continue
			}
			if p.ExpectedVersion != nil && *p.ExpectedVersion != fmt.Sprintf("v%d", st.Version) {
				fail(-32600, "Configuration was modified since last read. Fetch latest version and retry.", map[string]any{"config_write_error_code": "configVersionConflict"})
				continue
			}
			var bad error
			for _, e := range p.Edits {
				segs, err := parseKeyPath(e.KeyPath)
				val, _ := e.Value.(string)
				switch {
				case err != nil:
					bad = err
				case len(segs) == 3 && segs[0] == "projects" && segs[2] == "trust_level" && val == "trusted":
					if segs[1] == st.Root {
						st.ProjectTrusted = true
					}
				case len(segs) == 2 && segs[0] == "projects" && e.Value == nil:
					if segs[1] == st.Root && mode != "lie" {
						st.ProjectTrusted = false // the whole [projects."<root>"] table
					}
				case len(segs) == 4 && segs[0] == "hooks" && segs[1] == "state" && segs[3] == "trusted_hash" && val != "":
					if mode != "lie" {
						st.Trusted[segs[2]] = val
					}
				case len(segs) == 3 && segs[0] == "hooks" && segs[1] == "state" && e.Value == nil:
					if mode != "lie" {
						delete(st.Trusted, segs[2]) // the whole [hooks.state."<key>"] table
					}
				default:
					bad = fmt.Errorf("unsupported edit %s = %v", e.KeyPath, e.Value)
				}
			}
			if bad != nil {
				fail(-32602, bad.Error(), nil)
				continue
			}
			if mode == "touch-foreign" {
				for _, h := range st.Hooks {
					st.Trusted[h.Key] = h.CurrentHash
				}
			}
			if mode == "clobber" {
				st.Other = nil
			}
			for i, h := range st.Hooks {
				if hash, ok := st.RehashOnWrite[h.Key]; ok {
					st.Hooks[i].CurrentHash = hash
				}
			}
			st.RehashOnWrite = nil
			st.Version++
			st.Writes = append(st.Writes, fakeWrite{p.Edits, p.ExpectedVersion})
			save(st)
			reply(map[string]any{"status": "ok", "version": fmt.Sprintf("v%d", st.Version), "filePath": filepath.Join(os.Getenv("CODEX_HOME"), "config.toml"), "overriddenMetadata": nil})
		default:
			fail(-32601, "method not found: "+req.Method, nil)
		}
	}
	return 0
}

// fake prepares a state file and Options that run the fake app-server.
func fake(t *testing.T, mode string, st fakeState) (Options, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(t.TempDir(), "state.json")
	b, _ := json.Marshal(st)
	if err := os.WriteFile(statePath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return Options{
		Codex: exe,
		Env: []string{
			"PATH=" + os.Getenv("PATH"),
			"CODEX_HOME=" + home,
			"NOWHOOK_FAKE_APPSERVER=" + mode,
			"NOWHOOK_FAKE_STATE=" + statePath,
		},
	}, statePath
}

func readState(t *testing.T, path string) fakeState {
	t.Helper()
	var s fakeState
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}
