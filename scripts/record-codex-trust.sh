#!/bin/sh
# Re-record testdata/codex-trust/*.recorded.json (Codex hook trust keys and
# hashes) from a real codex: CODEX_BIN, else codex on PATH, else the pinned
# client under ~/.cache/nowhook/agents/codex. Run from anywhere in the repo;
# review the diff afterwards (a changed hash means Codex changed its rule).
set -eu

main() {
	cd "$(git rev-parse --show-toplevel)"
	NOWHOOK_RECORD_CODEX_TRUST=1 go test -count=1 -run '^TestRecordCodexTrust$' -v ./cmd/nowhook/internal/codex/
	git status --short testdata/codex-trust
}

main "$@"
