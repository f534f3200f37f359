/*
 * The ALU: integer, floating-point and conversion arithmetic over the
 * active lanes of a warp, with PTX's rounding modes (through the host's
 * floating-point environment), .ftz, .sat and the integer corner cases
 * (division by zero, shifts past the width, .hi and .wide products).
 * Half and bfloat16 arithmetic is half.c's.
 */
#include <fenv.h>
#include <math.h>
#include <string.h>
#include "emu/vm/exec.h"
#include "emu/vm/simd.h"
#include "emu/vm/half.h"
#include "emu/vm/mufu.h"

static inline float ftz32(float f)
{
	if (fpclassify(f) == FP_SUBNORMAL)
		return copysignf(0.0f, f);
	return f;
}

static inline double ftz64(double d)
{
	if (fpclassify(d) == FP_SUBNORMAL)
		return copysign(0.0, d);
	return d;
}

static int fe_mode(int rnd)
{
	switch (rnd) {
	case R_RZ: case R_RZI: return FE_TOWARDZERO;
	case R_RM: case R_RMI: return FE_DOWNWARD;
	case R_RP: case R_RPI: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

static double round_int(double v, int rnd)
{
	switch (rnd) {
	case R_RZI: return trunc(v);
	case R_RMI: return floor(v);
	case R_RPI: return ceil(v);
	case R_RNI: return nearbyint(v);
	default: return v;
	}
}

/*
 * sin and cos .approx as the GPU computes them: the argument scaled to
 * turns by a single-precision multiply rounding toward zero (so that a
 * large one keeps only the turns a float can hold, and a huge one none),
 * then the function of the fraction of a turn.  The product of two
 * floats is exact in double; its truncation is the multiply's result.
 */
static float sin_cos_turns(int op, float x)
{
	double exact = (double)ftz32(x) * (double)0.15915494f;
	float turns = (float)exact;
	double frac;

	if (fabs((double)turns) > fabs(exact))
		turns = nextafterf(turns, 0.0f);
	frac = fmodf(turns, 1.0f) * 6.283185307179586;

	return (float)(op == OP_SIN ? sin(frac) : cos(frac));
}

/*
 * The lanes of a float op of one, two or three operands in type T:
 * get and put convert from and to the register bits, S is the suffix of
 * T's math functions (f, or none for double), FTZ flushes a subnormal
 * and ALL says whether .ftz also flushes c and the result (f32) or only
 * a and b (f64).  The values are volatile so that every operation runs
 * in the rounding mode alu_float set.  NAN_BITS is the NaN the GPU
 * gives for T where IEEE would pass one on (f32), or 0 to keep the
 * host's choice, which is the GPU's (f64).
 */
#define FLOAT_LANES(name, T, S, get, put, FTZ, ALL, NAN_BITS) \
static void name(const struct emu_insn *in, uint32_t m, uint64_t *D, \
		 const uint64_t *A, const uint64_t *B, const uint64_t *C) \
{ \
	int op = in->op; \
	int ftz = (in->flags & F_FTZ) != 0, sat = (in->flags & F_SAT) != 0; \
	LANES({ \
		volatile T a = get(A[l]), b = 0, c = 0, r; \
		if (B) \
			b = get(B[l]); \
		if (C) \
			c = get(C[l]); \
		if (ftz) { \
			a = FTZ(a); \
			b = FTZ(b); \
			if (ALL) \
				c = FTZ(c); \
		} \
		switch (op) { \
		case OP_ADD: r = a + b; break; \
		case OP_SUB: r = a - b; break; \
		case OP_MUL: r = a * b; break; \
		case OP_FMA: case OP_MAD: \
			r = fma##S(in->sub & FMA_NEG_AB ? -a : a, b, \
				   in->sub & FMA_NEG_C ? -c : c); \
			break; \
		case OP_DIV: r = a / b; break; \
		case OP_MIN: case OP_MAX: \
			r = (T)minmax(in, a, b); \
			break; \
		case OP_ABS: r = fabs##S(a); break; \
		case OP_NEG: r = -a; break; \
		case OP_SQRT: r = sqrt##S(a); break; \
		case OP_RSQRT: r = (T)1 / sqrt##S(a); break; \
		case OP_RCP: r = (T)1 / a; break; \
		case OP_EX2: r = exp2##S(a); break; \
		case OP_LG2: r = log2##S(a); break; \
		case OP_SIN: case OP_COS: \
			r = (T)sin_cos_turns(op, (float)a); \
			break; \
		case OP_TANH: r = tanh##S(a); break; \
		case OP_COPYSIGN: r = copysign##S(b, a); break; \
		default: r = 0; break; \
		} \
		if (ftz && ALL) \
			r = FTZ(r); \
		if (sat)	/* NaN and -0 to +0 */ \
			r = isnan(r) || r <= 0 ? (T)0 : r > 1 ? (T)1 : r; \
		D[l] = NAN_BITS && isnan(r) && op != OP_COPYSIGN ? \
		       (uint64_t)NAN_BITS : put(r); \
	}); \
}

/* min or max of the instruction: .NaN and .xorsign.abs (emu.h) */
static double minmax(const struct emu_insn *in, double a, double b)
{
	double r;

	if (!(in->sub & MM_XORSIGN))
		return emu_fminmax(in->op == OP_MAX, in->sub & MM_NAN, a, b);
	r = emu_fminmax(in->op == OP_MAX, in->sub & MM_NAN, fabs(a),
			fabs(b));
	return !isnan(r) && (signbit(a) != 0) != (signbit(b) != 0) ? -r : r;
}

FLOAT_LANES(float_lanes32, float, f, u2f, f2u, ftz32, 1, 0x7fffffffu)
FLOAT_LANES(float_lanes64, double, , u2d, d2u, ftz64, 0, 0)

/*
 * The f64 lanes where the GPU's bits are not the host's: min and max of
 * two NaNs give the first, quiet (as add and mul do: which of two NaN
 * operands an instruction passes on is the order ptxas gave them, not
 * the hardware's); abs and neg of a NaN give it back quiet, its sign as
 * it was.
 */
static void f64_fixups(const struct emu_insn *in, uint32_t m, uint64_t *D,
		       const uint64_t *A)
{
	switch (in->op) {
	case OP_MIN: case OP_MAX:
		LANES(D[l] = isnan(u2d(D[l])) ? A[l] | 1ull << 51 : D[l]);
		break;
	case OP_ABS: case OP_NEG:
		LANES(D[l] = isnan(u2d(A[l])) ? A[l] | 1ull << 51 : D[l]);
		break;
	default:
		break;
	}
}

/* a float op of one or two or three operands in f32 or f64 */
int alu_float(struct xctx *x, const struct emu_insn *in, uint32_t m,
	      uint64_t *D, const uint64_t *A, const uint64_t *B,
	      const uint64_t *C)
{
	int mode = fe_mode(in->rnd), old = 0;

	if (in->type == T_F16)
		return -1;
	switch (mufu_lanes(in, m, D, A, B)) {
	case 1:
		return 0;
	case -1:
		return -1;
	}
	if (mode != FE_TONEAREST) {
		old = fegetround();
		fesetround(mode);
	}
	if (in->type == T_F64) {
		float_lanes64(in, m, D, A, B, C);
		f64_fixups(in, m, D, A);
	} else {
		float_lanes32(in, m, D, A, B, C);
	}
	if (mode != FE_TONEAREST)
		fesetround(old);
	(void)x;
	return 0;
}

/* IEEE half to single (half.c) */
static float h2f(uint16_t h)
{
	return emu_f16_to_f32(h);
}

uint64_t alu_to_half(int t, double v, int rnd)
{
	return emu_round_half(t, v, rnd);
}

/* cvt between integers: truncated or sign-extended, clamped with .sat */
static uint64_t cvt_int(const struct emu_insn *in, uint64_t a)
{
	int dt = in->type, st = in->type2;
	char dk = emu_type_kind[dt], sk = emu_type_kind[st];
	int dsz = emu_type_size[dt], ssz = emu_type_size[st];
	int64_t sv;

	if (!(in->flags & F_SAT))
		return alu_cvt_int(in, a);
	sv = sk == 's' ? sx(a, ssz) : (int64_t)trunc_sz(a, ssz);
	if (dsz < 8) {
		int64_t lo = dk == 's' ? -(1ll << (dsz * 8 - 1)) : 0;
		int64_t hi = dk == 's' ? (1ll << (dsz * 8 - 1)) - 1 :
			     (int64_t)((1ull << (dsz * 8)) - 1);

		if (sk == 'u' && ssz == 8 && (uint64_t)sv > (uint64_t)hi)
			sv = hi;
		else if (sv < lo)
			sv = lo;
		else if (sv > hi)
			sv = hi;
	} else if (dk == 'u' && sk == 's' && sv < 0) {
		sv = 0;
	} else if (dk == 's' && sk == 'u' && sv < 0) {
		sv = INT64_MAX;
	}
	return dk == 's' ? (uint64_t)sx((uint64_t)sv, dsz)
			 : trunc_sz((uint64_t)sv, dsz);
}

/* cvt of the float v to an integer of dt: rounded (toward zero unless
 * a rounding modifier says otherwise), clamped to the range */
static uint64_t cvt_float_int(const struct emu_insn *in, double v)
{
	int dt = in->type, dsz = emu_type_size[dt];
	char dk = emu_type_kind[dt];
	double lo, hi;

	if (isnan(v))	/* the GPU's: 0 from single precision or less to
			 * 32 bits or less, else the signed width's least */
		return in->type2 != T_F64 && dsz <= 4 ? 0 :
		       dk == 's' ? (uint64_t)sx(1ull << (dsz * 8 - 1), dsz) :
		       1ull << (dsz * 8 - 1);
	v = round_int(v, in->rnd ? in->rnd : R_RZI);
	if (dk == 's') {
		lo = -ldexp(1, dsz * 8 - 1);
		hi = ldexp(1, dsz * 8 - 1) - 1;
	} else {
		lo = 0;
		hi = ldexp(1, dsz * 8) - 1;
	}
	if (v <= lo)
		return dk == 's' ? (uint64_t)sx((uint64_t)
			(-(1ull << (dsz * 8 - 1))), dsz) : 0;
	if (v >= hi)
		return dk == 's' ? trunc_sz((1ull << (dsz * 8 - 1)) - 1, dsz)
				 : trunc_sz(~0ull, dsz);
	return dk == 's' ? (uint64_t)sx((uint64_t)(int64_t)v, dsz)
			 : trunc_sz((uint64_t)v, dsz);
}

/* cvt of the float v to the float type dt, in the rounding mode.  A NaN
 * of canon (a source of single precision or less) is the GPU's one NaN
 * of the type; one of f64 keeps its sign and the top of its payload. */
static uint64_t cvt_float_float(const struct emu_insn *in, double v,
				int canon)
{
	int dt = in->type;
	int sat = (in->flags & F_SAT) != 0, ftz = (in->flags & F_FTZ) != 0;

	if (in->rnd >= R_RNI)
		v = round_int(v, in->rnd);
	if (sat)	/* NaN and -0 to +0 */
		v = isnan(v) || v <= 0 ? 0 : v > 1 ? 1 : v;
	if (dt == T_F64)
		return d2u(v);
	if (dt == T_F32) {
		volatile float r;
		int mode = fe_mode(in->rnd), old = fegetround();

		if (in->rnd >= R_RNI || mode == FE_TONEAREST) {
			r = (float)v;
		} else {
			fesetround(mode);
			r = (float)v;
			fesetround(old);
		}
		if (ftz)
			r = ftz32(r);
		return canon && isnan(r) ? 0x7fffffffu : f2u(r);
	}
	if (isnan(v) && !canon)	/* from f64: quiet, the payload's top */
		return emu_half_from_nan64(dt, d2u(v));
	return alu_to_half(dt, v, in->rnd >= R_RNI ? R_RN : in->rnd);
}

/* an integer as a double rounded to odd (half.c's round_odd): exact up
 * to 2^53, and a sound first step of one rounding to a narrower type */
static double int_to_double_odd(uint64_t a, int is_signed, int sz)
{
	uint64_t mag = is_signed && sx(a, sz) < 0 ?
		       -(uint64_t)sx(a, sz) : trunc_sz(a, sz);
	int drop = mag >> 53 ? 11 - __builtin_clzll(mag) : 0;
	uint64_t kept = mag >> drop;
	double d;

	if (drop && (mag & ((1ull << drop) - 1)))
		kept |= 1;
	d = ldexp((double)kept, drop);
	return is_signed && sx(a, sz) < 0 ? -d : d;
}

/* cvt of an integer to a float, in the rounding mode */
static uint64_t cvt_int_float(const struct emu_insn *in, uint64_t a)
{
	int dt = in->type, st = in->type2, ssz = emu_type_size[st];
	char sk = emu_type_kind[st];
	int mode = fe_mode(in->rnd), old = fegetround();
	uint64_t r;

	if (dt != T_F64 && dt != T_F32)
		return alu_to_half(dt, int_to_double_odd(a, sk == 's', ssz),
				   in->rnd);
	if (mode != FE_TONEAREST)
		fesetround(mode);
	if (dt == T_F64) {
		volatile double d = sk == 's' ? (double)sx(a, ssz) :
				    (double)trunc_sz(a, ssz);
		r = d2u(d);
	} else {
		volatile float f = sk == 's' ? (float)sx(a, ssz) :
				   (float)trunc_sz(a, ssz);
		r = f2u(f);
	}
	if (mode != FE_TONEAREST)
		fesetround(old);
	return r;
}

/* cvt of one value; returns the destination bits */
uint64_t alu_cvt(const struct emu_insn *in, uint64_t a)
{
	int st = in->type2, ftz = (in->flags & F_FTZ) != 0;
	char dk = emu_type_kind[in->type], sk = emu_type_kind[st];
	double v;

	if (in->sub == CVT_TF32)
		return emu_f32_to_tf32((uint32_t)a);
	if (sk != 'f' && dk != 'f')
		return cvt_int(in, a);
	if (sk != 'f')
		return cvt_int_float(in, a);
	if (st == T_BF16 && in->type == T_F32 && !in->rnd)
		return (uint32_t)(uint16_t)a << 16;	/* bits moved, NaN too */
	v = st == T_F64 ? u2d(a) : st == T_F32 ?
	    (double)(ftz ? ftz32(u2f(a)) : u2f(a)) :
	    st == T_BF16 ? (double)emu_bf16_to_f32((uint16_t)a) :
	    (double)h2f((uint16_t)a);
	return dk != 'f' ? cvt_float_int(in, v) :
	       cvt_float_float(in, v, st != T_F64);
}

/* PTX's min and max (emu.h) */
double emu_fminmax(int max, int propagate, double x, double y)
{
	if (isnan(x) || isnan(y))
		return propagate || (isnan(x) && isnan(y)) ? NAN :
		       isnan(x) ? y : x;
	if (x == y)	/* zeros of both signs: -0 is the smaller */
		return (signbit(x) != 0) == max ? y : x;
	return (x < y) == max ? y : x;
}

int emu_fcmp(int cmp, double x, double y)
{
	int un = isnan(x) || isnan(y);

	switch (cmp) {
	case C_EQ: return !un && x == y;
	case C_NE: return !un && x != y;
	case C_LT: return !un && x < y;
	case C_LE: return !un && x <= y;
	case C_GT: return !un && x > y;
	case C_GE: return !un && x >= y;
	case C_EQU: return un || x == y;
	case C_NEU: return un || x != y;
	case C_LTU: return un || x < y;
	case C_LEU: return un || x <= y;
	case C_GTU: return un || x > y;
	case C_GEU: return un || x >= y;
	case C_NUM: return !un;
	case C_NAN: return un;
	default: return 0;
	}
}

/* a float of type t (f16, bf16, f32, f64) from its bits */
static double float_of(int t, uint64_t v)
{
	switch (t) {
	case T_F64: return u2d(v);
	case T_F32: return u2f(v);
	case T_BF16: return emu_bf16_to_f32((uint16_t)v);
	default: return h2f((uint16_t)v);
	}
}

int alu_compare(int cmp, int t, uint64_t a, uint64_t b)
{
	char k = emu_type_kind[t];
	int sz = emu_type_size[t], lt, eq;

	if (k == 'f')
		return emu_fcmp(cmp, float_of(t, a), float_of(t, b));
	if (k == 's') {
		lt = sx(a, sz) < sx(b, sz);
		eq = sx(a, sz) == sx(b, sz);
	} else {
		lt = trunc_sz(a, sz) < trunc_sz(b, sz);
		eq = trunc_sz(a, sz) == trunc_sz(b, sz);
	}
	switch (cmp) {
	case C_EQ: return eq;
	case C_NE: return !eq;
	case C_LT: case C_LO: return lt;
	case C_LE: case C_LS: return lt || eq;
	case C_GT: case C_HI: return !lt && !eq;
	case C_GE: case C_HS: return !lt;
	default: return 0;
	}
}

/* the operands of the integer operations: the instruction, the lanes,
 * the destination and up to three sources (alu_int) */
#define INT_ARGS const struct emu_insn *in, uint32_t m, uint64_t *D, \
	const uint64_t *A, const uint64_t *B, const uint64_t *C

/* addition and subtraction, .sat on s32 */
static int int_addsub(INT_ARGS)
{
	int sz = emu_type_size[in->type], s = emu_type_kind[in->type] == 's';
	int sub = in->op == OP_SUB;

	if (!sub && sz == 4)
		LANES(D[l] = (uint32_t)(A[l] + B[l]));
	else if (!sub)
		LANES(D[l] = trunc_sz(A[l] + B[l], sz));
	else
		LANES(D[l] = trunc_sz(A[l] - B[l], sz));
	if (in->flags & F_SAT && s && sz == 4)
		LANES({
			int64_t a = (int32_t)A[l], b = (int32_t)B[l];
			int64_t r = sub ? a - b : a + b;

			r = r > INT32_MAX ? INT32_MAX :
			    r < INT32_MIN ? INT32_MIN : r;
			D[l] = (uint32_t)r;
		});
	return 0;
}

/* products: .lo, .hi, .wide, 24-bit, and sad */
static int int_mul(INT_ARGS)
{
	int sz = emu_type_size[in->type], s = emu_type_kind[in->type] == 's';
	int bits = sz * 8;

	switch (in->op) {
	case OP_MUL: case OP_MAD:
		if (in->flags & F_WIDE) {
			if (sz == 4 && s)
				LANES(D[l] = (uint64_t)((int64_t)(int32_t)A[l] *
					(int32_t)B[l]));
			else if (sz == 4)
				LANES(D[l] = (uint64_t)(uint32_t)A[l] *
					(uint32_t)B[l]);
			else if (sz == 2 && s)
				LANES(D[l] = (uint32_t)((int32_t)(int16_t)A[l] *
					(int16_t)B[l]));
			else if (sz == 2)
				LANES(D[l] = (uint32_t)((uint16_t)A[l] *
					(uint32_t)(uint16_t)B[l]));
			else
				return -1;
			if (in->op == OP_MAD)
				LANES(D[l] = trunc_sz(D[l] + C[l], sz * 2));
			return 0;
		}
		if (in->flags & F_HI) {
			if (sz == 8 && s)
				LANES(D[l] = (uint64_t)(((__int128)(int64_t)A[l] *
					(int64_t)B[l]) >> 64));
			else if (sz == 8)
				LANES(D[l] = (uint64_t)(((unsigned __int128)A[l] *
					B[l]) >> 64));
			else if (s)
				LANES(D[l] = trunc_sz((uint64_t)((sx(A[l], sz) *
					sx(B[l], sz)) >> bits), sz));
			else
				LANES(D[l] = trunc_sz((trunc_sz(A[l], sz) *
					trunc_sz(B[l], sz)) >> bits, sz));
		} else if (sz == 4) {
			LANES(D[l] = (uint32_t)(A[l] * B[l]));
		} else {
			LANES(D[l] = trunc_sz(A[l] * B[l], sz));
		}
		if (in->op == OP_MAD)
			LANES(D[l] = trunc_sz(D[l] + C[l], sz));
		return 0;
	case OP_MUL24: case OP_MAD24:
		if (in->flags & F_HI)
			return -1;
		if (s)
			LANES(D[l] = (uint32_t)(((int64_t)A[l] << 40 >> 40) *
				((int64_t)B[l] << 40 >> 40)));
		else
			LANES(D[l] = (uint32_t)((A[l] & 0xffffff) *
				(B[l] & 0xffffff)));
		if (in->op == OP_MAD24)
			LANES(D[l] = (uint32_t)(D[l] + C[l]));
		return 0;
	case OP_SAD:
		if (s)
			LANES({
				int64_t a = sx(A[l], sz), b = sx(B[l], sz);
				D[l] = trunc_sz((uint64_t)(a > b ? a - b : b - a)
						+ C[l], sz);
			});
		else
			LANES({
				uint64_t a = trunc_sz(A[l], sz),
					 b = trunc_sz(B[l], sz);
				D[l] = trunc_sz((a > b ? a - b : b - a) + C[l],
						sz);
			});
		return 0;
	default:
		return -1;
	}
}

uint64_t alu_divide(int rem, int sgn, uint64_t a, uint64_t b, int sz)
{
	uint64_t r;

	if (sgn) {
		int64_t sa = sx(a, sz), sb = sx(b, sz);

		if (sb == 0)	/* the GPU's: all ones */
			r = ~0ull;
		else if (sb == -1)
			r = rem ? 0 : (uint64_t)-sa;
		else
			r = (uint64_t)(rem ? sa % sb : sa / sb);
	} else {
		a = trunc_sz(a, sz);
		b = trunc_sz(b, sz);
		if (b == 0)
			r = ~0ull;
		else
			r = rem ? a % b : a / b;
	}
	return trunc_sz(r, sz);
}

/* division and remainder (by zero: all ones), min, max, abs, neg */
static int int_divmin(INT_ARGS)
{
	int sz = emu_type_size[in->type], s = emu_type_kind[in->type] == 's';

	switch (in->op) {
	case OP_DIV: case OP_REM:
		LANES(D[l] = alu_divide(in->op == OP_REM, s, A[l], B[l], sz));
		return 0;
	case OP_MIN: case OP_MAX:
		LANES({
			int lt;

			if (s)
				lt = sx(A[l], sz) < sx(B[l], sz);
			else
				lt = trunc_sz(A[l], sz) < trunc_sz(B[l], sz);
			D[l] = trunc_sz((lt == (in->op == OP_MIN)) ? A[l] : B[l],
					sz);
		});
		return 0;
	case OP_ABS:
		LANES({
			int64_t a = sx(A[l], sz);
			D[l] = trunc_sz((uint64_t)(a < 0 ? -a : a), sz);
		});
		return 0;
	default:	/* neg */
		LANES(D[l] = trunc_sz(-A[l], sz));
		return 0;
	}
}

/* logic, shifts and bit counts */
static int int_logic(INT_ARGS)
{
	int sz = emu_type_size[in->type], s = emu_type_kind[in->type] == 's';
	int bits = sz * 8;

	switch (in->op) {
	case OP_AND:
		LANES(D[l] = trunc_sz(A[l] & B[l], sz));
		return 0;
	case OP_OR:
		LANES(D[l] = trunc_sz(A[l] | B[l], sz));
		return 0;
	case OP_XOR:
		LANES(D[l] = trunc_sz(A[l] ^ B[l], sz));
		return 0;
	case OP_NOT:
		LANES(D[l] = trunc_sz(~A[l], sz));
		return 0;
	case OP_CNOT:
		LANES(D[l] = trunc_sz(A[l], sz) == 0);
		return 0;
	case OP_SHL:
		LANES({
			uint32_t n = (uint32_t)B[l];
			D[l] = n >= (uint32_t)bits ? 0 :
			       trunc_sz(A[l] << n, sz);
		});
		return 0;
	case OP_SHR:
		if (s)
			LANES({
				uint32_t n = (uint32_t)B[l];
				int64_t a = sx(A[l], sz);
				D[l] = trunc_sz((uint64_t)(a >> (n >= (uint32_t)
					bits ? bits - 1 : (int)n)), sz);
			});
		else
			LANES({
				uint32_t n = (uint32_t)B[l];
				D[l] = n >= (uint32_t)bits ? 0 :
				       trunc_sz(A[l], sz) >> n;
			});
		return 0;
	case OP_POPC:
		LANES(D[l] = (uint64_t)__builtin_popcountll(trunc_sz(A[l],
								      sz)));
		return 0;
	case OP_BFIND:
		/* the most significant non-sign bit, or its distance from
		 * the top with .shiftamt; 0xffffffff when there is none */
		LANES({
			uint64_t a = trunc_sz(A[l], sz);
			int pos;

			if (s && (a >> (bits - 1) & 1))
				a = trunc_sz(~a, sz);
			pos = a ? 63 - __builtin_clzll(a) : -1;
			D[l] = pos < 0 ? 0xffffffffu :
			       (uint32_t)(in->flags & F_SHIFTAMT ?
					  bits - 1 - pos : pos);
		});
		return 0;
	case OP_CLZ:
		LANES({
			uint64_t a = trunc_sz(A[l], sz);
			D[l] = a ? (uint64_t)(__builtin_clzll(a) - (64 - bits))
				 : (uint64_t)bits;
		});
		return 0;
	case OP_BREV:
		LANES({
			uint64_t a = A[l], r = 0;
			for (int i = 0; i < bits; i++)
				r |= ((a >> i) & 1) << (bits - 1 - i);
			D[l] = r;
		});
		return 0;
	default:
		return -1;
	}
}

/*
 * bfe of the sz-byte a: len bits from pos, zero- or (s) sign-extended.
 * 32-bit forms take pos and len from their low bytes, as PTX says; the
 * GPU's 64-bit ones take them whole, a position past the width giving
 * no bits (zero, or the sign bit repeated).
 */
static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int sz, int s)
{
	int bits = sz * 8;
	uint64_t r;

	if (sz < 8) {
		pos &= 0xff;
		len &= 0xff;
	}
	a = trunc_sz(a, sz);
	if (!len)
		return 0;
	if (pos >= (uint32_t)bits)
		return s && (a >> (bits - 1) & 1) ? trunc_sz(~0ull, sz) : 0;
	if (len > (uint32_t)bits)
		len = (uint32_t)bits;
	r = a >> pos;
	if (len < 64)
		r &= (1ull << len) - 1;
	if (s) {	/* the field's top bit, or a's, repeated above it */
		uint32_t top = pos + len - 1 < (uint32_t)bits ? pos + len - 1 :
			       (uint32_t)bits - 1;

		if ((a >> top & 1) && top - pos + 1 < 64)
			r |= ~0ull << (top - pos + 1);
	}
	return trunc_sz(r, sz);
}

