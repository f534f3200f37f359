/*
 * Dry calls (wgemu_dry): the runner's way to record a student's call
 * without paying for it.  With wgemu_dry(1) launches, copies and
 * memsets do nothing at all (what cannot be observed need not run);
 * with wgemu_dry(2) they are written into the open launch record and
 * kept, in order: launches with their parameters, memsets, copies on
 * the device and the bytes of copies to it.  A program that reads
 * device memory back observes the call, so from there it runs for real
 * (rt_dry_force): what was kept runs first -- not recorded again, it is
 * in the record -- on the input the runner fills and an output poisoned
 * as the runner poisons one (wgemu_dry_inputs).
 */
#include <stdlib.h>
#include <string.h>
#include "emu/rt/rt.h"

static struct rt_dry_op *dry_push(void)
{
	struct rt_dry *q = &emu_rt.dryq;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct rt_dry_op *v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		q->v = v;
		q->cap = cap;
	}
	memset(&q->v[q->n], 0, sizeof(q->v[0]));
	return &q->v[q->n++];
}

/* Keep a launch (its parameters are taken): 0, or -1 out of memory. */
int rt_dry_keep_launch(struct rt_kernel *k, const struct emu_launch_cfg *cfg,
		       size_t static_smem)
{
	struct rt_dry_op *o = dry_push();

	if (!o)
		return -1;
	o->kind = DRY_LAUNCH;
	o->k = k;
	o->cfg = *cfg;
	o->st = static_smem;
	return 0;
}

int rt_dry_keep_memset(uint8_t *d, int value, size_t n)
{
	struct rt_dry_op *o = dry_push();

	if (!o)
		return -1;
	o->kind = DRY_MEMSET;
	o->dst = d;
	o->value = value;
	o->n = n;
	return 0;
}

int rt_dry_keep_copy(uint8_t *d, const uint8_t *s, size_t n,
		     enum cudaMemcpyKind kind)
{
	struct rt_dry_op *o = dry_push();

	if (!o)
		return -1;
	o->kind = DRY_COPY;
	o->dst = d;
	o->src = s;
	o->n = n;
	if (kind == cudaMemcpyHostToDevice) {
		o->data = malloc(n ? n : 1);
		if (!o->data) {
			emu_rt.dryq.n--;
			return -1;
		}
		memcpy(o->data, s, n);
		o->src = o->data;
	}
	return 0;
}

static void dry_release(void)
{
	struct rt_dry *q = &emu_rt.dryq;

	for (size_t i = 0; i < q->n; i++) {
		free(q->v[i].data);
		free((void *)q->v[i].cfg.params);
	}
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* The dry call is observed: the rest of it runs for real, and first
 * what it kept, on real input and a poisoned output. */
void rt_dry_force(void)
{
	struct rt_dry *q = &emu_rt.dryq;
	uint8_t *in = q->in ? rt_dev_ptr(q->in, q->in_bytes) : NULL;
	uint8_t *out = q->out ? rt_dev_ptr(q->out, q->out_bytes) : NULL;

	emu_rt.dry = 0;
	q->forced = 1;
	if (in && q->fill)
		q->fill(q->ctx, in, q->in_bytes);
	if (out)
		memset(out, 0xa5, q->out_bytes);
	for (size_t i = 0; i < q->n; i++) {
		struct rt_dry_op *o = &q->v[i];

		if (o->kind == DRY_LAUNCH && !emu_rt.sticky)
			rt_launch_run(o->k, &o->cfg, o->st);
		else if (o->kind == DRY_MEMSET)
			memset(o->dst, o->value, o->n);
		else if (o->kind == DRY_COPY)
			memmove(o->dst, o->src, o->n);
	}
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].data);
	q->n = 0;
}

/* ---- wgemu.h ---- */
void wgemu_dry(int on)
{
	emu_rt.dry = on;
	if (!on)
		dry_release();
}

void wgemu_dry_inputs(const void *in, size_t in_bytes, void *out,
		      size_t out_bytes,
		      void (*fill)(void *ctx, void *in, size_t n), void *ctx)
{
	emu_rt.dryq.in = in;
	emu_rt.dryq.in_bytes = in_bytes;
	emu_rt.dryq.out = out;
	emu_rt.dryq.out_bytes = out_bytes;
	emu_rt.dryq.fill = fill;
	emu_rt.dryq.ctx = ctx;
}

int wgemu_dry_forced(void)
{
	return emu_rt.dryq.forced;
}
