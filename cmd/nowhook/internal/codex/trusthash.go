package codex

// Codex hook trust, computed the way Codex CLI 0.171.0 computes it, so that
// doctor can tell whether a hook will run without starting codex.
//
// Codex runs a user or project hook only if the user's config.toml holds
// [hooks.state."<key>"] trusted_hash = "<hash>" for it. Both strings are
// reproduced here; every rule below was measured against the real binary
// (testdata/codex-trust, re-recorded by scripts/record-codex-trust.sh):
//
//   - The key is "<hooks file>:<event>:<group index>:<handler index>", the
//     file as an absolute path, the event in snake_case ("session_start").
//     Indices are positions in the file; a group Codex skips (for example
//     one with an invalid matcher regex) keeps its index.
//   - The hash is per handler: "sha256:" and the hex SHA-256 of the compact,
//     key-sorted JSON of {"event_name", "matcher", "hooks": [handler]}, where
//     the one handler is {"type", "command", "timeout", "async",
//     "statusMessage", "additionalContextLimit"} as Codex normalizes it.
//     timeout and async are always present (defaults 600 and false; a
//     timeout of 0 counts as 1; SessionEnd and Interrupt default to 1 and
//     are clamped to 3; async is the configured value even for SessionEnd,
//     which Codex runs synchronously anyway);
//     statusMessage and additionalContextLimit only when set (an empty
//     statusMessage is set). matcher is omitted when absent or null, and
//     always for events that ignore matchers (UserPromptSubmit, Stop, ...).
//     Unknown keys, and commandWindows, do not count.
//   - Strings are written as serde_json writes them: raw UTF-8 (no HTML
//     escaping, and unlike Go's encoding/json, U+2028 and U+2029 raw), with
//     \" \\ \b \f \n \r \t and \u00xx for other control characters.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// codexEvent describes one hooks.json event name Codex 0.171.0 accepts.
type codexEvent struct {
	key     string // the name in trust keys and hashes
	matcher bool   // whether Codex keeps the group's matcher
	// short marks the events that must not hold Codex up: their timeout
	// defaults to 1 s and is clamped to 3 s. Others default to 600 s,
	// unclamped.
	short bool
}

// codexEvents lists the events of Codex 0.171.0's hooks.json, by the exact
// (case-sensitive) name it accepts. Other names are dropped by Codex.
var codexEvents = map[string]codexEvent{
	"PreModelRequest":   {"pre_model_request", false, false},
	"PostModelRequest":  {"post_model_request", false, false},
	"PreToolUse":        {"pre_tool_use", true, false},
	"PermissionRequest": {"permission_request", true, false},
	"PostToolUse":       {"post_tool_use", true, false},
	"PreCompact":        {"pre_compact", true, false},
	"PostCompact":       {"post_compact", true, false},
	"SessionStart":      {"session_start", true, false},
	"SessionEnd":        {"session_end", true, true},
	"UserPromptSubmit":  {"user_prompt_submit", false, false},
	"SubagentStart":     {"subagent_start", true, false},
	"SubagentStop":      {"subagent_stop", true, false},
	"Stop":              {"stop", false, false},
	"Interrupt":         {"interrupt", false, true},
}

// EventKey returns the snake_case name Codex uses in trust keys and
// hashes for a hooks.json event name ("SessionStart" -> "session_start"),
// and false for a name Codex does not load.
func EventKey(event string) (string, bool) {
	e, ok := codexEvents[event]
	return e.key, ok
}

// HookKey returns the [hooks.state] key Codex uses for handler `handler`
// of matcher group `group` under `event` (a hooks.json event name such as
// "SessionStart") in hooksFile, which must be the absolute path Codex sees
// (symlinks resolved, as Codex starts from its canonical working directory).
// An event Codex does not know is converted to snake_case all the same.
func HookKey(hooksFile, event string, group, handler int) string {
	name, ok := EventKey(event)
	if !ok {
		name = snakeCase(event)
	}
	return hooksFile + ":" + name + ":" + strconv.Itoa(group) + ":" + strconv.Itoa(handler)
}

