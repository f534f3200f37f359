// Row reverse in chunks of CHUNK words through dynamic shared memory: a
// block loads one chunk of a row (coalesced), and writes it reversed to
// the mirrored place (coalesced).  BLOCK threads; GRID > 0 caps the
// grid at GRID blocks walking the chunks grid-stride.
#include "dynamic_reverse.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef CHUNK
#define CHUNK 2048
#endif
#ifndef GRID
#define GRID 0
#endif

static __global__ void reverse_chunked(int *out, const int *in, int rows, int cols)
{
	extern __shared__ int buf[];
	size_t per_row = (cols + CHUNK - 1) / CHUNK;

	for (size_t b = blockIdx.x; b < per_row * rows; b += gridDim.x) {
		size_t r = b / per_row;
		int c0 = (int)(b % per_row) * CHUNK;
		int n = cols - c0 < CHUNK ? cols - c0 : CHUNK;
		const int *src = in + r * cols + c0;
		int *dst = out + r * cols + (cols - c0 - n);

		for (int k = threadIdx.x; k < n; k += BLOCK)
			buf[k] = src[k];
		__syncthreads();
		for (int k = threadIdx.x; k < n; k += BLOCK)
			dst[k] = buf[n - 1 - k];
		__syncthreads();
	}
}

extern "C" void reverse_rows(int *out, const int *in, int rows, int cols,
			     cudaStream_t stream)
{
	size_t blocks = (size_t)rows * ((cols + CHUNK - 1) / CHUNK);
	unsigned grid = GRID ? GRID : (unsigned)blocks;

	reverse_chunked<<<grid, BLOCK, CHUNK * sizeof(int), stream>>>(
		out, in, rows, cols);
}
