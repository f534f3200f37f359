/*
 * Uniform runs (emu.h, struct emu_urun; planned by ptx/urun.c): a
 * stretch of the kernel's block-wide index arithmetic, run once for the
 * first warp of a block that reaches it and taken as it is by the
 * others.  Each run keeps the inputs it last ran on -- the values of its
 * registers, symbols and predicates -- and the values it left in its
 * output registers and predicates.  A warp whose inputs are the same
 * gets those outputs, written as the scalar path writes them (scalar.c:
 * the register's uval, marked UNI_LANE0; the predicate in every lane of
 * the mask) and counted as the instructions would have been.  The
 * instructions' values depend on nothing else -- constants are the
 * function's, a kernel parameter the launch's, and what a run keeps
 * lives for one launch -- so the warp ends where running them would
 * have left it.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

struct urun_memo {
	uint8_t valid;
	uint8_t pin, pout;          /* a bit per predicate, in order */
	uint64_t in[URUN_IN];
	uint64_t out[URUN_OUT];
};

static struct urun_memo *memo_of(struct xctx *x, const struct emu_urun *u)
{
	if (!x->urun_memo && !x->urun_none) {
		x->urun_memo = calloc((size_t)x->k->nuruns,
				      sizeof(*x->urun_memo));
		x->urun_none = !x->urun_memo;
	}
	return x->urun_memo ? &x->urun_memo[u - x->k->uruns] : NULL;
}

/* The run's inputs in w, into in and pin: 1 when they are the memo's
 * (mo valid), 0 when not, or -1 when one is not uniform. */
static int inputs(struct xctx *x, struct warp *w, const struct emu_urun *u,
		  uint32_t m, const uint64_t *R, const uint32_t *P,
		  const uint8_t *U, const struct urun_memo *mo, uint64_t *in,
		  uint8_t *pin)
{
	const uint64_t *V = uniform_values(w, U);
	int l0 = __builtin_ctz(m);
	uint64_t diff = 0;

	for (int i = 0; i < u->nin; i++) {
		int r = u->in[i];

		if (u->in_kind[i] == URUN_SYM)
			in[i] = sym_value(x, w, r);
		else if (!U[r])
			return -1;
		else
			in[i] = U[r] == UNI_LANE0 ? V[r] :
				R[(size_t)r * EMU_WARP_SIZE + (size_t)l0];
		diff |= in[i] ^ mo->in[i];
	}
	*pin = 0;
	for (int i = 0; i < u->npin; i++) {
		uint32_t v = P[u->pin[i]] & m;

		if (v && v != m)
			return -1;
		*pin |= (uint8_t)((v != 0) << i);
	}
	return mo->valid && !diff && *pin == mo->pin;
}

/* the outputs the memo holds, written into w */
static void take(struct warp *w, const struct emu_urun *u,
		 const struct urun_memo *mo, uint32_t m, uint32_t *P,
		 uint8_t *U)
{
	uint64_t *V = uniform_values(w, U);

	for (int i = 0; i < u->nout; i++) {
		V[u->out[i]] = mo->out[i];
		U[u->out[i]] = UNI_LANE0;
	}
	for (int i = 0; i < u->npout; i++) {
		uint32_t *p = &P[u->pout[i]];

		*p = (*p & ~m) | ((mo->pout >> i & 1) ? m : 0);
	}
}

/* what the run left in w, into the memo: 0, or -1 when an output is
 * not where the scalar path leaves it */
static int keep(struct warp *w, const struct emu_urun *u,
		struct urun_memo *mo, uint32_t m, const uint32_t *P,
		const uint8_t *U)
{
	const uint64_t *V = uniform_values(w, U);

	mo->pout = 0;
	for (int i = 0; i < u->nout; i++) {
		if (U[u->out[i]] != UNI_LANE0)
			return -1;
		mo->out[i] = V[u->out[i]];
	}
	for (int i = 0; i < u->npout; i++) {
		uint32_t v = P[u->pout[i]] & m;

		if (v && v != m)
			return -1;
		mo->pout |= (uint8_t)((v != 0) << i);
	}
	return 0;
}

int urun_exec(struct xctx *x, struct warp *w, const struct emu_urun *u,
	      uint32_t m, uint64_t *R, uint32_t *P, uint8_t *U, int rpc)
{
	const struct emu_func *f = x->k;
	struct urun_memo *mo;
	uint64_t in[URUN_IN];
	uint8_t pin;
	int n;

	if (m != w->live || (rpc > u->start && rpc < u->start + u->len) ||
	    !(mo = memo_of(x, u)))
		return 0;
	switch (inputs(x, w, u, m, R, P, U, mo, in, &pin)) {
	case -1:
		return 0;
	case 1:
		take(w, u, mo, m, P, U);
		x->lane_insns += (uint64_t)u->len * (uint64_t)lanes_in(m);
		return u->len;
	}
	mo->valid = 0;
	for (n = 0; n < u->len; n++) {
		if (!scalar_exec(x, w, f, &f->insns[u->start + n], m, R, P, U))
			return n;	/* the general path takes it */
		x->lane_insns += (uint64_t)lanes_in(m);
	}
	if (!keep(w, u, mo, m, P, U)) {
		memcpy(mo->in, in, (size_t)u->nin * sizeof(in[0]));
		mo->pin = pin;
		mo->valid = 1;
	}
	return n;
}

void urun_release(struct xctx *x)
{
	free(x->urun_memo);
	x->urun_memo = NULL;
	x->urun_none = 0;
}
