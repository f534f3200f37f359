/*
 * Timing helpers shared by bench/bench.cu (the reference benchmark behind
 * `make bench`) and bench/variants.cu (the tuning sweep that chose the
 * reference kernels' parameters).  Standalone: CUDA runtime only.
 *
 * Timing method: every timed launch is preceded, on the same stream, by an
 * L2 flush that READS a buffer four times the L2 size, so the timed kernel
 * starts with no line of its own data cached and with no dirty lines left
 * to write back (a flush that writes would leave tens of MB of dirty lines
 * whose write-back would be charged to the timed kernel).  Each variant is
 * timed between two events; variants are interleaved round by round so that
 * clock or thermal drift hits all of them alike; the figure is the median.
 */
#ifndef WG_BENCH_COMMON_CUH
#define WG_BENCH_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#define CK(expr)                                                           \
	do {                                                               \
		cudaError_t ck_err_ = (expr);                              \
		if (ck_err_ != cudaSuccess) {                              \
			fprintf(stderr, "bench: %s failed at %s:%d: %s\n", \
				#expr, __FILE__, __LINE__,                 \
				cudaGetErrorString(ck_err_));              \
			exit(2);                                           \
		}                                                          \
	} while (0)

static inline uint32_t bench_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

__global__ void bench_fill_kernel(uint32_t *p, size_t n, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = (seed + i) * 0x9e3779b97f4a7c15ULL;
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdULL;
		x ^= x >> 33;
		x *= 0xc4ceb9fe1a85ec53ULL;
		x ^= x >> 33;
		p[i] = (uint32_t)x;
	}
}

/* Arbitrary 32-bit patterns (NaNs, denormals and all) on the device. */
static inline void bench_fill(void *p, size_t words, uint64_t seed,
			      cudaStream_t s)
{
	bench_fill_kernel<<<1024, 256, 0, s>>>((uint32_t *)p, words, seed);
	CK(cudaGetLastError());
}

__global__ void bench_flush_kernel(const int4 *p, size_t n, int *sink)
{
	int acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		int4 v = p[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678) /* practically never: keeps the loads alive */
		*sink = acc;
}

struct bench_flusher {
	int4 *buf = nullptr;
	int *sink = nullptr;
	size_t n = 0;

	void init(void)
	{
		int dev, l2;
		CK(cudaGetDevice(&dev));
		CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
		size_t bytes = std::max((size_t)4 * l2, (size_t)64 << 20);
		n = bytes / sizeof(int4);
		CK(cudaMalloc(&buf, bytes));
		CK(cudaMalloc(&sink, sizeof(int)));
		CK(cudaMemset(buf, 0x5a, bytes));
	}
	void flush(cudaStream_t s)
	{
		bench_flush_kernel<<<1024, 512, 0, s>>>(buf, n, sink);
		CK(cudaGetLastError());
	}
	void release(void)
	{
		cudaFree(buf);
		cudaFree(sink);
	}
};

struct bench_case {
	std::string name;  /* kernel label */
	std::string shape; /* e.g. "8192x8192" */
	double bytes;      /* read + written */
	std::function<void(cudaStream_t)> run;
	std::vector<float> ms;
	double median = 0;
};

/* Time every case `reps` times (after `warm` untimed runs), interleaved. */
static inline void bench_time(std::vector<bench_case> &cases, int warm,
			      int reps, bench_flusher &fl, cudaStream_t s)
{
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int w = 0; w < warm; w++)
		for (auto &c : cases) {
			fl.flush(s);
			c.run(s);
		}
	CK(cudaStreamSynchronize(s));
	CK(cudaGetLastError());
	for (int r = 0; r < reps; r++)
		for (auto &c : cases) {
			fl.flush(s);
			CK(cudaEventRecord(a, s));
			c.run(s);
			CK(cudaEventRecord(b, s));
			CK(cudaEventSynchronize(b));
			float ms;
			CK(cudaEventElapsedTime(&ms, a, b));
			c.ms.push_back(ms);
		}
	CK(cudaGetLastError());
	for (auto &c : cases) {
		std::vector<float> v = c.ms;
		std::sort(v.begin(), v.end());
		size_t n = v.size();
		c.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
}

static inline double bench_gbs(const bench_case &c)
{
	return c.bytes / (c.median * 1e-3) / 1e9;
}

#endif /* WG_BENCH_COMMON_CUH */
