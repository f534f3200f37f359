/*
 * The performance model: a launch's time on a named GPU, predicted from
 * what the interpreter observes of a sample of its blocks.
 *
 * Two halves, each a file of its own:
 *
 *   perf_sample.c   which blocks: the first and the last of the grid and
 *                   blocks drawn from the run's seed, one in each
 *                   stratum of the grid; more of them (up to all of a
 *                   small grid) where the sampled blocks' work is
 *                   uneven, so that a block doing more than the others
 *                   is found; the blocks each stands for, and the
 *                   grid's work estimated from them.
 *   perf_collect.c  while the interpreter runs a sampled block, turns
 *                   each warp's instructions into a short event list:
 *                   issue runs, global loads and stores (sectors sent to
 *                   L2 after a per-block L1, sectors and bytes that
 *                   reach DRAM), shared accesses (wavefronts), waits for
 *                   a load's result, barriers (a cooperative launch's
 *                   grid barrier too).  A load's result is waited for
 *                   at its first use, so the lists carry the
 *                   memory-level parallelism of the code as executed.
 *   perf_sim.c      replays those lists on one streaming multiprocessor:
 *                   as many blocks resident as the occupancy allows,
 *                   the busiest SM's share of the grid (the heaviest
 *                   sampled block first, then the others in proportion
 *                   to the blocks they stand for), warp schedulers, the
 *                   L1/shared pipe, the SM's share of L2 and DRAM
 *                   throughput, memory latency.  The last block's end,
 *                   plus the launch overhead, is the predicted time --
 *                   never less than the lower bounds the data sheet
 *                   sets: the launch's DRAM traffic at peak bandwidth,
 *                   its instructions at the whole GPU's peak issue
 *                   rate, and its heaviest block's instructions at one
 *                   SM's (a block runs on one SM).
 *
 * Every block that runs is counted whole (struct perf_work: its
 * instructions, sectors and bytes), sampled or not; a sampled block's
 * events stop at PERF_BLOCK_EVENTS, the rest of its work then replayed
 * from them.  The interpretation has hard caps (PERF_BLOCK_CAP,
 * PERF_PREDICTION_CAP): past one, the launch has no prediction, and the
 * collector says why.
 *
 * The constants of each GPU (perf_gpu.c) are partly the data sheet (SMs,
 * clock, limits) and partly fitted on a calibration corpus measured on
 * the GPU (bench/corpus, docs/EMULATOR.md).  Everything here is
 * deterministic: the same launch and seed give the same prediction.
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
	double dram_credit_clk;     /* how long an SM's unused share of
				     * DRAM bandwidth stays usable: the
				     * other SMs' demand is spread over
				     * time, so an SM that idled (its few
				     * blocks at a barrier) may then move
				     * faster than its share, up to its
				     * ceiling, for this long */
	double page_open_bytes;     /* what opening a DRAM page costs, in
				     * bytes of transfer, where blocks
				     * that share it do not run in step
				     * (perf_sim.c, page_surcharge) */
	double dram_latency_clk;    /* a load that misses L2, unloaded */
	double latency_spread;      /* share of it that varies */
	double latency_tail;        /* how light the varying share's tail
				     * is: the mean of this many
				     * exponential draws (1: exponential;
				     * 0 taken as 1) */
	double latency_queueing;    /* how much it grows with DRAM's
				     * utilisation u: x (1 + q u / (1 - u)) */
	double l2_latency_clk;      /* a load served by L2 */
	double shared_latency_clk;
	double l2_load_sectors_per_clk;  /* whole GPU */
	double l2_store_sectors_per_clk; /* whole GPU: whole sectors */
	double l2_partial_sectors_per_clk; /* whole GPU: partial sectors */
	double lsu_clk_per_wavefront;    /* L1/shared data pipe */
	double issue_per_clk;            /* machine instructions, per
					  * scheduler (4 per SM) */
	double warp_issue_clk;           /* one warp's cycles per machine
					  * instruction: dependent latency */
	double udiv_insns, sdiv_insns;   /* machine instructions of a
					  * 32-bit integer division, unsigned
					  * and signed (ptxas, data) */
	double barrier_clk;
	double block_launch_clk;         /* a new block on a free slot */
	double launch_us;                /* a kernel launch, end to end */
	double pcie_gbps;                /* host <-> device copies */
	double grid_sync_clk;            /* a cooperative launch's grid
					  * barrier (estimated, not fitted) */
	/* the data sheet's peaks: the lower bounds of a prediction */
	double peak_dram_gbps;
	int peak_warp_insns_per_clk;     /* per SM: one per scheduler */
};

extern const struct perf_gpu perf_h100, perf_h200;
/* By name ("H100", "h200", "H100 SXM" ...); NULL when unknown. */
const struct perf_gpu *perf_gpu_find(const char *name);

#define PERF_SECTOR 32u
/* a DRAM page, taken as 1 KB (an HBM pseudo-channel's row), for
 * perf_block's part_pages */
