#!/bin/sh
# Kanbus checkpoint for an agent's PostToolUse and UserPromptSubmit hooks,
# written by nowhook (https://github.com/nowhook/nowhook). When the context
# window is about @AT@% full it tells the agent, once, to write where it
# stands into its in-progress Kanbus issues (kbs comment), so that the
# reminder after the compaction carries it; otherwise it prints nothing.
# It always exits 0. Without nowhook on PATH it prints nothing: it runs on
# every tool call, so it has no python3 fallback.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed.
if command -v nowhook-reminder >/dev/null 2>&1; then
	exec nowhook-reminder --checkpoint --at @AT@ --timeout @TIMEOUT@
fi
if command -v nowhook >/dev/null 2>&1; then
	exec nowhook reminder --checkpoint --at @AT@ --timeout @TIMEOUT@
fi
exit 0
