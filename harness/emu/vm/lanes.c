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

/* a source as a column of 32 values: a register's (spread, exec.h), a
 * constant's, or a symbol's address in tmp */
static const uint64_t *column(struct xctx *x, struct warp *w, uint64_t *R,
			      uint8_t *U, const struct emu_func *f,
			      const struct emu_opnd *o, uint64_t *tmp)
{
	uint64_t v;

	switch (o->kind) {
	case OK_REG:
		uniform_spread(R, U, o->idx);
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

/* The comparison's lanes: each value a key whose unsigned order is the
 * type's (a signed value sign-extended, its sign bit flipped; an
 * unsigned one truncated), as alu_compare compares. */
static uint32_t compare_lanes(const struct emu_insn *in, uint32_t m,
			      const uint64_t *A, const uint64_t *B)
{
	int sh = 64 - emu_type_size[in->type] * 8;
	uint64_t flip = emu_type_kind[in->type] == 's' ? 1ull << 63 : 0;
	uint32_t r = 0;

#define KEY(v) (flip ? (uint64_t)SX(v, sh) ^ flip : (v) << sh >> sh)
	switch (in->cmp) {
	case C_EQ: BITS(KEY(A[l]) == KEY(B[l])); break;
	case C_NE: BITS(KEY(A[l]) != KEY(B[l])); break;
	case C_LT: case C_LO: BITS(KEY(A[l]) < KEY(B[l])); break;
	case C_LE: case C_LS: BITS(KEY(A[l]) <= KEY(B[l])); break;
	case C_GT: case C_HI: BITS(KEY(A[l]) > KEY(B[l])); break;
	case C_GE: case C_HS: BITS(KEY(A[l]) >= KEY(B[l])); break;
	default: break;
	}
#undef KEY
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

	if (ss && ds)
		EACH((uint64_t)SX((uint64_t)SX(A[l], ssh), dsh));
	else if (ss)
		EACH((uint64_t)SX(A[l], ssh) << dsh >> dsh);
	else if (ds)
		EACH((uint64_t)SX(A[l] << ssh >> ssh, dsh));
	else
		EACH(A[l] << ssh >> ssh << dsh >> dsh);
}

/* The forms with a register destination D, over the lanes m. */
static void value_lanes(const struct emu_insn *in, uint32_t m, uint64_t *D,
			const uint64_t *A, const uint64_t *B,
			const uint64_t *C)
{
	int bits = emu_type_size[in->type] * 8, sh = 64 - bits;
	uint64_t mask = ~0ull >> sh, win = cvta_window(in);

	switch (in->scalar) {
	case SC_MOV: EACH(A[l] & mask); break;
	case SC_ADD: EACH((A[l] + B[l]) & mask); break;
	case SC_SUB: EACH((A[l] - B[l]) & mask); break;
	case SC_MUL_LO: EACH((A[l] * B[l]) & mask); break;
	case SC_MAD_LO: EACH((A[l] * B[l] + C[l]) & mask); break;
	case SC_MUL_WIDE_S:
		EACH((uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]));
		break;
	case SC_MUL_WIDE_U:
		EACH((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
		break;
	case SC_MAD_WIDE_S:
		EACH((uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]) +
		     C[l]);
		break;
	case SC_MAD_WIDE_U:
		EACH((uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + C[l]);
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
	case SC_AND: EACH(A[l] & B[l] & mask); break;
	case SC_OR: EACH((A[l] | B[l]) & mask); break;
	case SC_XOR: EACH((A[l] ^ B[l]) & mask); break;
	case SC_NOT: EACH(~A[l] & mask); break;
	case SC_NEG: EACH((0 - A[l]) & mask); break;
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
	case SC_CVTA_TO: EACH((A[l] - win) & mask); break;
	case SC_CVTA_FROM: EACH((A[l] + win) & mask); break;
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
		uniform_spread(R, U, d);
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
