/*
 * Half-precision values and arithmetic (half.h): conversions between
 * single precision and binary16 or bfloat16, and the lane operation of
 * OP_HALF, which the parser makes of every arithmetic instruction typed
 * .f16, .f16x2, .bf16 or .bf16x2.
 */
#include <fenv.h>
#include <math.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/vm/half.h"

float emu_f16_to_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31,
		 f = h & 0x3ff;

	if (e == 31)
		return u2f(s | 0x7f800000u | (f << 13));
	if (e)
		return u2f(s | ((e + 112) << 23) | (f << 13));
	if (!f)
		return u2f(s);
	return s ? -ldexpf((float)f, -24) : ldexpf((float)f, -24);
}

/* The shape of a half format: mantissa bits, least normal exponent and
 * greatest exponent (also the bias). */
struct half_fmt {
	int mant, emin, emax;
	uint16_t inf;
};

static const struct half_fmt fmt_f16 = { 10, -14, 15, 0x7c00 };
static const struct half_fmt fmt_bf16 = { 7, -126, 127, 0x7f80 };

static int is_bf(int t)
{
	return t == T_BF16 || t == T_BF16X2;
}

/* n, a non-negative significand in units of the last place, rounded to
 * an integer in mode rnd (R_NONE and R_RN: to nearest even); neg says
 * whether the value it is the magnitude of is negative */
static double round_units(double n, int rnd, int neg)
{
	double r = floor(n), d = n - r;

	switch (rnd) {
	case R_RZ: return r;
	case R_RM: return neg && d > 0 ? r + 1 : r;
	case R_RP: return !neg && d > 0 ? r + 1 : r;
	case R_RNA: return d >= 0.5 ? r + 1 : r;
	default:
		return d > 0.5 || (d == 0.5 && fmod(r, 2) != 0) ? r + 1 : r;
	}
}

/* the bits of an overflowing value in mode rnd: infinity, or the
 * greatest finite value where the mode rounds toward zero */
static uint16_t overflow_bits(const struct half_fmt *f, int rnd, int neg)
{
	int to_max = rnd == R_RZ || (rnd == R_RM && !neg) ||
		     (rnd == R_RP && neg);

	return (uint16_t)((neg ? 0x8000 : 0) | (to_max ? f->inf - 1 : f->inf));
}

uint16_t emu_round_half(int t, double v, int rnd)
{
	const struct half_fmt *f = is_bf(t) ? &fmt_bf16 : &fmt_f16;
	int neg = signbit(v) != 0, e;
	uint16_t s = neg ? 0x8000 : 0;
	double a = fabs(v), n;

	if (isnan(v))
		return 0x7fff;	/* the GPU's one NaN of a half result */
	if (isinf(v))
		return s | f->inf;
	if (a == 0)
		return s;
	frexp(a, &e);
	e = e - 1 < f->emin ? f->emin : e - 1;	/* a in [2^e, 2^(e+1)) */
	n = round_units(ldexp(a, f->mant - e), rnd, neg);
	if (n >= ldexp(1, f->mant + 1)) {
		n /= 2;
		e++;
	}
	if (e > f->emax)
		return overflow_bits(f, rnd, neg);
	if (n < ldexp(1, f->mant))	/* subnormal: e is emin */
		return s | (uint16_t)n;
	return s | (uint16_t)((e + f->emax) << f->mant) |
	       (uint16_t)(n - ldexp(1, f->mant));
}

uint16_t emu_half_from_nan64(int t, uint64_t bits)
{
	const struct half_fmt *f = is_bf(t) ? &fmt_bf16 : &fmt_f16;
	uint16_t payload = (uint16_t)((bits >> (52 - f->mant)) &
				      ((1u << f->mant) - 1));

	return (uint16_t)((bits >> 48 & 0x8000) | f->inf |
			  (1u << (f->mant - 1)) | payload);
}

uint16_t emu_f32_to_f16(float v)
{
	return emu_round_half(T_F16, v, R_RN);
}

float emu_bf16_to_f32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

uint16_t emu_f32_to_bf16(float v)
{
	return emu_round_half(T_BF16, v, R_RN);
}

int emu_half_type(int t)
{
	return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2;
}

int emu_half_nan(int t, uint16_t h)
{
	uint16_t inf = is_bf(t) ? fmt_bf16.inf : fmt_f16.inf;

	return (h & inf) == inf && (h & ~inf & 0x7fff) != 0;
}

static float to_f(int t, uint16_t h)
{
	return is_bf(t) ? emu_bf16_to_f32(h) : emu_f16_to_f32(h);
}

/* flush a half subnormal to a signed zero (.ftz on f16) */
static uint16_t ftz16(int t, uint16_t h)
{
	if (!is_bf(t) && !(h & 0x7c00))
		return h & 0x8000;
	return h;
}

