/*
 * Half-precision values and arithmetic (half.h): conversions between
 * single precision and binary16 or bfloat16, and the lane operation of
 * OP_HALF, which the parser makes of every arithmetic instruction typed
 * .f16, .f16x2, .bf16 or .bf16x2.
 */
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

uint16_t emu_f32_to_f16(float v)
{
	uint32_t s = (f2u(v) >> 16) & 0x8000;
	float a = fabsf(v), fr, mant;
	int e;

	if (isnan(v))
		return (uint16_t)(s | 0x7e00);
	if (a >= 65520.0f)
		return (uint16_t)(s | 0x7c00);
	if (a < 6.103515625e-05f) {
		/* subnormal: scale to units of 2^-24 and round */
		return (uint16_t)(s | (uint32_t)nearbyintf(a * 16777216.0f));
	}
	fr = frexpf(a, &e);                  /* [0.5,1) */
	mant = nearbyintf(fr * 2048.0f);     /* 11 bits */
	if (mant >= 2048.0f) {
		mant /= 2;
		e++;
	}
	return (uint16_t)(s | (uint32_t)((e + 14) << 10) |
			  ((uint32_t)mant & 0x3ff));
}

float emu_bf16_to_f32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

uint16_t emu_f32_to_bf16(float v)
{
	uint32_t u = f2u(v);

	if (isnan(v))
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

int emu_half_type(int t)
{
	return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2;
}

static int is_bf(int t)
{
	return t == T_BF16 || t == T_BF16X2;
}

static float to_f(int t, uint16_t h)
{
	return is_bf(t) ? emu_bf16_to_f32(h) : emu_f16_to_f32(h);
}

static uint16_t from_f(int t, float f)
{
	return is_bf(t) ? emu_f32_to_bf16(f) : emu_f32_to_f16(f);
}

/* flush a half subnormal to a signed zero (.ftz on f16) */
static uint16_t ftz16(int t, uint16_t h)
{
	if (!is_bf(t) && !(h & 0x7c00))
		return h & 0x8000;
	return h;
}

static float fmin_nan(float a, float b)
{
	if (isnan(a) && isnan(b))
		return NAN;
	return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static float fmax_nan(float a, float b)
{
	if (isnan(a) && isnan(b))
		return NAN;
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

static uint16_t one(int op, int t, int ftz, uint16_t a, uint16_t b,
		    uint16_t c)
{
	float x, y, z, r;

	if (op == OP_NEG)
		return a ^ 0x8000;
	if (op == OP_ABS)
		return a & 0x7fff;
	if (ftz) {
		a = ftz16(t, a);
		b = ftz16(t, b);
		c = ftz16(t, c);
	}
	x = to_f(t, a);
	y = to_f(t, b);
	z = to_f(t, c);
	switch (op) {
	case OP_ADD: r = x + y; break;
	case OP_SUB: r = x - y; break;
	case OP_MUL: r = x * y; break;
	case OP_FMA: case OP_MAD: r = fmaf(x, y, z); break;
	case OP_MIN: r = fmin_nan(x, y); break;
	case OP_MAX: r = fmax_nan(x, y); break;
	case OP_EX2: r = exp2f(x); break;
	case OP_TANH: r = tanhf(x); break;
	default: r = NAN; break;
	}
	return ftz ? ftz16(t, from_f(t, r)) : from_f(t, r);
}

uint32_t emu_half_alu(int op, int t, int ftz, uint32_t a, uint32_t b,
		      uint32_t c)
{
	uint32_t lo = one(op, t, ftz, (uint16_t)a, (uint16_t)b, (uint16_t)c);

	if (t != T_F16X2 && t != T_BF16X2)
		return lo;
	return lo | (uint32_t)one(op, t, ftz, (uint16_t)(a >> 16),
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
	if ((f & 0x7f800000u) == 0x7f800000u)     /* inf, nan */
		return (f & 0x7fffffu) ? f | 0x400000u : f;
	/* half of the dropped bits' weight added to the magnitude: a carry
	 * into the exponent is the right rounding too */
	return (f + 0x1000u) & 0xffffe000u;
}
