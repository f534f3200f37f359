#!/bin/sh
# Rodinia's CUDA programs as a yardstick of the emulator: build each as
# shipped with 'warpgrade emu' (or, with --native, with nvcc for the GPU
# here), run it at a small size set through its own command line, and
# print one row per program, then the total:
#
#   PASS   its own check passed, or its output matches the reference
#   FAIL   its check failed, its output differs from the reference, it
#          exited non-zero, or the emulator stopped a kernel (a fault)
#   RAN    it ran to the end without a fault, but there is nothing to
#          compare: it prints no result, or no reference was given
#   SAVED  (--native, -r) its output was kept as the reference
#   BUILD  it did not compile or link
#   TIME   over the limit
#   DATA   its input is one of the files of Rodinia's data set, which is
#          not in the git repository (RODINIA_DIR/data/, from the suite's
#          data tarball, or inputs in its formats that
#          tests/emu/rodinia-data.sh writes there); not counted in the
#          total
#
# usage: tests/emu/rodinia.sh [--native] [-t SECONDS] [-r REFDIR]
#                             RODINIA_DIR [NAME...]
#
# RODINIA_DIR is a checkout (or 'git archive' export) of Rodinia 3.1
# (github.com/yuhc/gpu-rodinia) holding cuda/ and, where present, data/.
# NAME restricts the run to the named programs.
#
# Most Rodinia programs check nothing themselves.  For those the output
# (a file, or stdout less the lines that carry times) is compared with
# the same program's output built natively: run once on a GPU with
# --native -r REFDIR, which keeps each output as REFDIR/NAME.out, then
# here with -r REFDIR (default $WG_RODINIA_REF).  The comparison goes
# token by token: words alike, integers equal, other numbers within
# |a - b| <= 1e-4 * max(|a|, |b|) + 1e-5 -- the emulator's approximate
# instructions (ex2, rsqrt, sin under -use_fast_math) are within the
# ISA's error of the GPU's, not bit for bit, and %f prints 6 decimals.
#
# Each program runs in $WG_RODINIA_LOG/run/cuda/DIR (default log
# directory /tmp/wg-rodinia), so that the relative data paths it was
# shipped with ("../../data/...") find RODINIA_DIR/data, and it writes
# nothing into RODINIA_DIR.  Logs: NAME.log (its stdout), NAME.err (its
# stderr, the emulator's messages and, from 'warpgrade emu', the
# compiler's), NAME.build (the native build's messages), NAME.out (what
# was compared).
#
# Quirks, each in the table below (flags, arguments, check, input):
#  - CUDA 13's headers no longer declare cudaThreadSynchronize; every
#    program is built with -DcudaThreadSynchronize=cudaDeviceSynchronize,
#    as PolyBench is.  gaussian prints two cudaDeviceProp fields CUDA 13
#    dropped (clockRate, deviceOverlap); they are read as two other int
#    fields (its device listing only).
#  - Output the program prints only under a switch of its own is turned
#    on with that switch: nw -DTRACEBACK (result.txt), pathfinder
#    -DBENCH_PRINT, srad_v2 -DOUTPUT, lavaMD -DOUTPUT (result.txt).
#  - lavaMD, particlefilter and nn's generator seed rand() (or their own
#    generator) with time(); they are built with a header (fixtime.h,
#    written into the log directory, passed with -include) that makes
#    time() return 1, so that two runs, here and on a GPU, compute the
#    same thing.  Nothing else is changed.
#  - nn's input is made by its own generator, hurricane_gen.c, as its
#    gen_dataset.sh does (42,760 records in 4 files).
#  - backprop and gaussian print no result (gaussian's 'verbose' is 0
#    whatever its flags): RAN at best.
#  - particlefilter_float's normalize_weights_kernel races between its
#    blocks (block 0's thread 0 adds every block's weights into the CDF
#    while block 1 is dividing its own, and block 1 reads the u[0] that
#    block 0 draws): run one after another in index order, as the
#    emulator runs them, its blocks give another result than the H100's;
#    FAIL is expected there, docs/CONFORMANCE.md has the evidence.
#
# Left out:
#  - kmeans, hybridsort, leukocyte, mummergpu: texture references
#    ('texture<float, 1, ...>' bound with cudaBindTexture), which CUDA 12
#    removed; they do not compile with a current toolkit.  hybridsort
#    also includes GLEW's and GLUT's headers (for no GL call).
#    leukocyte also needs its own build of the Meschach library and a
#    video of the data set, mummergpu genome files of the data set.
#  - cfd: 2,000 iterations fixed in the source (no flag) over meshes of
#    97,000 cells or more, 10^11 element updates: no interpreter
#    finishes that in minutes.
#  - heartwall, dwt2d, huffman: inputs from the data set only (a video,
#    a bitmap, a coded file), which is not here to try them on.
#  - hotspot3D's 'opt1.cu' variant: it is the same program.
set -u

