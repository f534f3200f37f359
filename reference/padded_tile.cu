/*
 * Reference kernel of the padded_tile exercise: the transpose staged
 * through a shared tile whose rows are padded by one word, so that neither
 * the row-wise stores nor the column-wise loads of the tile have a bank
 * conflict.  It is the yardstick students' padded_tile_transpose is timed
 * against.  tile_transpose.cuh has the design: a 64 x 64 tile per block of
 * 512 threads, 8 elements per thread, float4 global accesses where the
 * shape allows (rows and cols multiples of 4), a scalar path otherwise.
 * docs/PERFORMANCE.md has the figures and the tuning sweep behind the
 * choice of tile and block size.
 *
 * The only external symbol is the launcher; students cannot link to it
 * because their header declares padded_tile_transpose, not this name.
 */
#include "tile_transpose.cuh"

extern "C" void wgref_padded_tile_transpose(float *out, const float *in,
					    int rows, int cols,
					    cudaStream_t stream)
{
	tile_transpose_launch<64, 512, TILE_PADDED>(out, in, rows, cols,
						   stream);
}
