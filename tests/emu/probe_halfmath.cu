// Every function of cuda_fp16.h and cuda_bf16.h that computes (scalar
// and paired), the SIMD video intrinsics and the integer and float
// intrinsics with a rounding mode, each on 32 inputs of edge values
// (zeros of both signs, infinities, NaNs, subnormals, ties): one line a
// function, its 32 results' bits.  The output must be the same on a GPU
// and on the emulator (tests/gpu/emu-vs-gpu.sh; tests/emu/
// probe_halfmath.h100 is an H100's, which check_emu holds the emulator
// to).  The toolkit's headers write most of these as inline PTX.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define N 32

__constant__ float in_f[N] = {
	0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, 2.5f, -2.5f, 3.0f,
	0.33333334f, 65504.0f, -65504.0f, 1e30f, -1e30f, 0.0f, 0.0f,
	0.0f, 5.9604645e-08f, 6.0975552e-05f, -5.9604645e-08f,
	6.1035156e-05f, 0.099975586f, 100.0f, -7.3f, 0.001f, 12345.0f,
	0.75f, -0.125f, 4096.5f, 1.0004883f, -10000.0f, 2049.0f
};
__constant__ int in_i[N] = {
	0, -1, 1, 2, 3, -3, 7, 100, -100, 65504, 65520, 65536, -65536,
	2147483647, -2147483647 - 1, 12345, -12345, 255, 256, 127, -128,
	32767, -32768, 1 << 24, (1 << 24) + 1, 0x7f7f7f7f, 0x80808080,
	0x01ff7f80, 0x12345678, 0x9abcdef0, 0xfedcba98, 0x55aa55aa
};

/* the bits of a result, whatever its type */
__device__ unsigned long long bits(__half h) { return __half_as_ushort(h); }
__device__ unsigned long long bits(__nv_bfloat16 h)
{
	return __bfloat16_as_ushort(h);
}
__device__ unsigned long long bits(__half2 h)
{
	return *(unsigned *)&h;
}
__device__ unsigned long long bits(__nv_bfloat162 h)
{
	return *(unsigned *)&h;
}
__device__ unsigned long long bits(float f) { return __float_as_uint(f); }
__device__ unsigned long long bits(double d)
{
	return (unsigned long long)__double_as_longlong(d);
}
__device__ unsigned long long bits(float2 f)
{
	return (unsigned long long)__float_as_uint(f.y) << 32 |
	       __float_as_uint(f.x);
}
__device__ unsigned long long bits(bool b) { return b; }
__device__ unsigned long long bits(int i) { return (unsigned)i; }
__device__ unsigned long long bits(unsigned u) { return u; }
__device__ unsigned long long bits(short s) { return (unsigned short)s; }
__device__ unsigned long long bits(unsigned short s) { return s; }
__device__ unsigned long long bits(signed char c) { return (unsigned char)c; }
__device__ unsigned long long bits(unsigned char c) { return c; }
__device__ unsigned long long bits(long long l)
{
	return (unsigned long long)l;
}
__device__ unsigned long long bits(unsigned long long l) { return l; }

/* The functions, as expressions of lane i's operands: a b c (half, the
 * float inputs rounded; edge bit patterns where a float has none), a2
 * b2 (half2), p q r (bf16), p2 q2 (bf162), f g (float), x y (int), u v
 * (unsigned), ll (long long). */