here=$(cd "$(dirname "$0")/../.." && pwd)
wg=${WARPGRADE:-$here/bin/warpgrade}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
limit=180
native=0
ref=${WG_RODINIA_REF:-}
while [ $# -gt 0 ]; do
	case $1 in
	--native) native=1; shift ;;
	-t) limit=$2; shift 2 ;;
	-r) ref=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ ! -d "$1/cuda" ]; then
	echo "usage: $0 [--native] [-t SECONDS] [-r REFDIR]" \
	     "RODINIA_DIR [NAME...]" >&2
	exit 2
fi
src=$(cd "$1" && pwd)
shift
log=${WG_RODINIA_LOG:-/tmp/wg-rodinia}
mkdir -p "$log"
log=$(cd "$log" && pwd)
if [ -n "$ref" ]; then
	mkdir -p "$ref" || exit 2
	ref=$(cd "$ref" && pwd)
fi

# name; directory under cuda/; sources; flags; arguments; check; input
#
# check: 'verify:OK:BAD' its own check, passing when its stdout has a
# line matching OK and none matching BAD (grep -E); 'out:FILE' the file
# it writes, against the reference; 'out:-:KEEP' the lines of its stdout
# that match KEEP (grep -E: the results, not the times); 'none' nothing
# to check.  input: '-' none; 'data:PATH...' files of the data set,
# under RODINIA_DIR/data; 'gen:NAME' made by gen_NAME below.  '@' in
# flags stands for the program's directory.
programs() {
	cat <<'EOF'
backprop;backprop;backprop.c facetrain.c imagenet.c backprop_cuda.cu;;65536;none;-
bfs;bfs;bfs.cu;;../../data/bfs/graph4096.txt;out:result.txt;data:bfs/graph4096.txt
b+tree;b+tree;main.c kernel/kernel_gpu_cuda_wrapper.cu kernel/kernel_gpu_cuda_wrapper_2.cu util/timer/timer.c util/num/num.c util/cuda/cuda.cu;;file ../../data/b+tree/mil.txt command ../../data/b+tree/command.txt;out:output.txt;data:b+tree/mil.txt b+tree/command.txt
gaussian;gaussian;gaussian.cu;-DclockRate=l2CacheSize -DdeviceOverlap=asyncEngineCount;-s 64;none;-
hotspot;hotspot;hotspot.cu;;64 2 2 ../../data/hotspot/temp_64 ../../data/hotspot/power_64 output.out;out:output.out;data:hotspot/temp_64 hotspot/power_64
hotspot3D;hotspot3D;3D.cu;;64 8 10 ../../data/hotspot3D/power_64x8 ../../data/hotspot3D/temp_64x8 output.out;out:output.out;data:hotspot3D/power_64x8 hotspot3D/temp_64x8
lavaMD;lavaMD;main.c kernel/kernel_gpu_cuda_wrapper.cu util/num/num.c util/timer/timer.c util/device/device.cu;-DOUTPUT -include fixtime.h;-boxes1d 4;out:result.txt;-
lud;lud;cuda/lud.cu cuda/lud_kernel.cu common/common.c;-I@/common -DGPU_TIMER -use_fast_math;-s 256 -v;verify:>>>Verify<<<<:dismatch;-
myocyte;myocyte;main.cu;;100 1 0;out:output.txt;data:myocyte/y.txt myocyte/params.txt
nn;nn;nn_cuda.cu;;filelist_4 -r 5 -lat 30 -lng 90;out:-:-->;gen:nn
nw;nw;needle.cu;-DTRACEBACK;256 10;out:result.txt;-
particlefilter_float;particlefilter;ex_particle_CUDA_float_seq.cu;-use_fast_math -include fixtime.h;-x 128 -y 128 -z 10 -np 1000;out:-:^(XE|YE): |^[0-9.]+$;-
particlefilter_naive;particlefilter;ex_particle_CUDA_naive_seq.cu;-use_fast_math -include fixtime.h;-x 128 -y 128 -z 10 -np 1000;out:-:^(XE|YE): |^[0-9.]+$;-
pathfinder;pathfinder;pathfinder.cu;-DBENCH_PRINT;1000 100 20;out:-:^[0-9 ]+$;-
srad_v1;srad/srad_v1;main.cu;;10 0.5 502 458;out:image_out.pgm;data:srad/image.pgm
srad_v2;srad/srad_v2;srad.cu;-DOUTPUT;128 128 0 31 0 31 0.5 2;out:-:^[0-9. ]+$;-
streamcluster;streamcluster;streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu;;10 20 16 1024 1024 100 none output.txt 1;out:output.txt;-
EOF
}

