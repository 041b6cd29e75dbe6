#!/bin/sh
# Kanbus summary hint for Claude Code's PreCompact hook, written by nowhook
# (https://github.com/nowhook/nowhook). It prints the ids and titles of the
# in-progress Kanbus issues for the summariser to keep verbatim, or
# nothing. It never blocks the compaction: it always exits 0, prints no
# decision, and gives kbs at most @TIMEOUT@. Without nowhook on PATH it
# prints nothing. NOWHOOK_DEBUG=1 explains on stderr why. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
export NOWHOOK_GOMAXPROCS GOMAXPROCS
if command -v nowhook-reminder >/dev/null 2>&1; then
	nowhook-reminder --hint --timeout @TIMEOUT@
	exit 0
fi
if command -v nowhook >/dev/null 2>&1; then
	nowhook reminder --hint --timeout @TIMEOUT@
	exit 0
fi
exit 0
