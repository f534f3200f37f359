/*
 * The scheduler of a launch: blocks one after the other, or in turns
 * when the kernel has barriers (a few resident at once, each to its
 * next barrier) or is cooperative (all resident): sched_coop.c; in a
 * block,
 * each running warp runs (exec.c) until it exits, reaches a barrier or
 * gives way (a failed mbarrier wait, nanosleep, a store below), then the
 * barrier is released once every thread still running has arrived (a
 * barrier some threads cannot reach is a fault), so results and counters
 * are deterministic.  Epochs (race.c) advance at every block start,
 * barrier and completed mbarrier phase.  emu_run sets a launch up:
 * symbols' addresses, shared memory and its shadow, local memory, limits.
 *
 * Interleaving.  A GPU runs a block's warps side by side, and a store
 * lands hundreds of cycles after the loads its value waited for: warps
 * that load a word, add to it and store it back (PolyBench's mvt: the
 * warps of a block that differ only in threadIdx.y) all load it before
 * any of them stores.  Run one after the other, each warp would load
 * the sum of the ones before.  So a warp gives way (Y_STORE) before a
 * global store into an allocation it loaded from in this run, while
 * another warp of its block runs; in its next run the store comes
 * first.  The others thus load what they load before it lands, and
 * warps that keep loading and storing one word go in step, store by
 * store.  A store into memory the warp did not load in this run (a
 * copy, a transpose, a tile written back after a barrier) does not
 * give way: nearly every kernel runs as before, its warps whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/perf.h"
#include "emu/vm/race.h"

/* epochs only grow, so shadow entries of earlier blocks and launches
 * read as "never written" without clearing the shadow */
static uint32_t g_epoch = 1;

static struct warp g_warps[EMU_MAX_BLOCK_WARPS];

static uint8_t *g_smem;

static size_t g_smem_cap;

static struct race_shadow g_shadow;

/* Every warp waits at a barrier: let them go on, giving those at a
 * bar.red the block's reduction. */
static void release_barrier(struct xctx *x)
{
	uint32_t sum = 0, all = 1, any = 0;
	int i;

	for (i = 0; i < x->nwarps; i++) {
		const struct warp *w = &x->warps[i];

		if (w->state != W_BAR ||
		    w->fr[w->nf - 1].f->insns[w->bar_pc].op != OP_BARRED)
			continue;
		sum += w->bar_red;
		all &= w->bar_red != 0;
		any |= w->bar_red != 0;
	}
	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];
		const struct frame *fr = &w->fr[w->nf - 1];
		const struct emu_insn *in = &fr->f->insns[w->bar_pc];
		uint32_t m = w->bar_mask;

		if (w->state != W_BAR)
			continue;
		w->state = W_RUN;
		if (in->op != OP_BARRED)
			continue;
		if (in->sub == BR_POPC) {
			uint64_t *D = dst(x, w->regs + fr->roff, &in->d[0]);

			LANES(D[l] = sum);
		} else {
			pred_set(w->preds + fr->poff, &in->d[0], m,
				 (in->sub == BR_AND ? all : any) ? FULL : 0);
		}
	}
}

/*
 * A block's shared memory starts as poison, as a GPU's holds whatever
 * was there: every 4-byte word 0x7fffffff, which reads as NaN in every
 * float width (f16 halves 0xffff and 0x7fff, a double's high word) and
 * as INT_MAX as an int, so that a result that used a word no thread
 * wrote comes out wrong as it would on a GPU (the read also gets a
 * warning, race.c).
 */
static void poison_shared(uint8_t *p, size_t n)
{
	static const uint8_t word[4] = { 0xff, 0xff, 0xff, 0x7f };
	size_t done = n < 4 ? n : 4;

	memcpy(p, word, done);
	/* doubling copies: as fast as memset for a block's kilobytes */
	while (done < n) {
		size_t k = done < n - done ? done : n - done;

		memcpy(p + done, p, k);
		done += k;
	}
}

void sched_new_epoch(struct xctx *x)
{
	x->epoch = g_epoch++;
}

