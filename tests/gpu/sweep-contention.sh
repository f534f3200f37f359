#!/bin/sh
# On a GPU host: what processes sharing the GPU cost each other's
# correctness sweeps.  Builds tests/gpu/sweep_cost.cu and runs 1, 4 and
# 16 copies of it at once; each prints microseconds per shape for every
# variant of the runner's calls (see the source).
#
#   tests/gpu/sweep-contention.sh [OUT_DIR [VARIANTS]]
#
# (VARIANTS: sweep_cost's letters, e.g. ef; default all)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
"$nvcc" -O2 -arch=sm_90 -o "$out/sweep_cost" tests/gpu/sweep_cost.cu
for k in 1 4 16; do
	i=1
	while [ "$i" -le "$k" ]; do
		"$out/sweep_cost" ${2:-} >"$out/copies$k-$i.txt" 2>&1 &
		i=$((i + 1))
	done
	wait
	echo "== $k at once (copy 1 of $k)"
	cat "$out/copies$k-1.txt"
done