#define HALF_FUNCS(T) \
	T(hadd, __hadd(a, b)) T(hsub, __hsub(a, b)) T(hmul, __hmul(a, b)) \
	T(hdiv, __hdiv(a, b)) T(hadd_sat, __hadd_sat(a, b)) \
	T(hsub_sat, __hsub_sat(a, b)) T(hmul_sat, __hmul_sat(a, b)) \
	T(hadd_rn, __hadd_rn(a, b)) T(hsub_rn, __hsub_rn(a, b)) \
	T(hmul_rn, __hmul_rn(a, b)) T(hfma, __hfma(a, b, c)) \
	T(hfma_sat, __hfma_sat(a, b, c)) T(hfma_relu, __hfma_relu(a, b, c)) \
	T(hneg, __hneg(a)) T(habs, __habs(a)) T(hmax, __hmax(a, b)) \
	T(hmin, __hmin(a, b)) T(hmax_nan, __hmax_nan(a, b)) \
	T(hmin_nan, __hmin_nan(a, b)) T(hsqrt, hsqrt(a)) \
	T(hrsqrt, hrsqrt(a)) T(hrcp, hrcp(a)) T(hlog, hlog(a)) \
	T(hlog2, hlog2(a)) T(hlog10, hlog10(a)) T(hexp, hexp(a)) \
	T(hexp2, hexp2(a)) T(hexp10, hexp10(a)) T(hcos, hcos(a)) \
	T(hsin, hsin(a)) T(htrunc, htrunc(a)) T(hceil, hceil(a)) \
	T(hfloor, hfloor(a)) T(hrint, hrint(a)) T(heq, __heq(a, b)) \
	T(hne, __hne(a, b)) T(hle, __hle(a, b)) T(hge, __hge(a, b)) \
	T(hlt, __hlt(a, b)) T(hgt, __hgt(a, b)) T(hequ, __hequ(a, b)) \
	T(hneu, __hneu(a, b)) T(hleu, __hleu(a, b)) T(hgeu, __hgeu(a, b)) \
	T(hltu, __hltu(a, b)) T(hgtu, __hgtu(a, b)) \
	T(hisnan, __hisnan(a)) T(hisinf, __hisinf(a))

#define HALF2_FUNCS(T) \
	T(hadd2, __hadd2(a2, b2)) T(hsub2, __hsub2(a2, b2)) \
	T(hmul2, __hmul2(a2, b2)) T(h2div, __h2div(a2, b2)) \
	T(hadd2_sat, __hadd2_sat(a2, b2)) T(hsub2_sat, __hsub2_sat(a2, b2)) \
	T(hmul2_sat, __hmul2_sat(a2, b2)) T(hadd2_rn, __hadd2_rn(a2, b2)) \
	T(hfma2, __hfma2(a2, b2, c2)) T(hfma2_sat, __hfma2_sat(a2, b2, c2)) \
	T(hfma2_relu, __hfma2_relu(a2, b2, c2)) \
	T(hcmadd, __hcmadd(a2, b2, c2)) T(hneg2, __hneg2(a2)) \
	T(habs2, __habs2(a2)) T(hmax2, __hmax2(a2, b2)) \
	T(hmin2, __hmin2(a2, b2)) T(hmax2_nan, __hmax2_nan(a2, b2)) \
	T(hmin2_nan, __hmin2_nan(a2, b2)) T(h2sqrt, h2sqrt(a2)) \
	T(h2rsqrt, h2rsqrt(a2)) T(h2rcp, h2rcp(a2)) T(h2log, h2log(a2)) \
	T(h2log2, h2log2(a2)) T(h2log10, h2log10(a2)) T(h2exp, h2exp(a2)) \
	T(h2exp2, h2exp2(a2)) T(h2exp10, h2exp10(a2)) T(h2cos, h2cos(a2)) \
	T(h2sin, h2sin(a2)) T(h2trunc, h2trunc(a2)) T(h2ceil, h2ceil(a2)) \
	T(h2floor, h2floor(a2)) T(h2rint, h2rint(a2)) \
	T(heq2, __heq2(a2, b2)) T(hne2, __hne2(a2, b2)) \
	T(hle2, __hle2(a2, b2)) T(hgt2, __hgt2(a2, b2)) \
	T(hequ2, __hequ2(a2, b2)) T(hltu2, __hltu2(a2, b2)) \
	T(heq2_mask, __heq2_mask(a2, b2)) T(hlt2_mask, __hlt2_mask(a2, b2)) \
	T(hgeu2_mask, __hgeu2_mask(a2, b2)) T(hbeq2, __hbeq2(a2, b2)) \
	T(hbgt2, __hbgt2(a2, b2)) T(hbneu2, __hbneu2(a2, b2)) \
	T(hisnan2, __hisnan2(a2))

