#!/bin/sh
# Kanbus summary hint for Claude Code's PreCompact hook, written by nowhook
# (https://github.com/nowhook/nowhook). It prints the ids and titles of the
# in-progress Kanbus issues for the summariser to keep verbatim, or
# nothing. It never blocks the compaction: it always exits 0, prints no
# decision, and gives kbs at most @TIMEOUT@. Without nowhook on PATH it
# prints nothing. NOWHOOK_DEBUG=1 explains on stderr why.
if command -v nowhook-reminder >/dev/null 2>&1; then
	exec nowhook-reminder --hint --timeout @TIMEOUT@
fi
if command -v nowhook >/dev/null 2>&1; then
	exec nowhook reminder --hint --timeout @TIMEOUT@
fi
exit 0
