#!/bin/sh
# samemind's pre-compact note for Claude Code's PreCompact hook, written by
# nowhook (https://github.com/nowhook/nowhook) for setup --sources
# samemind=note. Before each compaction it appends one dated line to
# $OKF_ROOT/inbox/mcp.md (default ~/samemind; it must exist): the session,
# where it started, git's branch, HEAD and changed files. It prints
# nothing, never blocks the compaction (it always exits 0 and prints no
# decision) and gives itself at most @TIMEOUT@. Without nowhook on PATH it
# does nothing. NOWHOOK_DEBUG=1 explains on stderr what it did.
NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
export NOWHOOK_GOMAXPROCS GOMAXPROCS
if command -v nowhook-reminder >/dev/null 2>&1; then
	nowhook-reminder --samemind-note --timeout @TIMEOUT@
	exit 0
fi
if command -v nowhook >/dev/null 2>&1; then
	nowhook reminder --samemind-note --timeout @TIMEOUT@
	exit 0
fi
exit 0