#define BF16_FUNCS(T) \
	T(bhadd, __hadd(p, q)) T(bhsub, __hsub(p, q)) T(bhmul, __hmul(p, q)) \
	T(bhdiv, __hdiv(p, q)) T(bhadd_sat, __hadd_sat(p, q)) \
	T(bhmul_sat, __hmul_sat(p, q)) T(bhadd_rn, __hadd_rn(p, q)) \
	T(bhfma, __hfma(p, q, r)) T(bhfma_sat, __hfma_sat(p, q, r)) \
	T(bhfma_relu, __hfma_relu(p, q, r)) T(bhneg, __hneg(p)) \
	T(bhabs, __habs(p)) T(bhmax, __hmax(p, q)) T(bhmin, __hmin(p, q)) \
	T(bhmax_nan, __hmax_nan(p, q)) T(bhmin_nan, __hmin_nan(p, q)) \
	T(bhsqrt, hsqrt(p)) T(bhrsqrt, hrsqrt(p)) T(bhrcp, hrcp(p)) \
	T(bhlog, hlog(p)) T(bhlog2, hlog2(p)) T(bhexp, hexp(p)) \
	T(bhexp2, hexp2(p)) T(bhexp10, hexp10(p)) T(bhcos, hcos(p)) \
	T(bhsin, hsin(p)) T(bhtrunc, htrunc(p)) T(bhceil, hceil(p)) \
	T(bhfloor, hfloor(p)) T(bhrint, hrint(p)) T(bheq, __heq(p, q)) \
	T(bhlt, __hlt(p, q)) T(bhgeu, __hgeu(p, q)) T(bhneu, __hneu(p, q)) \
	T(bhisnan, __hisnan(p)) T(bhisinf, __hisinf(p)) \
	T(bhadd2, __hadd2(p2, q2)) T(bhmul2, __hmul2(p2, q2)) \
	T(bh2div, __h2div(p2, q2)) T(bhfma2, __hfma2(p2, q2, p2)) \
	T(bhfma2_relu, __hfma2_relu(p2, q2, p2)) T(bhneg2, __hneg2(p2)) \
	T(bhabs2, __habs2(p2)) T(bhmax2, __hmax2(p2, q2)) \
	T(bhmin2_nan, __hmin2_nan(p2, q2)) T(bh2sqrt, h2sqrt(p2)) \
	T(bh2exp, h2exp(p2)) T(bh2log, h2log(p2)) T(bh2cos, h2cos(p2)) \
	T(bh2rint, h2rint(p2)) T(bheq2, __heq2(p2, q2)) \
	T(bhgtu2, __hgtu2(p2, q2)) T(bhlt2_mask, __hlt2_mask(p2, q2)) \
	T(bhbne2, __hbne2(p2, q2)) T(bhisnan2, __hisnan2(p2))

