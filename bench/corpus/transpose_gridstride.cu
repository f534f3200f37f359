// Tiled, padded transpose with a grid capped at GRID blocks of 32 x 8
// threads, each block walking the tiles grid-stride.
#include "coalesced_transpose.h"

#ifndef GRID
#define GRID 264
#endif

static __global__ void transpose_stride(float *out, const float *in, int rows,
				 int cols)
{
	__shared__ float tile[32][33];
	int tx = (cols + 31) / 32, ty = (rows + 31) / 32;

	for (int t = blockIdx.x; t < tx * ty; t += gridDim.x) {
		int c0 = t % tx * 32, r0 = t / tx * 32;
		int c = c0 + threadIdx.x;

		for (int j = threadIdx.y; j < 32; j += 8)
			if (r0 + j < rows && c < cols)
				tile[j][threadIdx.x] =
					in[(size_t)(r0 + j) * cols + c];
		__syncthreads();
		int r = r0 + threadIdx.x;
		for (int j = threadIdx.y; j < 32; j += 8)
			if (c0 + j < cols && r < rows)
				out[(size_t)(c0 + j) * rows + r] =
					tile[threadIdx.x][j];
		__syncthreads();
	}
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	transpose_stride<<<GRID, dim3(32, 8), 0, stream>>>(out, in, rows,
							   cols);
}