/*
 * op (add, sub, mul, fma) of exact doubles, rounded to odd: toward zero,
 * the last bit set when anything was dropped.  Then the one rounding to
 * the half format after it is the correctly rounded result, as the
 * hardware's is, where rounding to nearest twice could be off by one.
 */
static double round_odd(int op, double x, double y, double z)
{
	volatile double r;
	int old = fegetround(), inexact;

	fesetround(FE_TOWARDZERO);
	feclearexcept(FE_INEXACT);
	switch (op) {
	case OP_ADD: r = x + y; break;
	case OP_SUB: r = x - y; break;
	case OP_MUL: r = x * y; break;
	default: r = fma(x, y, z); break;
	}
	inexact = fetestexcept(FE_INEXACT);
	fesetround(old);
	return inexact && isfinite(r) ? u2d(d2u(r) | 1) : r;
}

/* min and max, of the magnitudes with .xorsign.abs */
static double min_max(int op, int mods, uint16_t a, uint16_t b, double x,
		      double y)
{
	int xorsign = (mods & HALF_XORSIGN) != 0;
	double r;

	if (xorsign) {
		x = fabs(x);
		y = fabs(y);
	}
	r = emu_fminmax(op == OP_MAX, (mods & HALF_NAN) != 0, x, y);
	if (xorsign && !isnan(r) && ((a ^ b) & 0x8000))
		r = -r;
	return r;
}

static uint16_t one(int op, int t, int mods, uint16_t a, uint16_t b,
		    uint16_t c)
{
	int ftz = (mods & HALF_FTZ) != 0;
	double x, y, z, r;
	uint16_t h;

	if (op == OP_NEG || op == OP_ABS) {
		if (emu_half_nan(t, a))
			return 0x7fff;
		a = ftz ? ftz16(t, a) : a;
		return op == OP_NEG ? a ^ 0x8000 : a & 0x7fff;
	}
	if (ftz) {
		a = ftz16(t, a);
		b = ftz16(t, b);
		c = ftz16(t, c);
	}
	x = to_f(t, a);
	y = to_f(t, b);
	z = to_f(t, c);
	if (mods & HALF_NEG_AB)
		x = -x;
	if (mods & HALF_NEG_C)
		z = -z;
	switch (op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_MAD:
		r = round_odd(op, x, y, z);
		break;
	case OP_MIN: case OP_MAX: r = min_max(op, mods, a, b, x, y); break;
	case OP_EX2: r = exp2f((float)x); break;
	case OP_TANH: r = tanhf((float)x); break;
	default: r = NAN; break;
	}
	if (mods & HALF_SAT)	/* NaN and -0 to +0 */
		r = isnan(r) || r <= 0 ? 0 : r > 1 ? 1 : r;
	if ((mods & HALF_RELU) && r <= 0)	/* -0 too */
		r = 0;
	h = emu_round_half(t, r, R_RN);
	return ftz ? ftz16(t, h) : h;
}

uint32_t emu_half_alu(int op, int t, int mods, uint32_t a, uint32_t b,
		      uint32_t c)
{
	uint32_t lo = one(op, t, mods, (uint16_t)a, (uint16_t)b, (uint16_t)c);

	if (t != T_F16X2 && t != T_BF16X2)
		return lo;
	return lo | (uint32_t)one(op, t, mods, (uint16_t)(a >> 16),
				  (uint16_t)(b >> 16),
				  (uint16_t)(c >> 16)) << 16;
}

int emu_half_cmp(int cmp, int t, uint32_t a, uint32_t b)
{
	return emu_fcmp(cmp, to_f(t, (uint16_t)a), to_f(t, (uint16_t)b));
}

static int cmp16(int cmp, int t, int ftz, uint16_t a, uint16_t b)
{
	if (ftz) {
		a = ftz16(t, a);
		b = ftz16(t, b);
	}
	return emu_fcmp(cmp, to_f(t, a), to_f(t, b));
}

int emu_half_cmp2(int cmp, int t, int ftz, uint32_t a, uint32_t b)
{
	return cmp16(cmp, t, ftz, (uint16_t)a, (uint16_t)b) |
	       cmp16(cmp, t, ftz, (uint16_t)(a >> 16),
		     (uint16_t)(b >> 16)) << 1;
}

uint32_t emu_f32_to_tf32(uint32_t f)
{
	/* an infinity or NaN is cut, as the GPU does (a NaN whose payload
	 * was all in the low bits becomes an infinity) */
	if ((f & 0x7f800000u) == 0x7f800000u)
		return f & 0xffffe000u;
	/* half of the dropped bits' weight added to the magnitude: a carry
	 * into the exponent is the right rounding too */
	return (f + 0x1000u) & 0xffffe000u;
}
