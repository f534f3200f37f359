/* Test kernels for the emulator: the patterns of ground-truth.md Sets A
 * and B plus divergence, partial warps, 8-byte accesses and shuffles. */
#include <cuda_runtime.h>
#define TILE 32
#define ROWS 8

__global__ void naive_transpose(float *out, const float *in, int n)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		out[x * n + y + j] = in[(y + j) * n + x];
}

template <int PAD>
__global__ void tile(float *out, const float *in, int n)
{
	__shared__ float t[TILE][TILE + PAD];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}
template __global__ void tile<0>(float *, const float *, int);
template __global__ void tile<1>(float *, const float *, int);

struct rec { float x, y, z; int id; };

__global__ void aos_soa(float *xs, float *ys, float *zs, int *ids,
			const struct rec *r, int count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count) {
		xs[i] = r[i].x;
		ys[i] = r[i].y;
		zs[i] = r[i].z;
		ids[i] = r[i].id;
	}
}

__global__ void copy4(float4 *out, const float4 *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i];
}

__global__ void reverse(int *d, int n)
{
	extern __shared__ int s[];
	int t = threadIdx.x;
	s[t] = d[t];
	__syncthreads();
	d[t] = s[n - t - 1];
}

__global__ void transpose_any(float *out, const float *in, int rows,
			      int cols)
{
	__shared__ float t[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			t[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = t[threadIdx.x][threadIdx.y + j];
}

__device__ __noinline__ int collatz(int v)
{
	int steps = 0;
	while (v != 1) {
		v = (v & 1) ? 3 * v + 1 : v / 2;
		steps++;
	}
	return steps;
}

__global__ void diverge(int *out, double *dout, const double *din)
{
	int t = threadIdx.x;
	int v = collatz(t + 1);
	v += __shfl_down_sync(0xffffffff, v, 1);
	unsigned b = __ballot_sync(0xffffffff, v & 1);
	out[t] = v + __popc(b);
	dout[t] = sqrt(din[t]) * 2.5 + din[t] / 3.0;
	atomicAdd(&out[64], 1);
}

// integer intrinsics that compile to bfind and redux.sync, and the
// tanh.approx that fast math makes of tanhf (sm_90 PTX)
__global__ void intrinsics(int *out, const int *in, float *fout)
{
	int t = threadIdx.x, v = in[t];
	out[t] = __ffs(v);                        // bfind.shiftamt + arith
	out[32 + t] = 31 - __clz(v);              // clz
	out[64 + t] = __reduce_add_sync(0xffffffff, v);
	out[96 + t] = __reduce_min_sync(0xffffffff, v);
	out[128 + t] = (int)__reduce_max_sync(0xffffffffu, (unsigned)v);
	out[160 + t] = (int)__reduce_or_sync(0xffffffffu, (unsigned)v);
	out[192 + t] = (int)__reduce_xor_sync(0xffffffffu, (unsigned)v);
	float x = (float)v * 0.001f, r;
	asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
	fout[t] = r;
}

// __syncthreads_count/_and/_or: barriers that reduce a predicate over
// the block (bar.red)
__global__ void block_votes(int *out, const int *in)
{
	int t = threadIdx.x;
	int c = __syncthreads_count(in[t] > 3);
	int a = __syncthreads_and(in[t] > -1);
	int o = __syncthreads_or(in[t] > 60);
	out[t] = c * 100 + a * 10 + o;
}

// asynchronous copies to shared memory (cp.async): the pipeline
// primitives, and a copy that zero-fills what src-size leaves out
#include <cuda_pipeline.h>

__global__ void async_copy(int4 *out, const int4 *in)
{
	__shared__ int4 s[32];
	unsigned src = (threadIdx.x % 5) * 4;
	unsigned dst = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);

	if (threadIdx.x < 16) {
		__pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x],
					sizeof(int4));
		__pipeline_commit();
		__pipeline_wait_prior(0);
	} else {
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
			     :: "r"(dst), "l"(&in[threadIdx.x]), "r"(src));
		asm volatile("cp.async.wait_all;\n" ::);
	}
	__syncthreads();
	out[threadIdx.x] = s[31 - threadIdx.x];
}

