// The device's digests against the CPU's: wgrun_digest_blocks
// (harness/runner_kernels.cu) folded with exercise_digest_fold must give
// exercise_digest (exercises/exercises.c) for every length a region can
// have -- shorter than a word, a block and a bit, the performance
// shape's guarded region.  Exits 1 on a difference.
//
//   nvcc -Iharness -Iexercises -o digest_check tests/gpu/digest_check.cu
//        harness/runner_kernels.cu build/libwgcore.a (tests/run-gpu-tests)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "runner_kernels.h"
extern "C" {
#include "exercise.h"
}

static uint64_t device_digest(const unsigned char *d, size_t n)
{
	size_t nb = exercise_digest_blocks(n);
	std::vector<uint64_t> bh(nb ? nb : 1);
	uint64_t *d_bh = NULL;

	if (cudaMalloc(&d_bh, bh.size() * sizeof(uint64_t)) != cudaSuccess ||
	    wgrun_digest_blocks(d, n, EXERCISE_DIGEST_BLOCK, d_bh, 0) !=
	    cudaSuccess ||
	    cudaMemcpy(bh.data(), d_bh, nb * sizeof(uint64_t),
		       cudaMemcpyDeviceToHost) != cudaSuccess) {
		fprintf(stderr, "digest_check: %s\n",
			cudaGetErrorString(cudaGetLastError()));
		exit(2);
	}
	cudaFree(d_bh);
	return exercise_digest_fold(bh.data(), n);
}

int main(void)
{
	const size_t B = EXERCISE_DIGEST_BLOCK;
	const size_t perf = ((size_t)8192 * 8192 + 2 * 4096) * 4;
	const size_t lens[] = { 0, 1, 7, 8, 9, B - 1, B, B + 9, 5 * B + 3,
				perf };
	std::vector<unsigned char> h(perf);
	unsigned char *d = NULL;
	int bad = 0;

	for (size_t i = 0; i < perf; i++)
		h[i] = (unsigned char)exercise_mix64(i);
	if (cudaMalloc(&d, perf) != cudaSuccess ||
	    cudaMemcpy(d, h.data(), perf, cudaMemcpyHostToDevice) !=
	    cudaSuccess) {
		fprintf(stderr, "digest_check: no device memory\n");
		return 2;
	}
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint64_t want = exercise_digest(h.data(), lens[k]);
		uint64_t got = device_digest(d, lens[k]);

		if (got != want) {
			printf("digest of %zu bytes: device %016llx, CPU "
			       "%016llx\n", lens[k], (unsigned long long)got,
			       (unsigned long long)want);
			bad = 1;
		}
	}
	printf("digests: %s\n", bad ? "the device differs" :
	       "the device's equal the CPU's at every length");
	cudaFree(d);
	return bad;
}
