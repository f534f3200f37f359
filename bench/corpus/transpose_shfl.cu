// Warp-shuffle transpose: each warp moves one 32 x 32 tile through its
// registers, no shared memory.  Lane l loads column l of the tile's 32
// rows (coalesced), rotates its 32 values by l, exchanges them with 32
// __shfl_sync, rotates back and stores row l of the transposed tile
// (coalesced).  The rotations by a lane's own number are five
// conditional fixed rotations, so the arrays stay in registers.  WARPS
// warps (tiles) per block; LB > 0 adds __launch_bounds__(32*WARPS, LB).
#include "coalesced_transpose.h"

#ifndef WARPS
#define WARPS 4
#endif
#ifndef LB
#define LB 0
#endif

/* v[i] = v[(i + by) % 32] */
static __device__ __forceinline__ void rotate(float (&v)[32], int by)
{
#pragma unroll
	for (int b = 1; b < 32; b <<= 1) {
		float t[32];
		bool on = by & b;

#pragma unroll
		for (int i = 0; i < 32; i++)
			t[i] = v[(i + b) & 31];
#pragma unroll
		for (int i = 0; i < 32; i++)
			v[i] = on ? t[i] : v[i];
	}
}

#if LB > 0
static __global__ void __launch_bounds__(32 * WARPS, LB)
#else
static __global__ void
#endif
transpose_shfl(float *out, const float *in, int rows, int cols)
{
	int tx = (cols + 31) / 32, ty = (rows + 31) / 32;
	int tile = blockIdx.x * WARPS + threadIdx.x / 32, l = threadIdx.x % 32;
	float v[32], z[32];

	if (tile >= tx * ty)
		return; /* the whole warp */
	int c0 = tile % tx * 32, r0 = tile / tx * 32;

	/* v[j] = in[r0 + j][c0 + l] */
#pragma unroll
	for (int j = 0; j < 32; j++)
		v[j] = r0 + j < rows && c0 + l < cols ?
		       in[(size_t)(r0 + j) * cols + c0 + l] : 0;
	rotate(v, l);
	/* z[i] = in[r0 + l][c0 + (l - i) % 32] */
#pragma unroll
	for (int i = 0; i < 32; i++)
		z[i] = __shfl_sync(0xffffffffu, v[i], (l - i) & 31);
	/* v[j] = z[(l - j) % 32] = in[r0 + l][c0 + j] */
#pragma unroll
	for (int i = 0; i < 32; i++)
		v[i] = z[(32 - i) & 31];
	rotate(v, (32 - l) & 31);
#pragma unroll
	for (int j = 0; j < 32; j++)
		if (c0 + j < cols && r0 + l < rows)
			out[(size_t)(c0 + j) * rows + r0 + l] = v[j];
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	unsigned tiles = (unsigned)(((cols + 31) / 32) * ((rows + 31) / 32));

	transpose_shfl<<<(tiles + WARPS - 1) / WARPS, 32 * WARPS, 0, stream>>>(
		out, in, rows, cols);
}
