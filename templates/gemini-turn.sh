#!/bin/sh
# Kanbus reminder for Gemini CLI's BeforeModel hook, written by nowhook
# (https://github.com/nowhook/nowhook). Gemini CLI has no event after a
# compression; this hook runs before every model request, and on the first
# request after each compression it adds the team's Kanbus work in progress
# to that request, once; on every other request it prints nothing. It
# always exits 0. Without nowhook on PATH it prints nothing: it runs before
# every request, so it has no python3 fallback.
#
# The gate. Gemini CLI runs the hook as `bash -c COMMAND`, and the command
# sources this file, so that a request with no new compression costs bash's
# builtins only, no program. It reads the start of the request (8 KiB,
# doubled up to 64 KiB) until the end of the history's first message is in.
# After a compression the history starts from the summary, followed by the
# CLI's own "Got it. Thanks for the additional context!"; without that,
# nothing was compressed, and it exits. With it, it looks for the session's
# latch (compressions/gemini-session-$GEMINI_SESSION_ID under
# ${XDG_STATE_HOME:-~/.local/state}/nowhook), which holds the history up to
# the acknowledgement as the last handed-over request had it: found in this
# request, the compression was handed over already, and it exits.
# Otherwise it writes the latch first (a hook killed after that costs this
# compression's reminder, never a second one or a late one) and hands the
# request, the bytes it read and the rest, to the runtime, whose judgement
# decides (it keeps a latch per compression of its own). A first message
# longer than 64 KiB, a session without GEMINI_SESSION_ID, sh or a bash
# older than 4 hand every request over.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
nowhook_turn() {
	NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
	export NOWHOOK_GOMAXPROCS GOMAXPROCS
	if command -v nowhook-reminder >/dev/null 2>&1; then
		nowhook-reminder --timeout @TIMEOUT@ --gemini-turn
		return 0
	fi
	if command -v nowhook >/dev/null 2>&1; then
		nowhook reminder --timeout @TIMEOUT@ --gemini-turn
		return 0
	fi
}
# shellcheck disable=SC3028,SC3045 # bash only: BASH_VERSION is set
if [ -n "${BASH_VERSION-}" ] && [ "${BASH_VERSINFO-0}" -ge 4 ] && [ ! -t 0 ]; then
	nowhook_lc=${LC_ALL-} nowhook_lcset=${LC_ALL+set} LC_ALL=C
	nowhook_ack='"},{"role":"model","content":"Got it. Thanks for the additional context!"}'
	nowhook_h='' nowhook_n=8192 nowhook_eof='' nowhook_l=''
	while :; do
		IFS= read -r -N "$nowhook_n" nowhook_c || nowhook_eof=1
		nowhook_h=$nowhook_h$nowhook_c
		case $nowhook_h in
		*"$nowhook_ack"*) break ;;
		# The first message's end and as much after it as the
		# acknowledgement would take: no compression.
		*'"},{"role":'???????????????????????????????????????????????????????????????*) exit 0 ;;
		esac
		[ -z "$nowhook_eof" ] || exit 0 # all of it: one message, or not a request
		[ ${#nowhook_h} -lt 65536 ] || break
		nowhook_n=${#nowhook_h}
	done
	case $nowhook_h in
	*"$nowhook_ack"*)
		case ${GEMINI_SESSION_ID-} in
		'' | .* | *[!A-Za-z0-9._-]*) ;;
		*)
			case ${XDG_STATE_HOME-} in
			/*) nowhook_l=$XDG_STATE_HOME/nowhook/compressions/gemini-session-$GEMINI_SESSION_ID ;;
			*) case ${HOME-} in /*) nowhook_l=$HOME/.local/state/nowhook/compressions/gemini-session-$GEMINI_SESSION_ID ;; esac ;;
			esac
			;;
		esac
		if [ -n "$nowhook_l" ]; then
			nowhook_s=''
			IFS= read -r -N 65536 nowhook_s 2>/dev/null <"$nowhook_l"
			case $nowhook_s in
			'"messages":['*"$nowhook_ack")
				case $nowhook_h in *"$nowhook_s"*) exit 0 ;; esac
				;;
			esac
			nowhook_s=${nowhook_h#*'"messages":['}
			nowhook_s='"messages":['${nowhook_s%%"$nowhook_ack"*}$nowhook_ack
			(umask 077 && mkdir -p "${nowhook_l%/*}" && printf '%s' "$nowhook_s" >"$nowhook_l") 2>/dev/null
		fi
		;;
	esac
	if [ -n "$nowhook_lcset" ]; then LC_ALL=$nowhook_lc; else unset LC_ALL; fi
	{
		printf '%s' "$nowhook_h"
		exec cat
	} | nowhook_turn
	exit 0
fi
nowhook_turn
exit 0
