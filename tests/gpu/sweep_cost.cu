// What one correctness shape costs in CUDA calls alone, without the
// grader: the runner's sequence of calls for every shape 1..64 x 1..64
// with a trivial transpose, five ways -- (a) as the runner did until
// 2026-11-25 (poison copied from the host, blocking copies back), (b)
// poison set on the device, copies into pinned memory, three waits, (c)
// only the launch and one wait, (d) as (b) with the next shape's poison
// behind the copies (two waits), (e) 64 shapes at a time: their poison,
// one wait, their launches, one wait for the device, their copies, one
// wait, (f) the same 1,024 shapes at a time -- printing microseconds per
// shape.  Run several copies at once to see what processes sharing the
// GPU cost each other (tests/gpu/sweep-contention.sh).
// nvcc -arch=sm_90 -o sweep_cost tests/gpu/sweep_cost.cu
// ./sweep_cost [VARIANTS]   (VARIANTS: letters, e.g. ef; default all)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>

__global__ void transpose(float *out, const float *in, int m, int n)
{
	int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
	if (r < m && c < n)
		out[c * m + r] = in[r * n + c];
}

static double now_us()
{
	using namespace std::chrono;
	return duration<double, std::micro>(
		steady_clock::now().time_since_epoch()).count();
}

static void poison(cudaStream_t s, unsigned char *reg, size_t e, int G)
{
	cudaMemsetAsync(reg, 0x5A, G, s);
	cudaMemsetAsync(reg + G, 0xA5, e, s);
	cudaMemsetAsync(reg + G + e, 0x5A, G, s);
}

static void one_shape(int variant, cudaStream_t s, int m, int n, int G,
		      float *d_in, unsigned char *d_reg, unsigned char *h_reg,
		      unsigned char *h_reg_p, float *h_check,
		      float *h_check_p)
{
	size_t e = (size_t)m * n * 4, reg = e + 2 * G;
	dim3 grid((n + 31) / 32, (m + 31) / 32), blk(32, 32);
	static int poisoned;

	if (variant == 0) {
		memset(h_reg, 0xA5, reg);
		cudaMemcpyAsync(d_reg, h_reg, reg, cudaMemcpyHostToDevice, s);
		cudaStreamSynchronize(s);
	} else if (variant == 1 || (variant == 3 && !poisoned)) {
		poison(s, d_reg, e, G);
		cudaStreamSynchronize(s);
	}
	transpose<<<grid, blk, 0, s>>>((float *)(d_reg + G), d_in, m, n);
	cudaGetLastError();
	cudaDeviceSynchronize();
	if (variant == 0) {
		cudaMemcpy(h_reg, d_reg, reg, cudaMemcpyDeviceToHost);
		cudaMemcpy(h_check, d_in, e, cudaMemcpyDeviceToHost);
	} else if (variant == 1 || variant == 3) {
		cudaMemcpyAsync(h_reg_p, d_reg, reg, cudaMemcpyDeviceToHost, s);
		cudaMemcpyAsync(h_check_p, d_in, e, cudaMemcpyDeviceToHost, s);
		if (variant == 3) /* the next shape's region: this one again */
			poison(s, d_reg, (size_t)64 * 64 * 4, G);
		cudaStreamSynchronize(s);
		poisoned = variant == 3;
	}
}

/* (e), (f): 64 x rows shapes a batch (rows values of m), each its own
 * region of d_big, copied back into pinned h_big; returns the shapes
 * run. */
static int batched(cudaStream_t s, float *d_in, unsigned char *d_big,
		   unsigned char *h_big, int G, int rows)
{
	const size_t slot = 64 * 64 * 4 + 2 * G;
	int count = 0;

	for (int m0 = 1; m0 <= 64; m0 += rows) {
		for (int m = m0; m < m0 + rows; m++)
			for (int n = 1; n <= 64; n++)
				poison(s, d_big + ((m - m0) * 64 + n - 1) *
				       slot, (size_t)m * n * 4, G);
		cudaStreamSynchronize(s);
		for (int m = m0; m < m0 + rows; m++)
			for (int n = 1; n <= 64; n++) {
				dim3 grid((n + 31) / 32, (m + 31) / 32);
				dim3 blk(32, 32);

				transpose<<<grid, blk, 0, s>>>((float *)(d_big +
					((m - m0) * 64 + n - 1) * slot + G),
					d_in, m, n);
				cudaGetLastError();
			}
		cudaDeviceSynchronize();
		for (int m = m0; m < m0 + rows; m++)
			for (int n = 1; n <= 64; n++)
				cudaMemcpyAsync(h_big + ((m - m0) * 64 + n - 1) *
						slot, d_big + ((m - m0) * 64 +
						n - 1) * slot,
						(size_t)m * n * 4 + 2 * G,
						cudaMemcpyDeviceToHost, s);
		cudaStreamSynchronize(s);
		count += 64 * rows;
	}
	return count;
}

int main(int argc, char **argv)
{
	const int G = 64 * 4; // guard bytes
	size_t maxreg = 64 * 64 * 4 + 2 * G;
	float *d_in, *h_check_p;
	unsigned char *d_reg, *h_reg, *h_reg_p;
	cudaStream_t s;
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	cudaMalloc(&d_in, 64 * 64 * 4);
	cudaMalloc(&d_reg, maxreg);
	h_reg = (unsigned char *)malloc(maxreg);
	float *h_check = (float *)malloc(64 * 64 * 4);
	cudaMallocHost(&h_reg_p, maxreg);
	cudaMallocHost(&h_check_p, 64 * 64 * 4);
	unsigned char *d_big, *h_big;
	cudaMalloc(&d_big, 1024 * maxreg);
	cudaMallocHost(&h_big, 1024 * maxreg);
	for (int variant = 0; variant < 6; variant++) {
		/* the variants named in argv[1] ("ef"), or all */
		if (argc > 1 && !strchr(argv[1], 'a' + variant))
			continue;
		for (int round = 0; round < 2; round++) {
			double t0 = now_us();
			int count = 0;
			if (variant >= 4) {
				count = batched(s, d_in, d_big, h_big, G,
						variant == 4 ? 1 : 16);
			} else {
				for (int m = 1; m <= 64; m++)
					for (int n = 1; n <= 64; n++, count++)
						one_shape(variant, s, m, n, G, d_in,
							  d_reg, h_reg, h_reg_p,
							  h_check, h_check_p);
			}
			double us = (now_us() - t0) / count;
			if (round)
				printf("variant %c: %.1f us per shape (%d shapes)\n",
				       'a' + variant, us, count);
		}
	}
	return 0;
}
