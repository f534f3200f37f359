// Staged through shared memory: a block copies RUN whole records
// (RUN*fields consecutive floats, coalesced) into dynamic shared memory,
// then writes each field's RUN values (coalesced).  BLOCK threads.
#include "aos_to_soa.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef RUN
#define RUN 256
#endif

static __global__ void aos_staged(float *soa, const float *aos, int count,
			   int fields)
{
	extern __shared__ float stage[];
	size_t first = (size_t)blockIdx.x * RUN;
	int n = count - first < RUN ? (int)(count - first) : RUN;
	const float *src = aos + first * fields;

	for (int k = threadIdx.x; k < n * fields; k += BLOCK)
		stage[k] = src[k];
	__syncthreads();
	for (int f = 0; f < fields; f++)
		for (int i = threadIdx.x; i < n; i += BLOCK)
			soa[(size_t)f * count + first + i] =
				stage[i * fields + f];
}

extern "C" void aos_to_soa(float *soa, const float *aos, int count,
			   int fields, cudaStream_t stream)
{
	unsigned grid = (unsigned)((count + RUN - 1) / RUN);

	aos_staged<<<grid, BLOCK, (size_t)RUN * fields * sizeof(float),
		     stream>>>(soa, aos, count, fields);
}