int sched_block_start(struct xctx *x)
{
	int i;

	x->epoch = g_epoch++;
	x->block_epoch = x->epoch;
	x->stuck = 0;
	poison_shared(x->smem, x->smem_size);
	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];
		unsigned lanes = x->nthreads -
				 (unsigned)i * EMU_WARP_SIZE;

		w->id = i;
		w->init = lanes >= EMU_WARP_SIZE ? FULL : (1u << lanes) - 1;
		w->live = w->init;
		w->state = W_RUN;
		w->yield = Y_NONE;
		w->mbar_waiting = 0;
		spin_reset(w);
		w->sp = 0;
		w->nf = 0;
		if (simt_push_frame(x, w, x->k, NULL) ||
		    simt_push(w, 0, x->k->ninsns, w->init))
			return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
					 "out of host memory");
	}
	return 0;
}

/* No warp runs: release the barrier they wait at (STEP_MORE) once every
 * thread still running has arrived, or STEP_DONE when all have exited;
 * a barrier some threads cannot reach is a fault. */
static int release_or_done(struct xctx *x)
{
	unsigned arrived = 0, live = 0;
	int i, nbar = 0;
	struct warp *wb = NULL;

	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];

		/* a warp that left the kernel keeps its last mask */
		if (w->state != W_DONE)
			live += (unsigned)lanes_in(w->live);
		if (w->state == W_BAR) {
			arrived += (unsigned)lanes_in(w->bar_mask);
			nbar++;
			wb = w;
		}
	}
	if (!nbar)
		return STEP_DONE;
	/* as on sm_70 and later, threads that have exited do not take part
	 * in a barrier: only those still running must all have arrived */
	if (arrived == live)
		arrived = x->nthreads;
	if (arrived != x->nthreads) {
		const struct emu_insn *in =
			&wb->fr[wb->nf - 1].f->insns[wb->bar_pc];

		return emu_fault(x, WGEMU_FAULT_BARRIER, in, -1, -1,
				 "barrier reached by %u of the %u threads of "
				 "the block (the others exited or wait "
				 "elsewhere)", arrived, x->nthreads);
	}
	x->epoch = g_epoch++;
	release_barrier(x);
	return STEP_MORE;
}

int sched_deadlock(struct xctx *x, int why)
{
	const struct warp *w = NULL;
	const struct emu_insn *in;
	unsigned pending = 0;

	for (int i = 0; i < x->nwarps; i++)
		if (x->warps[i].state == W_RUN) {
			w = w ? w : &x->warps[i];
			pending += (unsigned)__builtin_popcount(
				x->warps[i].live);
		}
	/* where the first waiting warp is: after its wait or its sleep,
	 * or at the branch of its spin */
	in = &w->fr[w->nf - 1].f->insns[w->stack[w->sp - 1].pc -
					  (w->yield != Y_SPIN)];
	if (why == DL_GRID || why == DL_WINDOW)
		return emu_fault(x, WGEMU_FAULT_LIMIT, in, w->id,
				 __builtin_ctz(w->live), "deadlock: every "
				 "block left waits on memory that no thread "
				 "running changes (a block waiting for one "
				 "that exited, %s?)", why == DL_GRID ?
				 "or at a grid barrier that another never "
				 "reaches" : "or for one that a GPU cannot "
				 "run beside it: as many blocks run at once "
				 "as fit on the device");
	return emu_fault(x, WGEMU_FAULT_LIMIT, in, w->id,
			 __builtin_ctz(w->live), "deadlock: %u threads of the "
			 "block wait on %s", pending, why == DL_SPIN ?
			 "memory that no thread running changes" :
			 "mbarrier phases that no thread can complete (the "
			 "others exited or wait at a barrier)");
}

/* The warps gave way in a step, blocked of the ran that did so waiting
 * on an mbarrier or spinning, spun of them spinning; a fault when the
 * block is deadlocked: at once when they all spin with nothing written
 * (each warp's state repeats and nothing else runs), after STUCK_STEPS
 * such steps when some wait on an mbarrier (their loops count tries).
 * In a cooperative launch other blocks may change what a warp spins
 * on: sched_coop.c judges those. */
static int after_yield(struct xctx *x, int ran, int blocked, int spun,
		       uint64_t written)
{
	x->idle = written != spin_written(x) || blocked != ran ? IDLE_NO :
		  spun == ran ? IDLE_SPIN : IDLE_WAIT;
	if (spun && x->window == 3)
		x->window = 2;	/* a window's blocks spin: time slices */
	if (x->idle == IDLE_NO ||
	    (spun && (x->cfg->cooperative || x->window == 2))) {
		x->stuck = 0;
		return STEP_MORE;
	}
	if (x->idle == IDLE_WAIT && ++x->stuck < STUCK_STEPS)
		return STEP_MORE;
	/* another block may change what it waits on: run them together */
	if (spun && x->window == 1)
		return STEP_BLOCKED;
	return sched_deadlock(x, spun ? DL_SPIN : DL_MBAR);
}

