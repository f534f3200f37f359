#!/bin/sh
# NVIDIA's cuda-samples as a yardstick of the emulator: build each
# runtime-API sample as shipped with 'warpgrade emu', run it, and print
# one row per sample (PASS, FAIL: the sample's own check failed or it
# exited non-zero, BUILD: it did not compile or link, TIME: over the time
# limit) and the total.
#
# usage: tests/emu/cuda-samples.sh [-t SECONDS] CUDA_SAMPLES_DIR [NAME...]
#
# CUDA_SAMPLES_DIR is a checkout (or 'git archive' export) of
# github.com/NVIDIA/cuda-samples holding Samples/ and Common/.  NAME
# restricts the run to the named samples.  A sample fails when it exits
# non-zero or prints FAIL or mismatch (the tensor core samples' check).  The samples are the
# self-checking ones of 0_Introduction, 2_Concepts_and_Techniques,
# 3_CUDA_Features, 5_Domain_Specific and 6_Performance that need only the
# runtime API on one device: no graphics interop, NVRTC, driver API, MPI,
# peer-to-peer, IPC or device-side launch (CDP).  Sizes are reduced
# through the samples' own flags (the ARGS column below); where a sample
# has none, a documented edit (the EDIT column, a sed script applied to a
# copy of its .cu files) shrinks the size its #defines fix -- the tensor
# core samples multiply 4096x4096 or larger matrices, 10^11 multiply-adds
# no interpreter does in minutes, and are built with their own
# CPU_DEBUG check on.  A sample without an edit runs in its own
# directory, so it finds its data files as it does when built there.  Output of each sample goes to
# $WG_SAMPLES_LOG (default /tmp/wg-samples) as NAME.log.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wg=${WARPGRADE:-$here/bin/warpgrade}
limit=180
while [ $# -gt 0 ]; do
	case $1 in
	-t) limit=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ ! -d "$1/Samples" ]; then
	echo "usage: $0 [-t SECONDS] CUDA_SAMPLES_DIR [NAME...]" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
shift
log=${WG_SAMPLES_LOG:-/tmp/wg-samples}
mkdir -p "$log"

