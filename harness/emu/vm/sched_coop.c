/*
 * Blocks that take turns.  An ordinary launch of a kernel with barriers
 * (coop_run_phases): PHASE_BLOCKS blocks at a time, a turn running a
 * block to its next barrier, each block that ends giving its slot to
 * the next, so that a block reads what the others wrote before their
 * barriers, as on a GPU, where they run side by side.  A cooperative
 * launch (cudaLaunchCooperativeKernel), and an ordinary launch once one
 * of its blocks waits on another (coop_run_window): the device runs
 * every block of the grid at once (the runtime refuses a grid that does
 * not fit), so blocks may wait on each other -- cooperative groups'
 * grid.sync() adds to a counter in the grid workspace (%envreg1 and
 * %envreg2) and spins until every block has.  Here every block has its
 * own warps, shared memory and race shadow, and the blocks take turns
 * in index order: a turn runs each of the block's warps once
 * (sched_block_step), each for at most COOP_SLICE lane instructions
 * (exec_branch and exec_call stop it at x->limit), so a warp that spins
 * on another block's progress gives way and that block runs.  The order
 * is fixed, so results and counters are deterministic.  A warp that
 * spins (spin.c) gives way at once; a round of turns in which every
 * block's warps spun or waited and nothing was written is a deadlock
 * (blocks waiting for one that exited); one that spins on the clock or
 * sleeps between tries ends with the instruction budget instead.
 *
 * The blocks' memory (warps and their registers, shared memory, race
 * shadows) is kept from launch to launch, as sched.c keeps its one
 * block's: a launch of 264 blocks of 1,024 threads has some 400 MB of
 * registers, which clearing anew at every launch would cost more than
 * running it.
 *
 * For the performance model (perf.h) every block is counted, and the
 * blocks of the sample (perf_sample.c) are collected, each its own
 * collector's block, entered at each of its turns: sampled blocks
 * cannot run alone, since a grid barrier waits for all.  A prediction
 * runs the whole grid (it fits on the GPU at once), within what is
 * left of the prediction's cap.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/perf.h"
#include "emu/vm/race.h"

/* lane instructions a warp runs before the next gives way: a spinning
 * warp wastes at most this much a turn, and a warp's turn is long
 * enough for the switch to cost little */
#define COOP_SLICE 8192

/* blocks that take turns in a launch run in phases (coop_run_phases):
 * a GPU holds thousands at once (an H100 1,056 of 256 threads), but
 * every block's registers, shared memory and race shadow cycled through
 * the host's caches cost as much as the interpretation (a sweep of a
 * tiled transpose: +55% with 1,056 blocks in turns, +4% with 32,
 * nothing measurable with 16) */
#define PHASE_BLOCKS 16

enum { CB_NEW, CB_RUNNING, CB_DONE };

/* what one resident block keeps between its turns */
struct coop_block {
	int state;                    /* CB_* */
	struct warp *warps;
	int nwarps;                   /* warps allocated */
	uint8_t *smem;
	size_t smem_cap;
	struct race_shadow sh;
	uint32_t epoch, block_epoch;
	int stuck;
	/* the performance model: in the sample, its number in the
	 * collector (-1 before it starts), and its work so far */
	int sampled, perf;
	struct perf_work work;
};

/* the blocks of the largest cooperative launch so far, for the next */
static struct coop_block *g_blocks;
static size_t g_nblocks;

void coop_slice(struct xctx *x)
{
	x->slice_end = x->lane_insns + COOP_SLICE;
}

/* block b's memory for this launch (kept from earlier ones when large
 * enough); 0 or -1 */
static int block_alloc(struct xctx *x, struct coop_block *b)
{
	size_t n = x->smem_size + 64;

	if (b->nwarps < x->nwarps) {
		struct warp *w = realloc(b->warps, (size_t)x->nwarps *
					 sizeof(*w));

		if (!w)
			return -1;
		memset(w + b->nwarps, 0, (size_t)(x->nwarps - b->nwarps) *
		       sizeof(*w));
		b->warps = w;
		b->nwarps = x->nwarps;
	}
	if (b->smem_cap < n) {
		uint8_t *p = realloc(b->smem, n);

		if (!p)
			return -1;
		b->smem = p;
		b->smem_cap = n;
	}
	if (race_reserve(&b->sh, n) ||
	    sched_reserve_local(x, b->warps, x->nwarps))
		return -1;
	return 0;
}

