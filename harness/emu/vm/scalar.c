/*
 * An instruction with a scalar form (emu.h, SC_*; ptx/scalar.c) that
 * every live lane of a warp runs on warp-uniform sources: computed once,
 * on 64-bit scalars, the value stored once, in the warp's uval, and the
 * destination marked so (exec.h, "warp-uniform registers", UNI_LANE0).
 * Each case computes the bits the general path does -- alu.c's
 * int_addsub, int_mul, int_logic and min and max, exec.c's mov, cvta,
 * setp and selp, and memory.c's mem_ld_uniform of a kernel parameter --
 * for the forms ptx/scalar.c admits, calling alu.c's own alu_divide,
 * alu_cvt_int and alu_compare where it can (lanes.c runs the forms lane
 * by lane); tests/check_emu_scalar.c runs every form on both paths and
 * the general one and compares.
 */
#include "emu/vm/exec.h"

/* source i: a register's value in lane l (UNI_LANE0: its uniform value
 * in V), a constant, a symbol's address */
static inline uint64_t src(struct xctx *x, struct warp *w, const uint64_t *R,
			   const uint8_t *U, const uint64_t *V,
			   const struct emu_func *f, const struct emu_opnd *o,
			   int l)
{
	switch (o->kind) {
	case OK_REG:
		return U[o->idx] == UNI_LANE0 ? V[o->idx] :
		       R[(size_t)o->idx * EMU_WARP_SIZE + (size_t)l];
	case OK_CONST:
		return f->consts[(size_t)o->idx * EMU_WARP_SIZE];
	default:
		return sym_value(x, w, o->idx);
	}
}

/* the value of the forms with a register destination */
static uint64_t value(const struct emu_insn *in, uint64_t a, uint64_t b,
		      uint64_t c)
{
	int sz = emu_type_size[in->type], bits = sz * 8;

	switch (in->scalar) {
	case SC_MOV: return trunc_sz(a, sz);
	case SC_ADD: return trunc_sz(a + b, sz);
	case SC_SUB: return trunc_sz(a - b, sz);
	case SC_MUL_LO: return trunc_sz(a * b, sz);
	case SC_MAD_LO: return trunc_sz(trunc_sz(a * b, sz) + c, sz);
	case SC_MUL_WIDE_S:
		return (uint64_t)((int64_t)(int32_t)a * (int32_t)b);
	case SC_MUL_WIDE_U: return (uint64_t)(uint32_t)a * (uint32_t)b;
	case SC_MAD_WIDE_S:
		return (uint64_t)((int64_t)(int32_t)a * (int32_t)b) + c;
	case SC_MAD_WIDE_U: return (uint64_t)(uint32_t)a * (uint32_t)b + c;
	case SC_SHL:
		return (uint32_t)b >= (uint32_t)bits ? 0 :
		       trunc_sz(a << (uint32_t)b, sz);
	case SC_SHR_U:
		return (uint32_t)b >= (uint32_t)bits ? 0 :
		       trunc_sz(a, sz) >> (uint32_t)b;
	case SC_SHR_S:
		return trunc_sz((uint64_t)(sx(a, sz) >>
			((uint32_t)b >= (uint32_t)bits ? bits - 1 : (int)b)),
			sz);
	case SC_AND: return trunc_sz(a & b, sz);
	case SC_OR: return trunc_sz(a | b, sz);
	case SC_XOR: return trunc_sz(a ^ b, sz);
	case SC_NOT: return trunc_sz(~a, sz);
	case SC_NEG: return trunc_sz(-a, sz);
	case SC_MIN_S: return trunc_sz(sx(a, sz) < sx(b, sz) ? a : b, sz);
	case SC_MAX_S: return trunc_sz(sx(a, sz) < sx(b, sz) ? b : a, sz);
	case SC_MIN_U:
		return trunc_sz(trunc_sz(a, sz) < trunc_sz(b, sz) ? a : b, sz);
	case SC_MAX_U:
		return trunc_sz(trunc_sz(a, sz) < trunc_sz(b, sz) ? b : a, sz);
	case SC_CVT: return alu_cvt_int(in, a);
	case SC_CVTA_TO: return trunc_sz(a - cvta_window(in), sz);
	case SC_CVTA_FROM: return trunc_sz(a + cvta_window(in), sz);
	default: return scalar_divide(in->scalar, a, b, sz);
	}
}

