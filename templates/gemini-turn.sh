#!/bin/sh
# Kanbus reminder for Gemini CLI's BeforeModel hook, written by nowhook
# (https://github.com/nowhook/nowhook). Gemini CLI has no event after a
# compression; this hook runs before every model request, and on the first
# request after each compression it adds the team's Kanbus work in progress
# to that request, once, with the other sources it names (nowhook setup
# --sources: @SOURCES@); on every other request it prints nothing. It
# always exits 0. Without nowhook on PATH it prints nothing: it runs before
# every request, so it has no python3 fallback.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
export NOWHOOK_GOMAXPROCS GOMAXPROCS
if command -v nowhook-reminder >/dev/null 2>&1; then
	nowhook-reminder --timeout @TIMEOUT@ --sources @SOURCES@ --gemini-turn
	exit 0
fi
if command -v nowhook >/dev/null 2>&1; then
	nowhook reminder --timeout @TIMEOUT@ --sources @SOURCES@ --gemini-turn
	exit 0
fi
exit 0
