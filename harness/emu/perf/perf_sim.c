/*
 * The performance model's clock (perf.h): the busiest streaming
 * multiprocessor of a launch, simulated event by event.
 *
 * The grid's blocks are spread evenly over the SMs, so the busiest one
 * runs ceil(blocks / SMs) of them, as many at a time as the occupancy
 * allows (warps, blocks, shared memory and registers per SM); a block
 * that ends frees its slot for the next after the block-launch delay.
 * Which sampled blocks it runs: the heaviest first -- the SM that gets
 * a block doing the work of many is the busiest, and one heavy block
 * is never averaged away -- then the samples in proportion to the
 * blocks each stands for, taken in turn, heavier first.  Each resident
 * warp replays the event list of its block's warp (as many times as
 * the block's reps, where its events were cut short) and always the
 * warp that is ready first moves on:
 *
 *   issue    its scheduler (one of four) issues the run of
 *            instructions;
 *   load     the L1/shared data pipe takes one cycle per 128-byte line
 *            (per wavefront for shared memory), the SM's share of L2
 *            bandwidth its sectors, the SM's share of DRAM bandwidth
 *            the sectors that miss; the result arrives a latency later;
 *   store    the same pipes, without waiting; partly written sectors
 *            cost L2 more than whole ones;
 *   wait     the warp stalls until that load's result has arrived;
 *   barrier  the warp waits for the rest of its block;
 *   grid     (a cooperative launch's grid barrier) the warp waits
 *            until every block on the SM has arrived -- the others
 *            are taken to arrive when these do -- and the barrier's
 *            cost.
 *
 * Each pipe is a server with the time it is next free, so queueing and
 * bandwidth limits come out of the same arithmetic as latency: a kernel
 * with too few loads in flight per SM waits on latency, one with enough
 * waits on the busiest pipe.  The SM's share of L2 and DRAM bandwidth
 * is the GPU's divided by the SMs the grid keeps busy, up to what one
 * SM can move; DRAM's share is a budget over time, so what an SM left
 * unused while its blocks waited it may use soon after (dram_take).
 * A DRAM page a block moves only part of costs more where the launch's
 * blocks are long-lived and drift apart (page_surcharge).
 *
 * Lower bounds.  Whatever the simulation says, a launch takes no less
 * than its DRAM traffic (scaled from the sample) at the data sheet's
 * peak bandwidth, its lane-instructions at the whole GPU's peak issue
 * rate, and its heaviest block's at one SM's (every block that ran
 * was counted, sampled or not).  The simulation stays well above them
 * for an even grid; the last is what a launch whose work sits in one
 * block meets.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu/perf.h"

#define RING 256            /* completion times of a warp's last loads */
#define SCHEDULERS 4

struct sim_warp {
	const struct perf_warp *trace;
	size_t pos;
	uint32_t loop, loops;    /* replays of the trace: done, to do */
	uint32_t base;           /* load ids of the replays done */
	uint32_t issued;         /* loads issued so far */
	double page;             /* its block's DRAM bytes cost this much
				  * more, for the pages it opens alone
				  * (page_surcharge) */
	double t;
	int slot;               /* block slot */
	int at_barrier, at_grid, done, in_heap;
	double ring[RING];
};

/* a ready warp in the heap: its time when pushed (a warp's time does not
 * change while it waits there), kept beside its number so that ordering
 * the heap reads no warp */
struct heap_ent {
	double t;
	int i;
};

struct sim_slot {
	uint64_t block;          /* the SM's block number, or UINT64_MAX */
	int live, arrived, grid;
	double bar_t;
	double start_t;          /* when its block started */
};

/* The samples the SM's blocks take, in turn: each sample k (heaviest
 * first) count[k] times, one round after another. */
struct sim_order {
	size_t *by_cost;         /* sample numbers, heaviest first */
	uint64_t *count;
	size_t n, pos;
	uint64_t round;
};