/* bit fields: bfe, prmt, shf */
static int int_field(INT_ARGS)
{
	int sz = emu_type_size[in->type], s = emu_type_kind[in->type] == 's';

	switch (in->op) {
	case OP_BFE:
		LANES(D[l] = bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], sz, s));
		return 0;
	case OP_PRMT:
		if (in->sub)
			return -1;
		LANES({
			uint64_t v = (uint32_t)A[l] |
				     ((uint64_t)(uint32_t)B[l] << 32);
			uint32_t c = (uint32_t)C[l], r = 0;
			for (int i = 0; i < 4; i++) {
				uint32_t sel = (c >> (4 * i)) & 0xf;
				uint32_t byte = (uint32_t)(v >> ((sel & 7) * 8))
						& 0xff;
				if (sel & 8)
					byte = (byte & 0x80) ? 0xff : 0;
				r |= byte << (8 * i);
			}
			D[l] = r;
		});
		return 0;
	case OP_SHF:
		LANES({
			uint32_t n = (uint32_t)C[l];
			uint64_t v = (uint32_t)A[l] |
				     ((uint64_t)(uint32_t)B[l] << 32);
			n = (in->flags & F_WRAP) ? n & 31 : (n > 32 ? 32 : n);
			if (in->flags & F_LEFT)
				D[l] = (uint32_t)((v << n) >> 32);
			else
				D[l] = (uint32_t)(v >> n);
		});
		return 0;
	default:
		return -1;
	}
}

