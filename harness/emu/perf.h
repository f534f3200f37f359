/*
 * The performance model: a launch's time on a named GPU, predicted from
 * what the interpreter observes of a sample of its blocks.
 *
 * Two halves, each a file of its own:
 *
 *   perf_collect.c  while the interpreter runs a sampled block, turns
 *                   each warp's instructions into a short event list:
 *                   issue runs, global loads and stores (sectors sent to
 *                   L2 after a per-block L1, sectors and bytes that
 *                   reach DRAM), shared accesses (wavefronts), waits for
 *                   a load's result, barriers.  A load's result is
 *                   waited for at its first use, so the lists carry the
 *                   memory-level parallelism of the code as executed.
 *   perf_sim.c      replays those lists on one streaming multiprocessor:
 *                   as many blocks resident as the occupancy allows,
 *                   the busiest SM's share of the grid, warp schedulers,
 *                   the L1/shared pipe, the SM's share of L2 and DRAM
 *                   throughput, memory latency.  The last block's end,
 *                   plus the launch overhead, is the predicted time.
 *
 * The constants of each GPU (perf_gpu.c) are partly the data sheet (SMs,
 * clock, limits) and partly fitted on a calibration corpus measured on
 * the GPU (bench/corpus, docs/EMULATOR.md).  Everything here is
 * deterministic: the same launch gives the same prediction.
 */
#ifndef EMU_PERF_H
#define EMU_PERF_H

#include <stddef.h>
#include <stdint.h>

struct emu_insn;

/* ---- the target GPU ---- */

struct perf_gpu {
	const char *name;           /* "H100", "H200" */
	const char *long_name;      /* "NVIDIA H100 SXM" */
	/* the data sheet */
	int sms;
	double sm_ghz;              /* SM clock under load */
	int max_warps_per_sm, max_blocks_per_sm;
	uint32_t regs_per_sm, smem_per_sm, smem_reserved_per_block;
	uint32_t l1_bytes;          /* L1 + shared, of which shared is
				     * taken first */
	/* fitted */
	double dram_gbps;           /* DRAM bandwidth reached by streams */
	double sm_max_bytes_per_clk;/* one SM's ceiling towards L2 */
	double dram_latency_clk;    /* a load that misses L2, unloaded */
	double latency_spread;      /* share of it that varies (an
				     * exponential tail) */
	double latency_queueing;    /* how much it grows with DRAM's
				     * utilisation u: x (1 + q u / (1 - u)) */
	double l2_latency_clk;      /* a load served by L2 */
	double shared_latency_clk;
	double l2_load_sectors_per_clk;  /* whole GPU */
	double l2_store_sectors_per_clk; /* whole GPU: whole sectors */
	double l2_partial_sectors_per_clk; /* whole GPU: partial sectors */
	double lsu_clk_per_wavefront;    /* L1/shared data pipe */
	double issue_per_clk;            /* per scheduler (4 per SM) */
	double barrier_clk;
	double block_launch_clk;         /* a new block on a free slot */
	double launch_us;                /* a kernel launch, end to end */
	double pcie_gbps;                /* host <-> device copies */
};

extern const struct perf_gpu perf_h100, perf_h200;
/* By name ("H100", "h200", "H100 SXM" ...); NULL when unknown. */
const struct perf_gpu *perf_gpu_find(const char *name);

#define PERF_SECTOR 32u

/* ---- events (perf_collect.c -> perf_sim.c) ---- */

enum perf_event_kind {
	PE_ISSUE = 1, /* n warp-instructions issued back to back */
	PE_GLD,       /* global load: lines, l2 sectors, dram sectors, id */
	PE_GST,       /* global store: lines, l2 sectors, dram bytes */
	PE_SLD,       /* shared load: wavefronts, id */
	PE_SST,       /* shared store: wavefronts */
	PE_WAIT,      /* wait for load id's result (lines 1: for an
		       * address, which no later load may pass) */
	PE_BAR,       /* block barrier */
	PE_LOOP       /* a loop's back edge: loads are not moved past it */
};

