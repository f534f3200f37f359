#!/bin/bash
# On a GPU host: grade every fixture under tests/fixtures on the GPU and
# compare with its expected verdicts; also time the good submission end
# to end (nvcc included).  TEXT=0 skips the second grade of each, which
# keeps its text report.  Writes logs to ${OUT:-/tmp}/.  Assumes bin/ and
# build/ were built (elsewhere if need be) and LD_LIBRARY_PATH finds
# libarchive and jansson.
set -u
out=${OUT:-/tmp}
mkdir -p "$out"
backend=${BACKEND:-cuda}
fail=0
for dir in tests/fixtures/*/; do
	name=$(basename "$dir")
	[ -f "$dir/expected" ] || continue
	# "backend B": the verdicts hold on B only; "env K=V": under it
	only=$(awk '$1 == "backend" { print $2 }' "$dir/expected")
	if [ -n "$only" ] && [ "$only" != "$backend" ]; then
		echo "skip $name: its verdicts are the $only backend's"
		continue
	fi
	fenv=$(awk '$1 == "env" { print $2 }' "$dir/expected")
	start=$(date +%s%N)
	env $fenv bin/warpgrade grade "$dir/submission" --backend "$backend" \
		--format json --output "$out/fixture-$name.json" --seed 12345 \
		2>"$out/fixture-$name.err"
	rc=$?
	end=$(date +%s%N)
	ms=$(( (end - start) / 1000000 ))
	[ "${TEXT:-1}" = 0 ] ||
		bin/warpgrade grade "$dir/submission" --backend "$backend" \
			--seed 12345 --quiet >"$out/fixture-$name.txt" 2>&1 ||
			true
	verdicts=$(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (e["name"], e["status"]) for e in d["exercises"]))
' "$out/fixture-$name.json" 2>/dev/null)
	bad=""
	while read -r ex want; do
		# "<exercise> <STATUS>" lines; the others (failure, line,
		# says, ...) are for the tests here
		case "$ex" in
		coalesced_transpose|padded_tile|aos_to_soa|dynamic_reverse) ;;
		*) continue ;;
		esac
		case " $verdicts " in
		*" $ex=$want "*) ;;
		*) bad="$bad $ex(want $want)" ;;
		esac
	done <"$dir/expected"
	if [ -n "$bad" ]; then
		fail=1
		echo "FAIL $name rc=$rc ${ms}ms: $verdicts; mismatched:$bad"
	else
		echo "ok   $name rc=$rc ${ms}ms: $verdicts"
	fi
done
exit $fail
