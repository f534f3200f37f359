// What one correctness shape costs in CUDA calls alone, without the
// grader: the runner's sequence of calls for every shape 1..64 x 1..64
// with a trivial transpose, three ways -- (a) as the runner did until
// 2026-11-25 (poison copied from the host, blocking copies back), (b) as
// it does now (poison set on the device, copies into pinned memory, three
// waits), (c) only the launch and one wait -- printing microseconds per
// shape.  nvcc -arch=sm_90 -o sweep_cost tests/gpu/sweep_cost.cu
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

int main()
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
	for (int variant = 0; variant < 3; variant++) {
		for (int round = 0; round < 2; round++) {
			double t0 = now_us();
			int count = 0;
			for (int m = 1; m <= 64; m++)
				for (int n = 1; n <= 64; n++, count++) {
					size_t e = (size_t)m * n * 4, reg = e + 2 * G;
					dim3 grid((n + 31) / 32, (m + 31) / 32), blk(32, 32);
					if (variant == 0) {
						memset(h_reg, 0xA5, reg);
						cudaMemcpyAsync(d_reg, h_reg, reg, cudaMemcpyHostToDevice, s);
						cudaStreamSynchronize(s);
					} else if (variant == 1) {
						cudaMemsetAsync(d_reg, 0x5A, G, s);
						cudaMemsetAsync(d_reg + G, 0xA5, e, s);
						cudaMemsetAsync(d_reg + G + e, 0x5A, G, s);
						cudaStreamSynchronize(s);
					}
					transpose<<<grid, blk, 0, s>>>((float *)(d_reg + G), d_in, m, n);
					cudaGetLastError();
					cudaDeviceSynchronize();
					if (variant == 0) {
						cudaMemcpy(h_reg, d_reg, reg, cudaMemcpyDeviceToHost);
						cudaMemcpy(h_check, d_in, e, cudaMemcpyDeviceToHost);
					} else if (variant == 1) {
						cudaMemcpyAsync(h_reg_p, d_reg, reg, cudaMemcpyDeviceToHost, s);
						cudaMemcpyAsync(h_check_p, d_in, e, cudaMemcpyDeviceToHost, s);
						cudaStreamSynchronize(s);
					}
				}
			double us = (now_us() - t0) / count;
			if (round)
				printf("variant %c: %.1f us per shape (%d shapes)\n",
				       'a' + variant, us, count);
		}
	}
	return 0;
}
