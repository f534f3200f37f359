#!/bin/sh
# On a GPU host: where one warm grade's time goes.  A first grade builds
# the reference objects for the GPU and the emulator; then ROUNDS warm
# grades of the same submission that compile afresh
# (WARPGRADE_OBJECT_CACHE=0: a new submission's case), then one regrade
# from the object cache.  Prints each grade's wall seconds and its
# --timings; keeps the JSON results (with "timings") in $OUT (default
# /tmp).  Assumes bin/ and build/ were built; on a host without the
# build's packages run it through tests/gpu/device-env.sh.  WARPGRADE
# names another build's binary (e.g. an older tree's, for a baseline on
# the same machine) and TAG prefixes the result files.
#
#   tests/gpu/warm-grade.sh [SUBMISSION_DIR] [ROUNDS]
set -eu
cd "$(dirname "$0")/../.."
sub=${1:-tests/fixtures/good/submission}
rounds=${2:-3}
out=${OUT:-/tmp}
wg=${WARPGRADE:-bin/warpgrade}
tag=${TAG:-warm-grade}
mkdir -p "$out"
echo "warm-grade: $(nproc) cores, $(nvidia-smi --query-gpu=name \
	--format=csv,noheader 2>/dev/null | head -1 || echo 'no nvidia-smi')"

grade() { # label cache(0|1)
	s=$(date +%s.%N)
	rc=0
	WARPGRADE_OBJECT_CACHE=$2 "$wg" grade "$sub" --backend cuda \
		--seed 20261125 --timings --format json \
		--output "$out/$tag-$1.json" 2>"$out/$tag-$1.timings" ||
		rc=$?
	e=$(date +%s.%N)
	echo "== $1: $(echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }') s wall" \
		"(exit $rc)"
	cat "$out/$tag-$1.timings"
}

grade first 0
i=1
while [ "$i" -le "$rounds" ]; do
	grade "warm-$i" 0
	i=$((i + 1))
done
grade cached 1
