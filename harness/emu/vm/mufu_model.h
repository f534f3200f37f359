/*
 * The GPU's special-function unit (MUFU) as tables plus exponent
 * arithmetic: the approximate forms rcp, rsqrt, sqrt, ex2 and lg2 of
 * f32 and rcp.approx.ftz.f64, computed bit for bit as an H100 computes
 * them (docs/CONFORMANCE.md, "The special-function unit").
 *
 * Each form depends on a slice of its input only, and its result there
 * is read from a table of the GPU's own results on that slice
 * (tests/gpu/mufu_tables.cu wrote them; mufu.c loads them); the rest is
 * exponent arithmetic, described at each function.  Inputs and results
 * are the registers' bits; subnormals are flushed (.ftz) except in the
 * *_full functions.  The functions are plain C so that the GPU check
 * compiles them too (MUFU_FN).
 */
#ifndef WG_MUFU_MODEL_H
#define WG_MUFU_MODEL_H

#include <stdint.h>

#ifndef MUFU_FN
#define MUFU_FN static inline
#endif

#define MUFU_NAN 0x7fffffffu
#define MUFU_INF 0x7f800000u
#define MUFU_SIGN 0x80000000u
#define MUFU_MANT 0x007fffffu

/* ±result of exponent field E (unbiased + 127) and mantissa bits */
MUFU_FN uint32_t mufu_pack(uint32_t sign, int e, uint32_t mant)
{
	if (e <= 0)
		return sign;			/* flushed to zero */
	if (e >= 255)
		return sign | MUFU_INF;
	return sign | (uint32_t)e << 23 | (mant & MUFU_MANT);
}

/* a table entry (f32 bits) scaled by 2^shift */
MUFU_FN uint32_t mufu_scale(uint32_t sign, uint32_t t, int shift)
{
	return mufu_pack(sign, (int)(t >> 23 & 0xff) + shift, t);
}

MUFU_FN uint32_t mufu_rcp(const uint32_t *rcp, uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;

	if (e == 0xff)
		return m ? MUFU_NAN : s;
	if (e == 0)
		return s | MUFU_INF;
	return mufu_scale(s, rcp[m], 127 - (int)e);
}

/* rsqrt (root = 0) or sqrt (root = 1) */
MUFU_FN uint32_t mufu_root(const uint32_t *tab, int root, uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;
	int E = (int)e - 127;

	if (e == 0xff && m)
		return MUFU_NAN;
	if (e == 0)
		return root ? s : s | MUFU_INF;
	if (s)
		return MUFU_NAN;
	if (e == 0xff)
		return root ? MUFU_INF : 0;
	/* E >> 1 is the floor of E / 2 on every compiler we build with */
	return mufu_scale(0, tab[(uint32_t)(E & 1) << 23 | m],
			  root ? E >> 1 : -(E >> 1));
}

/*
 * ex2 of x: |x| in fixed point with 23 fractional bits, truncated, split
 * into an integer i and a fraction f; the result is 2^i * EX2P[f] for
 * x >= 0 and 2^-i * EX2N[f] for x < 0, the tables the GPU's results for
 * f / 2^23 and -f / 2^23.
 */
MUFU_FN uint32_t mufu_ex2(const uint32_t *pos, const uint32_t *neg,
			  uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;
	uint64_t mag, sig = m | 0x800000u;
	int sh = (int)e - 127;		/* |x| * 2^23 = sig * 2^sh */

	if (e == 0xff)
		return m ? MUFU_NAN : s ? 0 : MUFU_INF;
	if (e >= 127 + 8)		/* |x| >= 256 */
		return s ? 0 : MUFU_INF;
	if (e == 0 || sh < -40)
		mag = 0;
	else
		mag = sh >= 0 ? sig << sh : sig >> -sh;
	if (s)
		return mufu_scale(0, neg[mag & MUFU_MANT], -(int)(mag >> 23));
	return mufu_scale(0, pos[mag & MUFU_MANT], (int)(mag >> 23));
}

/*
 * lg2 of x = 2^E * 1.m: E + L(m), L the unit's fixed-point log2 of the
 * mantissa (about 36 fractional bits), rounded toward zero to f32.
 * LG2[m] is the result for E = 0 (L rounded down), LG2H[m] the one for
 * E = -1 (L - 1 rounded up).  Where LG2H[m] + 1 is LG2[m], L is exactly
 * LG2[m]; else L lies above it, by less than its last place, and E + L
 * is E + LG2[m] nudged up by 2^-40 (below the f32 step of any such sum,
 * 2^-23 or more), which decides the rounding where E + LG2[m] is a value
 * an f32 holds.  tests/gpu/mufu_tables.cu checks this on every input.
 */
MUFU_FN uint32_t mufu_lg2(const uint32_t *lg2, const uint32_t *lg2h,
			  uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;
	union { float f; uint32_t u; } t, h;
	union { double d; uint64_t u; } r;
	int E = (int)e - 127;
	uint64_t keep;

	if (e == 0xff && m)
		return MUFU_NAN;
	if (e == 0)
		return MUFU_SIGN | MUFU_INF;
	if (s)
		return MUFU_NAN;
	if (e == 0xff)
		return MUFU_INF;
	if (E == 0)
		return lg2[m];
	if (E == -1)
		return lg2h[m];
	t.u = lg2[m];
	h.u = lg2h[m];
	r.d = (double)E + (double)t.f;	/* exact: 53 bits hold both */
	if ((double)h.f + 1 != (double)t.f)
		r.d += 0x1p-40;
	/* toward zero: keep the f32's 24 bits of the double's 53 */
	keep = ~(((uint64_t)1 << 29) - 1);
	r.u &= keep;
	t.f = (float)r.d;
	return t.u;
}

