#!/bin/sh
# On a GPU host: the emulator against the GPU, instruction by
# instruction, bit for bit (docs/EMULATOR.md, "ISA conformance").
# Generates the conformance cases of SEED (tests/isa/gen.py) and FUZZ
# random straight-line kernels of each of the seeds after it, runs them
# on the GPU (the driver API JIT-compiles each case's PTX) and on the
# emulator (build/libwgemu.a), and compares (isa-compare).  Keeps the
# GPU's outputs of the conformance cases in $OUT (isa.gpu.out: the
# reference tests/check_isa.c holds the emulator to) and a report.
# Needs build/ built (make).
#
#   tests/gpu/isa-conformance.sh [SEED] [FUZZ_SEEDS] [FUZZ_KERNELS]
set -u
cd "$(dirname "$0")/../.."
seed=${1:-1}
fuzz_seeds=${2:-0}
fuzz_n=${3:-500}
out=${OUT:-/tmp}
cuda=${CUDA_HOME:-/usr/local/cuda}
inc="-Iharness -Itests/isa -I$cuda/include"
set -e
"$cuda/bin/nvcc" -O2 -DISA_GPU -x c -Itests/isa -o "$out/isa-run-gpu" \
	tests/isa/run.c tests/isa/isa.c -lcuda
cc -O2 $inc -o "$out/isa-run-emu" tests/isa/run.c tests/isa/isa.c \
	build/libwgemu.a -lstdc++ -lm -lpthread
cc -O2 -Itests/isa -o "$out/isa-compare" tests/isa/compare.c \
	tests/isa/isa.c -lm
set +e
run() { # dir
	"$out/isa-run-gpu" "$1" && WGEMU_QUIET=1 "$out/isa-run-emu" "$1" &&
	"$out/isa-compare" "$1" "$1/isa.gpu.out" "$1/isa.emu.out"
}
mkdir -p "$out/isa"
python3 tests/isa/gen.py "$seed" "$out/isa"
run "$out/isa" >"$out/isa-report.txt" 2>&1
echo "conformance (seed $seed): $(tail -1 "$out/isa-report.txt")"
i=1
while [ "$i" -le "$fuzz_seeds" ]; do
	s=$((seed + i))
	mkdir -p "$out/fuzz-$s"
	python3 tests/isa/gen.py "$s" "$out/fuzz-$s" --fuzz "$fuzz_n"
	run "$out/fuzz-$s" >"$out/fuzz-report-$s.txt" 2>&1
	echo "fuzz seed $s ($fuzz_n kernels): $(tail -1 \
		"$out/fuzz-report-$s.txt")"
	i=$((i + 1))
done
