/*
 * The performance model's clock (perf.h): the busiest streaming
 * multiprocessor of a launch, simulated event by event.
 *
 * The grid's blocks are spread evenly over the SMs, so the busiest one
 * runs ceil(blocks / SMs) of them, as many at a time as the occupancy
 * allows (warps, blocks, shared memory and registers per SM); a block
 * that ends frees its slot for the next after the block-launch delay.
 * Each resident warp replays the event list of a sampled block's warp
 * (the SM's j-th block takes the sample j mod samples) and always the
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
 *   barrier  the warp waits for the rest of its block.
 *
 * Each pipe is a server with the time it is next free, so queueing and
 * bandwidth limits come out of the same arithmetic as latency: a kernel
 * with too few loads in flight per SM waits on latency, one with enough
 * waits on the busiest pipe.  The SM's share of L2 and DRAM bandwidth
 * is the GPU's divided by the SMs the grid keeps busy, up to what one
 * SM can move.
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
	uint32_t issued;         /* loads issued so far */
	double t;
	int slot;               /* block slot */
	int at_barrier, done, in_heap;
	double ring[RING];
};

struct sim_slot {
	uint64_t block;          /* the SM's block number, or UINT64_MAX */
	int live, arrived;
	double bar_t;
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
	double latency;          /* DRAM latency under this launch's load */
	uint64_t rng;
	/* the SM's rates, per cycle */
	double dram_bpc, l2ld_spc, l2st_spc, l2part_spc;
	int *heap, nheap;        /* ready warps, earliest first */
	/* busy cycles per pipe, for the limit */
	double busy_issue, busy_lsu, busy_l2, busy_dram;
	double end;
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

static int earlier(const struct sim *s, int a, int b)
{
	return s->w[a].t < s->w[b].t || (s->w[a].t == s->w[b].t && a < b);
}

static void heap_push(struct sim *s, int i)
{
	int k;

	if (s->w[i].in_heap)
		return;
	s->w[i].in_heap = 1;
	k = s->nheap++;
	while (k > 0 && earlier(s, i, s->heap[(k - 1) / 2])) {
		s->heap[k] = s->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	s->heap[k] = i;
}

static int heap_pop(struct sim *s)
{
	int top, last, k = 0;

	if (!s->nheap)
		return -1;
	top = s->heap[0];
	s->w[top].in_heap = 0;
	last = s->heap[--s->nheap];
	for (;;) {
		int c = 2 * k + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && earlier(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!earlier(s, s->heap[c], last))
			break;
		s->heap[k] = s->heap[c];
		k = c;
	}
	s->heap[k] = last;
	return top;
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
	b = &s->pc->blocks[sl->block % s->pc->nblocks];
	sl->live = 0;
	sl->arrived = 0;
	sl->bar_t = 0;
	for (int i = 0; i < s->wpb; i++) {
		struct sim_warp *w = &s->w[k * s->wpb + i];

		memset(w, 0, sizeof(*w));
		w->slot = k;
		w->t = t;
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

static void warp_done(struct sim *s, struct sim_warp *w)
{
	struct sim_slot *sl = &s->slot[w->slot];

	w->done = 1;
	if (w->t > s->end)
		s->end = w->t;
	if (--sl->live == 0)
		start_block(s, w->slot, w->t);
	else
		maybe_release(s, w->slot);
}

/* The DRAM latency of a request for n lines: each line's is the
 * launch's mean under load varied by an exponential tail (from a
 * deterministic sequence), and the request waits for its slowest line
 * -- as a block at a barrier waits for its slowest warp. */
static double dram_latency(struct sim *s, int n)
{
	double worst = 0, spread = s->g->latency_spread;

	for (int i = 0; i < (n > 0 ? n : 1); i++) {
		double u;

		s->rng = s->rng * 6364136223846793005ull +
			 1442695040888963407ull;
		u = ((double)(s->rng >> 11) + 0.5) / 9007199254740992.0;
		worst = max2(worst, -log(u));
	}
	return s->latency * ((1 - spread) + spread * worst);
}

/* The L2 and DRAM legs of a load; when its data arrives. */
static double load_path(struct sim *s, double t, const struct perf_event *e)
{
	double l2 = max2(t, s->l2ld_free) + e->l2 / s->l2ld_spc;
	double d;

	if (e->l2)
		s->l2ld_free = l2;
	s->busy_l2 += e->l2 / s->l2ld_spc;
	if (!e->dram)
		return (e->l2 ? l2 : t) + (e->l2 ? s->g->l2_latency_clk : 0);
	d = max2(l2, s->dram_free) + e->dram * (double)PERF_SECTOR /
					   s->dram_bpc;
	s->busy_dram += e->dram * (double)PERF_SECTOR / s->dram_bpc;
	s->dram_free = d;
	return d + dram_latency(s, e->lines < e->dram ? e->lines : e->dram);
}

/* When the data of a load whose sectors all or partly hit in L1
 * arrives: no earlier than the load that brought them in (a hit under
 * a miss waits for the miss). */
static double with_filler(const struct sim *s, const struct sim_warp *w,
			  int slot, const struct perf_event *e, double done)
{
	const struct sim_warp *f;

	if (!e->partial || (int)e->partial > s->wpb)
		return done;
	f = &s->w[slot * s->wpb + e->partial - 1];
	if (f == w ? e->dep >= w->issued : e->dep >= f->issued)
		return max2(done, w->t + s->latency); /* not yet sent */
	if (f->issued - e->dep > RING)
		return done;
	return max2(done, f->ring[e->dep % RING]);
}

static void store_path(struct sim *s, double t, const struct perf_event *e)
{
	double whole = e->l2 - e->partial;
	double cost = whole / s->l2st_spc + e->partial / s->l2part_spc;
	double l2 = max2(t, s->l2st_free) + cost;

	s->l2st_free = l2;
	s->busy_l2 += cost;
	if (e->dram) {
		double c = 4.0 * e->dram / s->dram_bpc;

		s->dram_free = max2(l2, s->dram_free) + c;
		s->busy_dram += c;
	}
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

static void step(struct sim *s, struct sim_warp *w, int idx)
{
	const struct perf_event *e = &w->trace->ev[w->pos++];
	struct sim_slot *sl = &s->slot[w->slot];
	double start, c;
	int sc = idx % SCHEDULERS;

	switch (e->kind) {
	case PE_ISSUE:
		start = max2(w->t, s->sched_free[sc]);
		c = e->n / s->g->issue_per_clk;
		s->sched_free[sc] = start + c;
		s->busy_issue += c / SCHEDULERS;
		w->t = start + c;
		break;
	case PE_GLD:
		start = lsu(s, w->t, e->lines);
		w->ring[e->n % RING] = with_filler(s, w, w->slot, e,
					load_path(s, s->lsu_free, e));
		w->issued = e->n + 1;
		w->t = start;
		break;
	case PE_GST:
		start = lsu(s, w->t, e->lines);
		store_path(s, s->lsu_free, e);
		w->t = start;
		break;
	case PE_SLD:
		start = lsu(s, w->t, e->lines);
		w->ring[e->n % RING] = s->lsu_free +
				       s->g->shared_latency_clk;
		w->issued = e->n + 1;
		w->t = start;
		break;
	case PE_SST:
		w->t = lsu(s, w->t, e->lines);
		break;
	case PE_WAIT:
		w->t = max2(w->t, w->ring[e->n % RING]);
		break;
	case PE_BAR:
		w->at_barrier = 1;
		sl->arrived++;
		sl->bar_t = max2(sl->bar_t, w->t);
		maybe_release(s, w->slot);
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

static void totals(const struct perf_collect *pc, uint64_t nblocks,
		   struct perf_estimate *e)
{
	double dram = 0, l2 = 0;

	for (size_t b = 0; b < pc->nblocks; b++)
		for (int w = 0; w < pc->blocks[b].nwarps; w++) {
			const struct perf_warp *pw = &pc->blocks[b].warps[w];

			for (size_t i = 0; i < pw->n; i++) {
				const struct perf_event *ev = &pw->ev[i];

				if (ev->kind == PE_GLD) {
					dram += ev->dram * (double)PERF_SECTOR;
					l2 += ev->l2;
				} else if (ev->kind == PE_GST) {
					dram += 4.0 * ev->dram;
					l2 += ev->l2;
				}
			}
		}
	e->dram_bytes = dram * (double)nblocks / (double)pc->nblocks;
	e->l2_sectors = l2 * (double)nblocks / (double)pc->nblocks;
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
	if (!s->w || !s->slot || !s->heap) {
		free(s->w);
		free(s->slot);
		free(s->heap);
		return -1;
	}
	for (i = 0; i < s->nslots; i++)
		start_block(s, i, 0);
	while ((i = heap_pop(s)) >= 0) {
		struct sim_warp *w = &s->w[i];

		/* a warp runs on while it stays the earliest */
		for (;;) {
			if (w->pos >= w->trace->n) {
				warp_done(s, w);
				break;
			}
			step(s, w, i);
			if (w->at_barrier || w->in_heap)
				break;
			if (s->nheap && earlier(s, s->heap[0], i)) {
				heap_push(s, i);
				break;
			}
		}
	}
	s->end = max2(s->end, max2(s->lsu_free, s->dram_free));
	free(s->w);
	free(s->slot);
	free(s->heap);
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
	double util = 0.5;

	memset(e, 0, sizeof(*e));
	if (!pc || !pc->nblocks || !l->nblocks)
		return -1;
	e->active_sms = l->nblocks < (uint64_t)g->sms ? (int)l->nblocks
						      : g->sms;
	for (int pass = 0; pass < 4; pass++) {
		double u;

		memset(&s, 0, sizeof(s));
		s.g = g;
		s.pc = pc;
		if (run_sm(&s, l, e->active_sms,
			   g->dram_latency_clk * (1 + g->latency_queueing *
						  util / (1 - util))))
			return -1;
		u = s.end > 0 ? s.busy_dram / s.end : 0;
		u = u > 0.9 ? 0.9 : u;
		if (fabs(u - util) < 0.01 || g->latency_queueing == 0)
			break;
		util = (util + u) / 2;
	}
	e->ms = s.end / (g->sm_ghz * 1e6) + g->launch_us / 1e3;
	e->resident_blocks = occupancy(g, l, &occ_why);
	e->blocks_per_sm = s.nb;
	e->sampled = pc->nblocks;
	e->limit = limit_of(&s);
	if (g->launch_us / 1e3 > e->ms / 2)
		e->limit = "launch overhead (too little work to fill the GPU)";
	totals(pc, l->nblocks, e);
	return 0;
}
