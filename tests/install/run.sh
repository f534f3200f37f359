#!/bin/sh
# `make install` as a user sees it, for `make check`: install into a
# DESTDIR, check what went where (the reference sources readable by the
# owner alone), grade a fixture on the emulator with the installed
# warpgrade from another working directory, find its man page through
# PATH as `man warpgrade` does, grade through the Gradescope autograder
# with the installed warpgrade as its setup.sh installs it, then `make
# uninstall` and check that no file is left.  (The installed warpgrade
# finds its data beside itself, so a DESTDIR install under the default
# PREFIX grades like a `make install PREFIX=$(mktemp -d)` one, without
# relinking the tree's bin/warpgrade while other tests run it.)
#
#   tests/install/run.sh        from the top of the tree, after make
set -eu
cd "$(dirname "$0")/../.."
top=$(pwd)
make=${MAKE:-make}
T=$(mktemp -d /tmp/wg-install-XXXXXX)
# like /usr/local: the sandboxed replay runs from the data directory
# under another uid
chmod 0755 "$T"
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: install test: $*" >&2
	exit 1
}
prefix=/usr/local
dest=$T/dest
data=$dest$prefix/lib/warpgrade

$make -s --no-print-directory install DESTDIR="$dest" PREFIX=$prefix \
	>"$T/install.log" 2>&1 || fail "make install: $(cat "$T/install.log")"
for f in bin/warpgrade share/man/man1/warpgrade.1 \
	share/man/man1/warpgrade-batch.1 share/man/man1/warpgrade-slurm.1 \
	lib/warpgrade/build/libwgemu.a lib/warpgrade/build/wg-probe \
	lib/warpgrade/exercises/padded_tile/padded_tile.h \
	lib/warpgrade/harness/runner_kernels.cu; do
	[ -f "$dest$prefix/$f" ] || fail "not installed: $prefix/$f"
done
mode=$(stat -c %a "$data/reference")
[ "$mode" = 700 ] || fail "reference/ is mode $mode, not 700"
for f in "$data"/reference/*; do
	mode=$(stat -c %a "$f")
	[ "$mode" = 600 ] || fail "$f is mode $mode, not 600"
done

# From another directory, with nothing pointing at the tree.
unset WARPGRADE_ROOT
out=$T/result.json
(cd / && "$dest$prefix/bin/warpgrade" grade \
	"$top/tests/fixtures/missing/submission" --backend emu --seed 7 \
	--format json --output "$out" --quiet) ||
	fail "the installed warpgrade did not grade (exit $?)"
python3 - "$out" <<'PY' || fail "wrong verdicts from the installed warpgrade"
import json, sys
r = json.load(open(sys.argv[1]))
got = [e["status"] for e in r["exercises"]]
assert got == ["OK", "OK", "MISSING", "MISSING"], got
PY
# its objects were compiled into the installed cache
ls "$data/build/cache/emu/"*.o >/dev/null 2>&1 ||
	fail "nothing compiled into $prefix/lib/warpgrade/build/cache"
if command -v man >/dev/null 2>&1; then
	# man derives its path from PATH (<prefix>/bin -> <prefix>/share/man)
	for page in warpgrade warpgrade-grade warpgrade-slurm; do
		env -u MANPATH PATH="$dest$prefix/bin:$PATH" \
			man -w "$page" >/dev/null 2>&1 ||
			fail "man does not find $page(1) through PATH"
	done
fi

# The Gradescope autograder, running the installed warpgrade from /.
if command -v bash >/dev/null 2>&1; then
	ag=$T/autograder
	mkdir -p "$ag/submission"
	cp tests/fixtures/compile_error/submission/aos_to_soa.cu "$ag/submission/"
	AUTOGRADER_ROOT=$ag WARPGRADE=$dest$prefix/bin/warpgrade \
		integrations/gradescope/run_autograder >"$T/ag.log" 2>&1 ||
		fail "run_autograder: $(cat "$T/ag.log")"
	python3 - "$ag/results/results.json" <<'PY' ||
import json, sys
r = json.load(open(sys.argv[1]))
assert "CE" in r["output"], r["output"]
PY
		fail "run_autograder with the installed warpgrade: no verdict"
fi

$make -s --no-print-directory uninstall DESTDIR="$dest" PREFIX=$prefix \
	>"$T/uninstall.log" 2>&1 ||
	fail "make uninstall: $(cat "$T/uninstall.log")"
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -e "$data" ] || fail "make uninstall left $prefix/lib/warpgrade"
echo "PASS: make install, grade from /, man pages through PATH, the Gradescope" \
	"autograder with the installed warpgrade, make uninstall"
