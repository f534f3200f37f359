// The textbook naive transposes: a BX x BY block per BX x BY patch of
// the input.  WRITES 0: threads of a warp read consecutive elements of a
// row (coalesced loads, stores 4*rows bytes apart); WRITES 1: the same
// threads write consecutive elements of an output row (coalesced
// stores, strided loads).
#include "coalesced_transpose.h"

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
#ifndef WRITES
#define WRITES 0
#endif

static __global__ void transpose_naive(float *out, const float *in, int rows,
				int cols)
{
#if WRITES
	int r = blockIdx.x * BX + threadIdx.x; /* output column */
	int c = blockIdx.y * BY + threadIdx.y;
#else
	int c = blockIdx.x * BX + threadIdx.x;
	int r = blockIdx.y * BY + threadIdx.y;
#endif
	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" void coalesced_transpose(float *out, const float *in, int rows,
				    int cols, cudaStream_t stream)
{
	dim3 block(BX, BY);
#if WRITES
	dim3 grid((rows + BX - 1) / BX, (cols + BY - 1) / BY);
#else
	dim3 grid((cols + BX - 1) / BX, (rows + BY - 1) / BY);
#endif
	transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
}
