#!/bin/sh
# Kanbus reminder for Gemini CLI's BeforeModel hook, written by nowhook
# (https://github.com/nowhook/nowhook). Gemini CLI has no event after a
# compression; this hook runs before every model request, and on the first
# request after each compression it adds the team's Kanbus work in progress
# to that request, once; on every other request it prints nothing. It
# always exits 0. Without nowhook on PATH it prints nothing: it runs before
# every request, so it has no python3 fallback.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed.
if command -v nowhook-reminder >/dev/null 2>&1; then
	exec nowhook-reminder --timeout @TIMEOUT@ --gemini-turn
fi
if command -v nowhook >/dev/null 2>&1; then
	exec nowhook reminder --timeout @TIMEOUT@ --gemini-turn
fi
exit 0