#define PERF_DRAM_PAGE 1024u

/* ---- events (perf_collect.c -> perf_sim.c) ---- */

enum perf_event_kind {
	PE_ISSUE = 1, /* n machine instructions of the warp, in a row */
	PE_GLD,       /* global load: lines, l2 sectors, dram sectors, id */
	PE_GST,       /* global store: lines, l2 sectors, dram bytes */
	PE_SLD,       /* shared load: wavefronts, id */
	PE_SST,       /* shared store: wavefronts */
	PE_WAIT,      /* wait for load id's result (lines 1: for an
		       * address, which no later load may pass) */
	PE_BAR,       /* block barrier */
	PE_LOOP,      /* a loop's back edge: loads are not moved past it */
	PE_GBAR       /* grid barrier (cooperative launch): the arrival */
};

struct perf_event {
	uint8_t kind;
	uint8_t lines;     /* 128-byte lines / shared wavefronts (capped) */
	uint16_t l2;       /* sectors sent to L2 */
	uint16_t dram;     /* bytes from (GLD) or to (GST) DRAM, / 4 */
	uint16_t partial;  /* GST: sectors only partly written; GLD: the
			    * warp + 1 whose load brought its L1 hits */
	uint32_t n;        /* PE_ISSUE: count; loads, PE_WAIT: load id */
	uint32_t dep;      /* GLD with partial: that load's id */
};

/* One warp of a sampled block: its events in order; loads: the load
 * ids they issue (0 .. loads - 1). */
struct perf_warp {
	struct perf_event *ev;
	size_t n, cap;
	uint32_t loads;
};

/* What one block did, counted whole by the scheduler (sched.c). */
struct perf_work {
	uint64_t lane_insns;
	uint64_t ld_sectors, st_sectors;  /* global; atomics in both */
	uint64_t ld_bytes, st_bytes;      /* the active lanes' bytes */
};

struct perf_block {
	struct perf_warp *warps;
	int nwarps;
	uint64_t id;                /* in the grid, x fastest */
	struct perf_work work;
	double reps;                /* its events stand for this many times
				     * their own work (> 1: cut short) */
	double dram_bytes;          /* its events' DRAM bytes */
	uint32_t part_pages;        /* DRAM pages (PERF_DRAM_PAGE) of
				     * which it touched some sectors but
				     * not all */
	struct perf_collect_state *st;  /* while it is collected */
};

/*
 * What one launch's sampled blocks did.  The interpreter calls the
 * perf_on_* functions for the current block (perf_block_begin, or
 * perf_block_enter where blocks take turns) until perf_block_end;
 * nothing is kept of the blocks it runs outside them but their work
 * (perf_count_block).
 */
struct perf_collect {
	const struct perf_gpu *g;
	struct perf_block *blocks;
	size_t nblocks, cap;
	int cur;                    /* the current block, -1: none */
	int warp;                   /* current warp, from perf_on_insn */
	uint32_t rbase;             /* its register frame */
	size_t l1_sets;             /* of a block's L1 */
	/* a cooperative launch's grid workspace: a global atomic in
	 * [grid_ws, grid_ws + 16) is a grid barrier's arrival (0: none) */
	uint64_t grid_ws;
	/* every block that ran, sampled or not: their sum, and the most
	 * one block did, measure by measure */
	struct perf_work counted, most;
	uint64_t ncounted;
	/* the plan (runtime_perf.c): the seed of the sample, extend every
	 * launch's sample as far as the budget allows, the hard caps in
	 * lane-instructions (one block; what the prediction has left) */
	uint64_t seed;
	int extend;
	uint64_t block_cap, left;
	/* why the launch has no prediction ("" while it may have one) */
	char why[240];
};

struct perf_collect *perf_collect_new(const struct perf_gpu *g,
				      unsigned threads_per_block,
				      size_t smem_per_block);
void perf_collect_free(struct perf_collect *pc);
/* A sampled block starts (grid index id, nwarps warps) and becomes the
 * current one: its number in pc->blocks, or -1 when out of memory. */
int perf_block_begin(struct perf_collect *pc, uint64_t id, int nwarps);
/* Block b (a number from perf_block_begin) is current again; -1: no
 * block is. */
void perf_block_enter(struct perf_collect *pc, int b);
/* Block b has ended, having done w: its events are complete. */
void perf_block_end(struct perf_collect *pc, int b,
		    const struct perf_work *w);
/* Any block that ran, sampled or not: its work, for the totals and
 * the heaviest block. */
