/*
 * Device helpers the runner needs (harness/runner_kernels.cu): for its
 * performance phase, and the digests of its correctness phase's large
 * outputs.  Compiled per GPU architecture next to the reference
 * kernels; never called on the emulator backend.
 */
#ifndef RUNNER_KERNELS_H
#define RUNNER_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fill n 32-bit words with values derived from seed (finite floats when
 * as_float, else any int), on stream. */
cudaError_t wgrun_fill(uint32_t *p, size_t n, uint64_t seed, int as_float,
		       cudaStream_t stream);
/* Count the words where a and b differ into *count (device pointer, which
 * the caller zeroes first), on stream. */
cudaError_t wgrun_compare(const uint32_t *a, const uint32_t *b, size_t n,
			  unsigned long long *count, cudaStream_t stream);
/* An empty kernel, to measure launch overhead. */
cudaError_t wgrun_empty(cudaStream_t stream);
/* exercise_hash of each `block` bytes (a multiple of 8) of the n at p
 * (8-byte aligned), the last block shorter, into block_hash (device
 * memory, a word a block), on stream: with EXERCISE_DIGEST_BLOCK, the
 * hashes exercise_digest_fold folds. */
cudaError_t wgrun_digest_blocks(const unsigned char *p, size_t n,
				size_t block, uint64_t *block_hash,
				cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
