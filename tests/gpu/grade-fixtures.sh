#!/bin/bash
# On a GPU host: grade every fixture under tests/fixtures on the GPU and
# compare with its expected verdicts; also time the good submission end
# to end (nvcc included).  Writes logs to ${OUT:-/tmp}/.  Assumes bin/ and
# build/ were built (elsewhere if need be) and LD_LIBRARY_PATH finds
# libarchive and jansson.
set -u
out=${OUT:-/tmp}
backend=${BACKEND:-cuda}
fail=0
for dir in tests/fixtures/*/; do
	name=$(basename "$dir")
	[ -f "$dir/expected" ] || continue
	start=$(date +%s%N)
	bin/warpgrade grade "$dir/submission" --backend "$backend" \
		--format json --output "$out/fixture-$name.json" --seed 12345 \
		2>"$out/fixture-$name.err"
	rc=$?
	end=$(date +%s%N)
	ms=$(( (end - start) / 1000000 ))
	bin/warpgrade grade "$dir/submission" --backend "$backend" \
		--seed 12345 --quiet >"$out/fixture-$name.txt" 2>&1 || true
	verdicts=$(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (e["name"], e["status"]) for e in d["exercises"]))
' "$out/fixture-$name.json" 2>/dev/null)
	bad=""
	while read -r ex want; do
		case "$ex" in ""|"#"*|score) continue ;; esac
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
