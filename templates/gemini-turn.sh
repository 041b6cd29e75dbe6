#!/bin/sh
# Kanbus reminder for Gemini CLI's BeforeModel hook, written by nowhook
# (https://github.com/nowhook/nowhook). Gemini CLI has no event after a
# compression; this hook runs before every model request, and on the first
# request after each compression it adds the team's Kanbus work in progress
# to that request, once, with the other sources it names (nowhook setup
# --sources: @SOURCES@); on every other request it prints nothing. It
# always exits 0. Without nowhook on PATH it prints nothing: it runs before
# every request, so it has no python3 fallback.
#
# The gate. Gemini CLI runs the hook as `bash -c COMMAND`, and the command
# sources this file, so that a request with no new compression costs bash's
# builtins only, no program. It reads the start of the request (4 KiB at a
# time, up to 64 KiB) until the end of the history's first message is in.
# After a compression the history starts from the summary, followed by the
# CLI's own "Got it. Thanks for the additional context!"; without that,
# nothing was compressed, and it exits. With it, it looks for the session's
# latch (compressions/gemini-session-$GEMINI_SESSION_ID under
# ${XDG_STATE_HOME:-~/.local/state}/nowhook), which holds where the
# acknowledgement ended in the last request handed over and the bytes
# before that point (the first message's last KiB: the summary's end): the
# same bytes at the same place in this request, and the compression was
# handed over already; it exits.
# Otherwise it writes the latch first (a hook killed after that costs this
# compression's reminder, never a second one or a late one) and hands the
# request, the bytes it read and the rest, to the runtime, whose judgement
# decides (it keeps a latch per compression of its own). A first message
# longer than 64 KiB, a session without GEMINI_SESSION_ID, sh or a bash
# older than 4 hand every request over.
#
# One reminder whatever the layers: where Gemini CLI's managed settings
# run nowhook's managed gate (/usr/local/libexec/nowhook/gemini-turn.sh),
# that gate prints, and a project's or user's gate hands the request over
# all the same, but the runtime prints nothing for it (--script names the
# gate that runs: this file, which bash, sourcing it, gives as
# BASH_SOURCE). The managed gate keeps a latch of its own
# (gemini-managed-session-$GEMINI_SESSION_ID), so that another gate's latch,
# written for a hand-over that printed nothing, never silences it.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
# shellcheck disable=SC3028 # BASH_SOURCE is unset outside bash: then $0
nowhook_self=${BASH_SOURCE-$0}
nowhook_turn() {
	NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
	export NOWHOOK_GOMAXPROCS GOMAXPROCS
	if command -v nowhook-reminder >/dev/null 2>&1; then
		nowhook-reminder --timeout @TIMEOUT@ --sources @SOURCES@ --gemini-turn --script "$nowhook_self"
		return 0
	fi
	if command -v nowhook >/dev/null 2>&1; then
		nowhook reminder --timeout @TIMEOUT@ --sources @SOURCES@ --gemini-turn --script "$nowhook_self"
		return 0
	fi
}
# shellcheck disable=SC3028,SC3045,SC3057,SC3054,SC3055 # bash only: BASH_VERSION is set
if [ -n "${BASH_VERSION-}" ] && [ "${BASH_VERSINFO-0}" -ge 4 ] && [ ! -t 0 ]; then
	nowhook_lc=${LC_ALL-} nowhook_lcset=${LC_ALL+set} LC_ALL=C
	nowhook_ack='"},{"role":"model","content":"Got it. Thanks for the additional context!"}' nowhook_nl='
