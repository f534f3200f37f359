/*
 * The performance model's sample (perf.h): which blocks of a launch are
 * interpreted, how many of the grid's blocks each stands for, and
 * whether they are enough.
 *
 * Stratified sampling.  The first and the last block of the grid are
 * always interpreted -- block 0 is where a launch that does its work in
 * one block does it most easily, the last is the one a partial tile
 * makes different -- and between them one block in each of
 * PERF_SAMPLE_STRATA equal strata, at a position drawn from the run's
 * seed: no fixed position can be written to be the one the model looks
 * at, and a student cannot know which it will be.  Each drawn block
 * stands for an equal share of the blocks between the first and the
 * last.  The strata are taken in a spread order, so a sample the
 * budget cuts short still covers the grid.
 *
 * Extension.  A sample whose work is uneven -- its heaviest block
 * costs more than PERF_UNEVEN times its median block -- may have
 * missed heavy blocks it did not draw: the scheduler interprets more,
 * every block of a grid of up to PERF_SAMPLE_ALL, else more rounds of
 * strata drawn anew.  The replay extends every launch's sample too
 * (perf_collect.extend) when the sample as a whole does not show the
 * call moving its data.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/perf.h"

size_t perf_sample_count(uint64_t nblocks)
{
	return nblocks < PERF_SAMPLE_MAX ? (size_t)nblocks : PERF_SAMPLE_MAX;
}

size_t perf_sample_limit(uint64_t nblocks)
{
	if (nblocks <= PERF_SAMPLE_MAX)
		return (size_t)nblocks;
	if (nblocks <= PERF_SAMPLE_ALL)
		return (size_t)nblocks + PERF_SAMPLE_STRATA;
	return 2 + (size_t)PERF_SAMPLE_STRATA * (1 + PERF_EXTEND_ROUNDS);
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return z ^ z >> 31;
}

/* The j-th stratum in bit-reversed order of the next power of two,
 * those past the last skipped: 0, 16, 8, 24, 4, ... */
static size_t spread(size_t j)
{
	size_t bits = 0, r = 0;

	while (((size_t)1 << bits) < PERF_SAMPLE_STRATA)
		bits++;
	for (size_t k = 0, seen = 0;; k++) {
		r = 0;
		for (size_t b = 0; b < bits; b++)
			if (k >> b & 1)
				r |= (size_t)1 << (bits - 1 - b);
		if (r < PERF_SAMPLE_STRATA && seen++ == j)
			return r;
	}
}

/* Where stratum s of the n blocks between the first and the last
 * begins (s = PERF_SAMPLE_STRATA: where the last ends). */
static uint64_t stratum_start(uint64_t n, size_t s)
{
	return 1 + (uint64_t)((unsigned __int128)n * s / PERF_SAMPLE_STRATA);
}

uint64_t perf_sample_block(uint64_t nblocks, uint64_t seed, size_t i)
{
	uint64_t inner = nblocks - 2, lo, hi;
	size_t k, s;

	if (i == 0 || nblocks < 2)
		return 0;
	if (i == 1)
		return nblocks - 1;
	if (nblocks <= PERF_SAMPLE_MAX)
		return i - 1;
	k = i - 2;
	if (nblocks <= PERF_SAMPLE_ALL && k >= PERF_SAMPLE_STRATA)
		return 1 + (k - PERF_SAMPLE_STRATA);
	s = spread(k % PERF_SAMPLE_STRATA);
	lo = stratum_start(inner, s);
	hi = stratum_start(inner, s + 1);
	return lo + mix(seed ^ mix(nblocks * 0x100000001b3ull +
				   k / PERF_SAMPLE_STRATA * 131 + s)) %
		    (hi - lo);
}

double perf_block_cost(const struct perf_gpu *g, const struct perf_work *w)
{
	double lanes_per_clk = 32.0 * g->peak_warp_insns_per_clk;

	return (double)w->lane_insns / lanes_per_clk +
	       (double)(w->ld_sectors + w->st_sectors) * PERF_SECTOR /
	       g->sm_max_bytes_per_clk;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int perf_sample_uneven(const struct perf_collect *pc)
{
	double *c, median, most;
	size_t n = pc->nblocks;

	if (n < 2)
		return 0;
	c = malloc(n * sizeof(*c));
	if (!c)
		return 0;
	for (size_t b = 0; b < n; b++)
		c[b] = perf_block_cost(pc->g, &pc->blocks[b].work);
	qsort(c, n, sizeof(*c), cmp_double);
	median = c[(n - 1) / 2];
	most = c[n - 1];
	free(c);
	return most > 0 && most > PERF_UNEVEN * median;
}

static int is_end(uint64_t id, uint64_t nblocks)
{
	return id == 0 || id == nblocks - 1;
}

double perf_sample_weight(const struct perf_collect *pc, size_t b,
			  uint64_t nblocks)
{
	size_t ends = 0, inner;

	if (pc->nblocks >= nblocks)
		return 1;
	for (size_t i = 0; i < pc->nblocks; i++)
		ends += is_end(pc->blocks[i].id, nblocks);
	inner = pc->nblocks - ends;
	if (!inner)
		return (double)nblocks / (double)pc->nblocks;
	if (is_end(pc->blocks[b].id, nblocks))
		return 1;
	return (double)(nblocks - ends) / (double)inner;
}

void perf_sample_grid_work(const struct perf_collect *pc, uint64_t nblocks,
			   struct perf_grid_work *w)
{
	const struct perf_work *c = &pc->counted;

	memset(w, 0, sizeof(*w));
	if (pc->ncounted >= nblocks) {
		w->lane_insns = (double)c->lane_insns;
		w->ld_bytes = (double)c->ld_bytes;
		w->st_bytes = (double)c->st_bytes;
		w->ld_sectors = (double)c->ld_sectors;
		w->st_sectors = (double)c->st_sectors;
		return;
	}
	for (size_t b = 0; b < pc->nblocks; b++) {
		double k = perf_sample_weight(pc, b, nblocks);

		c = &pc->blocks[b].work;
		w->lane_insns += k * (double)c->lane_insns;
		w->ld_bytes += k * (double)c->ld_bytes;
		w->st_bytes += k * (double)c->st_bytes;
		w->ld_sectors += k * (double)c->ld_sectors;
		w->st_sectors += k * (double)c->st_sectors;
	}
}