struct sim {
	const struct perf_gpu *g;
	const struct perf_collect *pc;
	struct sim_warp *w;
	struct sim_slot *slot;
	int nslots, wpb;
	uint64_t next_block, nb;
	double sched_free[SCHEDULERS];
	double lsu_free, l2ld_free, l2st_free, dram_free, dispatch_free;
	double link_free;        /* the SM's own link to L2, for DRAM's
				  * bytes */
	double latency;          /* DRAM latency under this launch's load */
	uint64_t rng;
	/* the SM's rates, per cycle */
	double dram_bpc, l2ld_spc, l2st_spc, l2part_spc;
	struct heap_ent *heap;   /* ready warps, earliest first */
	int nheap;
	struct sim_order order;
	double grid_t;           /* the latest arrival at a grid barrier */
	/* busy cycles per pipe, for the limit */
	double busy_issue, busy_lsu, busy_l2, busy_dram;
	double end;
	double last_block;       /* how long the block that ended last ran */
	double drift;            /* how far its blocks drift apart, 0 to
				  * 1 (page_surcharge) */
};

static int occupancy(const struct perf_gpu *g, const struct perf_launch *l,
		     const char **why)
{
	int wpb = (int)((l->threads + 31) / 32);
	unsigned regs = l->regs ? l->regs : 32;
	unsigned per_warp = (regs * 32 + 255) / 256 * 256;
	int occ = g->max_blocks_per_sm, by;

	*why = "blocks per SM";
	by = g->max_warps_per_sm / wpb;
	if (by < occ) {
		occ = by;
		*why = "warps per SM";
	}
	if (l->smem) {
		by = (int)(g->smem_per_sm / (l->smem +
					     g->smem_reserved_per_block));
		if (by < occ) {
			occ = by;
			*why = "shared memory per SM";
		}
	}
	by = (int)(g->regs_per_sm / (per_warp * (unsigned)wpb));
	if (by < occ) {
		occ = by;
		*why = "registers per SM";
	}
	return occ > 0 ? occ : 1;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* ---- the ready warps, a binary heap on their time ---- */

static int earlier(struct heap_ent a, struct heap_ent b)
{
	return a.t < b.t || (a.t == b.t && a.i < b.i);
}

static void heap_push(struct sim *s, int i)
{
	struct heap_ent e = { s->w[i].t, i };
	int k;

	if (s->w[i].in_heap)
		return;
	s->w[i].in_heap = 1;
	k = s->nheap++;
	while (k > 0 && earlier(e, s->heap[(k - 1) / 2])) {
		s->heap[k] = s->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	s->heap[k] = e;
}

static int heap_pop(struct sim *s)
{
	struct heap_ent top, last;
	int k = 0;

	if (!s->nheap)
		return -1;
	top = s->heap[0];
	s->w[top.i].in_heap = 0;
	last = s->heap[--s->nheap];
	for (;;) {
		int c = 2 * k + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && earlier(s->heap[c + 1], s->heap[c]))
			c++;
		if (!earlier(s->heap[c], last))
			break;
		s->heap[k] = s->heap[c];
		k = c;
	}
	s->heap[k] = last;
	return top.i;
}

/*
 * The DRAM pages a block opens for itself.  A page that a block moves
 * only part of is opened once for all the blocks that share it when
 * they run in step -- neighbours in launch order, each short-lived --
 * and by each for itself when they do not: long-lived blocks walking
 * the data grid-stride drift apart, each at its own pace, and
 * neighbouring tiles meet DRAM at different times.  The block's DRAM
 * bytes then cost page_open_bytes more for each such page, as much as
 * the launch's blocks are long-lived (drift: twice the share of the
 * launch the last block took in the pass before, at most 1).
 */
static double page_surcharge(const struct sim *s, const struct perf_block *b)
{
	if (!b->part_pages || b->dram_bytes <= 0)
		return 0;
	return s->drift * s->g->page_open_bytes * b->part_pages /
	       b->dram_bytes;
}

/* ---- which samples the SM's blocks take ---- */

static void order_release(struct sim_order *o)
{
	free(o->by_cost);
	free(o->count);
	memset(o, 0, sizeof(*o));
}

/* The heaviest sample once, then nb - 1 blocks shared among the
 * samples by the blocks each stands for (the largest remainders
 * rounding up); 0 or -1. */
static int order_init(struct sim_order *o, const struct perf_gpu *g,
		      const struct perf_collect *pc, uint64_t nblocks,
		      uint64_t nb)
{
	size_t n = pc->nblocks;
	double *cost = calloc(n, sizeof(*cost)), *w = calloc(n, sizeof(*w));
	double total = 0, *frac = calloc(n, sizeof(*frac));
	uint64_t given = 0;
	int rc = -1;

	memset(o, 0, sizeof(*o));
	o->by_cost = calloc(n, sizeof(*o->by_cost));
	o->count = calloc(n, sizeof(*o->count));
	o->n = n;
	if (!cost || !w || !frac || !o->by_cost || !o->count)
		goto out;
	for (size_t k = 0; k < n; k++) {
		size_t j = k;

		cost[k] = perf_block_cost(g, &pc->blocks[k].work);
		w[k] = perf_sample_weight(pc, k, nblocks);
		total += w[k];
		/* insertion sort, heaviest first, ties in sample order */
		while (j > 0 && cost[o->by_cost[j - 1]] < cost[k]) {
			o->by_cost[j] = o->by_cost[j - 1];
			j--;
		}
		o->by_cost[j] = k;
	}
	for (size_t k = 0; k < n; k++) {
		double q = (double)(nb - 1) * w[k] / total;

		o->count[k] = (uint64_t)q;
		frac[k] = q - (double)o->count[k];
		given += o->count[k];
	}
	while (given < nb - 1) {
		size_t best = o->by_cost[0];

		for (size_t j = 0; j < n; j++)
			if (frac[o->by_cost[j]] > frac[best])
				best = o->by_cost[j];
		frac[best] = -1;
		o->count[best]++;
		given++;
	}
	o->count[o->by_cost[0]]++;
	rc = 0;
out:
	free(cost);
	free(w);
	free(frac);
	if (rc)
		order_release(o);
	return rc;
}

/* The sample the SM's next block takes. */
static size_t order_next(struct sim_order *o)
{
	for (;;) {
		size_t k;

		if (o->pos == o->n) {
			o->pos = 0;
			o->round++;
		}
		k = o->by_cost[o->pos++];
		if (o->count[k] > o->round)
			return k;
	}
}

/* Put the SM's next block (if any) on slot s, once the SM's block
 * dispatch, one block at a time, gets to it after t. */
static void start_block(struct sim *s, int k, double t)
{
	struct sim_slot *sl = &s->slot[k];
	const struct perf_block *b;

	if (s->next_block >= s->nb) {
		sl->block = UINT64_MAX;
		sl->live = 0;
		return;
	}
	t = max2(t, s->dispatch_free) + s->g->block_launch_clk;
	s->dispatch_free = t;
	sl->block = s->next_block++;
	b = &s->pc->blocks[order_next(&s->order)];
	sl->live = 0;
	sl->arrived = 0;
	sl->grid = 0;
	sl->bar_t = 0;
	sl->start_t = t;
	for (int i = 0; i < s->wpb; i++) {
		struct sim_warp *w = &s->w[k * s->wpb + i];

		memset(w, 0, sizeof(*w));
		w->slot = k;
		w->t = t;
		w->loops = b->reps > 1.5 ? (uint32_t)(b->reps + 0.5) : 1;
		w->page = page_surcharge(s, b);
		if (i < b->nwarps) {
			w->trace = &b->warps[i];
			sl->live++;
			heap_push(s, k * s->wpb + i);
		} else {
			w->done = 1;
		}
	}
}

/* All live warps of the slot at the barrier: let them go. */
static void maybe_release(struct sim *s, int k)
{
	struct sim_slot *sl = &s->slot[k];

	if (!sl->live || sl->arrived < sl->live)
		return;
	for (int i = 0; i < s->wpb; i++) {
		struct sim_warp *w = &s->w[k * s->wpb + i];

		if (w->at_barrier) {
			w->at_barrier = 0;
			w->t = sl->bar_t + s->g->barrier_clk;
			heap_push(s, k * s->wpb + i);
		}
	}
	sl->arrived = 0;
	sl->bar_t = 0;
}

/* Every block on the SM has a warp at the grid barrier (force: any
 * number of them): let them go, the barrier's cost after the last
 * arrived.  1 when some went. */
static int release_grid(struct sim *s, int force)
{
	int waiting = 0;

	for (int k = 0; k < s->nslots; k++) {
		if (s->slot[k].live && !s->slot[k].grid && !force)
			return 0;
		waiting += s->slot[k].grid;
	}
	if (!waiting)
		return 0;
	for (int i = 0; i < s->nslots * s->wpb; i++) {
		struct sim_warp *w = &s->w[i];

		if (w->at_grid) {
			w->at_grid = 0;
			w->t = s->grid_t + s->g->grid_sync_clk;
			heap_push(s, i);
		}
	}
	for (int k = 0; k < s->nslots; k++)
		s->slot[k].grid = 0;
	s->grid_t = 0;
	return 1;
}

static void warp_done(struct sim *s, struct sim_warp *w)
{
	struct sim_slot *sl = &s->slot[w->slot];

	w->done = 1;
	if (w->t > s->end)
		s->end = w->t;
	if (--sl->live == 0) {
		if (w->t >= s->end)
			s->last_block = w->t - sl->start_t;
		start_block(s, w->slot, w->t);
	} else
		maybe_release(s, w->slot);
	release_grid(s, 0);
}

/* An exponential draw of mean 1, from the simulation's deterministic
 * sequence. */
static double exp_draw(struct sim *s)
{
	double u;

	s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
	u = ((double)(s->rng >> 11) + 0.5) / 9007199254740992.0;
	return -log(u);
}

/* The DRAM latency of a request for n lines: each line's is the
 * launch's mean under load, its varying share (latency_spread) drawn
 * with mean 1 as the mean of latency_tail exponential draws -- one, an
 * exponential tail; more, a lighter one -- and the request waits for
 * its slowest line, as a block at a barrier waits for its slowest
 * warp. */
static double dram_latency(struct sim *s, int n)
{
	double worst = 0, spread = s->g->latency_spread;
	int k = s->g->latency_tail >= 1 ? (int)s->g->latency_tail : 1;

	for (int i = 0; i < (n > 0 ? n : 1); i++) {
		double v = 0;

		for (int j = 0; j < k; j++)
			v += exp_draw(s);
		worst = max2(worst, v / k);
	}
	return s->latency * ((1 - spread) + spread * worst);
}

/*
 * DRAM moves `bytes` for the SM from t on: when they are through.  The
 * SM's share of the GPU's bandwidth is a budget over time, not a pipe
 * of its own: the other SMs' demand is spread out, so what this SM left
 * unused in the last dram_credit_clk cycles (its few blocks waiting at
 * a barrier or on latency) it may use now, as fast as its own link to
 * L2 allows.  dram_free is when the share has paid for everything so
 * far; it may lag t by the credit.
 */
static double dram_take(struct sim *s, double t, double bytes)
{
	double cost = bytes / s->dram_bpc;

	s->link_free = max2(t, s->link_free) +
		       bytes / s->g->sm_max_bytes_per_clk;
	s->dram_free = max2(s->dram_free, t - s->g->dram_credit_clk) + cost;
	s->busy_dram += cost;
	return max2(s->link_free, s->dram_free);
}

/* The L2 and DRAM legs of a load; when its data arrives. */
static double load_path(struct sim *s, double t, const struct perf_event *e,
			double page)
{
	double l2 = max2(t, s->l2ld_free) + e->l2 / s->l2ld_spc;
	int sectors;

	if (e->l2)
		s->l2ld_free = l2;
	s->busy_l2 += e->l2 / s->l2ld_spc;
	if (!e->dram)
		return (e->l2 ? l2 : t) + (e->l2 ? s->g->l2_latency_clk : 0);
	/* a line from DRAM for each sector's worth of its bytes */
	sectors = (e->dram * 4 + PERF_SECTOR - 1) / PERF_SECTOR;
	return dram_take(s, l2, 4.0 * e->dram * (1 + page)) +
	       dram_latency(s, e->lines < sectors ? e->lines : sectors);
}

/* When the data of a load whose sectors all or partly hit in L1
 * arrives: no earlier than the load that brought them in (a hit under
 * a miss waits for the miss). */
static double with_filler(const struct sim *s, const struct sim_warp *w,
			  int slot, const struct perf_event *e, double done)
{
	const struct sim_warp *f;
	uint32_t dep;

	if (!e->partial || (int)e->partial > s->wpb)
		return done;
	f = &s->w[slot * s->wpb + e->partial - 1];
	if (!f->trace)
		return done;
	/* the load of the same replay of the filler's trace */
	dep = e->dep + (f == w ? w->base : w->loop * f->trace->loads);
	if (dep >= f->issued)
		return max2(done, w->t + s->latency); /* not yet sent */
	if (f->issued - dep > RING)
		return done;
	return max2(done, f->ring[dep % RING]);
}

static void store_path(struct sim *s, double t, const struct perf_event *e,
		       double page)
{
	double whole = e->l2 - e->partial;
	double cost = whole / s->l2st_spc + e->partial / s->l2part_spc;
	double l2 = max2(t, s->l2st_free) + cost;

	s->l2st_free = l2;
	s->busy_l2 += cost;
	if (e->dram)
		dram_take(s, l2, 4.0 * e->dram * (1 + page));
}

/* The LSU pipe: when the instruction's data path work starts. */
static double lsu(struct sim *s, double t, unsigned units)
{
	double start = max2(t, s->lsu_free);
	double c = (units ? units : 1) * s->g->lsu_clk_per_wavefront;

	s->lsu_free = start + c;
	s->busy_lsu += c;
	return start;
}

/*
 * A run of n machine instructions of one warp.  Its scheduler issues
 * them at its rate, one warp's instruction after another's, and is free
 * for other warps once they are issued; the warp itself cannot go
 * faster than one instruction every warp_issue_clk cycles, the latency
 * of the instruction each depends on (arithmetic is pipelined, so a
 * scheduler with enough warps hides it, one with few does not).
 */
static void issue(struct sim *s, struct sim_warp *w, int sc, uint32_t n)
{
	double start = max2(w->t, s->sched_free[sc]);
	double c = n / s->g->issue_per_clk;

	s->sched_free[sc] = start + c;
	s->busy_issue += c / SCHEDULERS;
	w->t = max2(start + c, w->t + n * s->g->warp_issue_clk);
}

static void step(struct sim *s, struct sim_warp *w, int idx)
{
	const struct perf_event *e = &w->trace->ev[w->pos++];
	struct sim_slot *sl = &s->slot[w->slot];
	double start;
	int sc = idx % SCHEDULERS;

	switch (e->kind) {
	case PE_ISSUE:
		issue(s, w, sc, e->n);
		break;
	case PE_GLD:
		start = lsu(s, w->t, e->lines);
		w->ring[(e->n + w->base) % RING] = with_filler(s, w, w->slot,
					e, load_path(s, s->lsu_free, e,
						     w->page));
		w->issued = e->n + w->base + 1;
		w->t = start;
		break;
	case PE_GST:
		start = lsu(s, w->t, e->lines);
		store_path(s, s->lsu_free, e, w->page);
		w->t = start;
		break;
	case PE_SLD:
		start = lsu(s, w->t, e->lines);
		w->ring[(e->n + w->base) % RING] = s->lsu_free +
						   s->g->shared_latency_clk;
		w->issued = e->n + w->base + 1;
		w->t = start;
		break;
	case PE_SST:
		w->t = lsu(s, w->t, e->lines);
		break;
	case PE_WAIT:
		w->t = max2(w->t, w->ring[(e->n + w->base) % RING]);
		break;
	case PE_BAR:
		w->at_barrier = 1;
		sl->arrived++;
		sl->bar_t = max2(sl->bar_t, w->t);
		maybe_release(s, w->slot);
		break;
	case PE_GBAR:
		w->at_grid = 1;
		sl->grid++;
		s->grid_t = max2(s->grid_t, w->t);
		release_grid(s, 0);
		break;
	default:
		break;
	}
}


static void rates(struct sim *s, const struct perf_gpu *g, int active)
{
	double cap = g->sm_max_bytes_per_clk;

	s->dram_bpc = g->dram_gbps / g->sm_ghz / active;
	if (s->dram_bpc > cap)
		s->dram_bpc = cap;
	s->l2ld_spc = g->l2_load_sectors_per_clk / active;
	if (s->l2ld_spc > cap / PERF_SECTOR)
		s->l2ld_spc = cap / PERF_SECTOR;
	s->l2st_spc = g->l2_store_sectors_per_clk / active;
	if (s->l2st_spc > cap / PERF_SECTOR)
		s->l2st_spc = cap / PERF_SECTOR;
	s->l2part_spc = g->l2_partial_sectors_per_clk / active;
}

static const char *limit_of(const struct sim *s)
{
	double t = s->end > 0 ? s->end : 1;
	double u[4] = { s->busy_dram / t, s->busy_l2 / t, s->busy_lsu / t,
			s->busy_issue / t };
	static const char *const name[4] = {
		"DRAM bandwidth", "L2 throughput", "the L1/shared-memory pipe",
		"instruction issue"
	};
	int k = 0;

	for (int i = 1; i < 4; i++)
		if (u[i] > u[k])
			k = i;
	if (u[k] >= 0.75)
		return name[k];
	return "memory latency (too few loads in flight)";
}

/* The grid's DRAM bytes, L2 sectors and issued machine instructions:
 * each sampled block's events, times its replays, times the blocks it
 * stands for. */
static void totals(const struct perf_collect *pc, uint64_t nblocks,
		   struct perf_estimate *e)
{
	for (size_t b = 0; b < pc->nblocks; b++) {
		const struct perf_block *pb = &pc->blocks[b];
		double dram = 0, l2 = 0, issued = 0, k;

		for (int w = 0; w < pb->nwarps; w++) {
			const struct perf_warp *pw = &pb->warps[w];

			for (size_t i = 0; i < pw->n; i++) {
				const struct perf_event *ev = &pw->ev[i];

				if (ev->kind == PE_ISSUE) {
					issued += ev->n;
				} else if (ev->kind == PE_GLD) {
					dram += 4.0 * ev->dram;
					l2 += ev->l2;
				} else if (ev->kind == PE_GST) {
					dram += 4.0 * ev->dram;
					l2 += ev->l2;
				}
			}
		}
		k = perf_sample_weight(pc, b, nblocks) * pb->reps;
		e->dram_bytes += k * dram;
		e->l2_sectors += k * l2;
		e->warp_insns += k * issued;
	}
}

/* The data sheet's floor under the simulated time (see the top). */
static void lower_bounds(const struct perf_gpu *g,
			 const struct perf_collect *pc,
			 struct perf_estimate *e)
{
	double launch = g->launch_us / 1e3, clk_per_ms = g->sm_ghz * 1e6;
	double lanes = 32.0 * g->peak_warp_insns_per_clk; /* an SM, a clock */
	double dram = e->dram_bytes / (g->peak_dram_gbps * 1e6) + launch;
	double issue = e->work.lane_insns /
		       (lanes * g->sms * clk_per_ms) + launch;
	double block = (double)pc->most.lane_insns /
		       (lanes * clk_per_ms) + launch;

	if (dram > e->ms) {
		e->ms = dram;
		e->limit = "DRAM bandwidth at the data sheet's peak";
	}
	if (issue > e->ms) {
		e->ms = issue;
		e->limit = "instruction issue at the GPU's peak";
	}
	if (block > e->ms) {
		e->ms = block;
		e->limit = "one block's instructions on one SM";
	}
}

/* One pass over the SM with DRAM latency `latency`; 0 or -1. */
static int run_sm(struct sim *s, const struct perf_launch *l, int active,
		  double latency)
{
	const char *why;
	int i;

	s->wpb = (int)((l->threads + 31) / 32);
	s->nslots = occupancy(s->g, l, &why);
	s->nb = (l->nblocks + (uint64_t)s->g->sms - 1) / (uint64_t)s->g->sms;
	if ((uint64_t)s->nslots > s->nb)
		s->nslots = (int)s->nb;
	s->latency = latency;
	s->rng = 0x9e3779b97f4a7c15ull;
	rates(s, s->g, active);
	s->w = calloc((size_t)s->nslots * (size_t)s->wpb, sizeof(*s->w));
	s->slot = calloc((size_t)s->nslots, sizeof(*s->slot));
	s->heap = calloc((size_t)s->nslots * (size_t)s->wpb + 1,
			 sizeof(*s->heap));
	if (!s->w || !s->slot || !s->heap ||
	    order_init(&s->order, s->g, s->pc, l->nblocks, s->nb)) {
		free(s->w);
		free(s->slot);
		free(s->heap);
		return -1;
	}
	for (i = 0; i < s->nslots; i++)
		start_block(s, i, 0);
	for (;;) {
		struct sim_warp *w;

		/* warps left at a grid barrier that the SM's other blocks
		 * no longer reach go on */
		if ((i = heap_pop(s)) < 0 && release_grid(s, 1))
			i = heap_pop(s);
		if (i < 0)
			break;
		w = &s->w[i];
		/* a warp runs on while it stays the earliest */
		for (;;) {
			if (w->pos >= w->trace->n) {
				if (++w->loop < w->loops) {
					w->pos = 0;
					w->base += w->trace->loads;
					continue;
				}
				warp_done(s, w);
				break;
			}
			step(s, w, i);
			if (w->at_barrier || w->at_grid || w->in_heap)
				break;
			if (s->nheap && earlier(s->heap[0],
						(struct heap_ent){ w->t, i })) {
				heap_push(s, i);
				break;
			}
		}
	}
	s->end = max2(s->end, max2(s->lsu_free, s->dram_free));
	free(s->w);
	free(s->slot);
	free(s->heap);
	order_release(&s->order);
	return 0;
}

/*
 * The latency a load sees grows with how busy DRAM is (queueing: the
 * unloaded latency over 1 - utilisation), and how busy it is depends on
 * the latency: a few passes find where the two agree.
 */
int perf_simulate(const struct perf_gpu *g, const struct perf_collect *pc,
		  const struct perf_launch *l, struct perf_estimate *e)
{
	struct sim s;
	const char *occ_why;
	double util = 0.5, drift = 0;

	memset(e, 0, sizeof(*e));
	if (!pc || !pc->nblocks || !l->nblocks)
		return -1;
	for (size_t b = 0; b < pc->nblocks; b++)
		if (pc->blocks[b].st)
			return -1;  /* a block that never ended: a fault */
	e->active_sms = l->nblocks < (uint64_t)g->sms ? (int)l->nblocks
						      : g->sms;
	for (int pass = 0; pass < 4; pass++) {
		double u, d;

		memset(&s, 0, sizeof(s));
		s.g = g;
		s.pc = pc;
		s.drift = drift;
		if (run_sm(&s, l, e->active_sms,
			   g->dram_latency_clk * (1 + g->latency_queueing *
						  util / (1 - util))))
			return -1;
		u = s.end > 0 ? s.busy_dram / s.end : 0;
		u = u > 0.9 ? 0.9 : u;
		d = s.end > 0 ? 2 * s.last_block / s.end : 0;
		d = d > 1 ? 1 : d;
		if ((fabs(u - util) < 0.01 || g->latency_queueing == 0) &&
		    (fabs(d - drift) < 0.05 || g->page_open_bytes == 0))
			break;
		if (g->latency_queueing != 0)
			util = (util + u) / 2;
		drift = d;
	}
	e->ms = s.end / (g->sm_ghz * 1e6) + g->launch_us / 1e3;
	e->resident_blocks = occupancy(g, l, &occ_why);
	e->blocks_per_sm = s.nb;
	e->sampled = pc->nblocks;
	e->limit = limit_of(&s);
	if (g->launch_us / 1e3 > e->ms / 2)
		e->limit = "launch overhead (too little work to fill the GPU)";
	totals(pc, l->nblocks, e);
	perf_sample_grid_work(pc, l->nblocks, &e->work);
	lower_bounds(g, pc, e);
	return 0;
}