void perf_count_block(struct perf_collect *pc, const struct perf_work *w);
/* No prediction for the launch, and why (the first reason counts). */
void perf_stop(struct perf_collect *pc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every executed instruction of warp `warp`, before it runs; rbase is
 * the register index of the warp's current frame.  Emits the wait for
 * a pending load the instruction reads, and counts issue. */
void perf_on_insn(struct perf_collect *pc, int warp,
		  const struct emu_insn *in, uint32_t rbase);
/* The instruction perf_on_insn last saw of warp `warp` did not run: the
 * warp gave way before it and runs it again later (a store, sched.c's
 * interleaving), which perf_on_insn then passes over once. */
void perf_on_retry(struct perf_collect *pc, int warp);
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

/* A whole grid's work: counted, or scaled from its sample. */
struct perf_grid_work {
	double lane_insns, ld_bytes, st_bytes;
	double ld_sectors, st_sectors;    /* atomics in both */
};

struct perf_estimate {
	double ms;                  /* predicted time of the launch */
	double dram_bytes;          /* whole grid, scaled from the sample */
	double l2_sectors;
	struct perf_grid_work work;
	double warp_insns;          /* machine instructions issued, whole
				     * grid, scaled from the sample */
	int resident_blocks;        /* per SM (occupancy) */
	int active_sms;
	uint64_t blocks_per_sm;     /* on the busiest SM */
	size_t sampled;             /* blocks interpreted */
	const char *limit;          /* what bounds it, in words */
};

/* Predict; 0, or -1 when nothing was sampled. */
int perf_simulate(const struct perf_gpu *g, const struct perf_collect *pc,
		  const struct perf_launch *l, struct perf_estimate *e);

/* ---- the sample (perf_sample.c) ---- */

/*
 * The i-th block to interpret of a grid of nblocks, for i <
 * perf_sample_limit(nblocks): 0 the first block, 1 the last, then one
 * block drawn from seed in each of PERF_SAMPLE_STRATA equal strata of
 * the blocks between, the strata in a spread order (any prefix is
 * spread over the grid).  The first perf_sample_count(nblocks) are the
 * sample; the ones after it extend it: in a grid of at most
 * PERF_SAMPLE_ALL blocks every block, in order (a caller skips those it
 * has), in a larger one more rounds of strata, drawn anew.  A grid of
 * at most PERF_SAMPLE_MAX blocks is sampled whole.
 */
uint64_t perf_sample_block(uint64_t nblocks, uint64_t seed, size_t i);
size_t perf_sample_count(uint64_t nblocks);
size_t perf_sample_limit(uint64_t nblocks);
/* Is the sampled blocks' work so uneven (the heaviest's cost several
 * times the median's) that more blocks must be looked at? */
int perf_sample_uneven(const struct perf_collect *pc);
/* How many of the grid's blocks sampled block b stands for: 1 for the
 * first and the last (and for every block of a grid sampled whole),
 * the others share the rest. */
double perf_sample_weight(const struct perf_collect *pc, size_t b,
			  uint64_t nblocks);
/* The grid's work: counted when every block was, else scaled from the
 * sample by the weights. */
void perf_sample_grid_work(const struct perf_collect *pc, uint64_t nblocks,
			   struct perf_grid_work *w);
/* A block's cost on one SM at peak, in cycles: its instructions at the
 * issue rate, its sectors at what one SM moves. */
double perf_block_cost(const struct perf_gpu *g, const struct perf_work *w);

#define PERF_SAMPLE_MAX 32          /* the first and last + the strata */
#define PERF_SAMPLE_STRATA (PERF_SAMPLE_MAX - 2)
#define PERF_SAMPLE_MIN 4
/* Stop the sample once this many lane-instructions were interpreted in
 * the launch's sampled blocks (after at least PERF_SAMPLE_MIN blocks),
 * and an extension once it has interpreted this many more. */
#define PERF_SAMPLE_BUDGET 150000000ull
#define PERF_EXTEND_BUDGET 150000000ull
/* Extension: every block of a grid this small, else this many more
 * rounds of strata; uneven means a cost above PERF_UNEVEN medians. */
#define PERF_SAMPLE_ALL 256
#define PERF_EXTEND_ROUNDS 8
#define PERF_UNEVEN 4.0
/* Events kept of one sampled block (16 bytes each); past them its work
 * is counted, not recorded. */
#define PERF_BLOCK_EVENTS (1u << 21)
/* Hard caps on interpretation, in lane-instructions, while a
 * prediction runs only its sample (perf_only): one block, and a whole
 * prediction.  A block doing a whole 8192 x 8192 transpose runs 2.15 G;
 * the development machine interprets some 380 M a second while it
 * collects events and 530 M past PERF_BLOCK_EVENTS (docs/EMULATOR.md),
 * so the caps keep a replay near 16 s there, well inside its two
 * minutes on a machine a few times slower. */
#define PERF_BLOCK_CAP 4000000000ull
#define PERF_PREDICTION_CAP 8000000000ull
/* The share of a call's input and output its launches, scaled from
 * their samples, must load and store (wgemu_perf_coverage): the rest
 * is the sample's error on a grid whose blocks differ a little. */
#define PERF_COVERAGE 0.9

#endif
