// Tiled transpose through shared memory: a TILE x TILE tile per block,
// TILE x ROWS threads, each thread TILE/ROWS elements; PAD 1 pads the
// tile's rows to TILE+1 words.  LB > 0 adds __launch_bounds__(TILE*ROWS,
// LB).
#include "coalesced_transpose.h"

#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef PAD
#define PAD 1
#endif
#ifndef LB
#define LB 0
#endif

#if LB > 0
static __global__ void __launch_bounds__(TILE * ROWS, LB)
#else
static __global__ void
#endif
transpose_tiled(float *out, const float *in, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + PAD];
	int c = blockIdx.x * TILE + threadIdx.x;
	int r0 = blockIdx.y * TILE;

	for (int j = threadIdx.y; j < TILE; j += ROWS)
		if (r0 + j < rows && c < cols)
			tile[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
	__syncthreads();
	int r = r0 + threadIdx.x;
	int c0 = blockIdx.x * TILE;
	for (int j = threadIdx.y; j < TILE; j += ROWS)
		if (c0 + j < cols && r < rows)
			out[(size_t)(c0 + j) * rows + r] = tile[threadIdx.x][j];
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	dim3 block(TILE, ROWS);
	dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);

	transpose_tiled<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
