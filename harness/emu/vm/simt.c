/*
 * A warp's SIMT stack and call frames.  The stack holds (pc,
 * reconvergence pc, mask) entries, the top one running; reconv.c pushes
 * the two paths of a divergent branch.  A call pushes a frame (its
 * registers, predicates, per-lane .param area and .local depot, carved
 * from the warp's growing arrays) and a stack entry that ends at the
 * callee's exit; a return copies the .param results back and pops the
 * frame.  Calls through a register split the warp by callee like a
 * branch.  Lanes that exit leave every entry and frame.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

int simt_grow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t nc = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, nc * sz);
	if (!np)
		return -1;
	memset((char *)np + *cap * sz, 0, (nc - *cap) * sz);
	*p = np;
	*cap = nc;
	return 0;
}

/* the column of special register sr, when the frame uses it */
static uint64_t *special(uint64_t *R, uint64_t used, int sr)
{
	return used & (1ull << sr) ? R + (size_t)sr * EMU_WARP_SIZE : NULL;
}

/* every lane of the column C, when there is one, gets v */
static void fill_special(uint64_t *C, uint64_t v)
{
	if (C)
		for (int l = 0; l < EMU_WARP_SIZE; l++)
			C[l] = v;
}

/* %tid of each lane: the first lane's, then counted on, x fastest */
static void init_tids(struct xctx *x, struct warp *w, uint64_t *R,
		      uint64_t used)
{
	uint64_t *X = special(R, used, SR_TID_X), *Y = special(R, used,
							       SR_TID_Y);
	uint64_t *Z = special(R, used, SR_TID_Z);
	const unsigned *b = x->cfg->block;
	unsigned t[3];

	if (!X && !Y && !Z)
		return;
	if (b[1] == 1 && b[2] == 1 &&
	    ((unsigned)w->id + 1) * EMU_WARP_SIZE <= b[0]) {
		/* a full warp of a one-dimensional block: x counts on */
		unsigned t0 = (unsigned)w->id * EMU_WARP_SIZE;

		for (int l = 0; X && l < EMU_WARP_SIZE; l++)
			X[l] = t0 + (unsigned)l;
		fill_special(Y, 0);
		fill_special(Z, 0);
		return;
	}
	thread_of(x, w->id, 0, t);
	for (int l = 0; l < EMU_WARP_SIZE; l++) {
		if (X)
			X[l] = t[0];
		if (Y)
			Y[l] = t[1];
		if (Z)
			Z[l] = t[2];
		if (++t[0] == b[0]) {
			t[0] = 0;
			if (++t[1] == b[1]) {
				t[1] = 0;
				t[2]++;
			}
		}
	}
}

/* the lane masks and %laneid, one value per lane */
static void init_lane_specials(uint64_t *R, uint64_t used)
{
	uint64_t *C;

	for (int l = 0; l < EMU_WARP_SIZE; l++) {
		uint32_t lm = 1u << l;

		if ((C = special(R, used, SR_LANEID)))
			C[l] = (unsigned)l;
		if ((C = special(R, used, SR_LANEMASK_EQ)))
			C[l] = lm;
		if ((C = special(R, used, SR_LANEMASK_LT)))
			C[l] = lm - 1;
		if ((C = special(R, used, SR_LANEMASK_LE)))
			C[l] = lm | (lm - 1);
		if ((C = special(R, used, SR_LANEMASK_GT)))
			C[l] = (uint32_t)~(lm | (lm - 1));
		if ((C = special(R, used, SR_LANEMASK_GE)))
			C[l] = (uint32_t)~(lm - 1);
	}
}

/* The special registers a frame of a function that uses `used` reads:
 * those of one value per lane, then those of one value per warp. */
