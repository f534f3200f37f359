/*
 * The oracle of the largest shape, computed ahead (see verify_ahead.h).
 */
#include "verify_ahead.h"

#include <string.h>

#include "bigbuf.h"
#include "verify_digest.h"

/* The input's hash and digest (it is only read meanwhile). */
static void *hash_input(void *arg)
{
	struct verify_ahead *a = arg;

	a->hash = exercise_hash(a->in, a->bytes);
	a->in_digest = exercise_digest(a->in, a->bytes);
	return NULL;
}

static void *compute(void *arg)
{
	struct verify_ahead *a = arg;
	pthread_t t;
	int helper;

	a->in = bigbuf_alloc(a->bytes);
	a->exp = bigbuf_alloc(a->bytes);
	a->region = bigbuf_alloc(a->region_len);
	if (!a->in || !a->exp)
		return NULL;
	a->ex->generate(a->seed, a->index, a->shape, a->in);
	/* the input hashed beside the oracle, where a thread can be had */
	helper = !pthread_create(&t, NULL, hash_input, a);
	if (!helper)
		hash_input(a);
	a->ex->expected(a->in, a->exp, a->shape);
	a->region_digest = verify_region_digest(a->exp,
						exercise_shape_elems(a->shape),
						a->ex->elem_size);
	if (helper)
		pthread_join(t, NULL);
	return NULL;
}

void verify_ahead_start(struct verify_ahead *a, const struct exercise *ex,
			uint64_t seed, size_t index, size_t region_len)
{
	memset(a, 0, sizeof(*a));
	a->ex = ex;
	a->seed = seed;
	a->index = index;
	a->shape = exercise_shape_of(ex, seed, index, NULL);
	a->bytes = exercise_shape_elems(a->shape) * ex->elem_size;
	a->region_len = region_len;
	a->started = !pthread_create(&a->thread, NULL, compute, a);
}

static void join(struct verify_ahead *a)
{
	if (!a->started)
		return;
	pthread_join(a->thread, NULL);
	a->started = 0;
	a->ready = a->in && a->exp;
}

int verify_ahead_take(struct verify_ahead *a, size_t index)
{
	if (!a->ex || index != a->index)
		return 0;
	join(a);
	return a->ready;
}

unsigned char *verify_ahead_region(struct verify_ahead *a, size_t index,
				   size_t want, size_t *len)
{
	unsigned char *p;

	if (!a->ex || index != a->index)
		return NULL;
	join(a);
	if (!a->region || a->region_len < want)
		return NULL;
	p = a->region;
	*len = a->region_len;
	a->region = NULL;
	return p;
}

void verify_ahead_release(struct verify_ahead *a)
{
	join(a);
	bigbuf_free(a->in, a->bytes);
	bigbuf_free(a->exp, a->bytes);
	bigbuf_free(a->region, a->region_len);
	memset(a, 0, sizeof(*a));
}
