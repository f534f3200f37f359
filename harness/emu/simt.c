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
#include "emu/exec.h"

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

static void init_specials(struct xctx *x, struct warp *w, uint64_t *R,
			  uint64_t used)
{
	const unsigned *b = x->cfg->block, *g = x->cfg->grid;
	int l;

	if (!used)
		return;
	for (l = 0; l < EMU_WARP_SIZE; l++) {
		unsigned t[3];
		uint32_t lm = 1u << l;

		thread_of(x, w->id, l, t);
#define SET(sr, v) if (used & (1ull << (sr))) R[(sr) * EMU_WARP_SIZE + l] = (v)
		SET(SR_TID_X, t[0]);
		SET(SR_TID_Y, t[1]);
		SET(SR_TID_Z, t[2]);
		SET(SR_NTID_X, b[0]);
		SET(SR_NTID_Y, b[1]);
		SET(SR_NTID_Z, b[2]);
		SET(SR_CTAID_X, x->bid[0]);
		SET(SR_CTAID_Y, x->bid[1]);
		SET(SR_CTAID_Z, x->bid[2]);
		SET(SR_NCTAID_X, g[0]);
		SET(SR_NCTAID_Y, g[1]);
		SET(SR_NCTAID_Z, g[2]);
		SET(SR_LANEID, (unsigned)l);
		SET(SR_WARPID, (unsigned)w->id);
		SET(SR_NWARPID, (unsigned)EMU_MAX_SM_WARPS);
		SET(SR_SMID, 0u);
		SET(SR_NSMID, (unsigned)EMU_SM_COUNT);
		SET(SR_GRIDID, 1u);
		SET(SR_LANEMASK_EQ, lm);
		SET(SR_LANEMASK_LT, lm - 1);
		SET(SR_LANEMASK_LE, lm | (lm - 1));
		SET(SR_LANEMASK_GT, ~(lm | (lm - 1)));
		SET(SR_LANEMASK_GE, ~(lm - 1));
		SET(SR_DYN_SMEM, x->cfg->dyn_smem);
		SET(SR_TOTAL_SMEM, x->smem_size);
#undef SET
	}
	/* the same for every lane: apart, to keep the loop above short */
	if (used & (1ull << SR_ENVREG1 | 1ull << SR_ENVREG2))
		for (l = 0; l < EMU_WARP_SIZE; l++) {
			R[SR_ENVREG1 * EMU_WARP_SIZE + l] =
				(uint32_t)(x->cfg->grid_ws >> 32);
			R[SR_ENVREG2 * EMU_WARP_SIZE + l] =
				(uint32_t)x->cfg->grid_ws;
		}
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
		      EMU_WARP_SIZE + 1, 1))
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
		return emu_fault(x, WGEMU_FAULT_UNSUPPORTED, in, w->id,
				 __builtin_ctz(m), "call to %s function '%s'",
				 g->is_entry ? "kernel" : "external", g->name);
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