int sched_block_step(struct xctx *x)
{
	uint64_t written = spin_written(x);
	int i, ran = 0, blocked = 0, spun = 0, yielded = 0, running = 0;

	for (i = 0; i < x->nwarps; i++)
		running += x->warps[i].state == W_RUN;
	for (i = 0; i < x->nwarps; i++) {
		struct warp *w = &x->warps[i];

		if (w->state != W_RUN)
			continue;
		if (x->cfg->cooperative || x->window == 2)
			coop_slice(x);
		spin_arm(x, w);
		w->yield = Y_NONE;
		x->others = running > 1;
		x->nloaded = 0;
		if (exec_warp(x, w))
			return -1;
		ran++;
		if (w->state != W_RUN) {
			running--;
			continue;
		}
		yielded++;
		spun += w->yield == Y_SPIN;
		blocked += w->yield == Y_SPIN ||
			   (w->mbar_waiting && w->yield != Y_SLICE &&
			    w->yield != Y_STORE);
	}
	if (yielded)
		return after_yield(x, ran, blocked, spun, written);
	x->stuck = 0;
	x->idle = IDLE_NO;
	return release_or_done(x);
}

/* one block, start to end: 0, 1 when it waits on another block
 * (STEP_BLOCKED), or -1 at a fault */
static int run_block(struct xctx *x)
{
	int rc = sched_block_start(x);

	while (rc == STEP_MORE)
		rc = sched_block_step(x);
	return rc == STEP_DONE ? 0 : rc == STEP_BLOCKED ? 1 : -1;
}

size_t emu_static_smem(const struct emu_module *m, int k)
{
	const struct emu_func *f = &m->funcs[k];
	uint64_t off = 0;
	int i;

	for (i = 0; i < f->nshared_syms; i++) {
		const struct emu_sym *s = &m->syms[f->shared_syms[i]];

		off = (off + s->align - 1) / s->align * s->align + s->size;
	}
	return (size_t)off;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 0);
	return *end ? def : (uint64_t)v;
}

/*
 * A launch's instruction budget: $WGEMU_INSN_LIMIT when set; else it
 * grows with the launch -- EMU_INSN_PER_THREAD lane-instructions for
 * each of its threads, at least EMU_INSN_BUDGET -- so that a big honest
 * launch is never cut short while an endless loop in a small one stops
 * within about a minute (a spin nothing can end stops at once,
 * spin.c).
 */
static uint64_t launch_budget(const struct emu_launch_cfg *cfg)
{
	uint64_t threads = (uint64_t)cfg->grid[0] * cfg->grid[1] *
			   cfg->grid[2] * cfg->block[0] * cfg->block[1] *
			   cfg->block[2];
	uint64_t scaled = threads * EMU_INSN_PER_THREAD;

	if (getenv("WGEMU_INSN_LIMIT"))
		return env_u64("WGEMU_INSN_LIMIT", EMU_INSN_BUDGET);
	return scaled > EMU_INSN_BUDGET ? scaled : EMU_INSN_BUDGET;
}

/* a launch that cannot have the host memory it needs */
static int out_of_memory(struct emu_result *res)
{
	res->fault = WGEMU_FAULT_RESOURCES;
	snprintf(res->msg, sizeof(res->msg), "out of host memory");
	return -1;
}

/* The addresses of the launch's symbols: the static shared variables
 * the kernel may touch packed at their alignment, the dynamic part
 * after them at the largest alignment an extern shared variable asks
 * (EMU_DYN_SMEM_ALIGN at least), module variables at their device
 * address, parameters at their offset; and the launch's shared size. */
