// Package codex holds what nowhook knows about Codex CLI beyond its row in
// the agent table (cmd/nowhook/internal/agent/codex.go):
//
//   - the app-server client (conn.go, hooks.go, forget.go): it talks to
//     `codex app-server`, Codex's JSON-RPC interface over stdio (one JSON
//     object per line), to list hooks with their trust and to record or
//     forget trust the way Codex's own /hooks screen does;
//   - the trust hash (trusthash.go): a hook's [hooks.state] key and hash,
//     computed the way Codex computes them, so that doctor can judge trust
//     without starting codex;
//   - the config reader (config.go): the user and the project config.toml,
//     read once and only read, for setup's check of the project's config,
//     remove's forgetting of trust, and doctor's Codex checks.
//
// Every app-server session is bounded by its context: when the context
// ends, or when the session is closed, the app-server's whole process group
// is killed (the npm launcher starts the native binary as a child), so
// nothing is left running.
//
// The package imports neither the agent table nor doctor; both import it.
package codex
