/*
 * An instruction with a scalar form (emu.h, SC_*; ptx/scalar.c) whose
 * sources differ from lane to lane, or that only some of the live lanes
 * run: computed lane by lane in one loop per form, without the general
 * path's dispatch through alu.c.  The bits are alu.c's and exec.c's, as
 * scalar.c's are, with truncation and sign extension as masks and
 * shifts: trunc_sz(v, sz) is v & mask, sx(v, sz) is v shifted up by
 * 64 - bits and arithmetically back.  tests/check_emu_scalar.c runs every
 * form on both paths.
 */
#include <string.h>
#include "emu/vm/exec.h"

/* the lanes of m (in scope): D[l] = expr */
#define EACH(expr) do { \
	if (m == FULL) { \
		for (int l = 0; l < EMU_WARP_SIZE; l++) \
			D[l] = (expr); \
	} else { \
		for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) { \
			int l = __builtin_ctz(mm_); \
			D[l] = (expr); \
		} \
	} \
} while (0)

/* the lanes of m: bit l of r set where cond holds */
#define BITS(cond) do { \
	if (m == FULL) { \
		for (int l = 0; l < EMU_WARP_SIZE; l++) \
			r |= (uint32_t)(cond) << l; \
	} else { \
		for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) { \
			int l = __builtin_ctz(mm_); \
			r |= (uint32_t)(cond) << l; \
		} \
	} \
} while (0)

/* v of bits sign-extended (sh = 64 - bits) */
#define SX(v, sh) ((int64_t)((v) << (sh)) >> (sh))

/*
 * Every lane of a full warp four at a time, in GCC's vector extension
 * (pairs of SSE2 operations on x86-64, or what the target has): D's four
 * lanes from l get vexpr, which reads VA, VB and VC, the sources' four.
 * Each group is loaded before it is stored, so a destination that is
 * also a source (add %r1, %r1, 1) is read first, as lane by lane.
 */
typedef uint64_t v4 __attribute__((vector_size(32)));
#define VAT(p) ({ v4 v_; memcpy(&v_, (p) + l, sizeof(v_)); v_; })
#define VA VAT(A)
#define VB VAT(B)
#define VC VAT(C)
#define VEACH(vexpr) do { \
	for (int l = 0; l < EMU_WARP_SIZE; l += 4) { \
		v4 r_ = (vexpr); \
		memcpy(D + l, &r_, sizeof(r_)); \
	} \
} while (0)
/* the lanes of m: D[l] = expr, or the full warp's D = vexpr */
#define EACH_V(expr, vexpr) do { \
	if (m == FULL) \
		VEACH(vexpr); \
	else \
		EACH(expr); \
} while (0)
/* v (a vector) of bits sign-extended, sign = 1 << (bits - 1) */
#define VSX(v, mask, sign) ((((v) & (mask)) ^ (sign)) - (sign))

/* a source as a column of 32 values: a register's (spread, exec.h), a
 * constant's, or a symbol's address in tmp */
static const uint64_t *column(struct xctx *x, struct warp *w, uint64_t *R,
			      uint8_t *U, const struct emu_func *f,
			      const struct emu_opnd *o, uint64_t *tmp)
{
	uint64_t v;

	switch (o->kind) {
	case OK_REG:
		uniform_spread(w, R, U, o->idx);
		return R + (size_t)o->idx * EMU_WARP_SIZE;
	case OK_CONST:
		return f->consts + (size_t)o->idx * EMU_WARP_SIZE;
	default:
		v = sym_value(x, w, o->idx);
		for (int l = 0; l < EMU_WARP_SIZE; l++)
			tmp[l] = v;
		return tmp;
	}
}

/* r: the lanes of m where A's and B's values, cast to T, compare as
 * the instruction says (alu_compare's: LO, LS, HI and HS are LT, LE, GT
 * and GE, which T makes unsigned) */