/* room for nb blocks; 0 or -1 */
static int blocks_reserve(uint64_t nb)
{
	struct coop_block *b;

	if (nb <= g_nblocks)
		return 0;
	b = realloc(g_blocks, nb * sizeof(*b));
	if (!b)
		return -1;
	memset(b + g_nblocks, 0, (nb - g_nblocks) * sizeof(*b));
	g_blocks = b;
	g_nblocks = nb;
	return 0;
}

/* make block i the one x runs */
static void enter(struct xctx *x, struct coop_block *b, uint64_t i)
{
	const unsigned *g = x->cfg->grid;

	x->bid[0] = (unsigned)(i % g[0]);
	x->bid[1] = (unsigned)(i / g[0] % g[1]);
	x->bid[2] = (unsigned)(i / g[0] / g[1]);
	x->warps = b->warps;
	x->smem = b->smem;
	x->sh = &b->sh;
	x->epoch = b->epoch;
	x->block_epoch = b->block_epoch;
	x->stuck = b->stuck;
}

static void leave(struct xctx *x, struct coop_block *b)
{
	b->epoch = x->epoch;
	b->block_epoch = x->block_epoch;
	b->stuck = x->stuck;
}

/* The turn of block b (grid index i) begins: collected when sampled;
 * 0 or -1. */
static int perf_enter(struct xctx *x, struct coop_block *b, uint64_t i,
		      struct perf_work *from)
{
	struct perf_collect *pc = x->cfg->perf;

	if (!pc)
		return 0;
	if (b->sampled && b->perf < 0 &&
	    (b->perf = perf_block_begin(pc, i, x->nwarps)) < 0)
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	if (b->perf >= 0) {
		perf_block_enter(pc, b->perf);
		x->perf = pc;
	}
	sched_work_now(x, from);
	return 0;
}

/* ... and ends (rc: the turn's), its work counted. */
static void perf_leave(struct xctx *x, struct coop_block *b,
		       const struct perf_work *from, int rc)
{
	struct perf_collect *pc = x->cfg->perf;

	x->perf = NULL;
	if (!pc)
		return;
	sched_work_add(x, from, &b->work);
	if (rc != STEP_DONE)
		return;
	if (b->perf >= 0)
		perf_block_end(pc, b->perf, &b->work);
	perf_count_block(pc, &b->work);
}

/* one turn of block i: STEP_MORE, STEP_DONE or -1 */
static int turn(struct xctx *x, struct coop_block *b, uint64_t i)
{
	struct perf_work from;
	int rc;

	if (b->state == CB_NEW) {
		if (block_alloc(x, b))
			return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1,
					 -1, "out of host memory");
		enter(x, b, i);
		b->state = CB_RUNNING;
		rc = perf_enter(x, b, i, &from);
		if (!rc)
			rc = sched_block_start(x);
		if (!rc)
			rc = sched_block_step(x);
	} else {
		enter(x, b, i);
		rc = perf_enter(x, b, i, &from);
		if (!rc)
			rc = sched_block_step(x);
	}
	perf_leave(x, b, &from, rc);
	leave(x, b);
	if (rc == STEP_DONE)
		b->state = CB_DONE;
	return rc;
}

/* The sample's blocks marked, the workspace named, the prediction's
 * cap applied; the budget to restore.  Nothing runs once the
 * prediction has stopped (*stopped). */
static uint64_t perf_plan(struct xctx *x, struct coop_block *b, uint64_t nb,
			  int *stopped)
{
	struct perf_collect *pc = x->cfg->perf;

	*stopped = 0;
	for (uint64_t i = 0; i < nb; i++) {
		b[i].sampled = 0;
		b[i].perf = -1;
		memset(&b[i].work, 0, sizeof(b[i].work));
	}
	if (!pc)
		return x->budget;
	*stopped = x->cfg->perf_only && pc->why[0];
	for (size_t k = 0; k < perf_sample_count(nb); k++)
		b[perf_sample_block(nb, pc->seed, k)].sampled = 1;
	pc->grid_ws = x->cfg->grid_ws;
	return sched_perf_cap(x, pc->left);
}

/* After the launch: what the prediction has left, and whether the cap
 * stopped it. */
