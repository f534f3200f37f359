#!/bin/bash
# On a GPU host, in one go (about 6 to 8 minutes on an H100 with 16
# cores), what docs/PERFORMANCE.md needs from a GPU for batch grading and
# the AoS->SoA reference:
#
#   1. bench/run-aos: the AoS->SoA candidates against one thread per
#      record (BLOCK=128 and 256) in one run, then the fastest one as
#      the reference through every correctness shape  -> aos.txt
#   2. five grades of tests/fixtures/good one after another (the first
#      also builds the reference objects): warm time and the spread of
#      the timed results alone                         -> grades.txt
#   3. integrations/batch-bench N cuda: N submissions side by side, timed
#      runs taking turns through the GPU lock, its trace kept
#                                                      -> batch.txt
#   4. every result of the batch against its fixture's expected
#      verdicts, the spread of the good fixture's timed results across
#      the batch (graded while other submissions compiled and swept), and
#      what the lock's trace says                      -> summary.txt
#
#   OUT=DIR tests/gpu/batch-and-aos.sh [N]      (N default 100)
#
# Assumes bin/ and build/ were built (make) and that the libraries
# warpgrade needs are found: run it as
#   tests/gpu/device-env.sh .devlibs tests/gpu/batch-and-aos.sh
# STEPS chooses the steps (default "aos grades batch"; "batch" is 3 and
# 4, preceded by an untimed grade that builds the reference objects for
# this GPU when they are not built yet).
set -u
cd "$(dirname "$0")/../.."
n=${1:-100}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
fail=0
log() { echo "$*" | tee -a "$out/summary.txt"; }

{
	q=name,driver_version,persistence_mode,clocks.max.sm,clocks.max.mem
	echo "host: $(nproc) cores;" \
		"$(nvidia-smi --query-gpu=$q --format=csv,noheader 2>&1 |
		   head -1)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ);" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
} | tee "$out/summary.txt"

steps=" ${STEPS:-aos grades batch} "
step() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }

if step aos; then
	log "== 1. AoS->SoA candidates"
	OUT=$out/aos bench/run-aos 40 3 >"$out/aos.txt" 2>&1 || fail=1
	grep -v '^csv,' "$out/aos.txt" | tee -a "$out/summary.txt"
fi

if step grades; then
	log "== 2. five grades of tests/fixtures/good, one after another"
	for i in 1 2 3 4 5; do
		start=$(date +%s.%N)
		bin/warpgrade grade tests/fixtures/good/submission \
			--backend cuda --format json \
			--output "$out/good-$i.json" --quiet \
			2>>"$out/grades.err" || fail=1
		end=$(date +%s.%N)
		log "grade $i: $(awk "BEGIN { print $end - $start }") s"
	done
	python3 tests/gpu/batch_summary.py spread "$out"/good-[1-5].json |
		tee -a "$out/summary.txt" "$out/grades.txt"
fi

step batch || exit $fail
if ! step grades; then
	# the reference objects for this GPU, built outside the timing
	bin/warpgrade grade tests/fixtures/good/submission --backend cuda \
		--exercise dynamic_reverse --format json \
		--output "$out/warm-up.json" --quiet 2>>"$out/grades.err"
fi

log "== 3. integrations/batch-bench $n cuda (side by side, GPU lock)"
rm -f "$out/gpu-lock.trace"
start=$(date +%s.%N)
WARPGRADE_GPU_LOCK_TRACE=$out/gpu-lock.trace BENCH_DIR=$out/batch \
	integrations/batch-bench/run "$n" cuda >"$out/batch.txt" \
	2>"$out/batch.err" || fail=1
end=$(date +%s.%N)
wall=$(awk "BEGIN { print $end - $start }")
head -1 "$out/batch.txt" | tee -a "$out/summary.txt"
grep '^warpgrade batch' "$out/batch.err" | tee -a "$out/summary.txt"

log "== 4. verdicts, the good fixture across the batch, the lock's trace"
python3 tests/gpu/batch_summary.py verdicts "$out/batch/results" \
	tests/fixtures | tee -a "$out/summary.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
python3 tests/gpu/batch_summary.py spread "$out"/batch/results/*-good.json |
	tee -a "$out/summary.txt"
python3 tests/gpu/batch_summary.py trace "$out/gpu-lock.trace" "$wall" |
	tee -a "$out/summary.txt"
exit $fail
