#!/bin/sh
# PolyBench/GPU (PolyBench-ACC's CUDA programs) as a yardstick of the
# emulator: build each program as shipped with 'warpgrade emu' (or, with
# --native, with nvcc for the GPU here), run it, and print one row per
# program: PASS (its own check, the CPU's result against the GPU's
# within 0.05 percent, finds no mismatch), FAIL (mismatches, or a
# non-zero exit), BUILD (it did not compile or link), TIME (over the
# limit), then the total.
#
# usage: tests/emu/polybench.sh [--native] [-t SECONDS] [-d DATASET]
#                               POLYBENCH_ACC_DIR [NAME...]
#
# POLYBENCH_ACC_DIR is a checkout (or 'git archive' export) of
# github.com/cavazos-lab/PolyBench-ACC holding CUDA/.  The size is the
# suite's own dataset define (-d: MINI, the default, SMALL, STANDARD
# ...).  Every program is built with -DcudaThreadSynchronize=
# cudaDeviceSynchronize: CUDA 13's headers no longer declare the old
# name, and the two calls are the same.  Nothing else is changed.
# Logs go to $WG_POLYBENCH_LOG (default /tmp/wg-polybench) as NAME.log.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wg=${WARPGRADE:-$here/bin/warpgrade}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
limit=180
dataset=MINI
native=0
while [ $# -gt 0 ]; do
	case $1 in
	--native) native=1; shift ;;
	-t) limit=$2; shift 2 ;;
	-d) dataset=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ ! -d "$1/CUDA/utilities" ]; then
	echo "usage: $0 [--native] [-t SECONDS] [-d DATASET]" \
	     "POLYBENCH_ACC_DIR [NAME...]" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
shift
log=${WG_POLYBENCH_LOG:-/tmp/wg-polybench}
mkdir -p "$log"
flags="-I$src/CUDA/utilities -D${dataset}_DATASET \
-DcudaThreadSynchronize=cudaDeviceSynchronize"

pass=0
total=0
for cu in $(cd "$src/CUDA" && find . -name '*.cu' | sort); do
	name=$(basename "$cu" .cu)
	dir=$src/CUDA/$(dirname "$cu")
	if [ $# -gt 0 ] && ! echo " $* " | grep -q " $name "; then
		continue
	fi
	total=$((total + 1))
	start=$(date +%s)
	# shellcheck disable=SC2086
	if [ "$native" = 1 ]; then
		(cd "$dir" && "$nvcc" -O3 -arch=sm_90 $flags -o "$log/$name" \
			"$name.cu" >"$log/$name.build" 2>&1 &&
		 timeout "$limit" "$log/$name" >"$log/$name.log" 2>&1)
	else
		(cd "$dir" && WGEMU_QUIET=1 timeout "$limit" "$wg" emu \
			"$name.cu" $flags >"$log/$name.log" 2>"$log/$name.build")
	fi
	rc=$?
	secs=$(($(date +%s) - start))
	bad=$(sed -n 's/.*\(Percent: \|misses: \)\([0-9]*\).*/\2/p' \
		"$log/$name.log" | awk '{ s += $1 } END { print s + 0 }')
	checked=$(grep -c 'Percent: \|misses: ' "$log/$name.log")
	if [ $rc -eq 124 ]; then
		row="TIME  over ${limit} s"
	elif ! grep -q 'GPU Time' "$log/$name.log" && [ $rc -ne 0 ]; then
		row="BUILD $(grep -m1 'error' "$log/$name.build")"
	elif [ $rc -ne 0 ] || [ "$checked" -eq 0 ] || [ "$bad" -ne 0 ]; then
		row="FAIL  exit $rc, $bad mismatches"
	else
		row="PASS"
		pass=$((pass + 1))
	fi
	printf '%-16s %4s s  %s\n' "$name" "$secs" "$row"
done
echo "$pass of $total pass ($dataset dataset, $([ "$native" = 1 ] &&
	echo native || echo emulator))"
[ "$pass" -eq "$total" ]
