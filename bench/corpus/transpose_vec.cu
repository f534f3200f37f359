// Tiled transpose with vector loads: a TILE x TILE tile per block,
// (TILE/VEC) x ROWS threads, each loading VEC consecutive floats of an
// input row (a float2 or a float4) into the padded tile; the stores are
// scalar (each warp 32 consecutive floats of an output row), or with
// VST 1 vectors of VEC consecutive output floats gathered from a tile
// column.  Rows or columns not a multiple of VEC take scalar accesses.
#include "coalesced_transpose.h"

#ifndef TILE
#define TILE 32
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ROWS
#define ROWS 32
#endif
#ifndef VST
#define VST 0
#endif

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#else
#error "VEC is 2 or 4"
#endif

#define NT (TILE / VEC * ROWS) /* threads per block */

union vec_u {
	vec_t v;
	float f[VEC];
};

static __global__ void transpose_vec(float *out, const float *in, int rows,
				     int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int t = threadIdx.y * (TILE / VEC) + threadIdx.x;
	int c = blockIdx.x * TILE + threadIdx.x * VEC;
	int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;

	for (int j = threadIdx.y; j < TILE && r0 + j < rows; j += ROWS) {
		const float *src = in + (size_t)(r0 + j) * cols + c;
		union vec_u u;

		if (cols % VEC == 0 && c + VEC <= cols)
			u.v = *(const vec_t *)src;
		else
			for (int k = 0; k < VEC; k++)
				u.f[k] = c + k < cols ? src[k] : 0;
#pragma unroll
		for (int k = 0; k < VEC; k++)
			tile[j][threadIdx.x * VEC + k] = u.f[k];
	}
	__syncthreads();
#if VST
	int x = t % (TILE / VEC) * VEC, r = r0 + x;

	for (int j = t / (TILE / VEC); j < TILE && c0 + j < cols; j += ROWS) {
		float *dst = out + (size_t)(c0 + j) * rows + r;
		union vec_u u;

#pragma unroll
		for (int k = 0; k < VEC; k++)
			u.f[k] = tile[x + k][j];
		if (rows % VEC == 0 && r + VEC <= rows)
			*(vec_t *)dst = u.v;
		else
			for (int k = 0; k < VEC && r + k < rows; k++)
				dst[k] = u.f[k];
	}
#else
	int x = t % TILE, r = r0 + x;

	for (int j = t / TILE; j < TILE; j += NT / TILE)
		if (c0 + j < cols && r < rows)
			out[(size_t)(c0 + j) * rows + r] = tile[x][j];
#endif
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	dim3 block(TILE / VEC, ROWS);
	dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);

	transpose_vec<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