static void init_specials(struct xctx *x, struct warp *w, uint64_t *R,
			  uint64_t used)
{
	const unsigned *b = x->cfg->block, *g = x->cfg->grid;
	const uint64_t per_lane = 1ull << SR_LANEID |
		1ull << SR_LANEMASK_EQ | 1ull << SR_LANEMASK_LT |
		1ull << SR_LANEMASK_LE | 1ull << SR_LANEMASK_GT |
		1ull << SR_LANEMASK_GE;

	if (!used)
		return;
	init_tids(x, w, R, used);
	if (used & per_lane)
		init_lane_specials(R, used);
	fill_special(special(R, used, SR_NTID_X), b[0]);
	fill_special(special(R, used, SR_NTID_Y), b[1]);
	fill_special(special(R, used, SR_NTID_Z), b[2]);
	fill_special(special(R, used, SR_CTAID_X), x->bid[0]);
	fill_special(special(R, used, SR_CTAID_Y), x->bid[1]);
	fill_special(special(R, used, SR_CTAID_Z), x->bid[2]);
	fill_special(special(R, used, SR_NCTAID_X), g[0]);
	fill_special(special(R, used, SR_NCTAID_Y), g[1]);
	fill_special(special(R, used, SR_NCTAID_Z), g[2]);
	fill_special(special(R, used, SR_WARPID), (unsigned)w->id);
	fill_special(special(R, used, SR_NWARPID), EMU_MAX_SM_WARPS);
	fill_special(special(R, used, SR_SMID), 0);
	fill_special(special(R, used, SR_NSMID), EMU_SM_COUNT);
	fill_special(special(R, used, SR_GRIDID), 1);
	fill_special(special(R, used, SR_DYN_SMEM), x->cfg->dyn_smem);
	fill_special(special(R, used, SR_TOTAL_SMEM), x->smem_size);
	fill_special(special(R, used, SR_ENVREG1),
		     (uint32_t)(x->cfg->grid_ws >> 32));
	fill_special(special(R, used, SR_ENVREG2), (uint32_t)x->cfg->grid_ws);
}

/* The special registers that hold one value in every lane of a warp. */
static const uint64_t uniform_specials =
	1ull << SR_NTID_X | 1ull << SR_NTID_Y | 1ull << SR_NTID_Z |
	1ull << SR_CTAID_X | 1ull << SR_CTAID_Y | 1ull << SR_CTAID_Z |
	1ull << SR_NCTAID_X | 1ull << SR_NCTAID_Y | 1ull << SR_NCTAID_Z |
	1ull << SR_WARPID | 1ull << SR_NWARPID | 1ull << SR_SMID |
	1ull << SR_NSMID | 1ull << SR_GRIDID | 1ull << SR_DYN_SMEM |
	1ull << SR_TOTAL_SMEM | 1ull << SR_ENVREG1 | 1ull << SR_ENVREG2;

/* The %tid components that hold one value in every lane of the warp:
 * %tid.y where the block's rows are whole warps (ntid.x a multiple of
 * 32), %tid.z where its planes are, %tid.x in a block one thread wide.
 * Read from the frame's own columns R, so a lane past the block's last
 * thread counts too and the answer never claims too much. */
static uint64_t uniform_tids(const uint64_t *R, uint64_t used)
{
	uint64_t u = 0;

	for (int sr = SR_TID_X; sr <= SR_TID_Z; sr++) {
		const uint64_t *C = R + (size_t)sr * EMU_WARP_SIZE;
		int l = 1;

		if (!(used & (1ull << sr)))
			continue;
		while (l < EMU_WARP_SIZE && C[l] == C[0])
			l++;
		if (l == EMU_WARP_SIZE)
			u |= 1ull << sr;
	}
	return u;
}

/* A new frame's uniform marks (exec.h): its registers hold nothing
 * known yet, but for the special registers it uses that are one value
 * per warp, its initialized columns R say which %tid are. */
static void init_uniform(uint8_t *U, const struct emu_func *f,
			 const uint64_t *R)
{
	uint64_t u = (f->sr_used & uniform_specials) |
		     uniform_tids(R, f->sr_used);

	memset(U, 0, (size_t)f->nregs);
	for (; u; u &= u - 1)
		U[__builtin_ctzll(u)] = 1;
}

