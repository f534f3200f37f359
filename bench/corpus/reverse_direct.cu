// Row reverse straight from global memory: one thread per element, EPT
// per thread, BLOCK threads; both sides coalesced (a warp reads 32
// consecutive words backwards).  REGS 1 loads all EPT words into a
// per-thread array before storing any; LB > 0 adds
// __launch_bounds__(BLOCK, LB).
#include "dynamic_reverse.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef EPT
#define EPT 1
#endif
#ifndef REGS
#define REGS 0
#endif
#ifndef LB
#define LB 0
#endif

#if LB > 0
static __global__ void __launch_bounds__(BLOCK, LB)
#else
static __global__ void
#endif
reverse_direct(int *out, const int *in, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	size_t i0 = (size_t)blockIdx.x * BLOCK * EPT + threadIdx.x;

#if REGS
	int v[EPT];

#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t i = i0 + (size_t)k * BLOCK;
		size_t r = i / cols, c = i % cols;

		v[k] = i < n ? in[r * cols + (cols - 1 - c)] : 0;
	}
#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t i = i0 + (size_t)k * BLOCK;

		if (i < n)
			out[i] = v[k];
	}
#else
#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t i = i0 + (size_t)k * BLOCK;

		if (i < n) {
			size_t r = i / cols, c = i % cols;
			out[i] = in[r * cols + (cols - 1 - c)];
		}
	}
#endif
}

extern "C" void reverse_rows(int *out, const int *in, int rows, int cols,
			     cudaStream_t stream)
{
	size_t n = (size_t)rows * cols;
	unsigned grid = (unsigned)((n + (size_t)BLOCK * EPT - 1) /
				   ((size_t)BLOCK * EPT));

	reverse_direct<<<grid, BLOCK, 0, stream>>>(out, in, rows, cols);
}
