#!/bin/sh
# Compare the emulator's counters with Nsight Compute on a GPU: build
# tests/gpu/emu_probe.cu for sm_90, profile it with ncu (the metrics of
# ground-truth.md) and print the real error codes of bad launches.  Run
# from the repository root on the GPU machine; results go to $OUT (or
# build/gpu).  The emulator's side: bin/warpgrade emu
# tests/gpu/emu_probe.cu --counters FILE.  Results: docs/EMULATOR.md.
set -e
OUT=${OUT:-build/gpu}
mkdir -p "$OUT"
NVCC=${NVCC:-nvcc}
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$OUT/emu_probe" tests/gpu/emu_probe.cu
"$OUT/emu_probe" errors > "$OUT/errors.txt" 2>&1 || true
M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --clock-control none --csv --metrics "$M" "$OUT/emu_probe" counters \
	> "$OUT/ncu.csv" 2> "$OUT/ncu.err" || cat "$OUT/ncu.err"
cat "$OUT/errors.txt"
grep -v '^==' "$OUT/ncu.csv" | awk -F'","' '{print $5 "|" $(NF-2) "|" $NF}' \
	| sed 's/"//g'