/* Push a frame for f; 0, or -1 when out of memory or too deep. */
int simt_push_frame(struct xctx *x, struct warp *w,
		    const struct emu_func *f, const struct emu_insn *in)
{
	struct frame *fr, *up = w->nf ? &w->fr[w->nf - 1] : NULL;
	size_t roff = up ? up->roff + (size_t)up->f->nregs * EMU_WARP_SIZE
			 : 0;
	size_t poff = up ? up->poff + (size_t)up->f->npreds : 0;
	size_t paoff = up ? up->paoff +
			    (size_t)up->f->param_bytes * EMU_WARP_SIZE : 0;
	uint32_t lb = up ? up->local_top : 0;

	if (w->nf == MAXFRAMES)
		return emu_fault(x, WGEMU_FAULT_LIMIT, in, w->id,
				 __builtin_ctz(w->live | 1u <<
					       (EMU_WARP_SIZE - 1)),
				 "call stack deeper than %d frames", MAXFRAMES);
	if (simt_grow(&w->regs, &w->rcap, roff + (size_t)f->nregs *
		      EMU_WARP_SIZE, sizeof(uint64_t)) || simt_grow(&w->preds,
								    &w->pcap,
								    poff +
		(size_t)f->npreds + 1, sizeof(uint32_t)) ||
	    simt_grow(&w->params, &w->pacap, paoff + (size_t)f->param_bytes *
		      EMU_WARP_SIZE + 1, 1) ||
	    simt_grow(&w->uni, &w->ucap, roff / EMU_WARP_SIZE +
		      (size_t)f->nregs, 1) ||
	    simt_grow(&w->uval, &w->uvcap, roff / EMU_WARP_SIZE +
		      (size_t)f->nregs, sizeof(uint64_t)))
		return emu_fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
				 "out of host memory");
	lb = (lb + 15) & ~15u;
	if ((uint64_t)lb + f->depot_bytes > x->lcap)
		return emu_fault(x, WGEMU_FAULT_RESOURCES, in, w->id,
				 __builtin_ctz(w->live | 1u <<
					       (EMU_WARP_SIZE - 1)),
				 "local memory exhausted (recursion too deep)");
	fr = &w->fr[w->nf++];
	fr->f = f;
	fr->roff = roff;
	fr->poff = poff;
	fr->paoff = paoff;
	fr->local_base = lb;
	fr->local_top = lb + f->depot_bytes;
	fr->depth = w->sp;
	fr->call_pc = -1;
	fr->call_mask = 0;
	init_specials(x, w, w->regs + roff, f->sr_used);
	init_uniform(w->uni + roff / EMU_WARP_SIZE, f, w->regs + roff);
	return 0;
}

int simt_push(struct warp *w, int pc, int rpc, uint32_t mask)
{
	if (w->sp == w->cap) {
		size_t c = (size_t)w->cap;

		if (simt_grow(&w->stack, &c, (size_t)w->sp + 1,
			      sizeof(*w->stack)))
			return -1;
		w->cap = (int)c;
	}
	w->stack[w->sp].pc = pc;
	w->stack[w->sp].rpc = rpc;
	w->stack[w->sp].mask = mask;
	w->sp++;
	return 0;
}

void simt_kill(struct warp *w, uint32_t m)
{
	int i;

	for (i = 0; i < w->sp; i++)
		w->stack[i].mask &= ~m;
	for (i = 0; i < w->nf; i++)
		w->fr[i].call_mask &= ~m;
	w->live &= ~m;
}

/* Lanes of the kernel's own frame that wait only to leave it (an early
 * return parks them at the function's end, where the others reconverge):
 * as on sm_70 and later, such threads no longer take part in barriers.
 * Returns them when every live lane outside `active` is one; else 0. */
uint32_t simt_finished(const struct warp *w, uint32_t active)
{
	const struct emu_func *f = w->fr[0].f;
	uint32_t waiting = w->live & ~active, seen = 0, done = 0;
	int i;

	if (w->nf != 1)
		return 0;
	for (i = w->sp - 2; i >= 0 && seen != waiting; i--) {
		const struct sentry *e = &w->stack[i];
		uint32_t lanes = e->mask & waiting & ~seen;
		int op;

		if (!lanes)
			continue;
		seen |= lanes;
		op = e->pc >= f->ninsns ? OP_RET : (int)f->insns[e->pc].op;
		if (op != OP_RET && op != OP_EXIT)
			return 0;
		done |= lanes;
	}
	return done == waiting ? done : 0;
}

void simt_return(struct xctx *x, struct warp *w)
{
	struct frame *cf = &w->fr[w->nf - 1], *pf = &w->fr[w->nf - 2];
	const struct emu_func *g = cf->f, *f = pf->f;
	const struct emu_call *c = &f->calls[f->insns[cf->call_pc].call];
	int i;

	for (i = 0; i < c->nret && i < g->nrets; i++) {
		const struct emu_sym *to = &x->m->syms[c->ret[i]];
		const struct emu_sym *from = &x->m->syms[g->rets[i]];
		size_t n = to->size < from->size ? to->size : from->size;
		uint32_t m = cf->call_mask;

		LANES(memcpy(w->params + pf->paoff +
			     (size_t)l * f->param_bytes + to->off,
			     w->params + cf->paoff +
			     (size_t)l * g->param_bytes + from->off, n));
	}
	w->nf--;
}

