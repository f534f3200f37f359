// Your solution to aos_to_soa: see exercises/aos_to_soa/README.md for the
// task and how it is graded.
#include "aos_to_soa.h"

__global__ void aos_to_soa_kernel(float *soa, const float *aos, int count,
				  int fields)
{
	// TODO: soa[f*count + i] = aos[i*fields + f], with both the global
	// reads and the global writes coalesced.
}

extern "C" void aos_to_soa(float *soa, const float *aos, int count,
			   int fields, cudaStream_t stream)
{
	// TODO: choose a grid and block that cover every element.
	aos_to_soa_kernel<<<1, 32, 0, stream>>>(soa, aos, count, fields);
}