# A header that makes time() return 1 (see the quirks above).
cat >"$log/fixtime.h" <<'EOF'
#include <time.h>
#define time(t) ((time_t)1)
EOF

# nn's records, made by its own generator as gen_dataset.sh does, into
# data/nn/ beside the run directory (where filelist_4 looks).
gen_nn() {
	d=$src/cuda/nn
	rm -f "$log/run/data/nn"
	mkdir -p "$log/run/data/nn/data" &&
	cc -O2 -include "$log/fixtime.h" -o "$log/hurricane_gen" \
		"$d/hurricane_gen.c" -lm &&
	(cd "$log/run/data/nn" && "$log/hurricane_gen" 42760 4 &&
	 mv data/cane4_*.db . && rmdir data) &&
	cp "$d/filelist_4" "$run/"
}

# The run tree: data/ holds a link to each of RODINIA_DIR/data's folders,
# so that generated inputs go into folders of our own.
rm -rf "$log/run"
mkdir -p "$log/run/data"
for d in "$src"/data/*/; do
	[ -d "$d" ] && ln -s "$d" "$log/run/data/$(basename "$d")"
done

# filter FILE KEEP: stdout without the emulator's traffic table (from
# its header line on), its lines that match KEEP only
filter() {
	awk '/^kernel +grid +block +launches/ { exit } { print }' "$1" |
		grep -E -- "$2"
}

# same FILE REF: 0 when alike within the tolerance above, else 1 with
# the first difference on stdout
same() {
	awk -v ref="$2" '
	function num(s) {
		return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
	}
	function int_(s) { return s ~ /^[-+]?[0-9]+$/ }
	function abs(x) { return x < 0 ? -x : x }
	function alike(a, b,   m) {
		if (a == b)
			return 1
		if (!num(a) || !num(b) || (int_(a) && int_(b)))
			return 0
		m = abs(a + 0) > abs(b + 0) ? abs(a + 0) : abs(b + 0)
		return abs(a - b) <= 1e-4 * m + 1e-5
	}
	{
		if ((getline line < ref) <= 0) {
			printf "line %d: more output than the reference\n", NR
			bad = 1
			exit 1
		}
		gsub(/[,;:=()\[\]]/, " ")
		gsub(/[,;:=()\[\]]/, " ", line)
		n = split($0, a, /[ \t]+/)
		if (split(line, b, /[ \t]+/) != n) {
			printf "line %d: %d words, the reference %d\n", NR, n,
				split(line, b, /[ \t]+/)
			bad = 1
			exit 1
		}
		for (i = 1; i <= n; i++)
			if (!alike(a[i], b[i])) {
				printf "line %d: %s, the reference %s\n", NR,
					a[i], b[i]
				bad = 1
				exit 1
			}
	}
	END {
		if (bad)
			exit 1
		if ((getline line < ref) > 0) {
			printf "line %d: less output than the reference\n",
				NR + 1
			exit 1
		}
	}' "$1"
}

want() {
	n=$1
	shift
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$n" ] && return 0; done
	return 1
}

# build_and_run NAME DIR SOURCES FLAGS ARGS: the exit status
build_and_run() {
	srcs=
	for s in $3; do srcs="$srcs $src/cuda/$2/$s"; done
	flags="-DcudaThreadSynchronize=cudaDeviceSynchronize \
$(echo "$4" | sed "s|@|$src/cuda/$2|g; s|fixtime.h|$log/fixtime.h|g")"
	# shellcheck disable=SC2086
	if [ "$native" = 1 ]; then
		"$nvcc" -O3 -arch=sm_90 $flags -o "$log/$1.bin" $srcs -lm \
			>"$log/$1.build" 2>&1 || return 250
		(cd "$run" && timeout -s TERM -k 10 "$limit" \
			"$log/$1.bin" $5) >"$log/$1.log" 2>"$log/$1.err"
	else
		(cd "$run" && timeout -s TERM -k 10 "$limit" "$wg" emu \
			$srcs $flags -- $5) >"$log/$1.log" 2>"$log/$1.err"
	fi
}

# judge NAME CHECK STATUS: prints the row's result and note
judge() {
	out=$log/$1.log
	if [ "$3" -eq 124 ] || [ "$3" -eq 137 ]; then
		echo "TIME over ${limit} s"
		return
	fi
	if [ "$3" -eq 250 ] || grep -q \
		'^warpgrade: error: cannot \(compile\|link\)' "$log/$1.err"
	then
		echo "BUILD $(cat "$log/$1.build" "$log/$1.err" 2>/dev/null |
			grep -m1 'error' | cut -c1-60)"
		return
	fi
	# a kernel the emulator stopped, a launch it refused, a call it
	# does not implement ('warpgrade emulator: warning' lines are not)
	fault=$(grep -m1 '^wgemu: ' "$log/$1.err" | cut -c1-70)
	if [ "$3" -ne 0 ]; then
		echo "FAIL  exit $3${fault:+; $fault}"
		return
	fi
	if [ -n "$fault" ]; then
		echo "FAIL  $fault"
		return
	fi
	case $2 in
	verify:*)
		ok=${2#verify:}
		bad=${ok#*:}
		ok=${ok%%:*}
		if grep -Eq -- "$ok" "$out" && ! grep -Eq -- "$bad" "$out"
		then
			echo "PASS  its own check"
		else
			echo "FAIL  its own check: $(grep -Em1 -- "$bad" \
				"$out" | cut -c1-50)"
		fi
		return ;;
	none)
		echo "RAN   prints no result to check"
		return ;;
	esac
	file=${2#out:}
	if [ "${file%%:*}" = - ]; then
		filter "$out" "${file#-:}" >"$log/$1.out"
		file=stdout
	elif [ -f "$run/$file" ]; then
		cp "$run/$file" "$log/$1.out"
	else
		echo "FAIL  wrote no $file"
		return
	fi
	if [ -z "$ref" ]; then
		echo "RAN   no reference to compare with (-r)"
	elif [ "$native" = 1 ]; then
		cp "$log/$1.out" "$ref/$1.out"
		echo "SAVED $ref/$1.out"
	elif [ ! -f "$ref/$1.out" ]; then
		echo "RAN   no reference $ref/$1.out"
	elif diff=$(same "$log/$1.out" "$ref/$1.out"); then
		echo "PASS  output as the reference's"
	else
		echo "FAIL  $file: $diff"
	fi
}

total=0
printf '%-22s %4s  %s\n' program time result
programs | while IFS=';' read -r name dir srcs flags args check input; do
	want "$name" "$@" || continue
	run=$log/run/cuda/$dir
	mkdir -p "$run"
	rm -f "$log/$name".*
	t0=$(date +%s)
	missing=
	case $input in
	data:*)
		for f in ${input#data:}; do
			[ -f "$src/data/$f" ] || missing="$missing data/$f"
		done ;;
	gen:*)
		"gen_${input#gen:}" >"$log/$name.gen" 2>&1 ||
			missing=" (its generator failed: $log/$name.gen)" ;;
	esac
	if [ -n "$missing" ]; then
		printf '%-22s %4s  %s\n' "$name" - "DATA  no$missing"
		continue
	fi
	build_and_run "$name" "$dir" "$srcs" "$flags" "$args"
	rc=$?
	row=$(judge "$name" "$check" $rc)
	printf '%-22s %4s  %s\n' "$name" "$(($(date +%s) - t0))" "$row"
done | tee "$log/summary"
total=$(grep -vc '^program \| DATA ' "$log/summary")
pass=$(grep -c ' PASS ' "$log/summary")
ran=$(grep -c ' RAN \| SAVED ' "$log/summary")
data=$(grep -c ' DATA ' "$log/summary")
echo "$pass of $total pass, $ran ran with nothing to compare" \
	"($([ "$native" = 1 ] && echo native || echo emulator);" \
	"$data without their data; logs in $log)"
[ $((pass + ran)) -eq "$total" ]
