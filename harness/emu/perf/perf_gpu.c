/*
 * The GPUs the performance model knows (perf.h): the data sheet (SMs,
 * clock, limits, the peaks under every prediction) and the constants
 * fitted on the calibration half of bench/corpus/LIST measured on each
 * GPU (bench/corpus/fit.c; numbers and method in docs/EMULATOR.md).
 */
#include <ctype.h>
#include <string.h>

#include "emu/perf.h"

/* Data sheet (NVIDIA H100 Tensor Core GPU Architecture, 2022): an SM
 * has four partitions, each with a warp scheduler that issues one warp
 * instruction a clock -- the peak of the lower bounds (perf_sim.c),
 * where a PTX instruction stands for one of the GPU's. */
#define HOPPER_WARP_INSNS_PER_SM_CLK 4
/* Peak DRAM bandwidth, data sheets: H100 SXM5 80 GB HBM3 3.35 TB/s,
 * H200 141 GB HBM3e 4.8 TB/s. */
#define H100_PEAK_DRAM_GBPS 3350
#define H200_PEAK_DRAM_GBPS 4800
/* A grid barrier: one thread per block adds to a counter in L2 and
 * polls it until every block has (about two L2 round trips after the
 * last arrival, and the block barriers around them).  Estimated, not
 * fitted: the corpus has no cooperative launch. */
#define GRID_SYNC_CLK 1500
/* A 32-bit integer division or remainder by a variable, as ptxas
 * writes it for sm_90 (`cuobjdump -sass`): a reciprocal in floating
 * point, then integer corrections -- 21 machine instructions unsigned
 * (bench/corpus/transpose_flat.cu, I2F.U32.RP to the remainder's IMAD),
 * 30 signed, with the operands' absolute values and the quotient's sign
 * (transpose_gridstride.cu, the first IABS to the remainder). */
#define SM90_UDIV_INSNS 21
#define SM90_SDIV_INSNS 30

/* Hopper's SMs and L2, the same on both GPUs (data sheet). */
#define HOPPER_SMS \
	.sms = 132, \
	.sm_ghz = 1.98, \
	.max_warps_per_sm = 64, \
	.max_blocks_per_sm = 32, \
	.regs_per_sm = 65536, \
	.smem_per_sm = 233472, \
	.smem_reserved_per_block = 1024, \
	.l1_bytes = 262144, \
	.sm_max_bytes_per_clk = 64, \
	.dram_credit_clk = 5000, /* calibration set, --try 0..10000 */ \
	.l2_latency_clk = 300, \
	.shared_latency_clk = 30, \
	.barrier_clk = 20, \
	.pcie_gbps = 25, \
	.grid_sync_clk = GRID_SYNC_CLK, \
	.udiv_insns = SM90_UDIV_INSNS, \
	.sdiv_insns = SM90_SDIV_INSNS, \
	.peak_warp_insns_per_clk = HOPPER_WARP_INSNS_PER_SM_CLK,

/* Issue, in machine instructions (the same SM on both GPUs): a
 * scheduler's rate and one warp's cycles per instruction, fitted
 * together on the calibration half of the H100 corpus (2026-11-27, a
 * grid of 18 points with `bench/corpus/run-fit ... --calib-only --try`,
 * the other constants as they were: docs/EMULATOR.md). */
#define HOPPER_ISSUE \
	.issue_per_clk = 0.7, \
	.warp_issue_clk = 12,

/* Fitted on the calibration half of the H100 corpus (2026-11-25; the
 * issue constants 2026-11-27; the page constant 2026-11-27, late, on
 * its own, the others as they were: docs/EMULATOR.md, "The fifth
 * round"). */
const struct perf_gpu perf_h100 = {
	.name = "H100",
	.long_name = "NVIDIA H100 SXM",
	.dram_gbps = 3000,
	.peak_dram_gbps = H100_PEAK_DRAM_GBPS,
	HOPPER_SMS
	.page_open_bytes = 32, /* calibration set, --try 0..128 */
	.dram_latency_clk = 400,
	.latency_spread = 0.8,
	.latency_tail = 1, /* calibration set, --try 1..3: docs/EMULATOR.md */
	.latency_queueing = 0.3,
	.l2_load_sectors_per_clk = 110,
	.l2_store_sectors_per_clk = 42.99,
	.l2_partial_sectors_per_clk = 29,
	.lsu_clk_per_wavefront = 0.8891,
	HOPPER_ISSUE
	.block_launch_clk = 158.1,
	.launch_us = 4.633,
};

/* The H100's SMs and L2 with HBM3e.  DRAM bandwidth is the H100's
 * scaled by the device-to-device copy measured on each (4,077 against
 * 2,935 GB/s); the other constants were fitted on the calibration half
 * of the H200 corpus (2026-11-27, `bench/corpus/run-fit
 * h200-2026-11-27.csv --gpu H200 --calib-only --fit`, from the H100's:
 * docs/EMULATOR.md). */
const struct perf_gpu perf_h200 = {
	.name = "H200",
	.long_name = "NVIDIA H200",
	.dram_gbps = 4167,
	.peak_dram_gbps = H200_PEAK_DRAM_GBPS,
	HOPPER_SMS
	.page_open_bytes = 80, /* calibration set, --try 0..160 */
	.dram_latency_clk = 640,
	.latency_spread = 0.4446,
	.latency_tail = 1,
	.latency_queueing = 0.1875,
	.l2_load_sectors_per_clk = 97.81,
	.l2_store_sectors_per_clk = 77.36,
	.l2_partial_sectors_per_clk = 34.59,
	.lsu_clk_per_wavefront = 1.125,
	HOPPER_ISSUE
	.block_launch_clk = 140.6,
	.launch_us = 0.8942,
};

/* "h100", "H100 SXM", "NVIDIA H200" ... */
const struct perf_gpu *perf_gpu_find(const char *name)
{
	static const struct perf_gpu *const all[] = { &perf_h100, &perf_h200 };
	char want[8];
	size_t n = 0;

	if (!name)
		return NULL;
	if (!strncmp(name, "NVIDIA ", 7))
		name += 7;
	while (name[n] && !isspace((unsigned char)name[n]) && n < 7) {
		want[n] = (char)toupper((unsigned char)name[n]);
		n++;
	}
	want[n] = '\0';
	if (name[n] && !isspace((unsigned char)name[n]))
		return NULL;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(want, all[i]->name))
			return all[i];
	return NULL;
}
