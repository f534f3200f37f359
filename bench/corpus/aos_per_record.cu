// One thread per record: each thread reads its record's fields (loads
// 4*fields bytes apart across a warp) and writes field f of its record
// to array f (coalesced stores).  GRID > 0 caps the grid at GRID blocks
// walking the records grid-stride; RPT > 1 sizes the grid for RPT
// records per thread, taken grid-stride.
#include "aos_to_soa.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef GRID
#define GRID 0
#endif
#ifndef RPT
#define RPT 1
#endif

static __global__ void aos_per_record(float *soa, const float *aos, int count,
			       int fields)
{
	for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
	     i < (size_t)count; i += (size_t)gridDim.x * BLOCK)
		for (int f = 0; f < fields; f++)
			soa[(size_t)f * count + i] = aos[i * fields + f];
}

extern "C" void aos_to_soa(float *soa, const float *aos, int count,
			   int fields, cudaStream_t stream)
{
	unsigned grid = GRID ? GRID :
		(unsigned)((count + BLOCK * RPT - 1) / (BLOCK * RPT));

	aos_per_record<<<grid, BLOCK, 0, stream>>>(soa, aos, count, fields);
}
