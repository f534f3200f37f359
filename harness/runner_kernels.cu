/*
 * The runner's own kernels for the performance phase: fresh input
 * contents for every timed run, comparison of timed outputs with the
 * reference's on the device, and an empty kernel for launch overhead.
 * Kernels have internal linkage; only the wgrun_ entry points are global.
 */
#include "runner_kernels.h"

namespace {

__device__ __forceinline__ unsigned long long mix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

__global__ void fill_kernel(uint32_t *p, size_t n, unsigned long long seed,
			    int as_float)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		unsigned long long r = mix64(seed + i);
		uint32_t v = (uint32_t)r;

		if (as_float)
			v = (uint32_t)(r >> 63) << 31 |
			    (uint32_t)(100 + ((r >> 40) & 63)) << 23 |
			    (uint32_t)(r & 0x7fffff);
		p[i] = v;
	}
}

__global__ void compare_kernel(const uint32_t *a, const uint32_t *b,
			       size_t n, unsigned long long *count)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long bad = 0;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		bad += a[i] != b[i];
	if (bad)
		atomicAdd(count, bad);
}

__global__ void empty_kernel() {}

/* exercise_hash (exercises.c) of each block of `block` bytes, one
 * thread a block; p is 8-byte aligned and a block's length a multiple
 * of 8 but the last's, so the words load as they lie */
__global__ void digest_kernel(const unsigned char *p, size_t n, size_t block,
			      uint64_t *block_hash)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t off = k * block, len, i = 0;
	const unsigned char *b = p + off;
	unsigned long long h = 0xcbf29ce484222325ULL;

	if (off >= n)
		return;
	len = n - off < block ? n - off : block;
	for (; i + 8 <= len; i += 8) {
		h = (h ^ *(const unsigned long long *)(b + i)) *
		    0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	block_hash[k] = h;
}

unsigned grid_for(size_t n)
{
	size_t blocks = (n + 255) / 256;

	return blocks > 132 * 32 ? 132 * 32 : (unsigned)(blocks ? blocks : 1);
}

} // namespace

extern "C" cudaError_t wgrun_fill(uint32_t *p, size_t n, uint64_t seed,
				  int as_float, cudaStream_t stream)
{
	fill_kernel<<<grid_for(n), 256, 0, stream>>>(p, n, seed, as_float);
	return cudaGetLastError();
}

extern "C" cudaError_t wgrun_compare(const uint32_t *a, const uint32_t *b,
				     size_t n, unsigned long long *count,
				     cudaStream_t stream)
{
	compare_kernel<<<grid_for(n), 256, 0, stream>>>(a, b, n, count);
	return cudaGetLastError();
}

extern "C" cudaError_t wgrun_empty(cudaStream_t stream)
{
	empty_kernel<<<1, 32, 0, stream>>>();
	return cudaGetLastError();
}

extern "C" cudaError_t wgrun_digest_blocks(const unsigned char *p, size_t n,
					   size_t block, uint64_t *block_hash,
					   cudaStream_t stream)
{
	size_t blocks;

	if (!block || block % 8)
		return cudaErrorInvalidValue;
	blocks = (n + block - 1) / block;
	if (!blocks)
		return cudaSuccess;
	digest_kernel<<<(unsigned)((blocks + 63) / 64), 64, 0, stream>>>(
		p, n, block, block_hash);
	return cudaGetLastError();
}
