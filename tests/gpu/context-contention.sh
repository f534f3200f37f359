#!/bin/sh
# On a host with two GPUs or more: what a timed runner's context, its
# allocations and its exit cost on the second GPU while the first is
# loaded in several ways -- nothing, the CPU busy, a process keeping the
# first GPU busy, processes creating contexts one after another, and
# processes like correctness sweeps (tests/gpu/context_cost.cu).
#
#   tests/gpu/context-contention.sh [OUT_DIR [N [COPIES]]]
#
# N timed-like processes per case (default 20), COPIES loading processes
# (default 8).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-$(mktemp -d)}
n=${2:-20}
k=${3:-8}
mkdir -p "$out"
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
"$nvcc" -O2 -arch=sm_90 -o "$out/context_cost" tests/gpu/context_cost.cu
cc=$out/context_cost

case_() { # label, then the loading command (run COPIES times) or "none"
	label=$1
	shift
	pids=
	if [ "$1" != none ]; then
		i=0
		while [ "$i" -lt "$k" ]; do
			"$@" >/dev/null 2>&1 &
			pids="$pids $!"
			i=$((i + 1))
		done
		sleep 2
	fi
	echo "== $label"
	"$cc" create 1 "$n"
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	wait
}
case_ "nothing else" none
k0=$k
k=$(nproc)
case_ "the CPU busy ($k loops)" "$cc" cpu 600
k=$k0
case_ "GPU 0 busy ($k processes copying and launching)" "$cc" busy 0 600
case_ "GPU 0: contexts created and gone ($k loops)" "$cc" bare 0 600
case_ "GPU 0: sweep-like processes ($k loops)" "$cc" churn 0 600
