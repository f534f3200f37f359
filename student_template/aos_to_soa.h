/*
 * aos_to_soa -- the interface a student implements.
 *
 * Layout: `aos` is an array of `count` records, each of `fields` floats,
 * densely packed (field f of record i at aos[i*fields + f]).  The launcher
 * writes the structure of arrays to `soa`: one array of `count` floats per
 * field, one after the other:
 *
 *     soa[f*count + i] = aos[i*fields + f]
 *         for 0 <= i < count, 0 <= f < fields
 *
 * Both pointers are device memory that does not overlap; `aos` must be left
 * unchanged.  Elements outside the two count*fields ranges must not be read
 * or written: the grader surrounds the buffers with guard bands.
 *
 * The launcher chooses any launch configuration (grid, block, shared
 * memory) and must enqueue all its work on `stream`.  It need not
 * synchronise, must not use any other stream, and needs no allocation of
 * its own.  It may be called many times, with any 1 <= count, fields.
 *
 * Graded (see README.md): correctness on every shape with
 * 1 <= count, fields <= 64 plus edge shapes (one dimension huge, sizes just
 * past a power of two, records of up to 16,384 fields, the performance
 * shape); technique: global loads AND stores coalesced (sectors per request
 * within 1.25x of ideal); performance against the reference at 2^24
 * records of 3 fields.
 */
#ifndef AOS_TO_SOA_H
#define AOS_TO_SOA_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

void aos_to_soa(float *soa, const float *aos, int count, int fields,
		cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
