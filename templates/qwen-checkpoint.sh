#!/bin/sh
# Kanbus checkpoint for Qwen Code's Stop hook, written by nowhook
# (https://github.com/nowhook/nowhook). When the context window is about
# @AT@% full at the end of a turn it tells the agent, once, to write where
# it stands into its in-progress Kanbus issues (kbs comment), so that the
# reminder after the compaction carries it; otherwise it prints nothing.
# It always exits 0. Without nowhook on PATH it prints nothing: it runs
# after every turn, so it has no python3 fallback.
#
# The gate. Qwen Code runs the hook as `bash -c COMMAND`, and the command
# sources this file, so that a turn below the threshold costs bash's
# builtins only, no program. Qwen's Stop payload ends with the context
# use, "context_limit" (the window) and "input_tokens" (the last
# request's); the gate reads the payload (64 KiB at a time, up to 1 MiB)
# and exits where the use is below @AT@% of the window. At or above it, it
# marks the session (checkpoint/qwen-gate-$SESSION under
# ${XDG_STATE_HOME:-~/.local/state}/nowhook) and hands the payload to the
# runtime, which decides and keeps the checkpoint's latch. Below
# @AT@% minus @REFIRE@ (after a compression) a marked session is handed over
# once more, so that the runtime re-arms its latch for the next climb, and
# the mark is cleared. A payload without the use or longer than 1 MiB, a
# session id other than letters, digits, '.', '_' and '-', neither
# XDG_STATE_HOME nor HOME set, sh or a bash older than 4 hand every turn
# over.
# NOWHOOK_DEBUG=1 explains on stderr why nothing was printed. Go gets one
# processor (GOMAXPROCS=1: it starts faster so), and kbs the agent's own;
# the runtime runs as a child, so that the hook exits 0 whatever kbs does.
nowhook_checkpoint() {
	NOWHOOK_GOMAXPROCS=${GOMAXPROCS-none} GOMAXPROCS=1
	export NOWHOOK_GOMAXPROCS GOMAXPROCS
	if command -v nowhook-reminder >/dev/null 2>&1; then
		nowhook-reminder --checkpoint --at @AT@ --refire @REFIRE@ --timeout @TIMEOUT@
		return 0
	fi
	if command -v nowhook >/dev/null 2>&1; then
		nowhook reminder --checkpoint --at @AT@ --refire @REFIRE@ --timeout @TIMEOUT@
		return 0
	fi
}
# sh, a bash older than 4 and a terminal on stdin go to the runtime; in
# bash what follows runs one command at a time, each read only when
# reached, so that a turn below the threshold parses no more than it runs.
if [ -z "${BASH_VERSION-}" ] || [ "${BASH_VERSINFO-0}" -lt 4 ] || [ -t 0 ]; then
	nowhook_checkpoint
	exit 0
fi
# shellcheck disable=SC3028,SC3045,SC3057,SC3054,SC3055 # bash only: BASH_VERSION is set
nowhook_lc=${LC_ALL-} nowhook_lcset=${LC_ALL+set} LC_ALL=C
nowhook_k=0 nowhook_t='' nowhook_eof='' nowhook_m='' nowhook_w='' nowhook_u='' nowhook_v='' nowhook_do=''
# 64 KiB at a time; only the last 512 bytes are looked at.
while [ "$nowhook_k" -lt 16 ]; do
	IFS= read -r -N 65536 nowhook_c || nowhook_eof=1
	nowhook_a[nowhook_k]=$nowhook_c nowhook_k=$((nowhook_k + 1))
	nowhook_t=$nowhook_t$nowhook_c
	[ "${#nowhook_t}" -le 512 ] || nowhook_t=${nowhook_t:${#nowhook_t}-512}
	[ -z "$nowhook_eof" ] || break
done
# A key outside a string follows a , (inside one, a " is \"); the last of
# each is the payload's own, after every nested object.
case $nowhook_eof$nowhook_t in
1*',"context_limit":'[1-9]*',"input_tokens":'[0-9]*)
	nowhook_w=${nowhook_t##*',"context_limit":'} nowhook_u=${nowhook_t##*',"input_tokens":'}
	nowhook_v=${nowhook_w#"${nowhook_w%%[!0-9]*}"} nowhook_w=${nowhook_w%%[!0-9]*}
	case $nowhook_v in ,* | '}'*) ;; *) nowhook_w='' ;; esac
	nowhook_v=${nowhook_u#"${nowhook_u%%[!0-9]*}"} nowhook_u=${nowhook_u%%[!0-9]*}
	case $nowhook_v in ,* | '}'*) ;; *) nowhook_u='' ;; esac
	;;
esac
nowhook_s=${nowhook_a[0]:0:256}
case $nowhook_s in
'{"session_id":"'*)
	nowhook_s=${nowhook_s#'{"session_id":"'} nowhook_s=${nowhook_s%%'"'*}
	case $nowhook_s in
	'' | .* | *[!A-Za-z0-9._-]*) ;;
	*)
		case ${XDG_STATE_HOME-} in
		/*) nowhook_m=$XDG_STATE_HOME/nowhook/checkpoint/qwen-gate-$nowhook_s ;;
		*) case ${HOME-} in /*) nowhook_m=$HOME/.local/state/nowhook/checkpoint/qwen-gate-$nowhook_s ;; esac ;;
		esac
		;;
	esac
	;;
esac
# Up to 15 digits each, so that the products stay within 64 bits.
if [ -n "$nowhook_m" ] && [ -n "$nowhook_w" ] && [ -n "$nowhook_u" ] && [ "${#nowhook_w}" -le 15 ] && [ "${#nowhook_u}" -le 15 ]; then
	if [ $((10#$nowhook_u * 100)) -ge $((@AT@ * 10#$nowhook_w)) ]; then
		nowhook_do=mark
	elif [ $((10#$nowhook_u * 100)) -lt $(((@AT@ - @REFIRE@) * 10#$nowhook_w)) ] && [ -s "$nowhook_m" ]; then
		nowhook_do=rearm
	else
		[ -z "${NOWHOOK_DEBUG-}" ] || printf 'nowhook checkpoint gate: %s of %s tokens, below %s%%: printing nothing\n' "$nowhook_u" "$nowhook_w" @AT@ >&2
		exit 0
	fi
fi
# At or above the threshold the mark goes first (a hook killed after it
# costs one more hand-over after a compression, never a missed re-arm);
# to re-arm, the runtime removes its latch, and then the mark goes.
if [ "$nowhook_do" = mark ]; then
	(umask 077 && { [ -d "${nowhook_m%/*}" ] || mkdir -p "${nowhook_m%/*}"; } && printf '1\n' >"$nowhook_m") 2>/dev/null
fi
if [ -n "$nowhook_lcset" ]; then LC_ALL=$nowhook_lc; else unset LC_ALL; fi
if [ -n "$nowhook_eof" ]; then
	printf '%s' "${nowhook_a[@]}" | nowhook_checkpoint
else
	{
		printf '%s' "${nowhook_a[@]}"
		exec cat
	} | nowhook_checkpoint
fi
if [ "$nowhook_do" = rearm ]; then
	: 2>/dev/null >"$nowhook_m"
fi
exit 0
