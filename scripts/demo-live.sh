#!/bin/sh
# make demo's live part: fencelab-live matrix --service etcd --runs 1 with
# its result cached by content, as go test caches a test's: the key is a
# SHA-256 over the fencelab-live binary's bytes (the harness, the lock
# recipes and the embedded etcd server are all in it; go build stamps the
# commit in it too) and the matrix's flags. A run that exited 0 is kept:
# its stdout, its exit code and its --out folder, with a SHA-256 of each.
# An unchanged binary prints the kept run, saying "(cached …)", and puts
# its folder's files back; NOCACHE=1 (make demo NOCACHE=1) runs it again. A kept
# run that is damaged is ignored: the matrix runs.
#
# The cache is $FENCELAB_CACHE/live, else fencelab/live in the user's
# cache folder ($XDG_CACHE_HOME, else ~/.cache), beside TLC's results.
#
# usage: scripts/demo-live.sh BIN OUT     (OUT: the matrix's --out folder)
set -u
bin=$1
out=$2
flags="matrix --service etcd --runs 1 --seed 1"

# With no FENCELAB_CACHE, XDG_CACHE_HOME nor HOME (a bare cron job or
# container) there is no cache folder to name: the part runs uncached.
if [ -n "${FENCELAB_CACHE:-}" ]; then cache=$FENCELAB_CACHE/live
elif [ -n "${XDG_CACHE_HOME:-}" ]; then cache=$XDG_CACHE_HOME/fencelab/live
elif [ -n "${HOME:-}" ]; then cache=$HOME/.cache/fencelab/live
else cache=
fi
store=yes
case $cache in
/*) ;;
'') echo "make demo: the live part is not cached: no FENCELAB_CACHE, XDG_CACHE_HOME nor HOME to keep it in" >&2
	NOCACHE=1 store= ;;
*) # as fencelab: a cache that is not an absolute path is no cache
	echo "make demo: the live part is not cached: FENCELAB_CACHE must be an absolute path" >&2
	NOCACHE=1 store= ;;
esac
key=$( { sha256sum <"$bin" && echo "$flags" && echo "demo-live v1"; } | sha256sum | cut -c1-64)
entry=$cache/$key

# A kept run whose every file matches its sums, else nothing.
if [ -z "${NOCACHE:-}" ] && [ -f "$entry/sums" ] && (cd "$entry" && sha256sum --quiet --status -c sums 2>/dev/null) &&
	mkdir -p "$out" && tar -xf "$entry/out.tar" -C "$out"; then
	cat "$entry/stdout"
	echo "make demo: the live etcd matrix (cached: this fencelab-live binary ran it with these flags at $(cat "$entry/when"), $(cat "$entry/took") ms; make demo NOCACHE=1 reruns)"
	exit 0
fi

t0=$(date +%s%N)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fencelab-live-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT
trap 'rm -rf "$tmp"; exit 143' TERM
# shellcheck disable=SC2086 # the flags are words
"$bin" $flags --out "$out" >"$tmp/stdout"
code=$?
took=$(( ($(date +%s%N) - t0) / 1000000 ))
cat "$tmp/stdout"
echo "make demo: the live etcd matrix took $took ms"
if [ $code -eq 0 ] && [ -d "$out" ] && [ -n "$store" ]; then
	# Kept whole or not at all: written beside the entry, then renamed.
	mkdir -p "$cache" &&
		tar -cf "$tmp/out.tar" -C "$out" . && date -u '+%Y-%m-%d %H:%M:%S UTC' >"$tmp/when" && echo "$took" >"$tmp/took" &&
		(cd "$tmp" && sha256sum stdout out.tar when took >sums) &&
		new=$(mktemp -d "$cache/.new-XXXXXX") && cp "$tmp/stdout" "$tmp/out.tar" "$tmp/when" "$tmp/took" "$tmp/sums" "$new/" &&
		{ rm -rf "$entry"; mv -T "$new" "$entry" 2>/dev/null || rm -rf "$new"; }
fi
exit $code