/*
 * The callee of a call through a register (a function pointer, a
 * virtual function): its index, or -1 after splitting the warp when the
 * active lanes point at different functions.  Lanes holding the first
 * lane's pointer call now; the others are pushed to run the same call
 * after them, and all reconverge after it, as for a divergent branch.
 * -2 with a fault for a pointer to no function.
 */
static int indirect_callee(struct xctx *x, struct warp *w,
			   const struct emu_insn *in, uint32_t m, int pc)
{
	const uint64_t *A = w->regs + w->fr[w->nf - 1].roff +
			    (size_t)in->areg * EMU_WARP_SIZE;
	int l0 = __builtin_ctz(m);
	uint64_t v = A[l0], k = (v - EMU_FUNC_BASE) / 16;
	uint32_t same = 0;

	if (v < EMU_FUNC_BASE || (v - EMU_FUNC_BASE) % 16 ||
	    k >= (uint64_t)x->m->nfuncs || x->m->funcs[k].is_entry) {
		emu_fault(x, WGEMU_FAULT_OUT_OF_BOUNDS, in, w->id, l0, "call "
			  "through 0x%llx, which is no function's address",
			  (unsigned long long)v);
		return -2;
	}
	LANES(same |= (uint32_t)(A[l] == v) << l);
	if (same == m)
		return (int)k;
	w->stack[w->sp - 1].pc = pc + 1;
	if (simt_push(w, pc, pc + 1, m & ~same) ||
	    simt_push(w, pc, pc + 1, same)) {
		emu_fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
			  "out of host memory");
		return -2;
	}
	return -1;
}

int simt_call(struct xctx *x, struct warp *w, const struct emu_insn *in,
	      uint32_t m, int pc)
{
	const struct emu_func *g;
	const struct emu_func *f = w->fr[w->nf - 1].f;
	const struct emu_call *c = &f->calls[in->call];
	struct frame *cf, *pf;
	int i = in->target;

	if (i < 0) {
		i = indirect_callee(x, w, in, m, pc);
		if (i < 0)
			return i == -1 ? 0 : -1;
	}
	g = &x->m->funcs[i];

	if (g->is_decl && !strcmp(g->name, "vprintf")) {
		w->stack[w->sp - 1].pc = pc + 1;
		return devlib_vprintf(x, w, c, m);
	}
	if (g->is_decl && !strcmp(g->name, "__assertfail"))
		return devlib_assertfail(x, w, in, c, m);
	if (g->is_decl && (!strcmp(g->name, "malloc") ||
			   !strcmp(g->name, "free"))) {
		w->stack[w->sp - 1].pc = pc + 1;
		return devlib_heap(x, w, c, m, g->name[0] == 'f');
	}
	if (g->is_decl || g->is_entry)
		return emu_fault_unsupported(x, f, in, w->id,
					     __builtin_ctz(m), "a call to the "
					     "%s function '%.160s'",
					     g->is_entry ? "kernel" :
					     "external", g->name);
	w->stack[w->sp - 1].pc = pc + 1;
	if (simt_push_frame(x, w, g, in))
		return -1;
	cf = &w->fr[w->nf - 1];
	pf = &w->fr[w->nf - 2];
	cf->call_pc = pc;
	cf->call_mask = m;
	for (i = 0; i < c->narg && i < g->nparams; i++) {
		const struct emu_sym *from = &x->m->syms[c->arg[i]];
		const struct emu_sym *to = &x->m->syms[g->params[i]];
		size_t n = to->size < from->size ? to->size : from->size;

		LANES(memcpy(w->params + cf->paoff +
			     (size_t)l * g->param_bytes + to->off,
			     w->params + pf->paoff +
			     (size_t)l * f->param_bytes + from->off, n));
	}
	if (simt_push(w, 0, g->ninsns, m))
		return emu_fault(x, WGEMU_FAULT_RESOURCES, in, -1, -1,
				 "out of host memory");
	return 0;
}
