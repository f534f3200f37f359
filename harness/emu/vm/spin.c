/*
 * A warp that spins: while one warp runs nothing else does, so if its
 * state (the current frame's registers and predicates, its SIMT entries,
 * its local memory in use) is the same at two visits of one branch and
 * nothing was written between them, it loops forever unless another
 * warp or block changes what it reads.  It then gives way (Y_SPIN), which lets
 * a warp that waits for another of its block (or, in a cooperative
 * launch, of another block) see it, and lets sched.c and sched_coop.c
 * tell a deadlock: every warp left spinning and nothing written.
 *
 * A warp that sleeps between tries (nanosleep) gives way at each sleep
 * and is compared from one sleep to the next by a hash of the same
 * state, kept in the warp (a copy of every warp's registers would be
 * too much in a cooperative launch).
 *
 * The check costs nothing on the instruction loop's path: x->limit,
 * which exec_branch and exec_call already test, also stops the warp at
 * its next check.  A check copies the state at a branch, then watches
 * the next branches for the same one; a warp whose state changed is
 * checked again after twice as many lane instructions (up to 2^20, and
 * never sooner than a lane instruction for each byte of its state), in
 * this run and the next ones of the block, so a warp that computes
 * costs a few copies of its registers in all.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

/* lane instructions of a warp before its first check, and the most
 * between two */
#define SPIN_FIRST 2048
#define SPIN_MAX (1u << 20)
/* branches watched for the one the state was copied at */
#define SPIN_WATCH 64

/* everything the launch has written so far (stores, atomics, mbarrier
 * updates, printf output) */
uint64_t spin_written(const struct xctx *x)
{
	const struct wgemu_counters *c = &x->res->total;

	return c->global_store_requests + c->global_atomic_requests +
	       c->shared_store_wavefronts + x->mbar_changes +
	       x->printf_bytes;
}

void spin_limit(struct xctx *x)
{
	uint64_t l = x->budget;

	if (x->slice_end < l)
		l = x->slice_end;
	if (x->spin.next < l)
		l = x->spin.next;
	x->limit = l;
}

void spin_reset(struct warp *w)
{
	w->spin_gap = SPIN_FIRST;
	w->sleep_hash = 0;
	w->sleep_written = 0;
}

/* Bytes of each lane's local memory in use: up to the top of the
 * current frame's depot, a multiple of 8 (lcap is one of 16).  What
 * lies above belongs to frames that returned, which no correct program
 * reads again; the modules of a library such as CUB give every lane
 * some hundred kilobytes of depots, nearly all above. */
static size_t live_local(const struct xctx *x, const struct warp *w)
{
	size_t n = ((size_t)w->fr[w->nf - 1].local_top + 7) & ~(size_t)7;

	return w->local ? (n < x->lcap ? n : x->lcap) : 0;
}

/* the state to compare: its size in bytes, and it copied to *buf (the
 * registers' values spread to every lane first, exec.h) */
static int snapshot(struct xctx *x, struct warp *w, uint8_t **buf,
		    size_t *cap, size_t *len)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	size_t nr = (size_t)fr->f->nregs * EMU_WARP_SIZE * sizeof(uint64_t);
	size_t np = (size_t)fr->f->npreds * sizeof(uint32_t);
	size_t ns = (size_t)(w->sp - fr->depth) * sizeof(struct sentry);
	size_t live = live_local(x, w);
	uint8_t *p;

	*len = nr + np + ns + live * EMU_WARP_SIZE;
	if (simt_grow(buf, cap, *len, 1))
		return -1;
	scalar_spread_frame(w);
	p = *buf;
	memcpy(p, w->regs + fr->roff, nr);
	memcpy(p + nr, w->preds + fr->poff, np);
	memcpy(p + nr + np, w->stack + fr->depth, ns);
	p += nr + np + ns;
	for (size_t l = 0; live && l < EMU_WARP_SIZE; l++)
		memcpy(p + l * live, w->local + l * x->lcap, live);
	return 0;
}

/* Bytes a check copies: the current frame's registers, predicates and
 * SIMT entries, and the local memory in use (live_local). */