#define CONVERT_FUNCS(T) \
	T(half2float, __half2float(a)) T(float2half, __float2half(f)) \
	T(float2half_rz, __float2half_rz(f)) \
	T(float2half_rd, __float2half_rd(f)) \
	T(float2half_ru, __float2half_ru(f)) \
	T(double2half, __double2half((double)f * 1.0000001)) \
	T(half2int_rn, __half2int_rn(a)) T(half2int_rz, __half2int_rz(a)) \
	T(half2int_rd, __half2int_rd(a)) T(half2int_ru, __half2int_ru(a)) \
	T(int2half_rn, __int2half_rn(x)) T(int2half_rz, __int2half_rz(x)) \
	T(int2half_rd, __int2half_rd(x)) T(int2half_ru, __int2half_ru(x)) \
	T(half2uint_rn, __half2uint_rn(a)) T(uint2half_rd, __uint2half_rd(u)) \
	T(half2short_rz, __half2short_rz(a)) \
	T(short2half_ru, __short2half_ru((short)x)) \
	T(half2ushort_rn, __half2ushort_rn(a)) \
	T(ushort2half_rz, __ushort2half_rz((unsigned short)u)) \
	T(half2ll_rn, __half2ll_rn(a)) T(ll2half_rd, __ll2half_rd(ll)) \
	T(half2ull_rz, __half2ull_rz(a)) \
	T(ull2half_ru, __ull2half_ru((unsigned long long)ll)) \
	T(half2char_rz, __half2char_rz(a)) \
	T(half2uchar_rz, __half2uchar_rz(a)) \
	T(float2half2_rn, __float2half2_rn(f)) \
	T(floats2half2_rn, __floats2half2_rn(f, g)) \
	T(half22float2, __half22float2(a2)) T(low2half, __low2half(a2)) \
	T(high2half, __high2half(a2)) T(lowhigh2highlow, \
	__lowhigh2highlow(a2)) T(halves2half2, __halves2half2(a, b)) \
	T(float2bfloat16, __float2bfloat16(f)) \
	T(float2bfloat16_rz, __float2bfloat16_rz(f)) \
	T(float2bfloat16_rd, __float2bfloat16_rd(f)) \
	T(float2bfloat16_ru, __float2bfloat16_ru(f)) \
	T(double2bfloat16, __double2bfloat16((double)f * 1.0000001)) \
	T(bfloat162float, __bfloat162float(p)) \
	T(bfloat162int_rn, __bfloat162int_rn(p)) \
	T(bfloat162int_rz, __bfloat162int_rz(p)) \
	T(int2bfloat16_rn, __int2bfloat16_rn(x)) \
	T(int2bfloat16_rd, __int2bfloat16_rd(x)) \
	T(uint2bfloat16_ru, __uint2bfloat16_ru(u)) \
	T(bfloat162ll_rn, __bfloat162ll_rn(p)) \
	T(ll2bfloat16_rz, __ll2bfloat16_rz(ll)) \
	T(floats2bfloat162_rn, __floats2bfloat162_rn(f, g)) \
	T(bfloat1622float2, __bfloat1622float2(p2)) \
	T(half2bf16, __float2bfloat16(__half2float(a)))

#define SIMD_FUNCS(T) \
	T(vabs2, __vabs2(u)) T(vabs4, __vabs4(u)) \
	T(vabsdiffs2, __vabsdiffs2(u, v)) T(vabsdiffs4, __vabsdiffs4(u, v)) \
	T(vabsdiffu2, __vabsdiffu2(u, v)) T(vabsdiffu4, __vabsdiffu4(u, v)) \
	T(vabsss2, __vabsss2(u)) T(vabsss4, __vabsss4(u)) \
	T(vadd2, __vadd2(u, v)) T(vadd4, __vadd4(u, v)) \
	T(vaddss2, __vaddss2(u, v)) T(vaddss4, __vaddss4(u, v)) \
	T(vaddus2, __vaddus2(u, v)) T(vaddus4, __vaddus4(u, v)) \
	T(vavgs2, __vavgs2(u, v)) T(vavgs4, __vavgs4(u, v)) \
	T(vavgu2, __vavgu2(u, v)) T(vavgu4, __vavgu4(u, v)) \
	T(vcmpeq2, __vcmpeq2(u, v)) T(vcmpeq4, __vcmpeq4(u, v)) \
	T(vcmpges2, __vcmpges2(u, v)) T(vcmpges4, __vcmpges4(u, v)) \
	T(vcmpgeu2, __vcmpgeu2(u, v)) T(vcmpgeu4, __vcmpgeu4(u, v)) \
	T(vcmpgts2, __vcmpgts2(u, v)) T(vcmpgtu4, __vcmpgtu4(u, v)) \
	T(vcmples4, __vcmples4(u, v)) T(vcmpltu2, __vcmpltu2(u, v)) \
	T(vcmpne2, __vcmpne2(u, v)) T(vcmpne4, __vcmpne4(u, v)) \
	T(vhaddu2, __vhaddu2(u, v)) T(vhaddu4, __vhaddu4(u, v)) \
	T(vmaxs2, __vmaxs2(u, v)) T(vmaxs4, __vmaxs4(u, v)) \
	T(vmaxu2, __vmaxu2(u, v)) T(vmaxu4, __vmaxu4(u, v)) \
	T(vmins2, __vmins2(u, v)) T(vmins4, __vmins4(u, v)) \
	T(vminu2, __vminu2(u, v)) T(vminu4, __vminu4(u, v)) \
	T(vneg2, __vneg2(u)) T(vneg4, __vneg4(u)) \
	T(vnegss2, __vnegss2(u)) T(vnegss4, __vnegss4(u)) \
	T(vsads2, __vsads2(u, v)) T(vsads4, __vsads4(u, v)) \
	T(vsadu2, __vsadu2(u, v)) T(vsadu4, __vsadu4(u, v)) \
	T(vseteq2, __vseteq2(u, v)) T(vseteq4, __vseteq4(u, v)) \
	T(vsetges2, __vsetges2(u, v)) T(vsetgeu4, __vsetgeu4(u, v)) \
	T(vsetgts4, __vsetgts4(u, v)) T(vsetleu2, __vsetleu2(u, v)) \
	T(vsetlts2, __vsetlts2(u, v)) T(vsetne4, __vsetne4(u, v)) \
	T(vsub2, __vsub2(u, v)) T(vsub4, __vsub4(u, v)) \
	T(vsubss2, __vsubss2(u, v)) T(vsubss4, __vsubss4(u, v)) \
	T(vsubus2, __vsubus2(u, v)) T(vsubus4, __vsubus4(u, v))

