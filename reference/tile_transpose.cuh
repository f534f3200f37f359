/*
 * Tiled transpose shared by the reference kernels (coalesced_transpose,
 * padded_tile and the wide-record path of aos_to_soa).  Everything here has
 * internal linkage, so each reference object still exports only its
 * launcher.
 *
 * A block moves one T x T tile: it reads the tile row by row from `in`,
 * stages it in shared memory and writes it, transposed, row by row to `out`,
 * so both global sides are coalesced.  Two shared layouts keep every shared
 * access free of bank conflicts:
 *   TILE_PADDED    row stride T + 1 words (the classic padding);
 *   TILE_SWIZZLED  row stride T words, column c of row r stored at
 *                  c ^ (r % 32) (an XOR swizzle, no wasted words).
 * Two access paths:
 *   vec4    rows % 4 == 0, cols % 4 == 0 and 16-byte aligned buffers: every
 *           thread moves whole float4s.  A warp covers 4 rows x 32 columns
 *           (8 lanes of 16 bytes per row: 16 sectors per request, all of
 *           them full), which is also the lane arrangement that makes the
 *           4-byte shared accesses conflict-free for both layouts: for a
 *           fixed vector component the 32 lanes fall in 32 distinct banks.
 *   scalar  any shape: a warp covers 32 consecutive columns of one row
 *           (4 sectors per request when the row is 32-byte aligned).
 * Each thread first issues all its global loads into registers (T*T/NT
 * elements, several loads in flight), then stores them to the tile; after
 * the barrier it reads its output values back and issues all its stores.
 * The grid is one-dimensional (tile index, column tiles fastest), so no
 * shape runs into the 65,535 limit of gridDim.y.
 */
#ifndef WGREF_TILE_TRANSPOSE_CUH
#define WGREF_TILE_TRANSPOSE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace {

enum { TILE_PADDED = 0, TILE_SWIZZLED = 1 };

template <int T, int LAYOUT>
struct tile_layout {
	static_assert(T % 32 == 0, "tile side must be a multiple of 32");
	static constexpr int words =
		LAYOUT == TILE_PADDED ? T * (T + 1) : T * T;

	static __device__ __forceinline__ int at(int r, int c)
	{
		if (LAYOUT == TILE_PADDED)
			return r * (T + 1) + c;
		return r * T + (c ^ (r & 31));
	}
};

template <int T, int NT, int LAYOUT>
static __global__ void __launch_bounds__(NT)
tile_transpose_vec4(float *__restrict__ out, const float *__restrict__ in,
		    int rows, int cols, int tiles_c)
{
	typedef tile_layout<T, LAYOUT> L;
	constexpr int GROUPS = T / 32;          /* 32-column groups per row */
	constexpr int UNITS = (T / 4) * GROUPS; /* 4-row x 32-column pieces */
	constexpr int WARPS = NT / 32;
	constexpr int PER = UNITS / WARPS;      /* pieces per warp */
	static_assert(NT % 32 == 0 && UNITS % WARPS == 0, "bad block size");

	__shared__ float tile[L::words];

	const int tr = blockIdx.x / tiles_c;
	const int tc = blockIdx.x - tr * tiles_c;
	const int r0 = tr * T, c0 = tc * T;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	const int li = lane & 7;  /* float4 within the 32-column group */
	const int lj = lane >> 3; /* row within the 4-row piece */

	float4 v[PER];
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int r = (u / GROUPS) * 4 + lj;
		const int c = (u % GROUPS) * 32 + li * 4;
		v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
		if (r0 + r < rows && c0 + c < cols)
			v[k] = *reinterpret_cast<const float4 *>(
				in + (size_t)(r0 + r) * cols + (c0 + c));
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int r = (u / GROUPS) * 4 + lj;
		const int c = (u % GROUPS) * 32 + li * 4;
		tile[L::at(r, c + 0)] = v[k].x;
		tile[L::at(r, c + 1)] = v[k].y;
		tile[L::at(r, c + 2)] = v[k].z;
		tile[L::at(r, c + 3)] = v[k].w;
	}
	__syncthreads();
	/* Output piece: 4 output rows (input columns oc) x 32 output columns
	 * (input rows orr .. orr+3 per lane). */
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int oc = (u / GROUPS) * 4 + lj;
		const int orr = (u % GROUPS) * 32 + li * 4;
		v[k].x = tile[L::at(orr + 0, oc)];
		v[k].y = tile[L::at(orr + 1, oc)];
		v[k].z = tile[L::at(orr + 2, oc)];
		v[k].w = tile[L::at(orr + 3, oc)];
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int oc = (u / GROUPS) * 4 + lj;
		const int orr = (u % GROUPS) * 32 + li * 4;
		if (c0 + oc < cols && r0 + orr < rows)
			*reinterpret_cast<float4 *>(
				out + (size_t)(c0 + oc) * rows + (r0 + orr)) =
				v[k];
	}
}

