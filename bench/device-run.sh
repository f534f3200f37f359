#!/usr/bin/env bash
# What ran on the GPU machine (through the device tool) to tune and measure
# the reference kernels: the tuning sweep, compute-sanitizer on the
# correctness sweep, then bench/run-bench (build, correctness, timing, ncu,
# docs/PERFORMANCE.md).  $OUT (default build/bench/out) receives
# run-bench.log, the updated PERFORMANCE.md and logs.tar.gz (everything
# else under build/bench: the sweep's log, ncu CSV, sanitizer logs).
# usage: bench/device-run.sh [--no-variants] [--no-sanitize]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-build/bench/out}
mkdir -p "$OUT" build/bench
logs=build/bench/logs
rm -rf "$logs"
mkdir -p "$logs"
variants=--variants
sanitize=1
for a in "$@"; do
	case "$a" in
	--no-variants) variants= ;;
	--no-sanitize) sanitize=0 ;;
	esac
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | tee "$logs/gpu.txt"
if [ -n "$variants" ]; then
	# Counters of the tuning variants (built by run-bench below; build
	# it here first so that this runs before the long part).
	nvcc -O3 -std=c++17 -arch=sm_90 -o build/bench/variants bench/variants.cu &&
	ncu --metrics "$(sed -n 's/^metrics+*=,*//p' bench/run-bench | paste -sd,)" \
		--clock-control none --csv --page raw \
		build/bench/variants --ncu "$logs/variants-ncu-labels.txt" \
		>"$logs/variants-ncu.csv" 2>"$logs/variants-ncu.err" &&
	python3 bench/ncu_summary.py "$logs/variants-ncu.csv" \
		"$logs/variants-ncu-labels.txt" | tee "$logs/variants-ncu.md"
fi
bench/run-bench $variants --reps 50 2>&1 | tee "$OUT/run-bench.log"
rc=${PIPESTATUS[0]}
if [ "$sanitize" = 1 ]; then
	CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
	for tool in memcheck racecheck; do
		small=
		[ $tool = racecheck ] && small=--small
		timeout 150 "$CS" --tool $tool --error-exitcode 9 \
			build/bench/bench --check-only $small >"$logs/sanitize-$tool.log" 2>&1
		echo "compute-sanitizer $tool: exit $?" | tee -a "$OUT/run-bench.log"
		tail -n 5 "$logs/sanitize-$tool.log"
	done
fi
cp build/bench/*.log build/bench/*.md build/bench/ncu* "$logs/" 2>/dev/null
tar -czf "$OUT/logs.tar.gz" -C build/bench logs
cp docs/PERFORMANCE.md "$OUT/" 2>/dev/null
exit $rc
