#!/bin/sh
# On a GPU host: the GPU's own launch records at work.  Grades the good
# fixture on the GPU (technique from the records of the GPU's launches)
# and runs chosen cases of the exploit corpus on the GPU (default: those
# about records, streams and the timed call).  Assumes bin/ and build/
# (with build/tests/check_exploits) were built; on a host without the
# build's packages run it through tests/gpu/device-env.sh.  Results go to
# $OUT (default /tmp).
#
#   tests/gpu/record-check.sh [CASE ...]
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
cases=${*:-"texture_input graph_on_stream event_joined_stream
call_count_switch_timed call_count_switch copy_dilution own_word_staging
dynamic_64k private_stream memset_then_tile"}
bin/warpgrade grade tests/fixtures/good/submission --backend cuda \
	--seed 20261126 --format json --output "$out/good-cuda.json" \
	--timings 2>"$out/good-cuda.err"
echo "good fixture on the GPU: exit $?"
python3 - "$out/good-cuda.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["exercises"]:
    checks = "; ".join("%s %s" % (c["name"], "pass" if c["passed"] else
                                   "FAIL: " + c.get("detail", ""))
                       for c in e["technique"]["checks"])
    print("%-20s %-4s %6.2f  %s" % (e["name"], e["status"], e["score"],
                                     checks))
PY
WARPGRADE_TEST_BACKEND=cuda WARPGRADE_EXPLOITS="$(echo $cases)" \
	build/tests/check_exploits >"$out/exploits-cuda.log" 2>&1
echo "exploit cases on the GPU: $(tail -1 "$out/exploits-cuda.log")"
grep -E '^(tests/|SKIP)|: ok' "$out/exploits-cuda.log" | cut -c1-400