// PTX breadth: warpSize (WARP_SZ), __nanosleep, __match_any_sync and
// half / bfloat16 arithmetic, scalar and in pairs
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void breadth(int *o, __half *h, __half2 *h2, __nv_bfloat16 *b,
			__nv_bfloat162 *b2)
{
	int t = threadIdx.x;

	__nanosleep(10);
	__nanosleep(o[t] & 1);
	o[t] = __match_any_sync(0xffffffff, t & 3);
	o[32 + t] = warpSize;
	h[t] = __hfma(h[t], h[t], __float2half(1.0f)) - __float2half(0.5f);
	h2[t] = __hadd2(__hmul2(h2[t], h2[t]), h2[t]);
	b[t] = __hmul(b[t], b[t]) + b[t];
	b2[t] = __hmax2(b2[t], __floats2bfloat162_rn(3.0f, -1.0f));
	if (__hlt(h[t], __float2half(2.0f)))
		h[t] = __hneg(h[t]);
}

// device-side malloc and free, and new and delete
__global__ void heap(int *o)
{
	int *p = (int *)malloc(4 * sizeof(int));
	int *q = new int[2];

	p[3] = threadIdx.x;
	q[1] = 100;
	o[threadIdx.x] = p[3] + q[1] + (p != q);
	free(p);
	delete[] q;
}

// calls through pointers: virtual functions and a table of functions,
// different in neighbouring lanes
struct shape {
	__device__ virtual int f(int x) { return x + 1; }
};
struct square : shape {
	__device__ int f(int x) override { return x * 2; }
};
__device__ int sq(int x) { return x * x; }
__device__ int neg(int x) { return -x; }
__device__ int (*fn_table[2])(int) = { sq, neg };

__global__ void indirect(int *o)
{
	shape *b = threadIdx.x & 1 ? new square() : new shape();

	o[threadIdx.x] = b->f(threadIdx.x);
	delete b;
	o[32 + threadIdx.x] = fn_table[threadIdx.x % 2](threadIdx.x);
}

// texture and surface objects: a 4x4 float array read with linear
// filtering (clamped), then written to a surface
__global__ void texsurf(float *o, cudaTextureObject_t t,
			cudaSurfaceObject_t s)
{
	int x = threadIdx.x, y = threadIdx.y;
	float a = tex2D<float>(t, x + 0.5f, y + 0.5f);

	o[y * 4 + x] = a;
	o[16 + y * 4 + x] = tex2D<float>(t, x + 1.0f, y + 0.5f);
	surf2Dwrite(2 * a, s, x * 4, y);
}

// warp operations over groups of lanes named by different member masks
// in one instruction (cooperative groups' labeled_partition)
__global__ void groups(int *o)
{
	int t = threadIdx.x;
	unsigned g = __match_any_sync(0xffffffff, t % 3);

	o[t] = __reduce_max_sync(g, t);
	o[32 + t] = __ballot_sync(g, t & 1);
	o[64 + t] = __all_sync(g, t % 3 == 1);
}

// tensor cores: d = a * b + c for one 16x16x16 tile, a row-major, b
// column-major (f16), c and d f32 row-major, each fragment element
// scaled once by hand as programs do; then tf32 rounding
#include <mma.h>
__global__ void wmma_tile(float *d, const __half *a, const __half *b,
			  const float *c, float *t)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;

	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
	for (int i = 0; i < fc.num_elements; i++)
		fc.x[i] *= 2.0f;
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
	t[threadIdx.x] = wmma::__float_to_tf32(t[threadIdx.x]);
}

// layered and cubemap textures: layer 1 of a 2-layer 4x4 array at
// texel centres, and the centre of each face of a 4x4 cubemap
__global__ void layered_cube(float *o, cudaTextureObject_t lay,
			     cudaTextureObject_t cube)
{
	int x = threadIdx.x, y = threadIdx.y, f = y * 4 + x;
	const float dir[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 },
				  { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };

	o[y * 4 + x] = tex2DLayered<float>(lay, x + 0.5f, y + 0.5f, 1);
	if (f < 6)
		o[16 + f] = texCubemap<float>(cube, dir[f][0], dir[f][1],
					      dir[f][2]);
}

// "staging" that moves nothing between threads: each element
// round-trips through its own dynamic word, the reverse is in the index
__global__ void own_word(int *d, const int *in, int n)
{
	extern __shared__ int s[];
	int t = threadIdx.x;
	s[t] = in[n - t - 1];
	__syncthreads();
	d[t] = s[t];
}