void scalar_setp(const struct emu_insn *in, const struct emu_func *f,
		 uint32_t *P, uint32_t m, uint32_t r)
{
	uint32_t p = r, q = ~r, c;

	if (in->nsrc == 3) {
		c = pred_src(P, f, &in->s[2]);
		switch (in->boolop) {
		case BO_AND: p = r & c; q = ~r & c; break;
		case BO_OR: p = r | c; q = ~r | c; break;
		case BO_XOR: p = r ^ c; q = ~r ^ c; break;
		default: break;
		}
	}
	pred_set(P, &in->d[0], m, p);
	if (in->ndst == 2)
		pred_set(P, &in->d[1], m, q);
}

/* ld.param of a kernel parameter, as mem_ld_uniform reads it: 0 when the
 * access is misaligned or out of range (mem_ld's fault), else 1 with the
 * value in *v */
static int kparam(struct xctx *x, const struct emu_insn *in, uint64_t *v)
{
	int esz = emu_type_size[in->type];
	uint64_t a = x->symaddr[in->asym] + (uint64_t)in->aoff, b = 0;

	if ((a & (uint64_t)(esz - 1)) || a + (uint64_t)esz >
	    x->k->kparam_bytes)
		return 0;
	memcpy(&b, (const uint8_t *)x->cfg->params + a, (size_t)esz);
	*v = emu_type_kind[in->type] == 's' ? (uint64_t)sx(b, esz) : b;
	return 1;
}

/* destination register d holds v in every live lane: in V, marked so
 * (exec.h, UNI_LANE0) */
static inline void put(uint64_t *V, uint8_t *U, int d, uint64_t v)
{
	V[d] = v;
	U[d] = UNI_LANE0;
}

void scalar_spread_frame(struct warp *w)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	uint8_t *U = w->uni + fr->roff / EMU_WARP_SIZE;

	for (int r = 0; r < fr->f->nregs; r++)
		uniform_spread(w, w->regs + fr->roff, U, r);
}

int scalar_exec(struct xctx *x, struct warp *w, const struct emu_func *f,
		const struct emu_insn *in, uint32_t m, uint64_t *R,
		uint32_t *P, uint8_t *U)
{
	int l0 = __builtin_ctz(m);
	uint64_t a, b = 0, c = 0, *V = uniform_values(w, U);

	if (in->scalar == SC_LD_KPARAM) {
		if (!kparam(x, in, &a))
			return 0;
		put(V, U, in->d[0].idx, a);
		return 1;
	}

	a = src(x, w, R, U, V, f, &in->s[0], l0);
	if (in->nsrc > 1 && in->scalar != SC_SELP)
		b = src(x, w, R, U, V, f, &in->s[1], l0);
	if (in->scalar == SC_MAD_LO || in->scalar == SC_MAD_WIDE_S ||
	    in->scalar == SC_MAD_WIDE_U)
		c = src(x, w, R, U, V, f, &in->s[2], l0);
	if (in->scalar == SC_SETP) {
		scalar_setp(in, f, P, m,
			    alu_compare(in->cmp, in->type, a, b) ? m : 0);
		return 1;
	}
	if (in->scalar == SC_SELP) {
		uint32_t p = pred_src(P, f, &in->s[2]) & m;

		if (p && p != m)
			return 0;	/* lanes choose differently */
		a = p ? a : src(x, w, R, U, V, f, &in->s[1], l0);
	}
	put(V, U, in->d[0].idx, in->scalar == SC_SELP ? a : value(in, a, b, c));
	return 1;
}