'
	nowhook_k=0 nowhook_t='' nowhook_eof='' nowhook_l='' nowhook_acked=''
	# 4 KiB at a time (a pipe's read), each looked at with the end of the
	# one before: only the bytes read are kept, and each is scanned once.
	while :; do
		IFS= read -r -N 4096 nowhook_c || nowhook_eof=1
		nowhook_a[nowhook_k]=$nowhook_c nowhook_k=$((nowhook_k + 1))
		case $nowhook_t$nowhook_c in
		*'"},{"role":'*)
			case $nowhook_t$nowhook_c in
			*"$nowhook_ack"*) nowhook_acked=1 && break ;;
			# The first message's end and as much after it as the
			# acknowledgement would take: no compression.
			*'"},{"role":'???????????????????????????????????????????????????????????????*) exit 0 ;;
			esac
			;;
		esac
		[ -z "$nowhook_eof" ] || exit 0 # all of it: one message, or not a request
		[ "$nowhook_k" -lt 16 ] || break  # 64 KiB
		nowhook_t=${nowhook_c: -128}
	done
	if [ -n "$nowhook_acked" ]; then
		case ${GEMINI_SESSION_ID-} in
		'' | .* | *[!A-Za-z0-9._-]*) ;;
		*)
			nowhook_g=gemini-session
			[ ! "$nowhook_self" -ef /usr/local/libexec/nowhook/gemini-turn.sh ] || nowhook_g=gemini-managed-session
			case ${XDG_STATE_HOME-} in
			/*) nowhook_l=$XDG_STATE_HOME/nowhook/compressions/$nowhook_g-$GEMINI_SESSION_ID ;;
			*) case ${HOME-} in /*) nowhook_l=$HOME/.local/state/nowhook/compressions/$nowhook_g-$GEMINI_SESSION_ID ;; esac ;;
			esac
			;;
		esac
		if [ -n "$nowhook_l" ]; then
			# The latch: where the acknowledgement ends in the request
			# (bytes), a newline, and the request's bytes before that
			# point, from the first message's last KiB at most.
			nowhook_s=''
			IFS= read -r -N 2048 nowhook_s 2>/dev/null <"$nowhook_l"
			nowhook_o=${nowhook_s%%[!0-9]*} nowhook_s=${nowhook_s#*"$nowhook_nl"}
			case $nowhook_o:$nowhook_s in
			[1-9]*:*?"$nowhook_ack")
				# The 4 KiB chunk that holds the latch's last byte, and
				# the one before: the latch is shorter than one.
				nowhook_n=$(((nowhook_o - 1) / 4096))
				if [ "$nowhook_n" -lt "$nowhook_k" ]; then
					nowhook_m=${nowhook_a[nowhook_n]}
					[ "$nowhook_n" -eq 0 ] || nowhook_m=${nowhook_a[nowhook_n - 1]}$nowhook_m nowhook_n=$((nowhook_n - 1))
					[ "${nowhook_m:nowhook_o-4096*nowhook_n-${#nowhook_s}:${#nowhook_s}}" != "$nowhook_s" ] || exit 0
				fi
				;;
			esac
			printf -v nowhook_h '%s' "${nowhook_a[@]}"
			nowhook_o=0 nowhook_m=${#nowhook_h}
			while [ "$nowhook_o" -lt "$nowhook_m" ]; do # the shortest start that holds it
				nowhook_n=$(((nowhook_o + nowhook_m) / 2))
				case ${nowhook_h:0:nowhook_n} in
				*"$nowhook_ack"*) nowhook_m=$nowhook_n ;;
				*) nowhook_o=$((nowhook_n + 1)) ;;
				esac
			done
			nowhook_s=${nowhook_h#*'"messages":['}
			nowhook_n=$((nowhook_o - ${#nowhook_h} + ${#nowhook_s}))
			[ "$nowhook_n" -le $((1024 + ${#nowhook_ack})) ] || nowhook_n=$((1024 + ${#nowhook_ack}))
			(umask 077 && mkdir -p "${nowhook_l%/*}" &&
				printf '%s\n%s' "$nowhook_o" "${nowhook_h:nowhook_o-nowhook_n:nowhook_n}" >"$nowhook_l") 2>/dev/null
		fi
	fi
	if [ -n "$nowhook_lcset" ]; then LC_ALL=$nowhook_lc; else unset LC_ALL; fi
	{
		printf '%s' "${nowhook_a[@]}"
		exec cat
	} | nowhook_turn
	exit 0
fi
nowhook_turn
exit 0
