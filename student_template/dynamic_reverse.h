/*
 * dynamic_reverse -- the interface a student implements.
 *
 * Layout: `in` is a rows x cols matrix of 32-bit ints, row-major and
 * densely packed (element (r, c) at in[r*cols + c]).  The launcher writes
 * to `out` the same matrix with every row reversed:
 *
 *     out[r*cols + c] = in[r*cols + (cols-1-c)]
 *         for 0 <= r < rows, 0 <= c < cols
 *
 * The data must be staged through dynamic shared memory: an
 * `extern __shared__` array whose size is the third launch parameter
 * (kernel<<<grid, block, bytes, stream>>>).  Rows can be wider than one
 * block's shared memory, so a block may handle part of a row.
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
 * past a power of two, rows wider than one block's shared memory, the
 * performance shape); technique: global accesses coalesced AND dynamic
 * shared memory actually used; performance against the reference at
 * 8192 x 8192.
 */
#ifndef DYNAMIC_REVERSE_H
#define DYNAMIC_REVERSE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

void reverse_rows(int *out, const int *in, int rows, int cols,
		  cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