#define COMPARE(T) do { \
	switch (in->cmp) { \
	case C_EQ: BITS((T)A[l] == (T)B[l]); break; \
	case C_NE: BITS((T)A[l] != (T)B[l]); break; \
	case C_LT: case C_LO: BITS((T)A[l] < (T)B[l]); break; \
	case C_LE: case C_LS: BITS((T)A[l] <= (T)B[l]); break; \
	case C_GT: case C_HI: BITS((T)A[l] > (T)B[l]); break; \
	case C_GE: case C_HS: BITS((T)A[l] >= (T)B[l]); break; \
	default: break; \
	} \
} while (0)

/* setp's comparison, lane by lane: a signed type's values sign-extended,
 * an unsigned (or bit) type's truncated, as alu_compare compares */
static uint32_t compare_lanes(const struct emu_insn *in, uint32_t m,
			      const uint64_t *A, const uint64_t *B)
{
	int s = emu_type_kind[in->type] == 's';
	uint32_t r = 0;

	switch (emu_type_size[in->type]) {
	case 2: if (s) COMPARE(int16_t); else COMPARE(uint16_t); break;
	case 4: if (s) COMPARE(int32_t); else COMPARE(uint32_t); break;
	default: if (s) COMPARE(int64_t); else COMPARE(uint64_t); break;
	}
	return r;
}

/* cvt between integer types lane by lane, as cvt_int without .sat */
static void convert_lanes(const struct emu_insn *in, uint32_t m,
			  uint64_t *D, const uint64_t *A)
{
	int ssh = 64 - emu_type_size[in->type2] * 8;
	int dsh = 64 - emu_type_size[in->type] * 8;
	int ss = emu_type_kind[in->type2] == 's';
	int ds = emu_type_kind[in->type] == 's';

	uint64_t smask = ~0ull >> ssh, ssign = (smask >> 1) + 1;
	uint64_t dmask = ~0ull >> dsh, dsign = (dmask >> 1) + 1;

	if (ss && ds)
		EACH_V((uint64_t)SX((uint64_t)SX(A[l], ssh), dsh),
		       VSX(VSX(VA, smask, ssign), dmask, dsign));
	else if (ss)
		EACH_V((uint64_t)SX(A[l], ssh) << dsh >> dsh,
		       VSX(VA, smask, ssign) & dmask);
	else if (ds)
		EACH_V((uint64_t)SX(A[l] << ssh >> ssh, dsh),
		       VSX(VA & smask, dmask, dsign));
	else
		EACH_V(A[l] << ssh >> ssh << dsh >> dsh, VA & smask & dmask);
}

