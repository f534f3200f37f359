#!/bin/sh
# Inputs for the six Rodinia programs of tests/emu/rodinia.sh that read
# files of Rodinia's data set (bfs, b+tree, hotspot, hotspot3D, srad_v1,
# myocyte), written into RODINIA_DIR/data/ at the small sizes that
# rodinia.sh's table names.
#
# usage: tests/emu/rodinia-data.sh [-f] RODINIA_DIR
#
# These are NOT the data set: the data set is a separate download that is
# not in Rodinia's git repository (nor in the mirror here), and its
# generators (bfs's graphgen, hotspot's) are not in it either.  The files
# written here have the data set's names and formats, as the programs
# read them, with contents made up here, so that each program builds,
# runs and can be compared with a native run of itself on the same file;
# a result on them says nothing of a result on the data set.
#
# Deterministic: every value comes from one Park-Miller generator
# (x = 16807 x mod 2^31 - 1, exact in awk's doubles) with a fixed seed
# per file, and floats are printed with printf, so any awk on any host
# writes the same bytes.  A file already there is left alone, since it
# may be the data set's own; -f writes it over.
#
#   bfs/graph4096.txt        4,096 nodes; each draws 2 to 4 edges to
#                            random nodes, weight 1 to 10, kept in both
#                            directions (so 4 to 8 edges a node on
#                            average, as the data set's graphs); source 0
#   b+tree/mil.txt           10,000 keys drawn from 1..20,000, so about
#                            half the program's random queries (keys up
#                            to the count) hit
#   b+tree/command.txt       "j 6000 3000" and "k 10000", the data set's
#                            commands
#   hotspot/temp_64          64 x 64 temperatures, 323 to 342 K
#   hotspot/power_64         64 x 64 powers, 0 to 0.001, hot squares
#                            four times as much
#   hotspot3D/temp_64x8      64 x 64 x 8 temperatures, as hotspot's
#   hotspot3D/power_64x8     64 x 64 x 8 powers, as hotspot's
#   srad/image.pgm           ASCII PGM (P2), 458 x 502 (the size the
#                            program assumes), 0 to 255: rings with
#                            multiplicative speckle, as an ultrasound
#   myocyte/y.txt            the 91 initial values and 18 parameters of
#   myocyte/params.txt       the cardiac myocyte model: see gen_myocyte
set -u

force=0
if [ "${1:-}" = -f ]; then
	force=1
	shift
fi
if [ $# -ne 1 ] || [ ! -d "$1/cuda" ]; then
	echo "usage: $0 [-f] RODINIA_DIR" >&2
	exit 2
fi
data=$1/data

# fresh FILE...: 0 when the files are to be written (-f, or none there)
fresh() {
	[ "$force" = 1 ] && return 0
	for f; do
		if [ -e "$data/$f" ]; then
			echo "kept $data/$f (there already; -f writes it over)"
			return 1
		fi
	done
	return 0
}

# rng: the awk functions every writer below starts with
rng='
function seed(s) { x = s }
function next_() { x = (16807 * x) % 2147483647; return x }
function u() { return next_() / 2147483647 }
function pick(n) { return next_() % n }
'

gen_bfs() {
	awk -v n=4096 "$rng"'
	function add(a, b, w,   k) {
		k = deg[a] + 0
		to[a, k] = b
		wt[a, k] = w
		deg[a] = k + 1
	}
	BEGIN {
		seed(4096)
		for (i = 0; i < n; i++) {
			e = 2 + pick(3)
			for (j = 0; j < e; j++) {
				d = pick(n)
				w = 1 + pick(10)
				add(i, d, w)
				add(d, i, w)
			}
		}
		print n
		total = 0
		for (i = 0; i < n; i++) {
			print total, deg[i]
			total += deg[i]
		}
		print ""
		print 0
		print ""
		print total
		for (i = 0; i < n; i++)
			for (j = 0; j < deg[i]; j++)
				print to[i, j], wt[i, j]
	}' >"$data/bfs/graph4096.txt"
}

gen_btree() {
	awk -v n=10000 "$rng"'
	BEGIN {
		seed(10000)
		print n
		for (i = 0; i < n; i++)
			print 1 + pick(2 * n)
	}' >"$data/b+tree/mil.txt" &&
	printf 'j 6000 3000\nk 10000\n' >"$data/b+tree/command.txt"
}

# grid FILE SEED ROWS COLS LAYERS KIND: one value a line, row by row,
# each row's columns, each column's layers (the order hotspot3D reads);
# KIND temp or power
grid() {
	awk -v s="$2" -v r="$3" -v c="$4" -v l="$5" -v kind="$6" "$rng"'
	BEGIN {
		seed(s)
		for (i = 0; i < r; i++)
			for (j = 0; j < c; j++)
				for (k = 0; k < l; k++) {
					if (kind == "temp") {
						printf "%.6f\n", 323 + 19 * u()
						continue
					}
					# hot squares of 16 x 16 on a diagonal
					hot = int(i / 16) == int(j / 16)
					printf "%.6f\n", 0.001 * u() * (hot ? 4 : 1)
				}
	}' >"$1"
}

gen_srad() {
	awk -v rows=502 -v cols=458 "$rng"'
	BEGIN {
		seed(502)
		print "P2"
		print cols, rows
		print 255
		for (i = 0; i < rows; i++) {
			line = ""
			for (j = 0; j < cols; j++) {
				dy = i - rows / 2; dx = j - cols / 2
				r = sqrt(dx * dx + dy * dy)
				v = (110 + 70 * sin(r / 12)) * (0.5 + u())
				v = v > 255 ? 255 : int(v)
				line = line (j ? " " : "") v
			}
			print line
		}
	}' >"$data/srad/image.pgm"
}

# myocyte: the model's state (91 values) and parameters (18).  Made
# here: every state value a small positive number (concentrations,
# gate openings and buffer occupancies alike), the parameters the
# totals of each compartment's calmodulin module (dyad, SL, cytosol: CaM,
# buffer, CaMKII, CaN, PP1), the pacing cycle length (1,000 ms), K+ and
# Mg2+ (mM).
gen_myocyte() {
	awk "$rng"'
	BEGIN {
		seed(91)
		for (i = 0; i < 91; i++)
			printf "%.6e\n", 0.01 * u()
	}' >"$data/myocyte/y.txt" &&
	printf '%s\n' 418 1857 120 3.6 96.5 5.65 24.2 0.1 0.003 0.57 \
		5.65 24.2 0.1 0.003 0.57 1000 135 1 \
		>"$data/myocyte/params.txt"
}

for d in bfs b+tree hotspot hotspot3D srad myocyte; do
	mkdir -p "$data/$d" || exit 1
done
{ ! fresh bfs/graph4096.txt || gen_bfs; } &&
{ ! fresh b+tree/mil.txt b+tree/command.txt || gen_btree; } &&
{ ! fresh hotspot/temp_64 hotspot/power_64 || {
	grid "$data/hotspot/temp_64" 641 64 64 1 temp &&
	grid "$data/hotspot/power_64" 642 64 64 1 power; }; } &&
{ ! fresh hotspot3D/temp_64x8 hotspot3D/power_64x8 || {
	grid "$data/hotspot3D/temp_64x8" 6481 64 64 8 temp &&
	grid "$data/hotspot3D/power_64x8" 6482 64 64 8 power; }; } &&
{ ! fresh srad/image.pgm || gen_srad; } &&
{ ! fresh myocyte/y.txt myocyte/params.txt || gen_myocyte; } || exit 1
echo "inputs made here (not Rodinia's data set) in $data"
