#!/bin/bash
# Run one libFuzzer target in JOBS parallel processes for SECONDS each,
# sharing CORPUS (a directory, grown in place), on a many-core host.
# Writes SUMMARY (per-job final statistics, the CPU time used, and any
# finding) and copies crash/leak/timeout/oom inputs next to it; the
# per-job logs stay in a scratch directory (a target that prints errors
# writes a lot).  Exit status 1 when anything was found.
#
#   fuzz/parallel.sh TARGET CORPUS SECONDS JOBS SUMMARY [libFuzzer options]
set -u
target=$(realpath "$1") corpus=$(realpath "$2") secs=$3 jobs=$4
summary=$(realpath -m "$5")
shift 5
# the jobs run in a scratch directory: options naming files need
# absolute paths
opts=()
for o in "$@"; do
	case $o in
	-dict=*) opts+=("-dict=$(realpath "${o#-dict=}")") ;;
	*) opts+=("$o") ;;
	esac
done
scratch=$(mktemp -d)
cd "$scratch" || exit 2
start=$(date +%s)
"$target" -jobs="$jobs" -workers="$jobs" -max_total_time="$secs" \
	-timeout=10 -print_final_stats=1 "${opts[@]}" "$corpus" >driver.log 2>&1
rc=$?
end=$(date +%s)
# user and system CPU time of the fuzzing processes (this shell's children)
times >times.txt	# not in a pipeline: a subshell has no children
read -r cu cs < <(tail -1 times.txt | tr 'ms' '  ' |
	awk '{ printf "%.0f %.0f\n", $1 * 60 + $2, $3 * 60 + $4 }')
{
	echo "target $(basename "$target"), $jobs jobs x $secs s, exit $rc"
	[ "$rc" -eq 0 ] || tail -5 driver.log
	echo "wall $((end - start)) s; CPU of the jobs: user $cu s, system $cs s"
	for f in fuzz-*.log; do
		[ -e "$f" ] || continue
		echo "== $f"
		grep -a -E '^stat::|^Done|^INFO: Loaded|ERROR|SUMMARY|Test unit written' \
			"$f" | grep -v 'INFO: Loaded 1 module' | tail -12
	done
	echo "corpus: $(ls "$corpus" | wc -l) files"
} >"$summary"
found=0
for a in crash-* leak-* timeout-* oom-* slow-unit-*; do
	[ -e "$a" ] || continue
	cp "$a" "$(dirname "$summary")/"
	found=1
done
rm -rf "$scratch"
cat "$summary"
exit $found
