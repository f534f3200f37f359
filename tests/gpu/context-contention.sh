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
# (default 8).  Each GPU has a keeper (a context doing nothing), as in
# a batch.  CASES=connections instead compares contexts of one
# connection (CUDA_DEVICE_MAX_CONNECTIONS=1) with the default, for the
# loading processes and for the timed ones.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-$(mktemp -d)}
n=${2:-20}
k=${3:-8}
mkdir -p "$out"
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
"$nvcc" -O2 -arch=sm_90 -o "$out/context_cost" tests/gpu/context_cost.cu
cc=$out/context_cost
timed=$cc
one="env CUDA_DEVICE_MAX_CONNECTIONS=1"
# a keeper on each GPU, as a batch has (grader/gpukeep.h)
"$cc" hold 0 3600 & keep0=$!
"$cc" hold 1 3600 & keep1=$!
trap 'kill $keep0 $keep1 2>/dev/null || true' EXIT
sleep 1

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
	$timed create 1 "$n"
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	for p in $pids; do wait "$p" || true; done
}
if [ "${CASES:-}" = connections ]; then
	# the loading processes one, two and eight at a time (a batch's
	# sweeps create about three contexts a second)
	case_ "nothing else" none
	for k in 1 2 8; do
		case_ "GPU 0: contexts created and gone ($k loops)" \
			"$cc" bare 0 600
		case_ "the same, each with one connection" $one "$cc" bare 0 600
	done
	timed="$one $cc"
	case_ "nothing else; the timed ones with one connection" none
	case_ "GPU 0: 8 loops of contexts, all with one connection" \
		$one "$cc" bare 0 600
	exit 0
fi
case_ "nothing else" none
k0=$k
k=$(nproc)
case_ "the CPU busy ($k loops)" "$cc" cpu 600
k=$k0
case_ "GPU 0 busy ($k processes copying and launching)" "$cc" busy 0 600
case_ "GPU 0: contexts created and gone ($k loops)" "$cc" bare 0 600
case_ "GPU 0: sweep-like processes ($k loops)" "$cc" churn 0 600