static void perf_done(struct xctx *x, uint64_t start, uint64_t budget)
{
	struct perf_collect *pc = x->cfg->perf;
	uint64_t spent = x->lane_insns - start;

	if (pc && x->cfg->perf_only)
		pc->left -= spent < pc->left ? spent : pc->left;
	if (pc && x->perf_capped == 2)
		perf_stop(pc, "the cooperative launch of '%.100s' ran past "
			  "%llu lane-instructions, the most the performance "
			  "model interprets of a prediction in all", x->kname,
			  (unsigned long long)(x->budget - start));
	x->budget = budget;
	x->perf_capped = 0;
}

/*
 * An ordinary launch's blocks from first on, resident together (a GPU
 * runs as many at once as fit on it, cfg->resident): block first, which
 * waits on another and is x's running block, moves into a slot of its
 * own, the next blocks take the other slots in index order, each block
 * that ends gives its slot to the next, and the slots take turns as a
 * cooperative launch's blocks do.  A round in which every resident
 * block spun with nothing written is a deadlock: they wait on a block
 * that cannot be resident with them, or one that exited.
 */
static int window_move_in(struct xctx *x, struct coop_block *b)
{
	if (block_alloc(x, b))
		return -1;
	for (int k = 0; k < x->nwarps; k++) {
		struct warp t = b->warps[k];

		b->warps[k] = x->warps[k];
		x->warps[k] = t;
	}
	memcpy(b->smem, x->smem, x->smem_size);
	race_copy(&b->sh, x->sh, x->smem_size);
	leave(x, b);
	b->state = CB_RUNNING;
	b->perf = -1;
	b->sampled = 0;
	return 0;
}

/* Slot s of a window takes grid block i: new, collected for the
 * performance model when in its sample. */
static void slot_take(struct xctx *x, uint64_t *which, uint64_t s,
		      uint64_t i)
{
	const struct perf_collect *pc = x->cfg->perf;
	const unsigned *g = x->cfg->grid;
	uint64_t nb = (uint64_t)g[0] * g[1] * g[2];
	struct coop_block *b = &g_blocks[s];

	b->state = CB_NEW;
	b->perf = -1;
	b->sampled = 0;
	memset(&b->work, 0, sizeof(b->work));
	for (size_t k = 0; pc && k < perf_sample_count(nb) && !b->sampled;
	     k++)
		b->sampled = perf_sample_block(nb, pc->seed, k) == i;
	which[s] = i;
}

/* The slots' turns until every block from the first in slot 0 on has
 * run (next: the grid index of the next block to take a slot); 0, or
 * -1 at the first fault.  The slots' memory is kept; their local
 * memory is freed. */
static int window_turns(struct xctx *x, uint64_t *which, uint64_t nslots,
			uint64_t next)
{
	const unsigned *g = x->cfg->grid;
	uint64_t nb = (uint64_t)g[0] * g[1] * g[2], left = nb - which[0];
	struct coop_block *b = g_blocks;
	int rc = 0, idle_rounds = 0;

	while (left && rc >= 0) {
		uint64_t last = 0;
		int idle = IDLE_SPIN;

		for (uint64_t s = 0; s < nslots && rc >= 0; s++) {
			if (b[s].state == CB_DONE)
				continue;
			rc = turn(x, &b[s], which[s]);
			if (rc == STEP_DONE) {
				left--;
				if (next < nb)
					slot_take(x, which, s, next++);
			}
			if (rc != STEP_MORE || x->idle < idle)
				idle = rc == STEP_MORE ? x->idle : IDLE_NO;
			last = s;
		}
		idle_rounds = idle == IDLE_NO ? 0 : idle_rounds + 1;
		if (rc >= 0 && left && (idle == IDLE_SPIN ||
					(idle == IDLE_WAIT &&
					 idle_rounds >= STUCK_STEPS))) {
			enter(x, &b[last], which[last]);
			rc = sched_deadlock(x, DL_WINDOW);
		}
	}
	for (uint64_t s = 0; s < nslots; s++)
		sched_free_local(b[s].warps, b[s].nwarps);
	return rc < 0 ? -1 : 0;
}

