package prove

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/mockmodel"
)

// Qwen Code (measured on 0.24.4, docs/platforms.md#qwen-code): one
// headless `qwen --input-format stream-json -o stream-json` in the view,
// prompts hello, /compress and a follow-up, each once the previous turn's
// result arrived, against the chat-completions mock (OPENAI_BASE_URL).
// The temporary HOME's settings pick the OpenAI-compatible provider, turn
// off the helpers that send requests of their own, and trust the view
// (with folder trust on, an untrusted folder's hooks are skipped). Qwen
// does not report its hooks' runs in stream-json: the stand-in kbs's
// calls tell whether the hook ran.
var qwenDriver = &driver{agent: "qwen", compaction: "/compress", run: runQwen,
	unreported: "Qwen Code reports no hook run, so a hook whose script is missing or fails, and a settings file it cannot parse, look the same: see the hook and hooks-file rows"}

// qwenSummaryMarker is in the system prompt of every compression request
// of Qwen Code 0.24.4.
const qwenSummaryMarker = "summarizes a conversation when its context window is about to overflow"

func runQwen(ctx context.Context, w *world) seen {
	m, err := inNet(w, func() (*mockmodel.Chat, error) { return mockmodel.NewChat(qwenReply) })
	if err != nil {
		return seen{err: err}
	}
	defer m.Close()
	if err := qwenHome(w); err != nil {
		return seen{err: err}
	}
	var s seen
	s.stderr, s.err = streamSession(ctx, w, w.env("OPENAI_API_KEY=dummy", "OPENAI_BASE_URL="+m.BaseURL()),
		[]string{"--input-format", "stream-json", "--output-format", "stream-json"},
		[]string{"hello", "/compress", "What was I working on?"}, func(map[string]any) {})
	s.compacted, s.reached = afterKind(m.Recorded(), "summary")
	s.refused = settingsComplaint(s.stderr)
	return s
}

// qwenReply tells a compression request of Qwen Code 0.24.4 from a turn.
func qwenReply(r *mockmodel.ChatRequest) mockmodel.ChatReply {
	if r.AnyMessageContains(qwenSummaryMarker) {
		return mockmodel.ChatReply{Kind: "summary", PromptTokens: 100, CompletionTokens: 50,
			Text: "<state_snapshot>\nSummary from the mock: the user said hello.\n</state_snapshot>"}
	}
	return mockmodel.ChatReply{Kind: "turn", PromptTokens: 100, CompletionTokens: 5, Text: fmt.Sprintf("Reply %d from the mock.", r.Index)}
}

// qwenHome writes the temporary HOME's Qwen settings over the user's
// (with --scope user, the copy of them): the mock's provider, no helper
// that would send requests of its own, folder trust on and the view
// trusted.
func qwenHome(w *world) error {
	path := filepath.Join(w.userDir(".qwen"), "settings.json")
	settings := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if std, err := hujson.Standardize(b); err == nil {
			json.Unmarshal(std, &settings)
		}
	}
	set := func(section string, kv map[string]any) {
		m, _ := settings[section].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range kv {
			m[k] = v
		}
		settings[section] = m
	}
	set("security", map[string]any{"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": true}})
	set("model", map[string]any{"name": "mock-model"})
	set("memory", map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false})
	set("privacy", map[string]any{"usageStatisticsEnabled": false})
	set("general", map[string]any{"enableAutoUpdate": false})
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	trusted, _ := json.Marshal(map[string]string{w.view: "TRUST_FOLDER"})
	return os.WriteFile(filepath.Join(w.userDir(".qwen"), "trustedFolders.json"), append(trusted, '\n'), 0o644)
}

// settingsComplaint is the first line of a client's stderr that names a
// settings file it could not read, or "".
func settingsComplaint(stderr string) string {
	for line := range strings.SplitSeq(stderr, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "settings") && (strings.Contains(l, "error") || strings.Contains(l, "invalid") || strings.Contains(l, "parse")) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
