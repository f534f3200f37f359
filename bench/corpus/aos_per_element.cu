// One thread per output element: thread t of field f's run writes
// soa[f*count + i] (coalesced stores) from aos[i*fields + f] (a gather:
// loads 4*fields bytes apart).  EPT elements per thread, BLOCK threads.
#include "aos_to_soa.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef EPT
#define EPT 1
#endif

static __global__ void aos_per_element(float *soa, const float *aos, int count,
				int fields)
{
	size_t n = (size_t)count * fields;
	size_t o0 = (size_t)blockIdx.x * BLOCK * EPT + threadIdx.x;

#pragma unroll
	for (int k = 0; k < EPT; k++) {
		size_t o = o0 + (size_t)k * BLOCK;

		if (o < n) {
			size_t f = o / count, i = o % count;
			soa[o] = aos[i * fields + f];
		}
	}
}

extern "C" void aos_to_soa(float *soa, const float *aos, int count,
			   int fields, cudaStream_t stream)
{
	size_t n = (size_t)count * fields;
	unsigned grid = (unsigned)((n + (size_t)BLOCK * EPT - 1) /
				   ((size_t)BLOCK * EPT));

	aos_per_element<<<grid, BLOCK, 0, stream>>>(soa, aos, count, fields);
}
