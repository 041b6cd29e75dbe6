// Package e2e proves, with the real Claude Code and Codex CLI binaries, that
// what `nowhook setup` writes makes each agent put the Kanbus reminder into
// the first model request after a context compaction.
//
// The package holds only tests. They run each client offline against a mock
// model server on 127.0.0.1 (mock_*_test.go hold the recipes) and skip
// with a clear message when a client is not found: set CLAUDE_BIN and
// CODEX_BIN, or put claude and codex on PATH (.ci/run installs the pinned
// versions with scripts/install-agents.sh). With NOWHOOK_E2E_REQUIRE_AGENTS
// set, as in CI, a missing client fails the test instead.
package e2e
