// One thread per element on a 1-D grid of BLOCK-thread blocks, EPT
// elements per thread (consecutive threads take consecutive elements of
// `in`): coalesced loads, stores 4*rows bytes apart.
#include "coalesced_transpose.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef EPT
#define EPT 1
#endif

static __global__ void transpose_flat(float *out, const float *in, int rows,
			       int cols)
{
	size_t n = (size_t)rows * cols;
	size_t i0 = (size_t)blockIdx.x * BLOCK * EPT + threadIdx.x;

#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t i = i0 + (size_t)k * BLOCK;

		if (i < n) {
			size_t r = i / cols, c = i % cols;
			out[c * rows + r] = in[i];
		}
	}
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	size_t n = (size_t)rows * cols;
	unsigned grid = (unsigned)((n + (size_t)BLOCK * EPT - 1) /
				   ((size_t)BLOCK * EPT));

	transpose_flat<<<grid, BLOCK, 0, stream>>>(out, in, rows, cols);
}
