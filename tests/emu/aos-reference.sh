#!/bin/sh
# The AoS->SoA reference, with each WG_AOS3_VARIANT given, graded as a
# student's submission on the emulator: it must pass every correctness
# shape and every technique check (coalesced loads and stores), as the
# reference has to.  The submission is reference/aos_to_soa.cu with its
# launcher named as the student's, the chosen variant defined first, and
# the headers it includes.
#
#   tests/emu/aos-reference.sh [VARIANT ...]   (default: 0)
#
# Prints one line per variant; exit status 1 when one of them fails.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
[ $# -gt 0 ] || set -- 0
for v in "$@"; do
	sub=$tmp/v$v
	mkdir -p "$sub"
	cp reference/aos3_vec.cuh reference/tile_transpose.cuh "$sub/"
	{
		echo "#define WG_AOS3_VARIANT $v"
		sed 's/wgref_aos_to_soa/aos_to_soa/' reference/aos_to_soa.cu
	} > "$sub/aos_to_soa.cu"
	bin/warpgrade grade "$sub" --exercise aos_to_soa --backend emu \
		--seed 20261124 --format json --output "$tmp/v$v.json" \
		--quiet 2>"$tmp/v$v.err"
	rc=$?
	line=$(python3 - "$tmp/v$v.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["exercises"][0]
checks = e["technique"]["checks"]
bad = [c["name"] for c in checks if not c["passed"]]
print("%s %s/%s shapes, %s; %s; traffic speedup %s" % (
    e["status"], e["correctness"]["passed"], e["correctness"]["total"],
    "technique passed" if not bad else "FAILED " + ", ".join(bad),
    "; ".join("%s %s" % (c["name"], c["detail"]) for c in checks),
    e["performance"]["speedup"]))
sys.exit(0 if e["status"] == "OK" and not bad else 1)
PY
	) || fail=1
	[ $rc -eq 0 ] || fail=1
	echo "WG_AOS3_VARIANT=$v: $line (exit $rc)"
	[ $rc -eq 0 ] || tail -5 "$tmp/v$v.err"
done
exit $fail
