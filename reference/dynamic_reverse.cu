/*
 * Reference kernel of the dynamic_reverse exercise: reverse every row,
 * out[r*cols + c] = in[r*cols + (cols-1-c)], staging each piece of a row in
 * dynamic shared memory (`extern __shared__`, sized at launch).
 *
 * A row is cut into segments of at most SEG elements; one block produces
 * output segment s of row r, which is the mirror image of an input segment
 * of the same row.  The block loads that input segment into shared memory
 * in order (coalesced), and after the barrier writes it out back to front
 * (coalesced again).  Rows wider than one block's shared memory are simply
 * more segments, and the grid is one-dimensional (row x segment), so any
 * shape fits the launch limits.
 *
 * When cols % 4 == 0 (and the buffers are 16-byte aligned) the whole kernel
 * works in int4: segments start on multiples of 4 elements on both sides,
 * each lane loads and stores 16 bytes, and the reversal inside an int4 is
 * done in registers (.w .z .y .x).  Shared accesses are conflict-free in
 * both paths: a warp touches 32 consecutive words (scalar) or 512
 * consecutive bytes (int4), forwards or backwards.
 *
 * The only external symbol is the launcher.
 */
#include <cuda_runtime.h>
#include <stdint.h>

namespace {

/* NT threads, PER elements (int or int4) per thread: SEG = NT * PER. */
template <int NT, int PER>
static __global__ void __launch_bounds__(NT)
reverse_rows_vec4(int4 *__restrict__ out, const int4 *__restrict__ in,
		  int cols4, int segs)
{
	extern __shared__ int4 rev_stage4[];
	constexpr int SEG = NT * PER;
	const int row = blockIdx.x / segs;
	const int seg = blockIdx.x - row * segs;
	const int start = seg * SEG;
	const int len = min(SEG, cols4 - start);
	const int4 *src = in + (size_t)row * cols4 + (cols4 - start - len);
	int4 *dst = out + (size_t)row * cols4 + start;

	int4 v[PER];
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		v[k] = make_int4(0, 0, 0, 0);
		if (i < len)
			v[k] = src[i];
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		if (i < len)
			rev_stage4[i] = v[k];
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		if (i < len) {
			const int4 a = rev_stage4[len - 1 - i];
			v[k] = make_int4(a.w, a.z, a.y, a.x);
		}
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		if (i < len)
			dst[i] = v[k];
	}
}

template <int NT, int PER>
static __global__ void __launch_bounds__(NT)
reverse_rows_scalar(int *__restrict__ out, const int *__restrict__ in,
		    int cols, int segs)
{
	extern __shared__ int rev_stage[];
	constexpr int SEG = NT * PER;
	const int row = blockIdx.x / segs;
	const int seg = blockIdx.x - row * segs;
	const int start = seg * SEG;
	const int len = min(SEG, cols - start);
	const int *src = in + (size_t)row * cols + (cols - start - len);
	int *dst = out + (size_t)row * cols + start;

	int v[PER];
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		v[k] = 0;
		if (i < len)
			v[k] = src[i];
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		if (i < len)
			rev_stage[i] = v[k];
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int i = threadIdx.x + k * NT;
		if (i < len)
			dst[i] = rev_stage[len - 1 - i];
	}
}

/* NT threads per block; PER4 int4 (vector path) or PER ints (scalar path)
 * per thread.  Both paths stay far below the 48 KB of dynamic shared memory
 * a block may use without cudaFuncSetAttribute. */
template <int NT, int PER4, int PER, bool VEC4 = true>
static void reverse_rows_launch(int *out, const int *in, int rows,
				int cols, cudaStream_t stream)
{
	if (rows <= 0 || cols <= 0)
		return;
	const bool vec = VEC4 && cols % 4 == 0 &&
			 (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;
	const int n = vec ? cols / 4 : cols;
	const int seg = NT * (vec ? PER4 : PER);
	const int segs = (n + seg - 1) / seg;
	const int len = n < seg ? n : seg;
	const unsigned blocks = (unsigned)rows * (unsigned)segs;

	if (vec)
		reverse_rows_vec4<NT, PER4>
			<<<blocks, NT, len * sizeof(int4), stream>>>(
				reinterpret_cast<int4 *>(out),
				reinterpret_cast<const int4 *>(in), n, segs);
	else
		reverse_rows_scalar<NT, PER>
			<<<blocks, NT, len * sizeof(int), stream>>>(
				out, in, n, segs);
}

} /* namespace */

extern "C" void wgref_reverse_rows(int *out, const int *in, int rows,
				   int cols, cudaStream_t stream)
{
	/* 256 threads, one int4 or four ints each: 1,024-int segments, 4 KB
	 * of shared memory per block (docs/PERFORMANCE.md has the sweep). */
	reverse_rows_launch<256, 1, 4>(out, in, rows, cols, stream);
}
