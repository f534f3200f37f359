// Row reverse with vector accesses: each thread moves VEC words of a row
// (an int2 or an int4): it loads the VEC words that mirror its output's
// and stores them reversed; both sides coalesced.  BLOCK threads.  A row
// length not a multiple of VEC takes the same kernel's scalar path: one
// thread per word.
#include "dynamic_reverse.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 4
#endif

static __global__ void reverse_vec(int *out, const int *in, int rows, int cols)
{
	size_t g = (size_t)blockIdx.x * BLOCK + threadIdx.x;

	if (cols % VEC) {
		if (g < (size_t)rows * cols) {
			size_t r = g / cols, c = g % cols;
			out[g] = in[r * cols + (cols - 1 - c)];
		}
		return;
	}
	size_t per_row = (size_t)cols / VEC;

	if (g >= per_row * rows)
		return;
	size_t r = g / per_row, cv = g % per_row;
	size_t src = r * cols + cols - (cv + 1) * VEC;
	size_t dst = r * cols + cv * VEC;
#if VEC == 4
	int4 v = *(const int4 *)(in + src);

	*(int4 *)(out + dst) = make_int4(v.w, v.z, v.y, v.x);
#elif VEC == 2
	int2 v = *(const int2 *)(in + src);

	*(int2 *)(out + dst) = make_int2(v.y, v.x);
#else
#error "VEC is 2 or 4"
#endif
}

extern "C" void reverse_rows(int *out, const int *in, int rows, int cols,
			     cudaStream_t stream)
{
	size_t n = (size_t)rows * cols;
	size_t threads = cols % VEC ? n : n / VEC;

	reverse_vec<<<(unsigned)((threads + BLOCK - 1) / BLOCK), BLOCK, 0,
		      stream>>>(out, in, rows, cols);
}
