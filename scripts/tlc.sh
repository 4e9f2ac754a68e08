#!/usr/bin/env bash
# Run TLC by hand with the jar fencelab resolves (TLA2TOOLS_JAR, the verified
# cache, or the pinned download — the logic lives once, in the tlc package).
# Usage, from the repository root:
#   scripts/tlc.sh -workers auto -config specs/DistLock_2c_NoLostUpdate.cfg specs/DistLock.tla
#   scripts/tlc.sh pcal.trans specs/DistLock.tla      # re-translate the PlusCal in place
# TLC writes its states/ metadir in the current folder (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(go run ./cmd/fencelab tlc --print-jar)
main=tlc2.TLC
if [[ ${1:-} == pcal.trans ]]; then
	main=pcal.trans
	shift
	set -- -nocfg "$@"
fi
# A private java.io.tmpdir: TLC unpacks its standard modules there, and
# concurrent runs sharing one report false parse errors.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
java -XX:+UseParallelGC -Djava.io.tmpdir="$tmp" -cp "$jar" "$main" "$@"
