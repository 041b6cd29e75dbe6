#!/bin/sh
# Kanbus checkpoint for an agent's PostToolUse and UserPromptSubmit hooks,
# written by nowhook (https://github.com/nowhook/nowhook). When the context
# window is about @AT@% full it tells the agent, once, to write where it
# stands into its in-progress Kanbus issues (kbs comment), so that the
# reminder after the compaction carries it; otherwise it prints nothing.
# It always exits 0. Without nowhook on PATH it prints nothing: it runs on
# every tool call, so it has no python3 fallback.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
export NOWHOOK_GOMAXPROCS GOMAXPROCS
if command -v nowhook-reminder >/dev/null 2>&1; then
	nowhook-reminder --checkpoint --at @AT@ --timeout @TIMEOUT@
	exit 0
fi
if command -v nowhook >/dev/null 2>&1; then
	nowhook reminder --checkpoint --at @AT@ --timeout @TIMEOUT@
	exit 0
fi
exit 0