#define INT_FUNCS(T) \
	T(byte_perm, __byte_perm(u, v, (unsigned)x)) \
	T(funnelshift_l, __funnelshift_l(u, v, (unsigned)x)) \
	T(funnelshift_rc, __funnelshift_rc(u, v, (unsigned)x)) \
	T(brev, __brev(u)) T(clz, __clz(x)) T(ffs, __ffs(x)) \
	T(popc, __popc(u)) T(mulhi, __mulhi(x, y)) T(umulhi, __umulhi(u, v)) \
	T(sad, __sad(x, y, u)) T(usad, __usad(u, v, 7u)) \
	T(ihadd, __hadd(x, y)) T(rhadd, __rhadd(x, y)) \
	T(uhadd, __uhadd(u, v)) T(urhadd, __urhadd(u, v)) \
	T(dp4a, __dp4a(x, y, 5)) T(dp2a_lo, __dp2a_lo(u, v, 9u)) \
	T(dp2a_hi, __dp2a_hi(x, y, -9)) T(vimax3_s32, __vimax3_s32(x, y, 7)) \
	T(vimin_s16x2_relu, __vimin_s16x2_relu(u, v)) \
	T(viaddmax_s32, __viaddmax_s32(x, y, 100)) \
	T(fadd_rd, __fadd_rd(f, g)) T(fmul_ru, __fmul_ru(f, g)) \
	T(fmaf_rz, __fmaf_rz(f, g, f)) T(fdiv_ru, __fdiv_ru(f, g)) \
	T(frcp_rd, __frcp_rd(f)) T(fsqrt_ru, __fsqrt_ru(f)) \
	T(saturatef, __saturatef(f)) T(float2int_rd, __float2int_rd(f)) \
	T(float2uint_ru, __float2uint_ru(f)) T(float2ll_rz, __float2ll_rz(f)) \
	T(ll2float_rd, __ll2float_rd(ll)) T(int2float_ru, __int2float_ru(x)) \
	T(double2float_rz, __double2float_rz((double)f * 1.0000001))

/* a mul and an add with no rounding modifier, which ptxas may fuse into
 * one fma: as the operators write them, and in f32 as inline PTX (nvcc
 * fuses its own) */
#define CONTRACT_FUNCS(T) \
	T(hmul_hadd, __hadd(__hmul(a, b), c)) \
	T(hmul_hsub, __hsub(__hmul(a, b), c)) \
	T(hsub_hmul, __hsub(c, __hmul(a, b))) \
	T(hmul2_hadd2, __hadd2(__hmul2(a2, b2), c2)) \
	T(bhmul_hadd, __hadd(__hmul(p, q), r)) \
	T(hmul_used_twice, __hadd(__hadd(__hmul(a, b), c), __hmul(a, b))) \
	T(fmul_fadd, fmul_fadd(f, g, in_f[k])) \
	T(fmul_fsub, fmul_fsub(f, g, in_f[k]))

