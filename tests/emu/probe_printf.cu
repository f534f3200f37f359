// Device printf and assert, on a GPU and on the emulator: the output of
// printf, its return value, and the error an assert leaves.
// tests/gpu/emu-vs-gpu.sh runs it on both.
#include <cassert>
#include <cstdio>

__global__ void show(const int *d, double x, long long q, int *ret)
{
	int t = threadIdx.x;
	if (t < 3) {
		int r = printf("t%d d=%d x=%.4f q=%lld c=%c s=%s u=%u h=%#x "
			       "w=[%5d|%-3d|%*d] %% e=%e g=%g\n", t, d[t], x, q,
			       'a' + t, t ? "odd" : "zero", 4000000000u, 255,
			       42, 7, 4, t, 1.5f * t, 0.1 * t);
		ret[t] = r;
	}
}

__global__ void check(const int *d)
{
	assert(d[threadIdx.x] < 100);
}

int main()
{
	int h[32], *d, *r, hr[3];
	for (int i = 0; i < 32; i++)
		h[i] = i * 10 - 5;
	cudaMalloc(&d, sizeof(h));
	cudaMalloc(&r, sizeof(hr));
	cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
	show<<<1, 32>>>(d, 3.25, -9876543210ll, r);
	cudaError_t e1 = cudaDeviceSynchronize();
	cudaMemcpy(hr, r, sizeof(hr), cudaMemcpyDeviceToHost);
	printf("printf returned %d %d %d: %s\n", hr[0], hr[1], hr[2],
	       cudaGetErrorName(e1));
	fflush(stdout);
	check<<<1, 32>>>(d);
	cudaError_t e2 = cudaDeviceSynchronize();
	printf("after assert: %s, then %s\n", cudaGetErrorName(e2),
	       cudaGetErrorName(cudaMalloc(&r, 4)));
	return 0;
}
