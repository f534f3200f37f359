/*
 * The special-function unit of the GPU it runs on, for the emulator
 * (harness/emu/vm/mufu_model.h, docs/CONFORMANCE.md "The special-function
 * unit"):
 *
 *   mufu_tables OUTDIR
 *
 * 1. writes the tables the model reads, each the GPU's results of one
 *    approximate form over one slice of inputs, as the results' bits,
 *    little endian, in first differences (entry k minus entry k-1, mod
 *    2^32, so that they compress): OUTDIR/rcp.bin (1.m, 2^23 entries),
 *    rsqrt.bin and sqrt.bin (1.m then 2 * 1.m, 2^24), ex2p.bin and
 *    ex2n.bin (k / 2^23 and -k / 2^23, 2^23 each), lg2.bin and lg2h.bin
 *    (1.m and 1.m / 2, 2^23 each), rcp64.bin (rcp.approx.ftz.f64's upper
 *    words for the upper words 1.m of 2^20 mantissas);
 * 2. checks the model, on these tables, against the GPU on every one of
 *    the 2^32 inputs of each form (.ftz and not; for f64 every upper
 *    word, with a lower word that varies) and prints, per form, how many
 *    differ, by the input's sign and exponent, with the first few.
 *
 * Then div.approx and div.full against a times the reciprocal, the
 * dividend drawn from the divisor.
 *
 * Exit status 0 when every form but div.full agrees everywhere.
 */
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#define MUFU_FN static __host__ __device__ inline
#include "../../harness/emu/vm/mufu_model.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
	exit(2); } } while (0)

enum form { RCP, RSQ, SQRT, EX2, LG2, RCP_N, RSQ_N, SQRT_N, EX2_N, LG2_N,
	    RCP64, DIVA, DIVA_N, DIVF, DIVF_N, NFORMS };
static const char *names[NFORMS] = {
	"rcp.approx.ftz.f32", "rsqrt.approx.ftz.f32", "sqrt.approx.ftz.f32",
	"ex2.approx.ftz.f32", "lg2.approx.ftz.f32", "rcp.approx.f32",
	"rsqrt.approx.f32", "sqrt.approx.f32", "ex2.approx.f32",
	"lg2.approx.f32", "rcp.approx.ftz.f64", "div.approx.ftz.f32",
	"div.approx.f32", "div.full.ftz.f32 (as div.approx)",
	"div.full.f32 (as div.approx)" };
/* the tables: what each holds is the input of entry k (slice) */
enum tab { T_RCP, T_RSQ, T_SQRT, T_EX2P, T_EX2N, T_LG2, T_LG2H, T_RCP64,
	   NTABS };
static const char *tab_names[NTABS] = {
	"rcp", "rsqrt", "sqrt", "ex2p", "ex2n", "lg2", "lg2h", "rcp64" };
static const uint32_t tab_sizes[NTABS] = {
	1u << 23, 1u << 24, 1u << 24, 1u << 23, 1u << 23, 1u << 23, 1u << 23,
	1u << 20 };
struct tables { const uint32_t *t[NTABS]; };

