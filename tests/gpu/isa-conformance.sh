#!/bin/sh
# On a GPU host: the emulator against the GPU, instruction by
# instruction, bit for bit (docs/EMULATOR.md, "ISA conformance").
# Generates the conformance cases of SEED (tests/isa/gen.py) and FUZZ
# random straight-line kernels of each of the seeds after it, runs them
# on the GPU (the driver API JIT-compiles each case's PTX) and on the
# emulator (build/libwgemu.a), and compares (isa-compare).  Keeps the
# GPU's outputs of the conformance cases in $OUT (isa/isa.gpu.out: the
# reference tests/check_isa.c holds the emulator to), a report, and for
# each fuzz kernel that differs the step where it first does (its
# prefixes in $OUT/steps-SEED-K, with the GPU's outputs: fuzz/isa's
# corpus).
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
# The first step of fuzz kernel K of seed S that differs: its chain's
# prefixes run on both, kept in $out/steps-S-K (the corpus of fuzz/isa),
# and again on the GPU with ptxas not optimising (isa-run -O0): where
# that run agrees with the emulator the difference is the optimiser's
# (a fold or fusion that departs from the PTX), not an instruction's.
first_step() { # report
	sed -n 's/^fuzz[0-9]*\.\([0-9]*\):[^:]*|\([^|:]*\): \(.*\)/step \1 (\2): \3/p;
		s/^fuzz[0-9]*\.\(1\):\([^|:]*\): \(.*\)/step 1 (\2): \3/p' \
		"$1" | head -1
}
steps() { # seed kernel report
	d="$out/steps-$1-$2"
	mkdir -p "$d"
	python3 tests/isa/gen.py "$1" "$d" --fuzz "$fuzz_n" --steps "$2"
	run "$d" >"$d/report.txt" 2>&1
	"$out/isa-run-gpu" -O0 "$d" &&
		"$out/isa-compare" "$d" "$d/isa.gpu-O0.out" "$d/isa.emu.out" \
		>"$d/report-O0.txt" 2>&1
	if [ $? -eq 0 ]; then
		o0="the optimiser's: alike without it"
	else
		o0="without the optimiser too, at $(first_step "$d/report-O0.txt")"
	fi
	echo "  fuzz$2 of seed $1 first differs at: $(first_step \
		"$d/report.txt"); $o0" >>"$3"
}
i=1
while [ "$i" -le "$fuzz_seeds" ]; do
	s=$((seed + i))
	mkdir -p "$out/fuzz-$s"
	python3 tests/isa/gen.py "$s" "$out/fuzz-$s" --fuzz "$fuzz_n"
	run "$out/fuzz-$s" >"$out/fuzz-report-$s.txt" 2>&1
	echo "fuzz seed $s ($fuzz_n kernels): $(tail -1 \
		"$out/fuzz-report-$s.txt")"
	for k in $(sed -n 's/^fuzz\([0-9]*\):.*/\1/p' \
		   "$out/fuzz-report-$s.txt" | head -20); do
		steps "$s" "$k" "$out/fuzz-report-$s.txt"
	done
	grep '^  fuzz' "$out/fuzz-report-$s.txt"
	i=$((i + 1))
done
