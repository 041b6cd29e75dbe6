// Package e2e runs the real agent clients against what `nowhook setup`
// writes: Claude Code, Codex CLI (through `codex exec` and `codex
// app-server`), Qwen Code, OpenCode (`opencode serve`) and Gemini CLI. For
// the agents that re-inject, the tests prove that the Kanbus reminder
// reaches the first model request after a compaction (for Qwen Code's
// automatic compression, the request after that one), and that nothing
// reaches the model when kbs fails; for Gemini CLI, which cannot re-inject,
// that the kbs-now block in GEMINI.md is still in the first request after a
// compression. The checkpoint_* tests check, on Claude Code and Codex CLI,
// the mid-session checkpoint and the summary hint.
//
// The package holds only tests. Each client runs offline against a mock
// model server on 127.0.0.1 (mock_*_test.go hold the recipes). A pinned
// client (scripts/pins.tsv) is found through its variable, CLAUDE_BIN,
// CODEX_BIN, QWEN_BIN, OPENCODE_BIN, GEMINI_BIN, DROID_BIN, CLINE_BIN or
// CONTINUE_BIN, or else as claude, codex, qwen, opencode, gemini, droid,
// cline or cn on PATH; `eval "$(sh scripts/install-agents.sh)"` installs
// the pinned versions and sets the variables. A test whose client is
// missing skips and says why, unless NOWHOOK_E2E_REQUIRE_AGENTS is set (as
// .ci/run sets it): then the missing client fails the test. Crush and
// Auggie cannot be pinned (probe_helpers_test.go says why): their tests
// run only where CRUSH_BIN or AUGGIE_BIN is set, and skip otherwise.
package e2e
