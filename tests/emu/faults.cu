/* Kernels with the bugs the emulator must report: out-of-bounds global
 * and shared accesses, a read of shared memory nobody wrote, races
 * between warps, a divergent barrier, an early exit before a barrier, an
 * endless loop, a misaligned access and a trap. */
#include <cuda_runtime.h>

__global__ void oob_write(int *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	d[i] = i;               /* no bounds check: writes past n */
	(void)n;
}

__global__ void oob_shared(int *d, int n)
{
	extern __shared__ int s[];
	int t = threadIdx.x;
	s[t + n] = t;           /* past the dynamic shared memory */
	__syncthreads();
	d[t] = s[t + n];
}

__global__ void uninit_shared(int *d)
{
	__shared__ int s[64];
	int t = threadIdx.x;
	if (t < 32)
		s[t] = t;
	__syncthreads();
	d[t] = s[63 - t];       /* words 32..63 never written */
}

__global__ void race(int *d)
{
	__shared__ int s[64];
	int t = threadIdx.x;
	s[t] = 0;
	__syncthreads();
	s[t] = t;
	/* missing __syncthreads(): warp 1 overwrites what warp 0 read */
	d[t] = s[63 - t];
}

__global__ void divergent_barrier(int *d)
{
	__shared__ int s[64];
	int t = threadIdx.x;
	if (t % 2 == 0) {
		s[t] = t;
		__syncthreads();
	}
	d[t] = t;
}

__global__ void early_exit(int *d, int n)
{
	__shared__ int s[64];
	int t = threadIdx.x;
	if (t >= n)
		return;
	s[t] = d[t];
	__syncthreads();
	d[t] = s[n - 1 - t];
}

__global__ void endless(int *d)
{
	volatile int *v = d;
	while (v[0] == 0)
		;
}

__global__ void misaligned(int *d)
{
	int *p = (int *)((char *)d + 2);
	p[threadIdx.x] = 1;
}

__global__ void trapper(int *d)
{
	if (threadIdx.x == 5)
		__trap();
	d[threadIdx.x] = 1;
}

// device printf and assert (the emulator provides vprintf and
// __assertfail, as the CUDA runtime does on a GPU)
#include <cassert>
#include <cstdio>

__global__ void printer(const int *d, double x, long long q)
{
	if (threadIdx.x < 2)
		printf("t%d d=%d x=%.3f q=%lld c=%c s=%s u=%u h=%x w=%5d|%-3d|"
		       "%*d %% %e\n", threadIdx.x, d[threadIdx.x], x, q, 'A' +
		       (int)threadIdx.x, threadIdx.x ? "one" : "zero",
		       4000000000u, 255, 42, 7, 4, 9, 1.5f);
}

__global__ void asserter(int *d)
{
	assert(threadIdx.x != 5);
	d[threadIdx.x] = 1;
}

/* Warps writing disjoint bytes of one word do not race (shared memory is
 * byte addressed): warp w writes byte w of every word, then halves. */
__global__ void bytes_no_race(int *d)
{
	__shared__ unsigned char c[128];
	__shared__ unsigned short h[64];
	int t = threadIdx.x;
	c[(t % 32) * 4 + t / 32] = (unsigned char)t;
	if (t < 64)
		h[(t % 32) * 2 + t / 32] = (unsigned short)t;
	__syncthreads();
	d[t] = c[t] + (t < 64 ? h[t] : 0);
}

/* Two warps writing the same byte with no barrier between do race. */
__global__ void byte_race(int *d)
{
	__shared__ unsigned char c[32];
	int t = threadIdx.x;
	c[t % 32] = (unsigned char)t;
	__syncthreads();
	d[t] = c[t % 32];
}

/* Every thread storing the same value (a flag) is no race: no order of
 * the stores changes what is read. */
__global__ void same_value(int *d)
{
	__shared__ int flag;
	flag = 0;
	__syncthreads();
	flag = 1;
	__syncthreads();
	d[threadIdx.x] = flag;
}

/* A counter that warps change only atomically, polled with plain reads
 * (simpleAttributes does it): no race. */
__global__ void poll(int *d)
{
	__shared__ unsigned hit;
	if (threadIdx.x == 0)
		hit = 0;
	__syncthreads();
	while (hit < 256)
		atomicAdd(&hit, 1);
	d[threadIdx.x] = 1;
}
