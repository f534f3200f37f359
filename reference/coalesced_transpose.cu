/*
 * Reference kernel of the coalesced_transpose exercise: both global sides
 * coalesced by staging a tile in shared memory.  Unlike the padded_tile
 * reference it keeps the tile unpadded and swizzles it instead (column c of
 * tile row r lives at c ^ (r % 32)), which is just as free of bank
 * conflicts and wastes no shared memory; students may use either technique.
 * tile_transpose.cuh has the design: a 64 x 64 tile per block of 512
 * threads, 8 elements per thread, float4 global accesses where the shape
 * allows (rows and cols multiples of 4), a scalar path otherwise.
 * docs/PERFORMANCE.md has the figures and the tuning sweep.
 *
 * The only external symbol is the launcher (C linkage, prefixed wgref_ so
 * that student code, which sees only its exercise header, cannot call it).
 */
#include "tile_transpose.cuh"

extern "C" void wgref_coalesced_transpose(float *out, const float *in,
					  int rows, int cols,
					  cudaStream_t stream)
{
	tile_transpose_launch<64, 512, TILE_SWIZZLED>(out, in, rows, cols,
						     stream);
}