__device__ uint32_t gpu(int f, uint32_t x)
{
	uint32_t r;

	switch (f) {
	case RCP: asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case RSQ: asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case SQRT: asm volatile("sqrt.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case EX2: asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case LG2: asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case RCP_N: asm volatile("rcp.approx.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case RSQ_N: asm volatile("rsqrt.approx.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case SQRT_N: asm volatile("sqrt.approx.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	case EX2_N: asm volatile("ex2.approx.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	default: asm volatile("lg2.approx.f32 %0, %1;" : "=r"(r) : "r"(x)); break;
	}
	return r;
}

__device__ uint32_t model(int f, const tables &t, uint32_t x)
{
	const uint32_t *const *T = t.t;

	switch (f) {
	case RCP: return mufu_rcp(T[T_RCP], x);
	case RSQ: return mufu_root(T[T_RSQ], 0, x);
	case SQRT: return mufu_root(T[T_SQRT], 1, x);
	case EX2: return mufu_ex2(T[T_EX2P], T[T_EX2N], x);
	case LG2: return mufu_lg2(T[T_LG2], T[T_LG2H], x);
	case RCP_N: return mufu_rcp_full(T[T_RCP], x);
	case RSQ_N: return mufu_root_full(T[T_RSQ], 0, x);
	case SQRT_N: return mufu_root_full(T[T_SQRT], 1, x);
	case EX2_N: return mufu_ex2_full(T[T_EX2P], T[T_EX2N], x);
	default: return mufu_lg2_full(T[T_LG2], T[T_LG2H], x);
	}
}

/* rcp.approx.ftz.f64 of upper word x, the lower word a hash of it (which
 * the model says does not count), against the model: 0 when alike */
__device__ int rcp64_differs(const tables &t, uint32_t x, uint32_t *g,
			     uint32_t *m)
{
	uint64_t in = (uint64_t)x << 32 | (x * 2654435761u ^ 0x5bd1e995u), r;
	uint64_t want = mufu_rcp64h(t.t[T_RCP64], in);
	double d = __longlong_as_double((long long)in), q;

	asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(q) : "d"(d));
	r = (uint64_t)__double_as_longlong(q);
	*g = (uint32_t)(r >> 32) ^ (uint32_t)r;
	*m = (uint32_t)(want >> 32);
	return r != want;
}

/* a division's dividend for divisor x: another f32 drawn from x */
__device__ uint32_t dividend(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ x >> 16;
}

__device__ uint32_t gpu_div(int f, uint32_t a, uint32_t b)
{
	uint32_t r;

	switch (f) {
	case DIVA: asm volatile("div.approx.ftz.f32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); break;
	case DIVA_N: asm volatile("div.approx.f32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); break;
	case DIVF: asm volatile("div.full.ftz.f32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); break;
	default: asm volatile("div.full.f32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); break;
	}
	return r;
}

/* table T's entry k: the GPU's result for the slice's k-th input */
__device__ uint32_t entry(int T, uint32_t k)
{
	uint32_t r;
	float x;
	double d, q;

	switch (T) {
	case T_RCP: return gpu(RCP, 0x3f800000u + k);
	case T_RSQ: return gpu(RSQ, 0x3f800000u + k);	/* then 2 * 1.m */
	case T_SQRT: return gpu(SQRT, 0x3f800000u + k);
	case T_EX2P: case T_EX2N:
		x = (float)k * 0x1p-23f;
		return gpu(EX2, __float_as_uint(T == T_EX2P ? x : -x));
	case T_LG2: return gpu(LG2, 0x3f800000u + k);
	case T_LG2H: return gpu(LG2, 0x3f000000u + k);
	default:
		d = __longlong_as_double((long long)(0x3ff00000ull + k) << 32);
		asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(q) : "d"(d));
		r = (uint32_t)((uint64_t)__double_as_longlong(q) >> 32);
		return r;
	}
}

__global__ void dump(int T, uint32_t n, uint32_t *out)
{
	for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
	     k += gridDim.x * blockDim.x)
		out[k] = entry(T, k);
}

#define EXAMPLES 16
struct verdict {
	unsigned long long by_exp[512];	/* sign and exponent */
	unsigned int n_ex;
	uint32_t ex[EXAMPLES][3];
};

__global__ void check(int f, tables t, verdict *v)
{
	uint64_t step = (uint64_t)gridDim.x * blockDim.x;

	for (uint64_t i = blockIdx.x * blockDim.x + threadIdx.x;
	     i < (1ull << 32); i += step) {
		uint32_t x = (uint32_t)i, g, m;

		if (f == RCP64) {
			if (!rcp64_differs(t, x, &g, &m))
				continue;
		} else if (f >= DIVA) {
			uint32_t a = dividend(x);

			g = gpu_div(f, a, x);
			m = mufu_div(t.t[T_RCP], f == DIVA || f == DIVF, a, x);
			if (g == m)
				continue;
		} else if ((g = gpu(f, x)) == (m = model(f, t, x))) {
			continue;
		}
		atomicAdd(&v->by_exp[x >> 23], 1ull);
		unsigned slot = atomicAdd(&v->n_ex, 1u);
		if (slot < EXAMPLES) {
			v->ex[slot][0] = x;
			v->ex[slot][1] = g;
			v->ex[slot][2] = m;
		}
	}
}

static uint32_t *table(int T, uint32_t n, const char *dir, const char *name)
{
	uint32_t *d;
	std::vector<uint32_t> h(n);
	char path[4096];

	CK(cudaMalloc(&d, n * sizeof(uint32_t)));
	dump<<<1024, 256>>>(T, n, d);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(h.data(), d, n * sizeof(uint32_t),
		      cudaMemcpyDeviceToHost));
	for (uint32_t k = n - 1; k > 0; k--)
		h[k] -= h[k - 1];
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	FILE *o = fopen(path, "wb");
	if (!o || fwrite(h.data(), sizeof(uint32_t), n, o) != n ||
	    fclose(o)) {
		fprintf(stderr, "mufu_tables: cannot write %s\n", path);
		exit(2);
	}
	return d;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	tables t;
	verdict *v;
	int bad = 0;

	for (int T = 0; T < NTABS; T++)
		t.t[T] = table(T, tab_sizes[T], dir, tab_names[T]);
	CK(cudaMallocManaged(&v, sizeof(*v)));
	for (int f = 0; f < NFORMS; f++) {
		unsigned long long total = 0;

		memset(v, 0, sizeof(*v));
		check<<<2048, 256>>>(f, t, v);
		CK(cudaDeviceSynchronize());
		for (int e = 0; e < 512; e++)
			total += v->by_exp[e];
		printf("%-22s %llu of 2^32 differ\n", names[f], total);
		if (total && f < DIVF)
			bad = 1;
		for (int e = 0; e < 512; e++)
			if (v->by_exp[e])
				printf("  %c exponent field %3d: %llu\n",
				       e & 256 ? '-' : '+', e & 255,
				       v->by_exp[e]);
		for (unsigned k = 0; k < v->n_ex && k < EXAMPLES; k++)
			printf("  x %08x gpu %08x model %08x\n", v->ex[k][0],
			       v->ex[k][1], v->ex[k][2]);
	}
	return bad;
}
