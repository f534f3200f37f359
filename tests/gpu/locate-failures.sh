#!/bin/sh
# On a GPU host: the failures a GPU cannot locate by itself, located.
#  1. the end-to-end cases about one bug's feedback, graded on the GPU:
#     each report names the cause, the first failing shape and its
#     index, and the source line, in text and JSON (check_e2e); the
#     out-of-bounds writer of wrong_ld is found by the emulator's rerun
#     of its first failing shape;
#  2. when the toolkit has compute-sanitizer: the out-of-bounds cases
#     quote its memcheck finding (first_failure.sanitizer) and name the
#     line in it.
# Needs bin/ and build/ built (make all build/tests/check_e2e); run from
# the tree's root, under tests/gpu/device-env.sh where the host lacks
# warpgrade's libraries.  Logs go to ${OUT:-a fresh directory}.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
fail=0
cases="wrong_ld oob_edge_tiles host_crash block_per_row strided_store \
unpadded_tile no_dynamic_shared"
if WARPGRADE_TEST_BACKEND=cuda WARPGRADE_TEST_CASES="$cases" \
	build/tests/check_e2e >"$out/e2e.log" 2>&1; then
	echo "ok   end-to-end cases on the GPU: $cases"
else
	echo "FAIL end-to-end cases on the GPU (see $out/e2e.log)"
	grep -E "^tests/|:F:|:E:" "$out/e2e.log" | head -20
	fail=1
fi
if [ ! -x "$cuda/bin/compute-sanitizer" ]; then
	echo "SKIP compute-sanitizer: not in $cuda/bin"
	exit $fail
fi
for c in wrong_ld:31 oob_edge_tiles:26; do
	name=${c%:*}
	line=${c#*:}
	bin/warpgrade grade "tests/fixtures/$name/submission" --backend cuda \
		--seed 20261121 --format json --output "$out/$name.json" \
		2>"$out/$name.err"
	bin/warpgrade grade "tests/fixtures/$name/submission" --backend cuda \
		--seed 20261121 --quiet >"$out/$name.txt" 2>&1
	if python3 - "$out/$name.json" "$line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = [x for x in d["exercises"] if x["name"] == "coalesced_transpose"][0]
ff = e["correctness"]["first_failure"]
q = ff.get("sanitizer", "")
print("  sanitizer:", q.replace("\n", "\n             "))
print("  location:", ff.get("location"))
sys.exit(0 if "coalesced_transpose.cu:" + sys.argv[2] in q else 1)
PY
	then
		echo "ok   $name: compute-sanitizer quoted, line $line"
	else
		echo "FAIL $name: no compute-sanitizer finding at line $line" \
		     "(see $out/$name.txt)"
		fail=1
	fi
done
exit $fail
