#!/bin/sh
# Run each program given (default: tests/emu/probe*.cu) on the GPU and on
# the emulator and compare what they print: the emulator must compute
# what the hardware computes.  Needs a GPU, nvcc and bin/warpgrade.
#
#   tests/gpu/emu-vs-gpu.sh [program.cu ...]
set -u
cd "$(dirname "$0")/../.."
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
gpu=$(build/wg-probe) || { echo "emu-vs-gpu: no usable GPU: $gpu"; exit 1; }
arch=$(echo "$gpu" | awk 'NR == 1 { print "sm_" $2 $3 }')
tmp=$(mktemp -d)
fail=0
[ $# -gt 0 ] || set -- tests/emu/probe*.cu
for prog in "$@"; do
	name=$(basename "$prog" .cu)
	if ! "$nvcc" -O2 -arch="$arch" -o "$tmp/$name" "$prog"; then
		echo "FAIL $name: does not compile for $arch"
		fail=1
		continue
	fi
	"$tmp/$name" >"$tmp/$name.gpu" 2>/dev/null
	# warpgrade emu prints the program's output, then its counters
	WGEMU_QUIET=1 bin/warpgrade emu "$prog" >"$tmp/$name.emu.all" \
		2>"$tmp/$name.emu.err"
	sed '/^$/,$d' "$tmp/$name.emu.all" >"$tmp/$name.emu"
	if cmp -s "$tmp/$name.gpu" "$tmp/$name.emu"; then
		echo "ok   $name: $(head -c 200 "$tmp/$name.gpu")"
	else
		echo "FAIL $name: the emulator and the GPU differ"
		diff "$tmp/$name.gpu" "$tmp/$name.emu" | head -10
		[ -s "$tmp/$name.emu" ] ||
			{ echo "the emulator's run:"; head -5 "$tmp/$name.emu.err"; }
		fail=1
	fi
done
rm -rf "$tmp"
exit $fail
