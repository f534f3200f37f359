#!/bin/sh
# Merged accesses on a GPU: build tests/gpu/merge_probe.cu for sm_90,
# print the SASS memory instructions of each kernel (what ptxas made of
# the adjacent scalar accesses) and the counters Nsight Compute measures
# per kernel, in the emulator's order: global ld requests sectors, st
# requests sectors, shared ld wavefronts conflicts, st wavefronts
# conflicts, then shared ld and st warp-instructions.  Run from the
# repository root on the GPU machine; files go to $OUT (or build/gpu).
# $OUT/merge_counters.txt holds the first eight columns, in the format of
# the emulator's side, tests/emu/merge-counters.sh: diff the two.
# Expected: docs/EMULATOR.md, "Merged accesses".
set -e
OUT=${OUT:-build/gpu}
mkdir -p "$OUT"
NVCC=${NVCC:-nvcc}
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$OUT/merge_probe" \
	tests/gpu/merge_probe.cu
cuobjdump -sass "$OUT/merge_probe" |
	grep -E 'Function|LDS|STS|LDG|STG|ST\.E|LD\.E' > "$OUT/merge_sass.txt" ||
	true
M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,smsp__inst_executed_op_shared_ld.sum
M=$M,smsp__inst_executed_op_shared_st.sum
ncu --clock-control none --csv --metrics "$M" "$OUT/merge_probe" \
	> "$OUT/merge_ncu.csv" 2> "$OUT/merge_ncu.err" ||
	cat "$OUT/merge_ncu.err"
"$OUT/merge_probe"
cat "$OUT/merge_sass.txt"
# one row per kernel: name and the ten metrics in the order above
python3 - "$OUT/merge_ncu.csv" "$M" "$OUT/merge_counters.txt" <<'PY'
import csv, sys
# the program's own output comes first in the same stream: the table
# starts at its header line
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.reader(lines[start:]))
head, rows = rows[0], rows[1:]
ki, mi, vi = (head.index(k) for k in
              ('Kernel Name', 'Metric Name', 'Metric Value'))
order = sys.argv[2].split(',')
table = {}
for r in rows:
    name = r[ki].split('(')[0]
    table.setdefault(name, {})[r[mi]] = r[vi].replace(',', '')
with open(sys.argv[3], 'w') as f:
    for name, m in table.items():
        print(name, ' '.join(m.get(k, '?') for k in order))
        print(name, ' '.join(m.get(k, '?') for k in order[:8]), file=f)
PY