template <int T, int NT, int LAYOUT>
static __global__ void __launch_bounds__(NT)
tile_transpose_scalar(float *__restrict__ out, const float *__restrict__ in,
		      int rows, int cols, int tiles_c)
{
	typedef tile_layout<T, LAYOUT> L;
	constexpr int GROUPS = T / 32;
	constexpr int UNITS = T * GROUPS; /* 1-row x 32-column pieces */
	constexpr int WARPS = NT / 32;
	constexpr int PER = UNITS / WARPS;
	static_assert(NT % 32 == 0 && UNITS % WARPS == 0, "bad block size");

	__shared__ float tile[L::words];

	const int tr = blockIdx.x / tiles_c;
	const int tc = blockIdx.x - tr * tiles_c;
	const int r0 = tr * T, c0 = tc * T;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

	float v[PER];
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int r = u / GROUPS;
		const int c = (u % GROUPS) * 32 + lane;
		v[k] = 0.f;
		if (r0 + r < rows && c0 + c < cols)
			v[k] = in[(size_t)(r0 + r) * cols + (c0 + c)];
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		tile[L::at(u / GROUPS, (u % GROUPS) * 32 + lane)] = v[k];
	}
	__syncthreads();
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		v[k] = tile[L::at((u % GROUPS) * 32 + lane, u / GROUPS)];
	}
#pragma unroll
	for (int k = 0; k < PER; k++) {
		const int u = warp + k * WARPS;
		const int oc = u / GROUPS;
		const int orr = (u % GROUPS) * 32 + lane;
		if (c0 + oc < cols && r0 + orr < rows)
			out[(size_t)(c0 + oc) * rows + (r0 + orr)] = v[k];
	}
}

/* out (cols x rows) = transpose of in (rows x cols), enqueued on `stream`.
 * VEC4 = false forces the scalar path (for benchmarking it alone). */
template <int T, int NT, int LAYOUT, bool VEC4 = true>
static void tile_transpose_launch(float *out, const float *in, int rows,
				  int cols, cudaStream_t stream)
{
	if (rows <= 0 || cols <= 0)
		return;
	const int tiles_r = (rows + T - 1) / T;
	const int tiles_c = (cols + T - 1) / T;
	const unsigned blocks = (unsigned)tiles_r * (unsigned)tiles_c;
	const bool vec = VEC4 && rows % 4 == 0 && cols % 4 == 0 &&
			 (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;

	if (vec)
		tile_transpose_vec4<T, NT, LAYOUT>
			<<<blocks, NT, 0, stream>>>(out, in, rows, cols,
						    tiles_c);
	else
		tile_transpose_scalar<T, NT, LAYOUT>
			<<<blocks, NT, 0, stream>>>(out, in, rows, cols,
						    tiles_c);
}

} /* namespace */

#endif /* WGREF_TILE_TRANSPOSE_CUH */