static void place_symbols(struct xctx *x)
{
	const struct emu_module *m = x->m;
	const struct emu_func *f = x->k;
	uint64_t off = 0, dyn_align = EMU_DYN_SMEM_ALIGN;
	int i;

	for (i = 0; i < f->nshared_syms; i++) {
		const struct emu_sym *s = &m->syms[f->shared_syms[i]];

		off = (off + s->align - 1) / s->align * s->align;
		x->symaddr[f->shared_syms[i]] = off;
		off += s->size;
	}
	x->res->static_smem = (size_t)off;
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *s = &m->syms[i];

		if (s->kind == SYM_EXTERN_SHARED && s->align > dyn_align)
			dyn_align = s->align;
	}
	x->dyn_base = (uint32_t)((off + dyn_align - 1) / dyn_align *
				 dyn_align);
	for (i = 0; i < m->nsyms; i++) {
		const struct emu_sym *s = &m->syms[i];

		if (s->kind == SYM_EXTERN_SHARED)
			x->symaddr[i] = x->dyn_base;
		else if (s->kind == SYM_GLOBAL || s->kind == SYM_CONST)
			x->symaddr[i] = s->dev;
		else if (s->kind == SYM_KPARAM || s->kind == SYM_PARAM)
			x->symaddr[i] = s->off;
	}
	x->smem_size = x->cfg->dyn_smem ?
		       x->dyn_base + (uint32_t)x->cfg->dyn_smem : (uint32_t)off;
}

/* Shared memory and its shadow (kept from launch to launch, grown when
 * too small) and each warp's local memory: the depots of the kernel and
 * of every function it may call, plus 4 KB for recursion. */
static int reserve_memory(struct xctx *x, int k)
{
	const struct emu_module *m = x->m;
	uint64_t lcap = 0;
	int i;

	if (x->smem_size + 64 > g_smem_cap) {
		size_t n = x->smem_size + 64;
		void *a = realloc(g_smem, n);

		if (a)
			g_smem = a;
		if (!a || race_reserve(&g_shadow, n))
			return -1;
		g_smem_cap = n;
	}
	x->smem = g_smem;
	x->sh = &g_shadow;
	for (i = 0; i < m->nfuncs; i++)
		if (i == k || !m->funcs[i].is_entry)
			lcap += (m->funcs[i].depot_bytes + 15u) & ~15u;
	lcap += lcap ? 4096 : 0;
	x->lcap = (uint32_t)lcap;
	return sched_reserve_local(x, g_warps, x->nwarps);
}

int sched_reserve_local(struct xctx *x, struct warp *warps, int n)
{
	for (int i = 0; i < n; i++) {
		size_t need = (size_t)x->lcap * EMU_WARP_SIZE;

		if (need && simt_grow(&warps[i].local, &warps[i].local_cap,
				      need, 1))
			return -1;
	}
	return 0;
}

void sched_free_local(struct warp *warps, int n)
{
	for (int i = 0; i < n; i++) {
		free(warps[i].local);
		warps[i].local = NULL;
		warps[i].local_cap = 0;
	}
}

/*
 * Whether x's launch runs in phases (coop_run_phases): a kernel with
 * barriers, more than one block, every block run.  Its resident blocks
 * take turns, a turn running a block to its next barrier, as a GPU's
 * resident blocks go on side by side -- so a block reads what the
 * others wrote before their barrier (Rodinia's particlefilter_float
 * depends on it), not what they write after.  A prediction's sample
 * alone runs its blocks alone.
 */
static int in_phases(const struct xctx *x)
{
	const unsigned *g = x->cfg->grid;

	return x->cfg->resident > 1 && (uint64_t)g[0] * g[1] * g[2] > 1 &&
	       !(x->cfg->perf && x->cfg->perf_only) && x->k->may_barrier;
}

/*
 * Every block of the grid, x fastest, one after another -- until one
 * waits on another: a GPU runs as many at once as fit on it, so from
 * there they run together (sched_coop.c).  0, or -1 at the first fault.
 */
static int run_grid(struct xctx *x)
{
	const unsigned *grid = x->cfg->grid;
	uint64_t b = 0;

	x->window = x->cfg->resident > 1 &&
		    (uint64_t)grid[0] * grid[1] * grid[2] > 1;
	for (unsigned bz = 0; bz < grid[2]; bz++)
		for (unsigned by = 0; by < grid[1]; by++)
			for (unsigned bx = 0; bx < grid[0]; bx++, b++) {
				int rc;

				x->bid[0] = bx;
				x->bid[1] = by;
				x->bid[2] = bz;
				rc = run_block(x);
				if (rc == 1)	/* the rest, together */
					return coop_run_window(x, b);
				if (rc)
					return -1;
			}
	return 0;
}

/* ---- the performance model's blocks (perf.h) ---- */

