package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func installCodex(t *testing.T, ctx context.Context, s *sandbox, bin string, env []string) {
	home := ""
	for _, e := range env {
		if strings.HasPrefix(e, "CODEX_HOME=") {
			home = e[len("CODEX_HOME="):]
		}
	}
	f, _ := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, "\n[projects.%q]\ntrust_level = \"trusted\"\n", s.repo)
	f.Close()
	writeFile(t, filepath.Join(s.repo, ".codex/hooks/kanbus-compaction-right-now.sh"),
		"#!/bin/sh\nkbs now --json --list >/dev/null || exit 0\ncat "+fixture(t, "basic.expected.txt")+"\n", 0o755)
	writeFile(t, filepath.Join(s.repo, ".codex/hooks.json"), `{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "\"$(git rev-parse --show-toplevel)\"/.codex/hooks/kanbus-compaction-right-now.sh", "timeout": 10}]}]}}`, 0o644)
	a := startAppServer(t, ctx, bin, env, s.repo)
	hl := a.hooksList(ctx, s.repo)
	var h codexHook
	jsonUnmarshal(t, hl.Hooks[0], &h)
	a.call(ctx, "config/batchWrite", map[string]any{"edits": []any{map[string]any{"keyPath": "hooks.state", "value": map[string]any{h.Key: map[string]any{"trusted_hash": h.CurrentHash}}, "mergeStrategy": "upsert"}}, "filePath": nil, "expectedVersion": nil, "reloadUserConfig": true})
}
