#!/bin/sh
# On a GPU host: a launcher that launches on a non-blocking stream of its
# own and returns without waiting is still judged on its finished output.
# The correctness sweep runs small shapes in batches whose copies back are
# ordered after the runner's stream and the blocking streams only
# (harness/runner_sweep.c); a call that launched elsewhere is waited for
# at once.  The good fixture's coalesced_transpose, moved to such a
# stream, must pass every correctness shape.  Needs bin/ and build/
# built; run under tests/gpu/device-env.sh where the host lacks the
# build's libraries.
#
#   tests/gpu/own-stream.sh
set -eu
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT INT TERM
mkdir "$t/sub"
cp tests/fixtures/good/submission/*.cu "$t/sub/"
sed -i 's|transpose_tiled<<<grid, block, 0, stream>>>|static cudaStream_t own;\n\tif (!own)\n\t\tcudaStreamCreateWithFlags(\&own, cudaStreamNonBlocking);\n\ttranspose_tiled<<<grid, block, 0, own>>>|' \
	"$t/sub/coalesced_transpose.cu"
grep -q 'cudaStreamNonBlocking' "$t/sub/coalesced_transpose.cu"
bin/warpgrade grade "$t/sub" --backend cuda --exercise coalesced_transpose \
	--format json --output "$t/result.json" --quiet || true
python3 - "$t/result.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["exercises"][0]
c = e.get("correctness") or {}
line = "%s: %s, correctness %s/%s" % (e["name"], e["status"],
                                     c.get("passed"), c.get("total"))
ok = c.get("passed") is not None and c.get("passed") == c.get("total")
print(("ok   " if ok else "FAIL ") + "own non-blocking stream: " + line)
sys.exit(0 if ok else 1)
PY
