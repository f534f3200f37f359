/*
 * coalesced_transpose -- the interface a student implements.
 *
 * Layout: `in` is a rows x cols matrix of floats, row-major and densely
 * packed (element (r, c) at in[r*cols + c]).  The launcher writes its
 * transpose, a cols x rows matrix, to `out`:
 *
 *     out[c*rows + r] = in[r*cols + c]   for 0 <= r < rows, 0 <= c < cols
 *
 * Both pointers are device memory that does not overlap; `in` must be left
 * unchanged.  Elements outside the two rows*cols ranges must not be read or
 * written: the grader surrounds the buffers with guard bands.
 *
 * The launcher chooses any launch configuration (grid, block, shared
 * memory) and must enqueue all its work on `stream`.  It need not
 * synchronise, must not use any other stream, and needs no allocation of
 * its own.  It may be called many times, with any 1 <= rows, cols.
 *
 * Graded (see README.md): correctness on every shape with
 * 1 <= rows, cols <= 64 plus edge shapes (one dimension huge, sizes just
 * past a power of two, the performance shape); technique: global loads AND
 * stores coalesced (sectors per request within 1.25x of ideal); performance
 * against the reference at 8192 x 8192.
 */
#ifndef COALESCED_TRANSPOSE_H
#define COALESCED_TRANSPOSE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

void coalesced_transpose(float *out, const float *in, int rows, int cols,
			 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
