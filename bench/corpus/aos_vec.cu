// Vector accesses for three fields: each thread takes VEC consecutive
// records (VEC 4: three float4 loads, VEC 2: three float2 loads of the
// records' 3*VEC floats) and stores VEC consecutive values of each field
// array as one vector.  BLOCK threads; GRID > 0 caps the grid at GRID
// blocks walking the groups grid-stride.  Other field counts, or a count
// not a multiple of VEC, take the same kernel's scalar path: one thread
// per record.
#include "aos_to_soa.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef GRID
#define GRID 0
#endif

static __global__ void aos_vec(float *soa, const float *aos, int count,
			       int fields)
{
	size_t step = (size_t)gridDim.x * BLOCK;

	if (fields != 3 || count % VEC) {
		for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
		     i < (size_t)count; i += step)
			for (int f = 0; f < fields; f++)
				soa[(size_t)f * count + i] =
					aos[i * fields + f];
		return;
	}
	for (size_t g = (size_t)blockIdx.x * BLOCK + threadIdx.x;
	     g < (size_t)count / VEC; g += step) {
#if VEC == 4
		const float4 *src = (const float4 *)aos + 3 * g;
		float4 a = src[0], b = src[1], c = src[2];

		((float4 *)soa)[g] = make_float4(a.x, a.w, b.z, c.y);
		((float4 *)(soa + count))[g] = make_float4(a.y, b.x, b.w, c.z);
		((float4 *)(soa + 2 * (size_t)count))[g] =
			make_float4(a.z, b.y, c.x, c.w);
#elif VEC == 2
		const float2 *src = (const float2 *)aos + 3 * g;
		float2 a = src[0], b = src[1], c = src[2];

		((float2 *)soa)[g] = make_float2(a.x, b.y);
		((float2 *)(soa + count))[g] = make_float2(a.y, c.x);
		((float2 *)(soa + 2 * (size_t)count))[g] =
			make_float2(b.x, c.y);
#else
#error "VEC is 2 or 4"
#endif
	}
}

extern "C" void aos_to_soa(float *soa, const float *aos, int count,
			   int fields, cudaStream_t stream)
{
	unsigned per = fields != 3 || count % VEC ? 1 : VEC;
	unsigned groups = (unsigned)(count / per);
	unsigned grid = GRID ? GRID : (groups + BLOCK - 1) / BLOCK;

	aos_vec<<<grid, BLOCK, 0, stream>>>(soa, aos, count, fields);
}
