// Tiled, padded transpose with a grid capped at GRID blocks of TILE x
// ROWS threads (default 32 x 8), each block walking the TILE x TILE
// tiles grid-stride.
#include "coalesced_transpose.h"

#ifndef GRID
#define GRID 264
#endif
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif

static __global__ void transpose_stride(float *out, const float *in, int rows,
				 int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int tx = (cols + TILE - 1) / TILE, ty = (rows + TILE - 1) / TILE;

	for (int t = blockIdx.x; t < tx * ty; t += gridDim.x) {
		int c0 = t % tx * TILE, r0 = t / tx * TILE;
		int c = c0 + threadIdx.x;

		for (int j = threadIdx.y; j < TILE; j += ROWS)
			if (r0 + j < rows && c < cols)
				tile[j][threadIdx.x] =
					in[(size_t)(r0 + j) * cols + c];
		__syncthreads();
		int r = r0 + threadIdx.x;
		for (int j = threadIdx.y; j < TILE; j += ROWS)
			if (c0 + j < cols && r < rows)
				out[(size_t)(c0 + j) * rows + r] =
					tile[threadIdx.x][j];
		__syncthreads();
	}
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	transpose_stride<<<GRID, dim3(TILE, ROWS), 0, stream>>>(out, in, rows,
							   cols);
}