void sched_work_now(const struct xctx *x, struct perf_work *w)
{
	const struct wgemu_counters *c = &x->res->total;

	w->lane_insns = x->lane_insns;
	w->ld_sectors = c->global_load_sectors + c->global_atomic_sectors;
	w->st_sectors = c->global_store_sectors + c->global_atomic_sectors;
	w->ld_bytes = x->gld_bytes;
	w->st_bytes = x->gst_bytes;
}

void sched_work_add(const struct xctx *x, const struct perf_work *from,
		    struct perf_work *to)
{
	struct perf_work now;

	sched_work_now(x, &now);
	to->lane_insns += now.lane_insns - from->lane_insns;
	to->ld_sectors += now.ld_sectors - from->ld_sectors;
	to->st_sectors += now.st_sectors - from->st_sectors;
	to->ld_bytes += now.ld_bytes - from->ld_bytes;
	to->st_bytes += now.st_bytes - from->st_bytes;
}

uint64_t sched_perf_cap(struct xctx *x, uint64_t cap)
{
	uint64_t budget = x->budget;

	if (x->cfg->perf_only && x->lane_insns < x->budget &&
	    cap < x->budget - x->lane_insns) {
		x->budget = x->lane_insns + cap;
		x->perf_capped = 1;
	}
	return budget;
}

static void set_bid(struct xctx *x, uint64_t b)
{
	const struct emu_launch_cfg *cfg = x->cfg;
	uint64_t gx = cfg->grid[0], gy = cfg->grid[1];

	x->bid[0] = (unsigned)(b % gx);
	x->bid[1] = (unsigned)(b / gx % gy);
	x->bid[2] = (unsigned)(b / gx / gy);
}

/* Block b, counted: 0, or -1 at a fault. */
static int run_counted(struct xctx *x, uint64_t b)
{
	struct perf_work from, w;
	int rc;

	memset(&w, 0, sizeof(w));
	set_bid(x, b);
	sched_work_now(x, &from);
	rc = run_block(x);
	sched_work_add(x, &from, &w);
	perf_count_block(x->cfg->perf, &w);
	return rc;
}

/* Block b, collected for the performance model, within the caps of a
 * prediction: 0, or -1 at a fault or past a cap (the collector then
 * says why). */
static int run_collected(struct xctx *x, uint64_t b)
{
	struct perf_collect *pc = x->cfg->perf;
	uint64_t cap = pc->left < pc->block_cap ? pc->left : pc->block_cap;
	uint64_t budget;
	struct perf_work from, w;
	int k, rc;

	memset(&w, 0, sizeof(w));
	set_bid(x, b);
	k = perf_block_begin(pc, b, x->nwarps);
	if (k < 0)
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	budget = sched_perf_cap(x, cap);
	sched_work_now(x, &from);
	x->perf = pc;
	rc = run_block(x);
	x->perf = NULL;
	sched_work_add(x, &from, &w);
	perf_block_end(pc, k, &w);
	perf_count_block(pc, &w);
	if (x->cfg->perf_only)
		pc->left -= w.lane_insns < pc->left ? w.lane_insns : pc->left;
	if (x->perf_capped == 2)
		perf_stop(pc, "block (%u,%u,%u) of '%.100s' ran past %llu "
			  "lane-instructions, the most the performance model "
			  "interprets %s", x->bid[0], x->bid[1], x->bid[2],
			  x->kname, (unsigned long long)cap,
			  cap == pc->block_cap ? "of one block" :
			  "of a prediction's sampled blocks in all");
	x->budget = budget;
	x->perf_capped = 0;
	return rc;
}

static int in_sample(const struct perf_collect *pc, uint64_t b)
{
	for (size_t i = 0; i < pc->nblocks; i++)
		if (pc->blocks[i].id == b)
			return 1;
	return 0;
}

/*
 * A prediction's sample alone (cfg->perf_only: nothing else runs, the
 * output is incomplete): the sample's blocks (perf_sample.c) until
 * PERF_SAMPLE_BUDGET lane-instructions after PERF_SAMPLE_MIN blocks,
 * then, while the sampled blocks' work is uneven (or the prediction
 * asks for it), the blocks that extend it, until PERF_EXTEND_BUDGET
 * more.
 */
