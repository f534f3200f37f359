// Row reverse straight from global memory: one thread per element, EPT
// per thread, BLOCK threads; both sides coalesced (a warp reads 32
// consecutive words backwards).
#include "dynamic_reverse.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef EPT
#define EPT 1
#endif

static __global__ void reverse_direct(int *out, const int *in, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	size_t i0 = (size_t)blockIdx.x * BLOCK * EPT + threadIdx.x;

#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t i = i0 + (size_t)k * BLOCK;

		if (i < n) {
			size_t r = i / cols, c = i % cols;
			out[i] = in[r * cols + (cols - 1 - c)];
		}
	}
}

extern "C" void reverse_rows(int *out, const int *in, int rows, int cols,
			     cudaStream_t stream)
{
	size_t n = (size_t)rows * cols;
	unsigned grid = (unsigned)((n + (size_t)BLOCK * EPT - 1) /
				   ((size_t)BLOCK * EPT));

	reverse_direct<<<grid, BLOCK, 0, stream>>>(out, in, rows, cols);
}