/* The forms with a register destination D, over the lanes m. */
static void value_lanes(const struct emu_insn *in, uint32_t m, uint64_t *D,
			const uint64_t *A, const uint64_t *B,
			const uint64_t *C)
{
	int bits = emu_type_size[in->type] * 8, sh = 64 - bits;
	uint64_t mask = ~0ull >> sh, win = cvta_window(in);

	const uint64_t w32 = 0xffffffffu, s32 = 0x80000000u;

	switch (in->scalar) {
	case SC_MOV: EACH_V(A[l] & mask, VA & mask); break;
	case SC_ADD: EACH_V((A[l] + B[l]) & mask, (VA + VB) & mask); break;
	case SC_SUB: EACH_V((A[l] - B[l]) & mask, (VA - VB) & mask); break;
	case SC_MUL_LO: EACH_V((A[l] * B[l]) & mask, (VA * VB) & mask); break;
	case SC_MAD_LO:
		EACH_V((A[l] * B[l] + C[l]) & mask, (VA * VB + VC) & mask);
		break;
	case SC_MUL_WIDE_S:
		EACH_V((uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]),
		       VSX(VA, w32, s32) * VSX(VB, w32, s32));
		break;
	case SC_MUL_WIDE_U:
		EACH_V((uint64_t)(uint32_t)A[l] * (uint32_t)B[l],
		       (VA & w32) * (VB & w32));
		break;
	case SC_MAD_WIDE_S:
		EACH_V((uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]) +
		       C[l], VSX(VA, w32, s32) * VSX(VB, w32, s32) + VC);
		break;
	case SC_MAD_WIDE_U:
		EACH_V((uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l],
		       (VA & w32) * (VB & w32) + VC);
		break;
	case SC_SHL:
		EACH((uint32_t)B[l] >= (uint32_t)bits ? 0 :
		     (A[l] << (B[l] & 63)) & mask);
		break;
	case SC_SHR_U:
		EACH((uint32_t)B[l] >= (uint32_t)bits ? 0 :
		     (A[l] & mask) >> (B[l] & 63));
		break;
	case SC_SHR_S:
		EACH((uint64_t)(SX(A[l], sh) >> ((uint32_t)B[l] >=
			(uint32_t)bits ? bits - 1 : (int)(B[l] & 63))) & mask);
		break;
	case SC_AND: EACH_V(A[l] & B[l] & mask, VA & VB & mask); break;
	case SC_OR: EACH_V((A[l] | B[l]) & mask, (VA | VB) & mask); break;
	case SC_XOR: EACH_V((A[l] ^ B[l]) & mask, (VA ^ VB) & mask); break;
	case SC_NOT: EACH_V(~A[l] & mask, ~VA & mask); break;
	case SC_NEG: EACH_V((0 - A[l]) & mask, (0 - VA) & mask); break;
	case SC_MIN_S: EACH((SX(A[l], sh) < SX(B[l], sh) ? A[l] : B[l]) & mask);
		break;
	case SC_MAX_S: EACH((SX(A[l], sh) < SX(B[l], sh) ? B[l] : A[l]) & mask);
		break;
	case SC_MIN_U: EACH(((A[l] & mask) < (B[l] & mask) ? A[l] : B[l]) &
			    mask);
		break;
	case SC_MAX_U: EACH(((A[l] & mask) < (B[l] & mask) ? B[l] : A[l]) &
			    mask);
		break;
	case SC_CVT: convert_lanes(in, m, D, A); break;
	case SC_CVTA_TO: EACH_V((A[l] - win) & mask, (VA - win) & mask); break;
	case SC_CVTA_FROM: EACH_V((A[l] + win) & mask, (VA + win) & mask);
		break;
	default: EACH(scalar_divide(in->scalar, A[l], B[l], bits / 8)); break;
	}
}

int lanes_exec(struct xctx *x, struct warp *w, const struct emu_func *f,
	       const struct emu_insn *in, uint32_t m, uint64_t *R,
	       uint32_t *P, uint8_t *U)
{
	uint64_t ta[EMU_WARP_SIZE], tb[EMU_WARP_SIZE], tc[EMU_WARP_SIZE];
	const uint64_t *A, *B = NULL, *C = NULL;
	int d = in->d[0].idx, mad = in->scalar == SC_MAD_LO ||
		in->scalar == SC_MAD_WIDE_S || in->scalar == SC_MAD_WIDE_U;
	uint64_t *D;

	if (in->scalar == SC_LD_KPARAM)
		return 0;	/* memory.c's, lane by lane */
	A = column(x, w, R, U, f, &in->s[0], ta);
	if (in->nsrc > 1)
		B = column(x, w, R, U, f, &in->s[1], tb);
	if (mad)
		C = column(x, w, R, U, f, &in->s[2], tc);
	if (in->scalar == SC_SETP) {
		scalar_setp(in, f, P, m, compare_lanes(in, m, A, B));
		return 1;
	}
	/* a lane outside m keeps the uniform value it had */
	if (m != w->live)
		uniform_spread(w, R, U, d);
	D = R + (size_t)d * EMU_WARP_SIZE;
	if (in->scalar == SC_SELP) {
		uint32_t c = pred_src(P, f, &in->s[2]);

		EACH((c >> l & 1) ? A[l] : B[l]);
	} else {
		value_lanes(in, m, D, A, B, C);
	}
	U[d] = UNI_NO;
	return 1;
}