// a texture over linear device memory, fetched by index
__global__ void texfetch(float *o, cudaTextureObject_t t)
{
	o[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
}

// threads past the end return before the barrier: as on a GPU since
// sm_70, they no longer take part in it (whole warps and parts of one)
__global__ void early_return(int *o, int n)
{
	__shared__ int s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	s[threadIdx.x] = i;
	__syncthreads();
	o[i] = s[threadIdx.x] + 1;
}

// paired half comparisons: each half compared on its own (set to 1.0,
// 0xffff masks, both-halves predicates, unordered forms with a NaN)
__global__ void half_pairs(unsigned *o, __half2 a, __half2 b,
			   __nv_bfloat162 c, __nv_bfloat162 d, __half2 n)
{
	__half2 r = __hgt2(a, b);
	__nv_bfloat162 q = __hgt2(c, d);

	o[0] = *(unsigned *)&r;
	r = __heq2(a, b);
	o[1] = *(unsigned *)&r;
	o[2] = __hgt2_mask(a, b);
	o[3] = __hbgt2(a, b);
	o[4] = *(unsigned *)&q;
	o[5] = __hlt2_mask(c, d);
	o[6] = __hbeq2(a, a);
	r = __hltu2(n, b);
	o[7] = *(unsigned *)&r;
	r = __hlt2(n, b);
	o[8] = *(unsigned *)&r;
	o[9] = __hbltu2(n, b);
}

// the toolkit's half and bfloat16 math: inline PTX in cuda_fp16.hpp and
// cuda_bf16.hpp that declares ".reg.b32" in one token and the same
// register names in sibling { } blocks
__global__ void half_math(float *o, __half a, __half2 b, __nv_bfloat16 c,
			  __nv_bfloat162 d)
{
	__half2 r = h2exp(b);
	__nv_bfloat162 q = h2exp(d);

	o[0] = __half2float(hexp(a));
	o[1] = __low2float(r);
	o[2] = __high2float(r);
	o[3] = __bfloat162float(hexp(c));
	o[4] = __half2float(hlog(a));
	o[5] = __half2float(hsqrt(a));
	o[6] = __half2float(hrcp(a));
	o[7] = __half2float(hsin(a));
	o[8] = __half2float(hcos(a));
	o[9] = __half2float(hexp2(a));
	o[10] = __half2float(hexp10(a));
	o[11] = __half2float(hlog2(a));
	o[12] = __bfloat162float(hlog(c));
	o[13] = __bfloat162float(hsqrt(c));
	o[14] = __low2float(q);
	o[15] = __half2float(htanh(a));
}

// the SIMD intrinsics: lop3, dp4a, dp2a, vabsdiff4 with and without
// .add, add/max on .u16x2
__global__ void simd_ops(unsigned *o, unsigned a, unsigned b, unsigned c)
{
	unsigned r;

	o[0] = __vmaxs4(a, b);
	o[1] = __vmins4(a, b);
	o[2] = __vadd4(a, b);
	o[3] = __vsub4(a, b);
	o[4] = __vabsdiffs4(a, b);
	o[5] = __vcmpgts4(a, b);
	o[6] = __dp4a((int)a, (int)b, (int)c);
	o[7] = __dp4a(a, b, c);
	o[8] = __dp2a_lo((int)a, (int)b, (int)c);
	o[9] = __dp2a_hi(a, b, c);
	o[10] = __vmaxu2(a, b);
	o[11] = __vhaddu4(a, b);
	o[12] = __vsads4(a, b);
	o[13] = __vabs4(a);
	o[14] = __vneg2(a);
	o[15] = __vsetgeu4(a, b);
	asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b),
	    "r"(c));
	o[16] = r;
	asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r) : "r"(a), "r"(b),
	    "r"(c));
	o[17] = r;
}

// reads shared memory no thread wrote: half the tile is never stored
__global__ void uninit_shared(float *o, int *io)
{
	__shared__ float s[64];
	__shared__ int t[64];

	if (threadIdx.x < 32) {
		s[threadIdx.x] = 1.0f;
		t[threadIdx.x] = 1;
	}
	__syncthreads();
	o[threadIdx.x] = s[threadIdx.x] + s[63 - threadIdx.x];
	io[threadIdx.x] = t[63 - threadIdx.x];
}
