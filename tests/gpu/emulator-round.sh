#!/bin/sh
# On a GPU host, one round of the emulator against the GPU: the ISA
# conformance cases and FUZZ_SEEDS x FUZZ_KERNELS fuzz kernels
# (isa-conformance.sh), every probe program (emu-vs-gpu.sh; PROBES=0
# leaves them out), and the GPU's own output of
# tests/emu/probe_halfmath.cu (the reference check_emu holds the
# emulator to).  The results are written under build/gpu-round and
# packed in $OUT/round.tgz (without what the seeds make again).  Needs
# build/ and bin/ built, and nvcc.
#
#   OUT=dir tests/gpu/emulator-round.sh [FUZZ_SEEDS] [FUZZ_KERNELS]
set -u
cd "$(dirname "$0")/../.."
dest=${OUT:?set OUT to the results folder}
out=build/gpu-round
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)
OUT=$out tests/gpu/isa-conformance.sh 1 "${1:-4}" "${2:-500}" \
	>"$out/isa-summary.txt" 2>&1
echo "isa: $(($(date +%s) - start)) s" >>"$out/isa-summary.txt"
"$nvcc" -O2 -arch=sm_90 -o "$out/probe_halfmath" tests/emu/probe_halfmath.cu &&
	"$out/probe_halfmath" >"$out/probe_halfmath.h100" 2>&1
rm -f "$out/probe_halfmath" "$out"/isa-run-* "$out/isa-compare"
[ "${PROBES:-1}" = 0 ] ||
	tests/gpu/emu-vs-gpu.sh >"$out/emu-vs-gpu.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
	>"$out/gpu.txt" 2>&1
# the inputs of the fuzz kernels are the seeds': their outputs and the
# steps of those that differ are what tells
tar czf "$dest/round.tgz" -C "$out" --exclude='fuzz-*/isa.in' \
	--exclude='fuzz-*/isa.ptx' --exclude='fuzz-*/isa.emu.out' \
	--exclude='isa/isa.in' --exclude='isa/isa.ptx' .
cat "$out/isa-summary.txt"