/*
 * rcp.approx.ftz.f64 (MUFU.RCP64H) of x = 2^E * 1.m: RCP64[the 20
 * mantissa bits of x's upper word] (the GPU's upper words for 1.m)
 * scaled by 2^-E, the lower word of x not read and that of the result
 * zero; subnormals flushed.
 */
MUFU_FN uint64_t mufu_rcp64h(const uint32_t *rcp64, uint64_t x)
{
	uint64_t s = x & 1ull << 63, e = x >> 52 & 0x7ff;
	uint32_t t, m = (uint32_t)(x >> 32) & 0xfffff;
	int re;

	if (e == 0x7ff)
		return m ? 0x7fffffff00000000ull : s;
	if (e == 0)
		return s | 0x7ff0000000000000ull;
	t = rcp64[m];
	re = (int)(t >> 20 & 0x7ff) - ((int)e - 1023);
	if (re <= 0)
		return s;
	return s | (uint64_t)re << 52 | (uint64_t)(t & 0xfffff) << 32;
}

/*
 * The forms without .ftz: a subnormal operand is scaled into the normal
 * range and the result back (exactly, or to infinity); a result below the
 * normal range is the normal one of a scaled operand rounded once to
 * nearest into a subnormal (rcp); ex2 below 2^-126 is the square of
 * ex2(x / 2), rounded once; lg2 of a subnormal is lg2(x * 2^24) - 24,
 * rounded once.  The host's f32 arithmetic does the scaling, in its
 * default rounding to nearest, with subnormals.
 */
MUFU_FN uint32_t mufu_times(uint32_t bits, float k)
{
	union { float f; uint32_t u; } v;

	v.u = bits;
	v.f = v.f * k;
	return v.u;
}

MUFU_FN uint32_t mufu_rcp_full(const uint32_t *rcp, uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;
	uint32_t r;

	if (e == 0 && m) {
		r = mufu_rcp(rcp, mufu_times(x, 0x1p24f));
		return mufu_scale(s, r, 24);
	}
	if (e >= 253 && e != 0xff)
		return mufu_times(mufu_rcp(rcp, x - (24u << 23)), 0x1p-24f);
	return mufu_rcp(rcp, x);
}

MUFU_FN uint32_t mufu_root_full(const uint32_t *tab, int root, uint32_t x)
{
	uint32_t s = x & MUFU_SIGN, e = x >> 23 & 0xff, m = x & MUFU_MANT;

	if (e == 0 && m && !s)
		return mufu_scale(0, mufu_root(tab, root,
					       mufu_times(x, 0x1p24f)),
				  root ? -12 : 12);
	if (e == 0 && m)
		return MUFU_NAN;
	return mufu_root(tab, root, x);
}

MUFU_FN uint32_t mufu_ex2_full(const uint32_t *pos, const uint32_t *neg,
			       uint32_t x)
{
	union { float f; uint32_t u; } v;

	v.u = x;
	if (v.f < -126.0f) {
		uint32_t h = mufu_ex2(pos, neg, mufu_times(x, 0.5f));

		v.u = h;
		v.f = v.f * v.f;
		return v.u;
	}
	return mufu_ex2(pos, neg, x);
}

MUFU_FN uint32_t mufu_lg2_full(const uint32_t *lg2, const uint32_t *lg2h,
			       uint32_t x)
{
	union { float f; uint32_t u; } v;

	if ((x >> 23 & 0xff) == 0 && (x & MUFU_MANT) && !(x & MUFU_SIGN)) {
		v.u = mufu_lg2(lg2, lg2h, mufu_times(x, 0x1p24f));
		v.f = v.f - 24.0f;
		return v.u;
	}
	if ((x >> 23 & 0xff) == 0 && (x & MUFU_MANT))
		return MUFU_NAN;
	return mufu_lg2(lg2, lg2h, x);
}

/*
 * div.approx of f32: a times the unit's reciprocal of b, rounded once to
 * nearest, a NaN the GPU's.  With .ftz, b and a are flushed and so is a
 * product below 2^-126 before it is rounded.  Without, a b past 2^126
 * has a reciprocal of zero (as the ISA says), and a subnormal b is
 * scaled by 2^24 and the product back.
 */
MUFU_FN uint32_t mufu_div(const uint32_t *rcp, int ftz, uint32_t a,
			  uint32_t b)
{
	union { float f; uint32_t u; } x, r;
	uint32_t eb = b >> 23 & 0xff;
	double p;
	float scale = 1;

	x.u = a;
	if (ftz && (a >> 23 & 0xff) == 0)
		x.u &= MUFU_SIGN;
	if (ftz || (eb >= 253 && eb != 0xff)) {
		r.u = mufu_rcp(rcp, b);
	} else if (eb == 0 && (b & MUFU_MANT)) {
		r.u = mufu_rcp(rcp, mufu_times(b, 0x1p24f));
		scale = 0x1p24f;
	} else {
		r.u = mufu_rcp(rcp, b);
	}
	p = (double)x.f * (double)r.f;	/* exact */
	if (ftz && p != 0 && p > -0x1p-126 && p < 0x1p-126)
		p = p < 0 ? -0.0 : 0.0;
	r.f = (float)p * scale;
	if ((r.u & 0x7fffffff) > MUFU_INF)
		return MUFU_NAN;
	return r.u;
}

#endif
