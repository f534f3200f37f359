#!/bin/bash
# On a host with several GPUs, what docs/PERFORMANCE.md needs for grading
# across them, in one go:
#
#   1. the GPU probe's list                            -> summary.txt
#   2. warm grades of tests/fixtures/good spread over every GPU (--jobs
#      4), then on the first GPU alone, then there with the probe run
#      before the builds (WARPGRADE_PROBE_CACHE=0): wall seconds, and
#      the GPU that timed each exercise
#   3. integrations/batch-bench N cuda on every GPU: wall seconds, the
#      verdicts against the fixtures, the lock trace per GPU (timed holds
#      of one GPU never overlap; with the GPUs in pairs all are on the
#      timing GPUs); with FRAMES=1, where a timed hold's time goes (the
#      frame trace, which writes a line per shape)
#   4. the same batch on the first GPU alone (CUDA_VISIBLE_DEVICES set to
#      its uuid), for the ratio on the same host
#   shared (only when named in STEPS): the batch of step 3 with every
#      GPU both sweeping and timing (WARPGRADE_GPU_ROLES=shared) instead
#      of in pairs, for comparison on the same host
#   connections (only when named in STEPS): the batch of step 3 with
#      contexts of the driver's default connections instead of one
#      (WARPGRADE_CUDA_CONNECTIONS=0, grader/gpus.h), and every speedup
#      of both batches compared
#   handoff (only when named in STEPS): warm grades on the first GPU
#      alone, alternately with the timed turns handed over at a runner's
#      end of timing and at its exit (WARPGRADE_TURN_HANDOFF=exit), five
#      of each
#
#   OUT=DIR tests/gpu/multi-gpu.sh [N]      (N default 100)
#
# Assumes bin/ and build/ were built; run it through
# tests/gpu/device-env.sh LIBDIR where the host lacks the build's
# packages.  STEPS chooses the steps (default "grades all one").
set -u
cd "$(dirname "$0")/../.."
n=${1:-100}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
fail=0
log() { echo "$*" | tee -a "$out/summary.txt"; }
steps=" ${STEPS:-grades all one} "
step() { case "$steps" in *" $1 "*) return 0 ;; esac; return 1; }
{
	echo "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version \
		--format=csv,noheader 2>&1 | sort | uniq -c | tr -s ' ')"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ);" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "== 1. the probe"
	build/wg-probe
} | tee "$out/summary.txt"
first=$(build/wg-probe | awk '$1 == "gpu" { print $3; exit }')
[ -n "$first" ] || { log "no GPU listed"; exit 1; }

# the reference objects for this GPU, built outside the timing
bin/warpgrade grade tests/fixtures/good/submission --backend cuda \
	--exercise dynamic_reverse --format json \
	--output "$out/warm-up.json" --quiet 2>>"$out/grades.err"

grades() { # label, then the environment for the grades
	local label=$1
	shift
	for i in ${ROUNDS:-1 2 3}; do
		s=$(date +%s.%N)
		env "$@" WARPGRADE_OBJECT_CACHE=0 bin/warpgrade grade \
			tests/fixtures/good/submission --backend cuda \
			--seed 20261125 --timings --format json \
			--output "$out/$label-$i.json" --quiet \
			2>"$out/$label-$i.timings" || fail=1
		e=$(date +%s.%N)
		log "$label grade $i: $(awk "BEGIN { print $e - $s }") s;" \
		    "timed on: $(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("; ".join("%s %s" % (x["name"],
      x["performance"].get("gpu", "?").split("(")[-1].split(",")[0])
      for x in d["exercises"]))' "$out/$label-$i.json")"
	done
}
if step grades; then
	log "== 2. warm grades of tests/fixtures/good over every GPU," \
	    "then on the first alone, then probed first"
	grades spread
	grades alone CUDA_VISIBLE_DEVICES="$first"
	grades alone-probed CUDA_VISIBLE_DEVICES="$first" \
		WARPGRADE_PROBE_CACHE=0
fi

if step handoff; then
	log "== warm grades on the first GPU, turns handed over at the end" \
	    "of timing and at exit, alternately"
	for r in 1 2 3 4 5; do
		ROUNDS=$r grades handoff CUDA_VISIBLE_DEVICES="$first"
		ROUNDS=$r grades handoff-exit CUDA_VISIBLE_DEVICES="$first" \
			WARPGRADE_TURN_HANDOFF=exit
	done
fi

batch() { # label, then the environment for the batch
	local label=$1
	shift
	rm -f "$out/$label.trace" "$out/$label.frames"
	s=$(date +%s.%N)
	env "$@" WARPGRADE_GPU_LOCK_TRACE="$out/$label.trace" \
		WARPGRADE_FRAME_TRACE="${FRAMES:+$out/$label.frames}" \
		BENCH_DIR="$out/$label" integrations/batch-bench/run "$n" cuda \
		>"$out/$label.txt" 2>"$out/$label.err" || fail=1
	e=$(date +%s.%N)
	wall=$(awk "BEGIN { print $e - $s }")
	head -1 "$out/$label.txt" | tee -a "$out/summary.txt"
	grep '^warpgrade batch' "$out/$label.err" | tee -a "$out/summary.txt"
	python3 tests/gpu/batch_summary.py verdicts "$out/$label/results" \
		tests/fixtures | tail -3 | tee -a "$out/summary.txt"
	python3 tests/gpu/batch_summary.py trace "$out/$label.trace" "$wall" |
		tee -a "$out/summary.txt"
	[ -z "${FRAMES:-}" ] || python3 tests/gpu/batch_summary.py frames \
		"$out/$label.frames" "$out/$label.trace" |
		tee -a "$out/summary.txt"
	python3 -c 'import json,sys,glob,collections
c=collections.Counter()
for p in glob.glob(sys.argv[1] + "/*.json"):
    for x in json.load(open(p)).get("exercises", []):
        g = x.get("performance", {}).get("gpu")
        if g: c[g.split("(")[-1].split(",")[0]] += 1
print("exercises timed per GPU:", dict(c))' "$out/$label/results" |
		tee -a "$out/summary.txt"
}
if step all; then
	log "== 3. $n submissions on every GPU"
	batch all
fi
if step shared; then
	log "== $n submissions on every GPU, each GPU sweeping and timing"
	batch all-shared WARPGRADE_GPU_ROLES=shared
fi
if step connections; then
	log "== $n submissions on every GPU, contexts of the driver's" \
	    "default connections (WARPGRADE_CUDA_CONNECTIONS=0)"
	batch all-connections WARPGRADE_CUDA_CONNECTIONS=0
	[ ! -d "$out/all/results" ] ||
		python3 tests/gpu/batch_summary.py compare \
			"$out/all-connections/results" "$out/all/results" |
		tee -a "$out/summary.txt"
fi
if step one; then
	log "== 4. $n submissions on the first GPU alone ($first)"
	batch one CUDA_VISIBLE_DEVICES="$first"
fi
exit $fail
