/*
 * The exercise table and the helpers every oracle shares.  Adding an
 * exercise is one folder (header, statement, spec.c defining
 * `exercise_<name>`) and one line in exercise_table below.
 */
#include "exercise.h"

extern const struct exercise exercise_coalesced_transpose;
extern const struct exercise exercise_padded_tile;
extern const struct exercise exercise_aos_to_soa;
extern const struct exercise exercise_dynamic_reverse;

const struct exercise *const exercise_table[] = {
	&exercise_coalesced_transpose,
	&exercise_padded_tile,
	&exercise_aos_to_soa,
	&exercise_dynamic_reverse,
};

#include <string.h>

size_t exercise_count(void)
{
	return sizeof(exercise_table) / sizeof(exercise_table[0]);
}

const struct exercise *exercise_find(const char *name)
{
	for (size_t i = 0; i < exercise_count(); i++)
		if (!strcmp(exercise_table[i]->name, name))
			return exercise_table[i];
	return NULL;
}

size_t exercise_nshapes(const struct exercise *ex)
{
	return EXERCISE_SWEEP_COUNT + ex->nedges;
}

struct exercise_shape exercise_shape_at(const struct exercise *ex,
					size_t index, unsigned *flags)
{
	struct exercise_shape s = { 0, 0 };

	if (flags)
		*flags = 0;
	if (index < EXERCISE_SWEEP_COUNT) {
		s.m = (int64_t)(index / EXERCISE_SWEEP_MAX) + 1;
		s.n = (int64_t)(index % EXERCISE_SWEEP_MAX) + 1;
	} else if (index - EXERCISE_SWEEP_COUNT < ex->nedges) {
		const struct exercise_edge *e =
			&ex->edges[index - EXERCISE_SWEEP_COUNT];

		s = e->shape;
		if (flags)
			*flags = e->flags;
	}
	return s;
}

size_t exercise_nshapes_all(const struct exercise *ex)
{
	return exercise_nshapes(ex) + EXERCISE_MEASURED;
}

/* A value in [lo, hi] drawn from r; for the aligned shape, a multiple of
 * 32 when the range holds one. */
static int64_t draw(uint64_t r, int64_t lo, int64_t hi, int aligned)
{
	int64_t v = lo + (int64_t)(r % (uint64_t)(hi - lo + 1));

	if (aligned && hi / 32 * 32 >= lo) {
		v = v / 32 * 32;
		if (v < lo)
			v += 32;
	}
	return v;
}

struct exercise_shape exercise_shape_of(const struct exercise *ex,
					uint64_t seed, size_t index,
					unsigned *flags)
{
	size_t k = index - exercise_nshapes(ex);
	struct exercise_shape s = { 0, 0 };
	uint64_t r;

	if (index < exercise_nshapes(ex))
		return exercise_shape_at(ex, index, flags);
	if (flags)
		*flags = 0;
	if (k >= EXERCISE_MEASURED)
		return s;
	if (flags)
		*flags = EXERCISE_SHAPE_MEASURED;
	r = exercise_mix64(seed ^ 0x6d65617375726564ULL ^ exercise_mix64(k));
	s.m = draw(r, ex->measure_lo.m, ex->measure_hi.m, k == 0);
	s.n = draw(exercise_mix64(r), ex->measure_lo.n, ex->measure_hi.n,
		   k == 0);
	return s;
}

void exercise_call_order(const struct exercise *ex, uint64_t seed,
			 size_t *order)
{
	size_t base = exercise_nshapes(ex), pos[EXERCISE_MEASURED];
	size_t i, k, n = 0;

	/* measured call k goes before fixed shape pos[k] */
	for (k = 0; k < EXERCISE_MEASURED; k++)
		pos[k] = (size_t)(exercise_mix64(seed + 0x9e37 * (k + 1)) %
				  (base + 1));
	for (i = 0; i <= base; i++) {
		for (k = 0; k < EXERCISE_MEASURED; k++)
			if (pos[k] == i)
				order[n++] = base + k;
		if (i < base)
			order[n++] = i;
	}
}

uint64_t exercise_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Every shape gets its own stream of values, so one shape's data does not
 * depend on which others were generated. */
static uint64_t shape_state(uint64_t seed, size_t index)
{
	return exercise_mix64(seed ^ exercise_mix64((uint64_t)index + 1));
}

void exercise_fill_float(uint64_t seed, size_t index, float *p, size_t n)
{
	uint64_t st = shape_state(seed, index);

	for (size_t i = 0; i < n; i++) {
		uint64_t r = exercise_mix64(st + i);
		/* sign, exponent 100..163 (about 2^-27 .. 2^36), mantissa:
		 * finite, normal, and never equal to the poison pattern */
		uint32_t bits = (uint32_t)(r >> 63) << 31 |
				(uint32_t)(100 + ((r >> 40) & 63)) << 23 |
				(uint32_t)(r & 0x7fffff);

		memcpy(&p[i], &bits, 4);
	}
}

void exercise_fill_int(uint64_t seed, size_t index, int32_t *p, size_t n)
{
	uint64_t st = shape_state(seed, index);

	for (size_t i = 0; i < n; i++)
		p[i] = (int32_t)(uint32_t)exercise_mix64(st + i);
}

uint64_t exercise_hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i = 0;

	/* 8 bytes at a time: the grader hashes hundreds of MB per run */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t exercise_digest_fold(const uint64_t *block_hash, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)n;

	for (size_t k = 0; k < exercise_digest_blocks(n); k++) {
		h = (h ^ block_hash[k]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

uint64_t exercise_digest(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)n;

	/* exercise_digest_fold's, one block at a time */
	for (size_t off = 0; off < n; off += EXERCISE_DIGEST_BLOCK) {
		size_t len = n - off < EXERCISE_DIGEST_BLOCK ?
			     n - off : EXERCISE_DIGEST_BLOCK;

		h = (h ^ exercise_hash(b + off, len)) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}