# sample directory | arguments (the sample's own flags) | extra compiler
# flags | edit (a sed script for a copy of the sample's .cu files)
samples() {
	cat <<'EOF'
0_Introduction/asyncAPI||
0_Introduction/clock||
0_Introduction/cudaOpenMP||-Xcompiler -fopenmp -lgomp
0_Introduction/fp16ScalarProduct||
0_Introduction/matrixMul|-wA=128 -hA=128 -wB=128 -hB=128|
0_Introduction/mergeSort||
0_Introduction/simpleAWBarrier||
0_Introduction/simpleAssert||
0_Introduction/simpleAtomicIntrinsics||
0_Introduction/simpleAttributes||
0_Introduction/simpleCallback||
0_Introduction/simpleCooperativeGroups||
0_Introduction/simpleCubemapTexture||
0_Introduction/simpleHyperQ||
0_Introduction/simpleLayeredTexture||
0_Introduction/simpleMultiCopy||
0_Introduction/simpleMultiGPU||
0_Introduction/simpleOccupancy||
0_Introduction/simplePitchLinearTexture||
0_Introduction/simplePrintf||
0_Introduction/simpleStreams||
0_Introduction/simpleSurfaceWrite||
0_Introduction/simpleTemplates||
0_Introduction/simpleTexture||
0_Introduction/simpleVoteIntrinsics||
0_Introduction/simpleZeroCopy||
0_Introduction/systemWideAtomics||
0_Introduction/template||
0_Introduction/vectorAdd||
0_Introduction/UnifiedMemoryStreams||-Xcompiler -fopenmp -lgomp
2_Concepts_and_Techniques/convolutionSeparable||
2_Concepts_and_Techniques/convolutionTexture||
2_Concepts_and_Techniques/dct8x8||
2_Concepts_and_Techniques/eigenvalues|-matrix-size=512 -iters-timing=1|
2_Concepts_and_Techniques/histogram||
2_Concepts_and_Techniques/inlinePTX||
2_Concepts_and_Techniques/interval||
2_Concepts_and_Techniques/radixSortThrust|-n=65536|
2_Concepts_and_Techniques/reduction|-n=1048576|
2_Concepts_and_Techniques/reductionMultiBlockCG|-n=1048576|
2_Concepts_and_Techniques/scalarProd||
2_Concepts_and_Techniques/scan||
2_Concepts_and_Techniques/segmentationTreeThrust||
2_Concepts_and_Techniques/shfl_scan||
2_Concepts_and_Techniques/sortingNetworks||
2_Concepts_and_Techniques/streamOrderedAllocation||
2_Concepts_and_Techniques/threadFenceReduction|-n=1048576|
3_CUDA_Features/StreamPriorities||
3_CUDA_Features/binaryPartitionCG||
3_CUDA_Features/globalToShmemAsyncCopy|-wA=128 -hA=128 -wB=128 -hB=128|
3_CUDA_Features/graphMemoryFootprint||
3_CUDA_Features/graphMemoryNodes||
3_CUDA_Features/jacobiCudaGraphs||
3_CUDA_Features/newdelete||
3_CUDA_Features/simpleCudaGraphs||
3_CUDA_Features/warpAggregatedAtomicsCG||
3_CUDA_Features/bf16TensorCoreGemm||-DCPU_DEBUG=1|s/^#define \([MNK]\)_TILES [0-9]*/#define \1_TILES 16/
3_CUDA_Features/cudaTensorCoreGemm||-DCPU_DEBUG=1|s/^#define \([MNK]\)_TILES [0-9]*/#define \1_TILES 16/
3_CUDA_Features/dmmaTensorCoreGemm||-DCPU_DEBUG=1|s/^#define \([MNK]\)_TILES [0-9]*/#define \1_TILES 16/
3_CUDA_Features/immaTensorCoreGemm||-DCPU_DEBUG=1|s/^#define \([MNK]\)_TILES [0-9]*/#define \1_TILES 16/
3_CUDA_Features/tf32TensorCoreGemm||-DCPU_DEBUG=1|s/^#define \([MNK]\)_TILES [0-9]*/#define \1_TILES 16/
5_Domain_Specific/BlackScholes||
5_Domain_Specific/HSOpticalFlow||
5_Domain_Specific/MonteCarloMultiGPU||
5_Domain_Specific/SobolQRNG|-vectors=10000 -dimensions=10|
5_Domain_Specific/binomialOptions||
5_Domain_Specific/convolutionFFT2D||
5_Domain_Specific/dxtc||
5_Domain_Specific/fastWalshTransform||
5_Domain_Specific/quasirandomGenerator||
5_Domain_Specific/stereoDisparity||
6_Performance/LargeKernelParameter||
6_Performance/alignedTypes||
6_Performance/transpose|-dimX=512 -dimY=512|
EOF
}

# Does 'warpgrade emu' take -I?  (Older builds read the include path
# from $CPATH only.)
if "$wg" emu --help 2>&1 | grep -q -- '-I DIR'; then
	incl="-I$src/Common"
else
	incl=
	CPATH=$src/Common${CPATH:+:$CPATH}
	export CPATH
fi

# run_one DIR ARGS FLAGS EDIT: prints "NAME RESULT SECONDS"
run_one() {
	dir=$src/Samples/$1
	name=${1##*/}
	out=$log/$name.log
	if [ -n "$4" ]; then
		rm -rf "$log/src/$name"
		mkdir -p "$log/src"
		cp -R "$dir" "$log/src/$name"
		dir=$log/src/$name
		sed -i -e "$4" "$dir"/*.cu
	fi
	files=$(cd "$dir" && ls *.cu *.cpp *.c 2>/dev/null | tr '\n' ' ')
	t0=$(date +%s)
	# shellcheck disable=SC2086
	(cd "$dir" && timeout -s TERM -k 10 "$limit" "$wg" emu $incl $3 \
		$files -- $2) >"$out" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		res=TIME
	elif grep -q '^warpgrade: error: cannot \(compile\|link\)' "$out"; then
		res=BUILD
	elif [ $rc -ne 0 ] || grep -q 'FAIL\|mismatch' "$out"; then
		res=FAIL
	else
		res=PASS
	fi
	printf '%-28s %-6s %4ss\n' "$name" "$res" "$t"
}

want() {
	n=$1
	shift
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$n" ] && return 0; done
	return 1
}

list=$(samples)
total=0
pass=0
printf '%-28s %-6s %5s\n' sample result time
printf '%s\n' "$list" | while IFS='|' read -r d a f e; do
	want "${d##*/}" "$@" || continue
	run_one "$d" "$a" "$f" "$e"
done | tee "$log/summary"
total=$(wc -l <"$log/summary")
pass=$(grep -c ' PASS ' "$log/summary")
echo "passed $pass of $total (logs in $log)"