#define ALL_FUNCS(T) HALF_FUNCS(T) HALF2_FUNCS(T) BF16_FUNCS(T) \
	CONVERT_FUNCS(T) SIMD_FUNCS(T) INT_FUNCS(T) CONTRACT_FUNCS(T)

__device__ float fmul_fadd(float a, float b, float c)
{
	float m, r;

	asm("mul.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
	asm("add.f32 %0, %1, %2;" : "=f"(r) : "f"(m), "f"(c));
	return r;
}

__device__ float fmul_fsub(float a, float b, float c)
{
	float m, r;

	asm("mul.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
	asm("sub.f32 %0, %1, %2;" : "=f"(r) : "f"(c), "f"(m));
	return r;
}

enum {
#define ENUM(name, expr) F_##name,
	ALL_FUNCS(ENUM)
#undef ENUM
	F_COUNT
};

static const char *const names[] = {
#define NAME(name, expr) #name,
	ALL_FUNCS(NAME)
#undef NAME
};

/* half and bf16 edge values no float input rounds to: the NaNs and
 * infinities, in the lanes whose float is 0 (14-16) */
__device__ unsigned short edge16(int i, int bf)
{
	static const unsigned short h[3] = { 0x7c00, 0x7e00, 0xfc01 };
	static const unsigned short b[3] = { 0x7f80, 0x7fc0, 0xff81 };

	return bf ? b[i - 14] : h[i - 14];
}

__device__ __half half_in(int i)
{
	return i >= 14 && i <= 16 ? __ushort_as_half(edge16(i, 0)) :
	       __float2half(in_f[i]);
}

__device__ __nv_bfloat16 bf16_in(int i)
{
	return i >= 14 && i <= 16 ? __ushort_as_bfloat16(edge16(i, 1)) :
	       __float2bfloat16(in_f[i]);
}

__global__ void run(int fn, unsigned long long *out)
{
	int i = threadIdx.x, j = (i + 11) % N, k = (i + 5) % N;
	__half a = half_in(i), b = half_in(j), c = half_in(k);
	__half2 a2 = __halves2half2(a, half_in((i + 3) % N));
	__half2 b2 = __halves2half2(b, half_in((i + 17) % N));
	__half2 c2 = __halves2half2(c, half_in((i + 23) % N));
	__nv_bfloat16 p = bf16_in(i), q = bf16_in(j), r = bf16_in(k);
	__nv_bfloat162 p2 = __halves2bfloat162(p, bf16_in((i + 3) % N));
	__nv_bfloat162 q2 = __halves2bfloat162(q, bf16_in((i + 17) % N));
	float f = in_f[i], g = in_f[j];
	int x = in_i[i], y = in_i[j];
	unsigned u = (unsigned)in_i[i], v = (unsigned)in_i[j];
	long long ll = (long long)x * 0x10001 * (i & 1 ? -1 : 1);
	unsigned long long res = 0;

	switch (fn) {
#define CASE(name, expr) case F_##name: res = bits(expr); break;
	ALL_FUNCS(CASE)
#undef CASE
	}
	out[i] = res;
}

/* probe_halfmath [FIRST]: the functions from number FIRST on */
int main(int argc, char **argv)
{
	unsigned long long *d, h[N];
	int first = argc > 1 ? atoi(argv[1]) : 0;

	if (cudaMalloc(&d, sizeof(h)) != cudaSuccess) {
		printf("no device\n");
		return 1;
	}
	for (int fn = first; fn < F_COUNT; fn++) {
		run<<<1, N>>>(fn, d);
		if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) !=
		    cudaSuccess) {
			printf("%s: %s\n", names[fn],
			       cudaGetErrorString(cudaGetLastError()));
			return 1;
		}
		printf("%s:", names[fn]);
		for (int i = 0; i < N; i++)
			printf(" %llx", h[i]);
		printf("\n");
	}
	cudaFree(d);
	return 0;
}