static size_t state_bytes(const struct xctx *x, const struct warp *w)
{
	const struct frame *fr = &w->fr[w->nf - 1];

	return (size_t)fr->f->nregs * EMU_WARP_SIZE * sizeof(uint64_t) +
	       (size_t)fr->f->npreds * sizeof(uint32_t) +
	       (size_t)(w->sp - fr->depth) * sizeof(struct sentry) +
	       live_local(x, w) * EMU_WARP_SIZE;
}

void spin_arm(struct xctx *x, struct warp *w)
{
	size_t least = state_bytes(x, w);
	uint64_t room = x->slice_end - x->lane_insns;

	/* no sooner than a lane instruction for each byte a check copies
	 * (CUB's kernels have hundreds of kilobytes of registers a warp),
	 * but within the first half of a time slice, or a warp that spins
	 * would never be seen to */
	if (least > room / 2)
		least = (size_t)(room / 2);
	if (w->spin_gap < least)
		w->spin_gap = (uint32_t)least;
	x->spin.watching = 0;
	x->spin.next = x->lane_insns + w->spin_gap;
	spin_limit(x);
}

/* not a spin: check again after twice as long */
static void back_off(struct xctx *x, struct warp *w)
{
	x->spin.watching = 0;
	if (w->spin_gap < SPIN_MAX)
		w->spin_gap *= 2;
	x->spin.next = x->lane_insns + w->spin_gap;
	spin_limit(x);
}

int spin_check(struct xctx *x, struct warp *w, int pc)
{
	struct spin_state *s = &x->spin;
	const struct frame *fr = &w->fr[w->nf - 1];
	size_t len;

	if (!s->watching) {
		if (snapshot(x, w, &s->copy, &s->cap, &s->len))
			return 0;
		s->watching = 1;
		s->pc = pc;
		s->f = fr->f;
		s->nf = w->nf;
		s->sp = w->sp;
		s->written = spin_written(x);
		s->seen = 0;
		x->limit = x->lane_insns;   /* back at the next branch */
		return 0;
	}
	if (pc != s->pc || fr->f != s->f || w->nf != s->nf ||
	    w->sp != s->sp) {
		if (++s->seen >= SPIN_WATCH)
			back_off(x, w);
		else
			x->limit = x->lane_insns;
		return 0;
	}
	if (spin_written(x) == s->written &&
	    !snapshot(x, w, &s->copy2, &s->cap2, &len) && len == s->len &&
	    !memcmp(s->copy, s->copy2, len)) {
		s->watching = 0;
		w->spin_gap = SPIN_FIRST;   /* it will likely spin again */
		return 1;
	}
	back_off(x, w);
	return 0;
}

/* 64 bits of the bytes p[0..n) (n a multiple of 4), mixed into h */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, b + i, 8);
		h = (h ^ v) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i += 4) {
		uint32_t v;

		memcpy(&v, b + i, 4);
		h = (h ^ v) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

int spin_sleep(struct xctx *x, struct warp *w, int pc)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)pc << 32 ^
		     (uint64_t)(uintptr_t)fr->f ^ (uint64_t)w->nf << 48;
	uint64_t wr = spin_written(x);
	int same;

	scalar_spread_frame(w);
	h = mix(h, w->regs + fr->roff,
		(size_t)fr->f->nregs * EMU_WARP_SIZE * sizeof(uint64_t));
	h = mix(h, w->preds + fr->poff, (size_t)fr->f->npreds * 4);
	h = mix(h, w->stack + fr->depth,
		(size_t)(w->sp - fr->depth) * sizeof(struct sentry));
	for (size_t l = 0, live = live_local(x, w); live &&
	     l < EMU_WARP_SIZE; l++)
		h = mix(h, w->local + l * x->lcap, live);
	same = h == w->sleep_hash && wr == w->sleep_written;
	w->sleep_hash = h;
	w->sleep_written = wr;
	return same;
}

void spin_release(struct xctx *x)
{
	free(x->spin.copy);
	free(x->spin.copy2);
	memset(&x->spin, 0, sizeof(x->spin));
}