int alu_int(const struct emu_insn *in, uint32_t m, uint64_t *D,
	    const uint64_t *A, const uint64_t *B, const uint64_t *C)
{
	if (in->type == T_U16X2 || in->type == T_S16X2)
		return simd_int16x2(in, m, D, A, B);
	switch (in->op) {
	case OP_ADD: case OP_SUB:
		return int_addsub(in, m, D, A, B, C);
	case OP_MUL: case OP_MAD: case OP_MUL24: case OP_MAD24: case OP_SAD:
		return int_mul(in, m, D, A, B, C);
	case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX: case OP_ABS:
	case OP_NEG:
		return int_divmin(in, m, D, A, B, C);
	case OP_BFE: case OP_PRMT: case OP_SHF:
		return int_field(in, m, D, A, B, C);
	default:	/* logic, shifts, bit counts, or not an integer op */
		return int_logic(in, m, D, A, B, C);
	}
}

int alu_bfi(const struct emu_insn *in, uint32_t m, uint64_t *D,
	    const uint64_t *A, const uint64_t *B, const uint64_t *C,
	    const uint64_t *E)
{
	int bits = emu_type_size[in->type] * 8;

	LANES({
		uint32_t pos = (uint32_t)C[l] & 0xff, len = (uint32_t)E[l] & 0xff;
		uint64_t r = trunc_sz(B[l], bits / 8);
		for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++)
			r = (r & ~(1ull << (pos + i))) |
			    (((A[l] >> i) & 1) << (pos + i));
		D[l] = r;
	});
	return 0;
}

int alu_testp(int mode, int type, uint64_t bits)
{
	int c = type == T_F64 ? fpclassify(u2d(bits)) :
		fpclassify(u2f(bits));

	switch (mode) {	/* the GPU's .normal: finite, not subnormal */
	case 0: return c != FP_INFINITE && c != FP_NAN;
	case 1: return c == FP_INFINITE;
	case 2: return c != FP_NAN;
	case 3: return c == FP_NAN;
	case 4: return c == FP_NORMAL || c == FP_ZERO;
	default: return c == FP_SUBNORMAL;
	}
}