/* Slots s and on of a window, for the blocks from next on. */
static void window_fill(struct xctx *x, uint64_t *which, uint64_t s,
			uint64_t nslots, uint64_t next)
{
	for (; s < nslots; s++)
		slot_take(x, which, s, next++);
}

/* the slots of a window from block first on, at most `most`, each
 * with room; NULL out of memory */
static uint64_t *window_open(struct xctx *x, uint64_t first, uint64_t most,
			     uint64_t *nslots)
{
	const unsigned *g = x->cfg->grid;
	uint64_t nb = (uint64_t)g[0] * g[1] * g[2];
	uint64_t *which;

	*nslots = nb - first;
	if (*nslots > most)
		*nslots = most;
	which = calloc(*nslots, sizeof(*which));
	if (!which || blocks_reserve(*nslots)) {
		free(which);
		return NULL;
	}
	return which;
}

/* x's own block memory back, the window closed */
static void window_close(struct xctx *x, struct warp *own,
			 struct race_shadow *own_sh, uint8_t *own_smem)
{
	x->warps = own;
	x->sh = own_sh;
	x->smem = own_smem;
	x->window = 0;
	x->slice_end = UINT64_MAX;
}

int coop_run_window(struct xctx *x, uint64_t first)
{
	struct warp *own = x->warps;
	struct race_shadow *own_sh = x->sh;
	uint8_t *own_smem = x->smem;
	uint64_t nslots, *which = window_open(x, first, x->cfg->resident,
						&nslots);
	int rc;

	if (!which || window_move_in(x, &g_blocks[0])) {
		free(which);
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	}
	which[0] = first;
	window_fill(x, which, 1, nslots, first + 1);
	x->window = 2;
	rc = window_turns(x, which, nslots, first + nslots);
	free(which);
	window_close(x, own, own_sh, own_smem);
	return rc;
}

int coop_run_phases(struct xctx *x)
{
	struct warp *own = x->warps;
	struct race_shadow *own_sh = x->sh;
	uint8_t *own_smem = x->smem;
	uint64_t nslots, *which = window_open(x, 0, x->cfg->resident <
						PHASE_BLOCKS ? x->cfg->resident :
						PHASE_BLOCKS, &nslots);
	int rc;

	if (!which)
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	window_fill(x, which, 0, nslots, 0);
	x->window = 3;
	rc = window_turns(x, which, nslots, nslots);
	free(which);
	window_close(x, own, own_sh, own_smem);
	return rc;
}

int coop_run_grid(struct xctx *x)
{
	const unsigned *g = x->cfg->grid;
	uint64_t nb = (uint64_t)g[0] * g[1] * g[2], left = nb, i;
	uint64_t start = x->lane_insns, budget;
	struct warp *own = x->warps;
	struct coop_block *b;
	int rc = 0, idle_rounds = 0, stopped;

	if (blocks_reserve(nb))
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	b = g_blocks;
	for (i = 0; i < nb; i++)
		b[i].state = CB_NEW;
	budget = perf_plan(x, b, nb, &stopped);
	if (stopped)
		left = 0;
	while (left && rc >= 0) {
		uint64_t last = 0;
		int idle = IDLE_SPIN;

		for (i = 0; i < nb && rc >= 0; i++) {
			if (b[i].state == CB_DONE)
				continue;
			rc = turn(x, &b[i], i);
			left -= rc == STEP_DONE;
			if (rc != STEP_MORE || x->idle < idle)
				idle = rc == STEP_MORE ? x->idle : IDLE_NO;
			last = i;
		}
		/* a round in which every block spun and nothing was written
		 * leaves them all as they were: for good (where some wait
		 * on an mbarrier, after STUCK_STEPS such rounds) */
		idle_rounds = idle == IDLE_NO ? 0 : idle_rounds + 1;
		if (rc >= 0 && left && (idle == IDLE_SPIN ||
					(idle == IDLE_WAIT &&
					 idle_rounds >= STUCK_STEPS))) {
			enter(x, &b[last], last);
			rc = sched_deadlock(x, DL_GRID);
		}
	}
	for (i = 0; i < nb; i++) {
		/* local memory is sized per launch (sched.c frees its own) */
		sched_free_local(b[i].warps, b[i].nwarps);
	}
	x->warps = own;
	x->slice_end = UINT64_MAX;
	perf_done(x, start, budget);
	return rc < 0 ? -1 : 0;
}