struct perf_event {
	uint8_t kind;
	uint8_t lines;     /* 128-byte lines / shared wavefronts (capped) */
	uint16_t l2;       /* sectors sent to L2 */
	uint16_t dram;     /* GLD: sectors from DRAM; GST: bytes / 4 */
	uint16_t partial;  /* GST: sectors only partly written; GLD: the
			    * warp + 1 whose load brought its L1 hits */
	uint32_t n;        /* PE_ISSUE: count; loads, PE_WAIT: load id */
	uint32_t dep;      /* GLD with partial: that load's id */
};

/* One warp of a sampled block: its events in order. */
struct perf_warp {
	struct perf_event *ev;
	size_t n, cap;
};

struct perf_block {
	struct perf_warp *warps;
	int nwarps;
};

/*
 * What one launch's sampled blocks did.  The interpreter calls the
 * perf_on_* functions for the block between perf_block_begin and
 * perf_block_end; nothing is kept of the blocks it runs outside them.
 */
struct perf_collect {
	struct perf_block *blocks;
	size_t nblocks, cap;
	uint64_t lane_insns;        /* interpreted in sampled blocks */
	/* the block being collected */
	struct perf_collect_state *st;
	int warp;                   /* current warp, from perf_on_insn */
	uint32_t rbase;             /* its register frame */
};

struct perf_collect *perf_collect_new(const struct perf_gpu *g,
				      unsigned threads_per_block,
				      size_t smem_per_block);
void perf_collect_free(struct perf_collect *pc);
int perf_block_begin(struct perf_collect *pc, int nwarps);
void perf_block_end(struct perf_collect *pc);

/* Every executed instruction of warp `warp`, before it runs; rbase is
 * the register index of the warp's current frame.  Emits the wait for
 * a pending load the instruction reads, and counts issue. */
void perf_on_insn(struct perf_collect *pc, int warp,
		  const struct emu_insn *in, uint32_t rbase);
/* A counted global access (kind 0 load, 1 store, 2 atomic) of the
 * active lanes m at addr, bytes each. */
void perf_on_global(struct perf_collect *pc, int kind,
		    const uint64_t *addr, uint32_t m, int bytes);
/* A counted shared access: its wavefronts. */
void perf_on_shared(struct perf_collect *pc, int kind, int wavefronts);
/* A load's destination registers now wait on the last load event (a
 * merged access's later members share their leader's). */
void perf_on_load_dst(struct perf_collect *pc, const struct emu_insn *in);
void perf_on_barrier(struct perf_collect *pc);
/* A taken branch backwards (a loop's next iteration). */
void perf_on_backedge(struct perf_collect *pc);

/* ---- the simulation ---- */

struct perf_launch {
	uint64_t nblocks;           /* the whole grid */
	unsigned threads;           /* per block */
	size_t smem;                /* static + dynamic, per block */
	unsigned regs;              /* per thread; 0: unknown (32) */
};

struct perf_estimate {
	double ms;                  /* predicted time of the launch */
	double dram_bytes;          /* whole grid, scaled from the sample */
	double l2_sectors;
	int resident_blocks;        /* per SM (occupancy) */
	int active_sms;
	uint64_t blocks_per_sm;     /* on the busiest SM */
	size_t sampled;             /* blocks interpreted */
	const char *limit;          /* what bounds it, in words */
};

/* Predict; 0, or -1 when nothing was sampled. */
int perf_simulate(const struct perf_gpu *g, const struct perf_collect *pc,
		  const struct perf_launch *l, struct perf_estimate *e);

/* Which blocks to sample: the i-th of a grid of nblocks in a spread
 * order (any prefix is spread over the grid); i < perf_sample_max. */
uint64_t perf_sample_block(uint64_t nblocks, size_t i);
size_t perf_sample_count(uint64_t nblocks);
/* Stop sampling once this many lane-instructions were interpreted in
 * sampled blocks (after at least PERF_SAMPLE_MIN blocks). */
#define PERF_SAMPLE_MAX 32
#define PERF_SAMPLE_MIN 4
#define PERF_SAMPLE_BUDGET 150000000ull

#endif