// HookHash returns the trust hash ("sha256:<hex>") Codex computes for
// handler handlerIndex of one matcher group under event, where group is the
// raw JSON of that group as found in hooks.json (an element of
// hooks.<event>). It fails where Codex would not load the handler at all:
// an unknown event, a group or handler of the wrong shape (which makes Codex
// drop the whole file), a handler that is not a command, or an empty command.
// Matcher regexes are not checked: Codex skips a group whose matcher does not
// compile, so such a group has no trust to compare.
func HookHash(event string, group []byte, handlerIndex int) (string, error) {
	ev, ok := codexEvents[event]
	if !ok {
		return "", fmt.Errorf("codex does not know the hook event %q (it drops it)", event)
	}
	if !utf8.Valid(group) {
		return "", errors.New("matcher group is not valid UTF-8 (codex drops the whole file)")
	}
	g, err := decodeStrictObject(group)
	if err != nil {
		return "", fmt.Errorf("matcher group: %w", err)
	}
	var matcher *string
	if raw, ok := g["matcher"]; ok && !isJSONNull(raw) {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", fmt.Errorf("matcher group: matcher must be a string: %s", raw)
		}
		matcher = &m
	}
	var handlers []json.RawMessage
	if raw, ok := g["hooks"]; ok {
		if err := json.Unmarshal(raw, &handlers); err != nil || handlers == nil {
			return "", fmt.Errorf("matcher group: hooks must be an array: %s", raw)
		}
	}
	if handlerIndex < 0 || handlerIndex >= len(handlers) {
		return "", fmt.Errorf("matcher group has %d handlers, no handler %d", len(handlers), handlerIndex)
	}
	h, err := codexHandlerIdentity(handlers[handlerIndex], ev)
	if err != nil {
		return "", fmt.Errorf("handler %d: %w", handlerIndex, err)
	}
	identity := map[string]any{
		"event_name": ev.key,
		"hooks":      []any{h},
	}
	if ev.matcher && matcher != nil {
		identity["matcher"] = *matcher
	}
	var buf bytes.Buffer
	if err := writeSerdeJSON(&buf, identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// codexHandlerIdentity validates one handler as Codex parses it and returns
// the fields that enter the hash.
func codexHandlerIdentity(raw json.RawMessage, ev codexEvent) (map[string]any, error) {
	h, err := decodeStrictObject(raw)
	if err != nil {
		return nil, err
	}
	var typ string
	if err := json.Unmarshal(h["type"], &typ); err != nil || h["type"] == nil {
		return nil, errors.New(`"type" must be a string (codex drops the whole file)`)
	}
	if typ != "command" {
		return nil, fmt.Errorf("type %q is not a command hook; codex gives trust hashes to command hooks only", typ)
	}
	var command string
	if err := json.Unmarshal(h["command"], &command); err != nil || h["command"] == nil {
		return nil, errors.New(`"command" must be a string (codex drops the whole file)`)
	}
	if strings.TrimSpace(command) == "" {
		return nil, errors.New("empty command (codex skips the hook)")
	}
	out := map[string]any{"type": typ, "command": command}

	timeout, set, err := codexUint(h, "timeout")
	if err != nil {
		return nil, err
	}
	switch {
	case !set && ev.short:
		timeout = 1
	case !set:
		timeout = 600
	case timeout == 0:
		timeout = 1
	case ev.short && timeout > 3:
		timeout = 3
	}
	out["timeout"] = timeout

	async := false
	if raw, ok := h["async"]; ok {
		if err := json.Unmarshal(raw, &async); err != nil || isJSONNull(raw) {
			return nil, fmt.Errorf(`"async" must be true or false, not %s (codex drops the whole file)`, raw)
		}
	}
	out["async"] = async

	if raw, ok := h["statusMessage"]; ok && !isJSONNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf(`"statusMessage" must be a string, not %s (codex drops the whole file)`, raw)
		}
		out["statusMessage"] = s
	}
	limit, set, err := codexUint(h, "additionalContextLimit")
	if err != nil {
		return nil, err
	}
	if set {
		out["additionalContextLimit"] = limit
	}
	return out, nil
}

// codexUint reads an optional non-negative integer field the way Codex does
// (serde u64: no sign, fraction or exponent; null means absent). Values above
// the TOML integer range make Codex 0.171.0 fail hook discovery.
func codexUint(obj map[string]json.RawMessage, name string) (uint64, bool, error) {
	raw, ok := obj[name]
	if !ok || isJSONNull(raw) {
		return 0, false, nil
	}
	s := string(bytes.TrimSpace(raw))
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false, fmt.Errorf("%q must be a whole non-negative number, not %s (codex drops the whole file)", name, raw)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%q is too large: %s (codex drops the whole file)", name, raw)
	}
	if v > math.MaxInt64 {
		return 0, false, fmt.Errorf("%q is too large: %s (codex fails to list hooks)", name, raw)
	}
	return v, true, nil
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// decodeStrictObject decodes a JSON object into its members, failing on
// anything but one object and on duplicate keys (Codex rejects those).
func decodeStrictObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("must be a JSON object (codex drops the whole file)")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		key := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("duplicate key %q (codex drops the whole file)", key)
		}
		out[key] = val
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the object")
	}
	return out, nil
}

// writeSerdeJSON writes v compactly with sorted keys, the way serde_json
// writes a value Codex built from a sorted map. v holds only maps, slices,
// strings, bools and unsigned integers.
func writeSerdeJSON(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeSerdeString(buf, k)
			buf.WriteByte(':')
			if err := writeSerdeJSON(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeSerdeJSON(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeSerdeString(buf, x)
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case uint64:
		buf.WriteString(strconv.FormatUint(x, 10))
	default:
		return fmt.Errorf("codex hook identity: unexpected value %T", v)
	}
	return nil
}

// writeSerdeString writes s (valid UTF-8) as serde_json does: UTF-8 kept
// as is, only quote, backslash and control characters escaped.
func writeSerdeString(buf *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			buf.WriteByte(c) // input is valid UTF-8: multi-byte runes pass through raw
			i++
			continue
		}
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if c < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hexDigits[c>>4])
				buf.WriteByte(hexDigits[c&0xf])
			} else {
				buf.WriteByte(c)
			}
		}
		i++
	}
	buf.WriteByte('"')
}

// snakeCase turns "SessionStart" into "session_start".
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
