#!/bin/sh
# On a GPU host: the emulator against the GPU, instruction by
# instruction, bit for bit (docs/CONFORMANCE.md, "ISA conformance").
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
. tests/gpu/isa-lib.sh
isa_tools || exit 1
mkdir -p "$out/isa"
python3 tests/isa/gen.py "$seed" "$out/isa"
isa_run "$out/isa" >"$out/isa-report.txt" 2>&1
echo "conformance (seed $seed): $(tail -1 "$out/isa-report.txt")"
i=1
while [ "$i" -le "$fuzz_seeds" ]; do
	s=$((seed + i))
	mkdir -p "$out/fuzz-$s"
	python3 tests/isa/gen.py "$s" "$out/fuzz-$s" --fuzz "$fuzz_n"
	isa_run "$out/fuzz-$s" >"$out/fuzz-report-$s.txt" 2>&1
	echo "fuzz seed $s ($fuzz_n kernels): $(tail -1 \
		"$out/fuzz-report-$s.txt")"
	for k in $(sed -n 's/^fuzz\([0-9]*\):.*/\1/p' \
		   "$out/fuzz-report-$s.txt" | head -20); do
		isa_steps "$s" "$k" "$fuzz_n" "$out/fuzz-report-$s.txt"
	done
	grep '^  fuzz' "$out/fuzz-report-$s.txt"
	i=$((i + 1))
done