static int run_sample_only(struct xctx *x, uint64_t nb)
{
	struct perf_collect *pc = x->cfg->perf;
	size_t n = perf_sample_count(nb), lim = perf_sample_limit(nb), i;
	uint64_t start = x->lane_insns;

	for (i = 0; i < n; i++) {
		if (i >= PERF_SAMPLE_MIN &&
		    x->lane_insns - start > PERF_SAMPLE_BUDGET)
			break;
		if (run_collected(x, perf_sample_block(nb, pc->seed, i)))
			return -1;
	}
	start = x->lane_insns;
	for (i = n; i < lim && (pc->extend || perf_sample_uneven(pc)); i++) {
		uint64_t b = perf_sample_block(nb, pc->seed, i);

		if (x->lane_insns - start > PERF_EXTEND_BUDGET)
			break;
		if (!in_sample(pc, b) && run_collected(x, b))
			return -1;
	}
	return 0;
}

/*
 * The performance model's sample of a launch that runs whole (a
 * program's, 'warpgrade emu'): every block runs and is counted, the
 * sample's blocks (perf_sample.c, without extension: its blocks are
 * chosen before any has run) are collected.  With cfg->perf_only only
 * the sample runs (run_sample_only).
 */
static int run_sampled(struct xctx *x)
{
	const struct emu_launch_cfg *cfg = x->cfg;
	uint64_t nb = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
	size_t n = perf_sample_count(nb);
	uint64_t *pick;
	int rc = 0;

	if (cfg->perf_only)
		/* a prediction that has stopped runs nothing more */
		return cfg->perf->why[0] ? 0 : run_sample_only(x, nb);
	pick = calloc(n ? n : 1, sizeof(*pick));
	if (!pick)
		return emu_fault(x, WGEMU_FAULT_RESOURCES, NULL, -1, -1,
				 "out of host memory");
	for (size_t i = 0; i < n; i++)
		pick[i] = perf_sample_block(nb, cfg->perf->seed, i);
	for (uint64_t b = 0; b < nb && !rc; b++) {
		int in = 0;

		for (size_t i = 0; i < n && !in; i++)
			in = pick[i] == b;
		rc = in ? run_collected(x, b) : run_counted(x, b);
	}
	free(pick);
	return rc;
}

int emu_run(const struct emu_module *m, int k,
	    const struct emu_launch_cfg *cfg, struct emu_result *res)
{
	struct xctx x;
	char kname[256];
	int i, rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&x, 0, sizeof(x));
	x.m = m;
	x.k = &m->funcs[k];
	x.cfg = cfg;
	x.res = res;
	x.warps = g_warps;
	emu_demangle(x.k->name, kname, sizeof(kname));
	x.kname = kname;
	x.symaddr = calloc((size_t)m->nsyms + 1, sizeof(uint64_t));
	x.lines = calloc((size_t)m->nlines + 1, sizeof(*x.lines));
	if (!x.symaddr || !x.lines) {
		out_of_memory(res);
		goto out;
	}
	for (i = 0; i < m->nlines; i++) {
		x.lines[i].file = m->lines[i].file;
		x.lines[i].line = m->lines[i].line;
	}
	place_symbols(&x);
	x.nthreads = cfg->block[0] * cfg->block[1] * cfg->block[2];
	x.nwarps = (int)((x.nthreads + EMU_WARP_SIZE - 1) / EMU_WARP_SIZE);
	if (reserve_memory(&x, k)) {
		out_of_memory(res);
		goto out;
	}
	x.budget = cfg->insn_limit ? cfg->insn_limit : launch_budget(cfg);
	x.limit = x.budget;
	x.slice_end = UINT64_MAX;
	x.checks = env_u64("WGEMU_CHECKS", 1) != 0 &&
		   !(cfg->perf && cfg->perf_only);
	if (cfg->cooperative)
		rc = coop_run_grid(&x);
	else if (in_phases(&x))
		rc = coop_run_phases(&x);
	else
		rc = cfg->perf ? run_sampled(&x) : run_grid(&x);
	res->total.lane_instructions = x.lane_insns;
	res->global_bytes = x.gld_bytes + x.gst_bytes;
	res->lines = x.lines;
	x.lines = NULL;
out:
	/* local memory is sized per launch: free it */
	sched_free_local(g_warps, EMU_MAX_BLOCK_WARPS);
	spin_release(&x);
	urun_release(&x);
	free(x.symaddr);
	free(x.lines);
	return rc;
}
