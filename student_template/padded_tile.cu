// Your solution to padded_tile: see exercises/padded_tile/README.md for the
// task and how it is graded.
#include "padded_tile.h"

__global__ void padded_transpose_kernel(float *out, const float *in,
					int rows, int cols)
{
	// TODO: out[c*rows + r] = in[r*cols + c] through a shared-memory tile
	// with no bank conflicts, global reads and writes coalesced.
}

extern "C" void padded_tile_transpose(float *out, const float *in, int rows,
				      int cols, cudaStream_t stream)
{
	// TODO: choose a grid and block that cover every element.
	padded_transpose_kernel<<<1, 32, 0, stream>>>(out, in, rows, cols);
}
