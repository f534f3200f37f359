#!/bin/sh
# On a GPU host: the differential fuzzer (docs/CONFORMANCE.md, "The
# differential fuzzer") for SECONDS on every GPU at once.  Each GPU has
# nproc / GPUs workers; worker w takes the seeds FIRST + w, FIRST + w +
# WORKERS, ... of KERNELS random straight-line kernels each (gen.py
# --fuzz), runs them on its GPU (the driver JIT-compiles their PTX) and on
# the emulator, and compares them bit for bit; for a kernel that differs
# it finds the first step that does and whether the GPU agrees with the
# emulator without ptxas's optimiser (isa-lib.sh).  No seed is begun
# after SECONDS.  Writes $OUT/fuzz.tgz (the summary, the reports of seeds
# that differ and their steps) and prints the summary.  Needs build/
# built (make) and nvcc.
#
#   OUT=dir tests/gpu/isa-fuzz.sh SECONDS [FIRST] [KERNELS]
set -u
cd "$(dirname "$0")/../.."
secs=${1:?usage: isa-fuzz.sh SECONDS [FIRST] [KERNELS]}
first=${2:-1000}
kernels=${3:-500}
dest=${OUT:?set OUT to the results folder}
out=build/isa-fuzz-$first
rm -rf "$out" && mkdir -p "$out"
. tests/gpu/isa-lib.sh
isa_tools || exit 1
gpus=$(nvidia-smi -L | grep -c '^GPU')
[ "$gpus" -ge 1 ] || { echo "isa-fuzz: no GPU"; exit 1; }
per=$(($(nproc) / gpus))
[ "$per" -ge 1 ] || per=1
workers=$((gpus * per))
start=$(date +%s)
end=$((start + secs))

worker() { # index
	w=$1 s=$((first + $1))
	export CUDA_VISIBLE_DEVICES=$((w % gpus))
	while [ "$(date +%s)" -lt "$end" ]; do
		d="$out/fuzz-$s" r="$out/report-$s.txt"
		mkdir -p "$d"
		python3 tests/isa/gen.py "$s" "$d" --fuzz "$kernels" &&
			isa_run "$d" >"$r" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ]; then
			for k in $(sed -n 's/^fuzz\([0-9]*\):.*/\1/p' "$r" |
				   head -20); do
				isa_steps "$s" "$k" "$kernels" "$r"
				tail -1 "$r" | grep -q "the optimiser's" &&
					rm -rf "$out/steps-$s-$k"
			done
		else
			rm -f "$r"
		fi
		rm -rf "$d"
		echo "seed $s: exit $rc" >>"$out/seeds-$w.txt"
		s=$((s + workers))
	done
}

w=0
while [ "$w" -lt "$workers" ]; do
	worker "$w" &
	w=$((w + 1))
done
wait
elapsed=$(($(date +%s) - start))
seeds=$(cat "$out"/seeds-*.txt | wc -l)
bad=$(cat "$out"/seeds-*.txt | grep -vc 'exit 0$')
{
	echo "GPUs: $gpus ($(nvidia-smi --query-gpu=name,driver_version \
		--format=csv,noheader | sort | uniq -c | sed 's/^ *//'))"
	echo "workers: $workers, seeds from $first, $kernels kernels each"
	echo "wall: $elapsed s, GPU time: $((elapsed * gpus)) s"
	echo "kernels run: $((seeds * kernels)) in $seeds seeds," \
		"$bad seeds with a difference"
	echo "kernels that differ: $(cat "$out"/report-*.txt 2>/dev/null |
		grep -c '^  fuzz'), of them the optimiser's:" \
		"$(cat "$out"/report-*.txt 2>/dev/null | grep '^  fuzz' |
		grep -c "the optimiser's")"
	echo "the emulator's (differing without the optimiser too):"
	cat "$out"/report-*.txt 2>/dev/null | grep '^  fuzz' |
		grep -v "the optimiser's"
	echo "the optimiser's:"
	cat "$out"/report-*.txt 2>/dev/null | grep '^  fuzz' |
		grep "the optimiser's" | head -100
} >"$out/summary.txt"
# the summary, the reports of the seeds that differ, the steps kept
(cd "$out" && tar czf - --exclude='*/isa.emu.out' summary.txt \
	$(ls -d report-*.txt steps-* 2>/dev/null)) >"$dest/fuzz-$first.tgz"
sed -n '1,/^the optimiser/p' "$out/summary.txt"
