#!/bin/sh
# On a GPU host: the special-function unit's tables and the check of the
# emulator's model of it over every input (tests/gpu/mufu_tables.cu),
# whether the tables are the ones in harness/emu/vm/mufu/, and the GPU's
# output of tests/emu/probe_mathlib.cu (the CUDA math library, which
# check_isa holds the emulator to).  Packs the tables (xz), the report and
# the probe's output in $OUT/mufu.tar.  Needs nvcc, and xz or python3.
#
#   OUT=dir tests/gpu/mufu-round.sh
set -u
cd "$(dirname "$0")/../.."
dest=${OUT:?set OUT to the results folder}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
work=$(mktemp -d)
report=$work/mufu-report.txt
unxz() { # file.xz: to stdout
	if command -v xz >/dev/null 2>&1; then xz -dc "$1"; else python3 -c \
	'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' \
	"$1"; fi
}
pack() { # files: each to file.xz
	if command -v xz >/dev/null 2>&1; then xz -T0 -9e "$@"; else
	for f; do python3 -c 'import lzma,sys; d=open(sys.argv[1],"rb").read()
open(sys.argv[1]+".xz","wb").write(lzma.compress(d,preset=9|lzma.PRESET_EXTREME))' \
	"$f" && rm -f "$f"; done; fi
}
"$nvcc" -O2 -arch=sm_90 -o "$work/mufu_tables" tests/gpu/mufu_tables.cu &&
	"$work/mufu_tables" "$work" >"$report" 2>&1
echo "mufu_tables: exit $?" >>"$report"
for f in "$work"/*.bin; do
	name=$(basename "$f" .bin)
	if unxz "harness/emu/vm/mufu/$name.xz" | cmp -s - "$f"; then
		echo "table $name: the one in harness/emu/vm/mufu" >>"$report"
	else
		echo "table $name: DIFFERS from harness/emu/vm/mufu" >>"$report"
	fi
done
"$nvcc" -O2 -arch=sm_90 -o "$work/probe_mathlib" tests/emu/probe_mathlib.cu &&
	"$work/probe_mathlib" >"$work/probe_mathlib.gpu" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
	>"$work/gpu.txt" 2>&1
pack "$work"/*.bin "$work/probe_mathlib.gpu"
rm -f "$work/mufu_tables" "$work/probe_mathlib"
tar cf "$dest/mufu.tar" -C "$work" .
grep -v 'exponent field' "$report"
cat "$work/gpu.txt"
